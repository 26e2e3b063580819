"""Constrained optimisation: EGPTSSampler with ``trial.set_constraint``, next to Optuna's TPE.

Run:  python examples/constrained.py [seed]      (default 0)

Minimise ``(x - 2)^2 + (y - 2)^2`` over ``[0, 3]^2`` subject to ``x + y <= 2``. The
unconstrained minimum (2, 2) is infeasible; the constrained one is (1, 1), value 2.0, on the
constraint's boundary. The objective reports the constraint as
``trial.set_constraint("sum", x + y - 2)`` (feasible when the value is <= 0, Optuna's rule), and
``study.best_trial`` is the best feasible trial. Each sampler runs one in-memory study of
``N_TRIALS`` trials; the script prints each study's best feasible value and how many of its trials
were feasible. ``trial.set_constraint`` is Optuna 5's; on Optuna 4, pass
``constraints_func=lambda t: [t.params["x"] + t.params["y"] - 2]`` to the samplers instead.
"""

from __future__ import annotations

import sys

import optuna

from optuna_egp import EGPTSSampler

N_TRIALS = 30


def objective(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", 0.0, 3.0)
    y = trial.suggest_float("y", 0.0, 3.0)
    trial.set_constraint("sum", x + y - 2.0)  # feasible when <= 0
    return (x - 2.0) ** 2 + (y - 2.0) ** 2


def run(sampler: optuna.samplers.BaseSampler) -> optuna.Study:
    study = optuna.create_study(sampler=sampler)
    study.optimize(objective, n_trials=N_TRIALS)
    return study


def main() -> None:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    for name, sampler in (
        ("EGPTSSampler", EGPTSSampler(seed=seed)),
        ("TPESampler", optuna.samplers.TPESampler(seed=seed)),
    ):
        study = run(sampler)
        feasible = [t for t in study.trials if all(v <= 0 for v in t.constraints.values())]
        best = study.best_trial
        print(
            f"{name:>12}: best feasible value {best.value:.4f} at "
            f"x={best.params['x']:.3f}, y={best.params['y']:.3f}; "
            f"{len(feasible)} of {len(study.trials)} trials feasible (optimum 2.0 at x=y=1)"
        )


if __name__ == "__main__":
    main()
