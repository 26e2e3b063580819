"""Quickstart: EGPTSSampler with 4 worker processes on one Journal-file storage, versus TPE.

Run:  python examples/quickstart.py
Each worker process loads the same study from the journal file and optimises until the study has
N_TRIALS trials; the sampler rebuilds its model from the storage, so workers can join, crash or be
restarted at any time.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import os
import tempfile

import optuna
from optuna.storages import JournalStorage
from optuna.storages.journal import JournalFileBackend

from optuna_egp import EGPTSSampler

N_TRIALS, N_WORKERS = 40, 4
H6_A = [
    [10, 3, 17, 3.5, 1.7, 8],
    [0.05, 10, 17, 0.1, 8, 14],
    [3, 3.5, 1.7, 10, 17, 8],
    [17, 8, 0.05, 10, 0.1, 14],
]
H6_P = [
    [0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886],
    [0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991],
    [0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650],
    [0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381],
]
H6_MIN = -3.32237


def objective(trial: optuna.Trial) -> float:
    """Hartmann-6 (minimum -3.32237)."""
    x = [trial.suggest_float(f"x{i}", 0.0, 1.0) for i in range(6)]
    return -sum(
        a * math.exp(-sum(A[j] * (x[j] - P[j]) ** 2 for j in range(6)))
        for a, A, P in zip([1.0, 1.2, 3.0, 3.2], H6_A, H6_P)
    )


def worker(path: str, name: str, seed: int, make_sampler) -> None:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    storage = JournalStorage(JournalFileBackend(path))
    study = optuna.load_study(study_name=name, storage=storage, sampler=make_sampler(seed))
    study.optimize(objective, callbacks=[optuna.study.MaxTrialsCallback(N_TRIALS)])


def egp(seed: int) -> optuna.samplers.BaseSampler:
    return EGPTSSampler(seed=seed)


def tpe(seed: int) -> optuna.samplers.BaseSampler:
    return optuna.samplers.TPESampler(seed=seed)


def run(name: str, make_sampler, path: str) -> float:
    storage = JournalStorage(JournalFileBackend(path))
    optuna.create_study(study_name=name, storage=storage)
    procs = [
        mp.Process(target=worker, args=(path, name, seed, make_sampler))
        for seed in range(N_WORKERS)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    return optuna.load_study(study_name=name, storage=storage).best_value


if __name__ == "__main__":
    path = os.path.join(tempfile.mkdtemp(), "quickstart.log")
    print(f"Hartmann-6, {N_TRIALS} trials, {N_WORKERS} worker processes, journal {path}")
    best_egp = run("egp-ts", egp, path)
    best_tpe = run("tpe", tpe, path)
    print(f"EGPTSSampler best value: {best_egp:.4f}  (regret {best_egp - H6_MIN:.4f})")
    print(f"TPESampler   best value: {best_tpe:.4f}  (regret {best_tpe - H6_MIN:.4f})")
    print(
        "EGPTSSampler "
        + ("beats" if best_egp < best_tpe else "does not beat")
        + " TPE on this run."
    )
