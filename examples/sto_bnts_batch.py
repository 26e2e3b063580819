"""STOBNTSSampler (batch neural Thompson sampling) with 4 threads on SQLite, then an ask/tell batch.

Run:  python examples/sto_bnts_batch.py        (needs PyTorch: python -m pip install torch)
Every suggestion trains a small neural network of its own, from its own random initialisation, and
suggests that network's minimiser: 4 workers (threads here; processes on one storage work the same)
get 4 independent Thompson samples, with the running trials entering each network as believed
targets.
"""

from __future__ import annotations

import math
import os
import tempfile

import numpy as np
import optuna

from optuna_egp import STOBNTSSampler

BRANIN_MIN = 0.397887


def branin(trial: optuna.Trial) -> float:
    x1 = trial.suggest_float("x1", -5.0, 10.0)
    x2 = trial.suggest_float("x2", 0.0, 15.0)
    return (
        (x2 - 5.1 / (4 * math.pi**2) * x1**2 + 5 / math.pi * x1 - 6) ** 2
        + 10 * (1 - 1 / (8 * math.pi)) * math.cos(x1)
        + 10
    )


def ask_tell_batch(study: optuna.Study) -> None:
    """Four trials asked before any is told: four networks, each trained with the earlier ones'
    points as believed targets."""
    batch = [study.ask() for _ in range(4)]
    points = np.array(
        [[t.suggest_float("x1", -5.0, 10.0), t.suggest_float("x2", 0.0, 15.0)] for t in batch]
    )
    for t in batch:
        study.tell(t, branin(t))
    gaps = np.linalg.norm(points[:, None] - points[None], axis=-1)[np.triu_indices(4, 1)]
    print("ask/tell batch of 4:", np.round(points, 3).tolist())
    print(f"smallest distance between two points of the batch: {gaps.min():.3f}")


def main() -> None:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    with tempfile.TemporaryDirectory() as folder:  # the SQLite file goes with the folder
        storage = "sqlite:///" + os.path.join(folder, "sto_bnts.db")
        sampler = STOBNTSSampler(seed=0)
        study = optuna.create_study(study_name="sto-bnts", storage=storage, sampler=sampler)
        study.optimize(branin, n_trials=40, n_jobs=4)
        print(
            f"Branin, 40 trials, 4 threads: best value {study.best_value:.4f} (regret "
            f"{study.best_value - BRANIN_MIN:.4f})"
        )
        print("best params:", {k: round(v, 4) for k, v in study.best_params.items()})
        ask_tell_batch(study)


if __name__ == "__main__":
    main()
