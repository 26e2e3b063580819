"""Every private Optuna access of this package, each in one function with a test
(``tests/optuna/test_storage_access.py``) that fails loudly when Optuna changes it.

Optuna's public API writes a trial's attributes only through ``optuna.trial.Trial`` (the
objective's) and its heartbeat only from ``study.optimize``; samplers get a ``FrozenTrial``,
so they write through the study's storage by the trial's id, as Optuna's own samplers do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from optuna.storages import BaseStorage
from optuna.study import Study
from optuna.trial import FrozenTrial

if TYPE_CHECKING:  # pragma: no cover - annotations only
    from optuna.storages._heartbeat import BaseHeartbeat

__all__ = [
    "constraint_values",
    "enqueued_params",
    "heartbeat_interval",
    "record_heartbeat",
    "write_constraint_values",
    "write_system_attr",
    "write_user_attr",
]

# The system attribute in which Optuna keeps the
# parameters of an enqueued trial (study.enqueue_trial).
FIXED_PARAMS_KEY = "fixed_params"
# The system attribute in which the constraints_func of Optuna's samplers stores a trial's
# constraint values (a list; Optuna 4's only place for them, still read by Optuna 5).
CONSTRAINTS_FUNC_KEY = "constraints"


def study_storage(study: Study) -> BaseStorage:
    """The study's storage (``Study._storage``)."""
    return study._storage


def trial_id(trial: FrozenTrial) -> int:
    """The storage's id of ``trial`` (``FrozenTrial._trial_id``)."""
    return trial._trial_id


def write_system_attr(study: Study, trial: FrozenTrial, key: str, value: Any) -> None:
    """Write a system attribute of a running trial."""
    study_storage(study).set_trial_system_attr(trial_id(trial), key, value)


def write_user_attr(study: Study, trial: FrozenTrial, key: str, value: Any) -> None:
    """Write a user attribute of a running trial."""
    study_storage(study).set_trial_user_attr(trial_id(trial), key, value)


def record_heartbeat(study: Study, trial: FrozenTrial) -> None:
    """Record a heartbeat for a running trial (only
    storages with ``get_heartbeat_interval`` have one)."""
    cast("BaseHeartbeat", study_storage(study)).record_heartbeat(trial_id(trial))


def heartbeat_interval(study: Study) -> float | None:
    """Seconds between the heartbeats of ``study``'s trials; None if its storage has no
    heartbeat (only ``RDBStorage(heartbeat_interval=...)`` has one)."""
    interval = getattr(study_storage(study), "get_heartbeat_interval", lambda: None)()
    return None if interval is None else float(interval)


def enqueued_params(trial: FrozenTrial) -> dict[str, Any]:
    """The parameters fixed in advance for ``trial`` by ``study.enqueue_trial`` (``{}`` if none)."""
    return trial.system_attrs.get(FIXED_PARAMS_KEY) or {}


def constraint_values(trial: FrozenTrial) -> dict[str, float]:
    """``trial``'s constraint values by name (feasible when all are <= 0):
    ``FrozenTrial.constraints`` (Optuna 5: ``trial.set_constraint`` and the deprecated
    ``constraints_func`` of Optuna's samplers), or on Optuna 4, which has no such property,
    the list its samplers' ``constraints_func`` stores in a system attribute (named ``"0"``,
    ``"1"``, ... as Optuna 5 names them)."""
    constraints = getattr(trial, "constraints", None)
    if constraints is not None:
        return dict(constraints)
    values = trial.system_attrs.get(CONSTRAINTS_FUNC_KEY)
    return (
        {str(i): value for i, value in enumerate(values)}
        if isinstance(values, (list, tuple))
        else {}
    )


def write_constraint_values(
    study: Study, trial: FrozenTrial, values: tuple[float, ...] | None
) -> None:
    """Write the constraint values of a running ``trial`` where the ``constraints_func`` of Optuna's
    samplers writes them (a list, ``None`` for none), so that :func:`constraint_values`, Optuna's
    ``FrozenTrial.constraints`` (names ``"0"``, ``"1"``, ...) and ``study.best_trial`` read them."""
    write_system_attr(study, trial, CONSTRAINTS_FUNC_KEY, values)
