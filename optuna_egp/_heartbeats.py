"""One heartbeat for a trial whose worker died before Optuna's heartbeat thread started.

Optuna starts a trial's heartbeat thread only once ``study.ask`` has returned, and
``fail_stale_trials`` never fails a trial that has no heartbeat, so a worker killed while
its trial is being created leaves that trial RUNNING for good. Such a trial (another
process's, older than the heartbeat interval, with no parameter and no claim yet) gets one
heartbeat, once in the whole study, so it is failed by the heartbeat like any other.
"""

from __future__ import annotations

from collections.abc import Callable

from optuna.study import Study
from optuna.trial import FrozenTrial, TrialState

from optuna_egp import _storage
from optuna_egp._claims import CLAIM_KEY
from optuna_egp._timeouts import now, seconds_between

__all__ = ["HEARTBEAT_GIVEN_KEY", "heartbeat_orphaned_trials"]

# a trial that got a heartbeat from another process
HEARTBEAT_GIVEN_KEY = "egp_samplers:heartbeat_given"


def heartbeat_orphaned_trials(
    study: Study,
    trials: list[FrozenTrial],
    own: set[tuple[str, int]],
    given: set[tuple[str, int]],
    warn: Callable[[str, str], None],
) -> None:
    """Give one heartbeat to each running trial of another process that may have died before its
    first one: older than the heartbeat interval, with no parameter and no claim
    (``study.optimize`` starts the heartbeat thread before the objective runs, and the objective
    writes parameters and claims; a trial killed in between has neither). Once per trial in the
    whole study (``HEARTBEAT_GIVEN_KEY`` marks it), so a dead trial is not kept alive by new
    processes; ``fail_stale_trials`` then fails it after the grace period instead of never.

    ``own``: ``(study name, number)`` of this process's running trials; ``given``: of the
    trials this process gave a heartbeat (updated); ``warn(topic, message)`` warns once.
    """
    interval = _storage.heartbeat_interval(study)
    if interval is None:
        return
    when, name = now(), study.study_name
    for t in trials:
        if (
            # orphan-like: running, no parameters written, no claim, no heartbeat given yet
            t.state == TrialState.RUNNING
            and not t.params
            and t.datetime_start is not None
            and t.system_attrs.get(CLAIM_KEY) is None
            and t.system_attrs.get(HEARTBEAT_GIVEN_KEY) is None
            # not this process's own trial, and not given a heartbeat by it already
            and (name, t.number) not in own
            and (name, t.number) not in given
            and seconds_between(t.datetime_start, when) > interval
        ):
            given.add((name, t.number))
            try:
                _storage.record_heartbeat(study, t)
                _storage.write_system_attr(study, t, HEARTBEAT_GIVEN_KEY, True)
            except Exception as err:  # a safeguard, never a reason to fail a trial
                warn("heartbeat", f"recording a heartbeat for trial {t.number} failed: {err!r}")
