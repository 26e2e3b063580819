"""EGPTSSampler from OptunaHub on a 2-D quadratic, as the registry's template example runs it.

    python example.py            # the package from the OptunaHub registry (optunahub.load_module)
    python example.py --local    # the package from the folder that holds this file

``--local`` loads the package laid out as in the registry (``<registry root>/samplers/egp_ts``)
with ``optunahub.load_local_module``: it works in a checkout of egp-samplers and in a copy of the
registry alike, before the package is published.
"""

from __future__ import annotations

import sys
from pathlib import Path

import optuna
import optunahub

PACKAGE = "samplers/egp_ts"


def objective(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", -5.0, 5.0)
    y = trial.suggest_float("y", -5.0, 5.0)
    return (x - 1.0) ** 2 + (y + 2.0) ** 2


if __name__ == "__main__":
    if "--local" in sys.argv[1:]:
        registry_root = str(Path(__file__).resolve().parents[2])  # the folder that holds samplers/
        module = optunahub.load_local_module(package=PACKAGE, registry_root=registry_root)
    else:
        module = optunahub.load_module(package=PACKAGE)
    study = optuna.create_study(sampler=module.EGPTSSampler(seed=0))
    study.optimize(objective, n_trials=30)
    print(f"best value {study.best_value:.5f} at {study.best_params}")
