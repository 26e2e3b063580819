"""Each claim records how its point was chosen (``"by"``), so that a user (and the engine tests)
can tell model-based suggestions from start-up and random ones."""

from __future__ import annotations

import optuna

from optuna_egp import BORESampler, EGPTSSampler
from optuna_egp._claims import CLAIM_KEY


def _suggested_by(sampler, n_trials: int) -> list[str | None]:
    study = optuna.create_study(sampler=sampler)
    study.optimize(lambda t: t.suggest_float("x", 0, 1) + t.suggest_float("y", 0, 1), n_trials)
    return [(t.system_attrs.get(CLAIM_KEY) or {}).get("by") for t in study.trials]


def test_start_up_then_model():
    # trial 0: no relative space yet, every parameter from the independent sampler (no claim)
    by = _suggested_by(EGPTSSampler(seed=0, n_startup_trials=3), 6)
    assert by == [None, "start-up", "start-up", "model", "model", "model"]


def test_a_point_drawn_at_random_after_conflicts_says_so(monkeypatch):
    # no algorithm draw is allowed: every suggestion after the start-up is a random free point
    monkeypatch.setattr("optuna_egp._claims.ALGORITHM_DRAWS", 0)
    by = _suggested_by(BORESampler(seed=0, n_startup_trials=3), 5)
    assert by == [None, "start-up", "start-up", "random", "random"]
