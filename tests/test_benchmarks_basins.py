"""The basins page: its thresholds lie just below the best value outside each problem's best
branch or basin, and its tables count the runs at or above a threshold as stuck."""

from __future__ import annotations

import numpy as np
import optuna
import pytest
from scipy.optimize import minimize

from benchmarks import basins_report
from benchmarks.conditional_functions import PROBLEMS, suggest
from benchmarks.functions import FUNCTIONS


@pytest.mark.parametrize("better", ["a", "b"])
def test_the_other_branch_of_two_branch_never_gets_below_its_threshold(better):
    problem = PROBLEMS[f"two-branch-{better}"]
    worse = PROBLEMS[f"two-branch-{'b' if better == 'a' else 'a'}"].best_point  # its minimiser
    assert problem(worse) == pytest.approx(basins_report.BASINS[f"two-branch-{better}"].stuck_at)
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    study.optimize(lambda trial: problem(suggest(trial, problem.space)), n_trials=400)
    outside = [t.value for t in study.trials if t.params["model"] != better]
    assert min(outside) >= 0.5 and problem(problem.best_point) == 0.0


@pytest.mark.slow
@pytest.mark.parametrize("name", ["hartmann6", "shekel4"])
def test_every_local_minimum_but_the_global_one_lies_above_the_threshold(name):
    bounds, f, f_min = FUNCTIONS[name]
    starts = np.random.default_rng(0).uniform(bounds[:, 0], bounds[:, 1], (60, len(bounds)))
    regrets = {
        round(minimize(f, x, method="L-BFGS-B", bounds=bounds).fun - f_min, 3) for x in starts
    }
    local = sorted(r for r in regrets if r > 1e-3)
    assert min(regrets) < 1e-3 and local  # starts found the global minimum and a local one
    assert local[0] > basins_report.BASINS[name].stuck_at


def _row(function: str, sampler: str, seed: int, best: float) -> dict:
    return {
        "bench": "conditional",
        "function": function,
        "sampler": sampler,
        "seed": seed,
        "mode": "seq",
        "workers": 1,
        "n_trials": 40,
        "best_values": [1.0, best],
        "commit": "abc1234",
        "date": "2026-11-28T00:00:00+00:00",
    }


def test_the_table_counts_runs_at_or_above_the_threshold_as_stuck():
    finals = {"tpe": [0.0, 0.1, 0.5], "random": [0.5, 0.7, 0.01]}
    rows = [
        _row("two-branch-a", s, seed, best)
        for s, values in finals.items()
        for seed, best in enumerate(values)
    ]
    lines = basins_report.table({"conditional": rows}, "Sequential")
    line = next(line for line in lines if line.startswith("| `two-branch-a` (40)"))
    assert line.split(" | ")[2:] == ["0.1 (1/3)", "0.5 (2/3) |"]
    assert basins_report.stuck([0.3, 0.5], None) == "–"
