"""The conditional benchmark's problems and tables: the synthetic minima are attained where they
are claimed and nowhere lower; the Optuna objective asks only for the parameters of its branch;
Ax accepts the hierarchical parameters; a run's row holds its values, parameters and regret; the
report counts differences below a problem's tie tolerance as ties."""

from __future__ import annotations

import numpy as np
import optuna
import pytest

from benchmarks import conditional
from benchmarks.conditional_functions import (
    CV_TIE_TOLERANCE,
    PROBLEMS,
    Choice,
    active,
    ax_parameters,
    cv_error,
    names,
    suggest,
)
from benchmarks.harness.regret import compare
from benchmarks.problem_report import summarise

SYNTHETIC = [name for name, p in PROBLEMS.items() if p.optimum is not None]


def _random_study(space, n: int, seed: int = 0) -> optuna.Study:
    """``n`` random trials that only walk ``space`` (no evaluation)."""
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=seed))
    study.optimize(lambda trial: len(suggest(trial, space)), n_trials=n)
    return study


@pytest.mark.parametrize("name", SYNTHETIC)
def test_the_minimum_is_attained_at_the_claimed_point_and_not_below(name):
    problem = PROBLEMS[name]
    assert active(problem.space, problem.best_point) == problem.best_point
    assert problem(problem.best_point) == pytest.approx(problem.optimum, abs=1e-12)
    values = [t.params for t in _random_study(problem.space, 800).trials]
    assert min(problem(p) for p in values) > problem.optimum


def test_the_best_branch_of_nested_has_the_worst_average():
    problem = PROBLEMS["nested"]
    by_family: dict = {}
    for t in _random_study(problem.space, 800, seed=1).trials:
        by_family.setdefault(t.params["family"], []).append(problem(t.params))
    means = {family: np.mean(v) for family, v in by_family.items()}
    assert max(means, key=means.get) == problem.best_point["family"]
    assert len(names(PROBLEMS["wide"].space)) >= 10


@pytest.mark.parametrize("name", list(PROBLEMS))
def test_the_objective_asks_only_for_the_active_parameters(name):
    space = PROBLEMS[name].space
    trials = _random_study(space, 60).trials
    for t in trials:
        assert t.params == active(space, t.params)
    seen = set().union(*(t.params for t in trials))
    assert seen == set(names(space))  # every branch was taken


def test_cv_error_is_a_fraction_of_misclassified_samples():
    error = cv_error({"classifier": "svc", "svc_C": 10.0, "svc_gamma": 0.01})
    assert 0 < error < 0.1
    assert error == cv_error({"classifier": "svc", "svc_C": 10.0, "svc_gamma": 0.01})


@pytest.mark.parametrize("name", list(PROBLEMS))
def test_ax_accepts_the_hierarchical_parameters(name):
    from ax import Client

    space = PROBLEMS[name].space
    client = Client()
    client.configure_experiment(parameters=ax_parameters(space))
    ax_space = client._experiment.search_space
    assert ax_space.is_hierarchical and set(ax_space.parameters) == set(names(space))
    choices = [node for node in space if isinstance(node, Choice)]
    for node in choices:
        dependents = ax_space.parameters[node.name].dependents
        assert dependents == {v: [c.name for c in kids] for v, kids in node.options.items()}


def test_a_run_records_values_active_parameters_and_regret():
    cell = {"bench": "conditional", "function": "nested", "mode": "async", "workers": 2}
    row = conditional.run_job({**cell, "seed": 0, "sampler": "random", "n_trials": 13})

    space = PROBLEMS["nested"].space
    assert len(row["values"]) == len(row["params"]) == len(row["regret"]) == 13
    assert all(p == active(space, p) for p in row["params"])
    assert row["values"] == [PROBLEMS["nested"](p) for p in row["params"]]
    assert row["regret"] == np.minimum.accumulate(row["values"]).tolist()
    assert len(row["ask_cpu_seconds"]) == 13 and row["model_at_ask"].count(True) == 2


def _row(sampler, function, seed, final):
    return {
        "bench": "conditional",
        "function": function,
        "sampler": sampler,
        "seed": seed,
        "mode": "seq",
        "workers": 1,
        "n_trials": 2,
        "values": [final + 0.1, final],
        "seconds_per_suggestion": 0.2,
        "cpu_seconds_per_suggestion": 0.1,
        "commit": "abc1234",
        "date": "2026-11-27T10:00:00+00:00",
    }


def test_the_table_counts_differences_below_the_tie_tolerance_as_ties():
    # model-choice: egp-auto 0.0300 against tpe 0.0300 + tolerance / 2: a tie, both bold;
    # nested (tolerance 0): egp-auto 0.01 against tpe 0.02: a win.
    rows = [
        _row("egp-auto", "model-choice", 0, 0.03),
        _row("tpe", "model-choice", 0, 0.03 + CV_TIE_TOLERANCE / 2),
        _row("egp-auto", "nested", 0, 0.01),
        _row("tpe", "nested", 0, 0.02),
    ]
    lines = summarise(rows, "Sequential", conditional.PAGE)

    table = next(line for line in lines if line.startswith("| model-choice"))
    assert table.count("**") == 4  # both medians bold
    assert any(
        line.startswith("- EGPTSSampler against TPE: lower median on 1, tied on 1, higher on 0")
        for line in lines
    )
    assert compare(0.03, 0.03 + 2 * CV_TIE_TOLERANCE, CV_TIE_TOLERANCE) == -1
