"""Failed trials as data: the trials that failed at their point, and their encodings.

A trial counts when it failed in a worker whose sampler is one of ours: its objective raised (a
``KeyboardInterrupt`` too: Optuna fails such a trial the same way), returned NaN or no value, or
the user told Optuna it failed (``study.tell(trial, state=TrialState.FAIL)``). The sampler's
``after_trial`` marks it (system attribute :data:`FAILURE_KEY`). A trial that Optuna's
heartbeat failed because its worker died never reaches ``after_trial``, so it is not marked: a
killed worker says nothing about the point.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from optuna.study import Study
from optuna.trial import FrozenTrial, TrialState

from optuna_egp import _storage
from optuna_egp._space import CompletedTrialEncodings, RelativeSpace

__all__ = ["FAILURE_KEY", "failed_points", "mark_failed"]

FAILURE_KEY = "egp_samplers:failed_at_point"


def mark_failed(study: Study, trial: FrozenTrial, state: TrialState) -> None:
    """Mark ``trial`` (finishing in ``state``) as failed at its point if it failed with
    parameters (a trial refused before its objective ran has none)."""
    if state == TrialState.FAIL and trial.params:
        _storage.write_system_attr(study, trial, FAILURE_KEY, True)


def failed_points(
    study: Study,
    trials: list[FrozenTrial],
    space: RelativeSpace,
    encodings: CompletedTrialEncodings,
    visible: Callable[[list[FrozenTrial]], list[FrozenTrial]],
) -> np.ndarray:
    """``(f, d)`` encodings of the marked failed ``trials`` that ``visible`` keeps and that wrote
    every parameter active at their point (a trial that failed before suggesting one is left
    out: its point is not known)."""
    failed = [
        t
        for t in trials
        if t.state == TrialState.FAIL and t.system_attrs.get(FAILURE_KEY) and space.written(t)
    ]
    return encodings.encode(study, space, visible(failed))[1]
