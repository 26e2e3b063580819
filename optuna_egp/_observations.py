"""The algorithm's data from a study's trials: completed trials -> ``Observations`` (values
minimised, constraint values by name, each trial's source), running trials -> pending points."""

from __future__ import annotations

from collections.abc import Collection

import numpy as np
from optuna.study import Study, StudyDirection
from optuna.trial import FrozenTrial

from optuna_egp import _agents
from optuna_egp._constraints import CompletedTrialConstraints
from shared_core.interface import Algorithm, Observations

__all__ = ["minimised_values", "observations", "partly_encoded"]


def observations(
    study: Study,
    algorithm: Algorithm,
    complete: list[FrozenTrial],
    X: np.ndarray,
    X_pending: np.ndarray,
    pending_trials: list[FrozenTrial],
    constraints: CompletedTrialConstraints,
    repeatable: np.ndarray,
    X_failed: np.ndarray | None = None,
) -> Observations:
    """The ``complete`` trials' encoded points ``X`` ``(n, d)`` with their values
    (:func:`minimised_values`), constraint values ``(n, k)`` and sources, and the pending points
    ``X_pending`` ``(p, d)`` of ``pending_trials`` with theirs; ``repeatable`` ``(n,)``: the
    trials whose encoded point a new trial may take again (:func:`partly_encoded`); ``X_failed``
    ``(f, d)``: the points of trials that failed there (``optuna_egp._failures``)."""
    names, values = constraints.matrix(study, complete)
    return Observations(
        X=X,
        y=minimised_values(study, complete),
        X_pending=X_pending,
        source=_agents.sources(algorithm, complete),
        pending_source=_agents.sources(algorithm, pending_trials),
        constraints=values,
        constraint_names=names,
        repeatable=repeatable,
        X_failed=np.zeros((0, X.shape[1])) if X_failed is None else X_failed,
    )


def partly_encoded(trial: FrozenTrial, modelled: Collection[str]) -> bool:
    """Whether ``trial`` set a parameter of more than one value that is not ``modelled``: its
    encoded point then stands for many configurations (e.g. every point of a conditional branch
    whose parameters are not modelled yet, drawn independently), so a new trial may take it
    again."""
    return any(
        name not in modelled and not dist.single() for name, dist in trial.distributions.items()
    )


def minimised_values(study: Study, complete: list[FrozenTrial]) -> np.ndarray:
    """The values of the ``complete`` trials, each objective minimised (a maximised one negated):
    ``(n,)`` for one objective, ``(n, m)`` for ``m`` objectives (``y[:, i]`` is objective ``i``).
    Optuna fails a trial with a NaN value, so none is NaN; ``+-inf`` stays (the algorithm's
    ``Observations.cleaned`` clips it)."""
    if len(study.directions) == 1:
        sign = -1.0 if study.direction == StudyDirection.MAXIMIZE else 1.0
        return sign * np.array([t.value for t in complete], dtype=float)
    signs = np.array([-1.0 if d == StudyDirection.MAXIMIZE else 1.0 for d in study.directions])
    # (n, m)
    values = np.array([t.values for t in complete], dtype=float).reshape(
        len(complete), len(study.directions)
    )
    return values * signs
