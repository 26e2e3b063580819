"""EGPTSSampler from OptunaHub on a 2-D quadratic.

Run from any folder:  python path/to/samplers/egp_ts/example.py
The package is loaded from the folder that holds this file, laid out as in the OptunaHub registry
(``<registry root>/samplers/egp_ts``). Once the package is in the registry,
``optunahub.load_module("samplers/egp_ts")`` loads it from there instead.
"""

from __future__ import annotations

from pathlib import Path

import optuna
import optunahub


def objective(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", -5.0, 5.0)
    y = trial.suggest_float("y", -5.0, 5.0)
    return (x - 1.0) ** 2 + (y + 2.0) ** 2


if __name__ == "__main__":
    registry_root = str(Path(__file__).resolve().parents[2])  # the folder that holds samplers/
    module = optunahub.load_local_module(package="samplers/egp_ts", registry_root=registry_root)
    study = optuna.create_study(sampler=module.EGPTSSampler(seed=0))
    study.optimize(objective, n_trials=30)
    print(f"best value {study.best_value:.5f} at {study.best_params}")
