"""Two objectives: EGPTSSampler with two workers (``n_jobs=2``) on ZDT1, next to Optuna's TPE.

Run:  python examples/multi_objective.py [seed]      (default 0)

Minimise ``f1(x) = x0`` and ``f2(x) = g(x) * (1 - sqrt(x0 / g(x)))`` with ``g(x) = 1 + 9 *
mean(x1, x2)`` over ``[0, 1]^3``: ZDT1 in three dimensions (E. Zitzler, K. Deb, L. Thiele,
"Comparison of multiobjective evolutionary algorithms: empirical results", Evolutionary Computation,
2000). Its Pareto front is ``f2 = 1 - sqrt(f1)``, ``f1`` in ``[0, 1]``, where ``x1 = x2 = 0``.

Each sampler runs one in-memory study of ``N_TRIALS`` trials with ``directions=["minimize",
"minimize"]``; ``study.best_trials`` is the Pareto front it found. The script prints each front's
hypervolume gap (lower is better): the true front's hypervolume minus the found front's, both the
area they dominate below the reference point ``(11, 11)``, BoTorch's for ZDT1. Then it prints
EGPTSSampler's front.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import optuna

from optuna_egp import EGPTSSampler
from shared_core.pareto import hypervolume

N_TRIALS = 24
N_STARTUP = 8
REFERENCE_POINT = np.array([11.0, 11.0])


def objective(trial: optuna.Trial) -> tuple[float, float]:
    x = [trial.suggest_float(f"x{i}", 0.0, 1.0) for i in range(3)]
    g = 1.0 + 9.0 * (x[1] + x[2]) / 2.0
    return x[0], g * (1.0 - math.sqrt(x[0] / g))


def true_front_hypervolume() -> float:
    f1 = np.linspace(0.0, 1.0, 10_001)  # the area converges as the grid's spacing, 1e-4
    return hypervolume(np.column_stack([f1, 1.0 - np.sqrt(f1)]), REFERENCE_POINT)


def run(sampler: optuna.samplers.BaseSampler) -> optuna.Study:
    study = optuna.create_study(directions=["minimize", "minimize"], sampler=sampler)
    study.optimize(objective, n_trials=N_TRIALS, n_jobs=2)  # two worker threads
    return study


def main() -> None:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    best = true_front_hypervolume()
    fronts = {}
    for name, sampler in (
        ("EGPTSSampler", EGPTSSampler(seed=seed, n_startup_trials=N_STARTUP)),
        ("TPESampler", optuna.samplers.TPESampler(seed=seed, n_startup_trials=N_STARTUP)),
    ):
        study = run(sampler)
        front = sorted(study.best_trials, key=lambda t: t.values)
        found = hypervolume(np.array([t.values for t in front]), REFERENCE_POINT)
        print(
            f"{name:>12}: {len(front)} Pareto-optimal trials of {len(study.trials)}; "
            f"hypervolume gap {best - found:.4f} (true front: {best:.4f})"
        )
        fronts[name] = front
    print("EGPTSSampler's front (f1, f2; the true front has f2 = 1 - sqrt(f1)):")
    for t in fronts["EGPTSSampler"]:
        print(f"  trial {t.number:>2}: f1 = {t.values[0]:.4f}, f2 = {t.values[1]:.4f}")


if __name__ == "__main__":
    main()
