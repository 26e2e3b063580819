"""The Ray Tune benchmark's parts that need no Ray: its spaces, values and summary table."""

from __future__ import annotations

import optuna
import pytest

from benchmarks import ray_tune


@pytest.mark.parametrize("problem", ray_tune.PROBLEMS)
def test_the_space_and_the_value_agree_and_the_minimum_is_below_every_value(problem):
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    for _ in range(20):
        trial = study.ask()
        ray_tune.Space(problem)(trial)  # what OptunaSearch asks for
        value = ray_tune.value(problem, trial.params)  # what the trainable returns
        study.tell(trial, value)
        assert value >= ray_tune.optimum(problem) - 1e-9


def _row(problem, sampler, seed, regret):
    return {
        "problem": problem,
        "sampler": sampler,
        "seed": seed,
        "regret": regret,
        "n_trials": 60,
        "max_concurrent": 4,
        "completed": 60,
        "errors": 0,
        "model_asks": 40 if sampler == "egp-auto" else 0,
        "seconds": 20.0,
        "commit": "abc1234",
        "date": "2026-11-29T00:00:00+00:00",
    }


def test_the_summary_counts_wins_per_seed_and_better_medians_per_problem():
    rows = [_row("branin", "egp-auto", s, r) for s, r in enumerate([0.1, 0.2, 0.3])]
    rows += [_row("branin", "tpe", s, r) for s, r in enumerate([0.2, 0.1, 0.4])]
    rows += [_row("nested", "egp-auto", s, 0.5) for s in range(3)]
    rows += [_row("nested", "tpe", s, 0.4) for s in range(3)]
    text = "\n".join(ray_tune.summarise(rows))
    assert "| branin | 3 | 0.2 | 0.2 | 2 of 3 seeds | 40 |" in text
    assert "| nested | 3 | 0.5 | 0.4 | 0 of 3 seeds | 40 |" in text
    assert "lower median on 0 of 2 problems" in text  # branin's medians tie
    assert "Every run completed all its trials without an error." in text
