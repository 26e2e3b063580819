"""EGPTSSampler from OptunaHub on a 2-D quadratic.

Run from the folder above this one (``hub/`` in the egp-samplers repository):
    python egp_ts/example.py
Once the package is in the OptunaHub registry, ``optunahub.load_module("samplers/egp_ts")`` loads it
from there instead.
"""

from __future__ import annotations

import os

import optuna
import optunahub


def objective(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", -5.0, 5.0)
    y = trial.suggest_float("y", -5.0, 5.0)
    return (x - 1.0) ** 2 + (y + 2.0) ** 2


if __name__ == "__main__":
    registry_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    module = optunahub.load_local_module(package="egp_ts", registry_root=registry_root)
    study = optuna.create_study(sampler=module.EGPTSSampler(seed=0))
    study.optimize(objective, n_trials=30)
    print(f"best value {study.best_value:.5f} at {study.best_params}")
