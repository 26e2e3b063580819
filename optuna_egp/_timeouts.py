"""When a running trial stops counting as pending: its worker is presumed dead
(``running_trial_timeout``)."""

from __future__ import annotations

import datetime
import math
import numbers
from collections.abc import Sequence

import numpy as np
from optuna.trial import FrozenTrial, TrialState

__all__ = ["alive_running_trials", "check_timeout", "now", "seconds_between", "stale_after_seconds"]

# The "auto" rule for running trials: once STALE_MIN_COMPLETED trials have completed, a trial
# running longer than STALE_FACTOR times the STALE_QUANTILE of their durations, and at least
# STALE_MIN_SECONDS (trials asked in a batch wait for each other's suggestions), is presumed dead.
STALE_FACTOR = 10.0
STALE_QUANTILE = 0.9
STALE_MIN_COMPLETED = 5
STALE_MIN_SECONDS = 30.0


def check_timeout(timeout: float | str | None) -> float | str | None:
    """``running_trial_timeout`` checked: ``"auto"``,
    None or a positive finite number of seconds."""
    if timeout is None or timeout == "auto":
        return timeout
    ok = (
        isinstance(timeout, numbers.Real)
        and not isinstance(timeout, bool)
        and 0 < timeout < math.inf
    )
    if not ok:
        raise ValueError(
            f'running_trial_timeout must be "auto", None or a positive finite number of seconds, '
            f"got {timeout!r}"
        )
    return float(timeout)


def now() -> datetime.datetime:
    """The current time, time-zone aware (Optuna's naive trial times are local times)."""
    return datetime.datetime.now().astimezone()


def seconds_between(start: datetime.datetime, end: datetime.datetime) -> float:
    """``end - start`` in seconds; naive times are taken as local times (``timestamp()``
    does so, across daylight-saving changes too)."""
    return end.timestamp() - start.timestamp()


def stale_after_seconds(trials: Sequence[FrozenTrial], timeout: float | str | None) -> float:
    """Seconds after its start at which a running trial
    stops counting as pending (``math.inf``: never).

    ``timeout="auto"``: ``STALE_FACTOR`` times the ``STALE_QUANTILE`` of the durations of
    the completed trials, at least ``STALE_MIN_SECONDS``, once ``STALE_MIN_COMPLETED`` have
    completed; a number is returned as it is.
    """
    if timeout is None:
        return math.inf
    if timeout != "auto":
        return float(timeout)
    durations = [
        seconds_between(t.datetime_start, t.datetime_complete)
        for t in trials
        if t.state == TrialState.COMPLETE
        and t.datetime_start is not None
        and t.datetime_complete is not None
    ]
    durations = [s for s in durations if s > 0]  # trials added with create_trial() have no duration
    if len(durations) < STALE_MIN_COMPLETED:
        return math.inf
    return max(STALE_MIN_SECONDS, STALE_FACTOR * float(np.quantile(durations, STALE_QUANTILE)))


def alive_running_trials(
    trials: Sequence[FrozenTrial],
    timeout: float | str | None,
    when: datetime.datetime,
    own: set[int] | frozenset[int] = frozenset(),
) -> list[FrozenTrial]:
    """The running trials not presumed dead at ``when`` by the ``running_trial_timeout``
    rule (``own``: numbers of trials this process runs, alive whatever their age)."""
    limit = stale_after_seconds(trials, timeout)
    running = [t for t in trials if t.state == TrialState.RUNNING]
    if math.isinf(limit):
        return running
    return [
        t
        for t in running
        if t.number in own
        or t.datetime_start is None
        or seconds_between(t.datetime_start, when) <= limit
    ]
