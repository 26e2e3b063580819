"""Constraint values of a study, for the algorithm: read from the completed trials (once per
trial), and written by ``constraints_func`` as Optuna's samplers write them. An algorithm that does
not model them refuses them (``_refusals``).

Optuna's rule, which ``Observations.feasible`` and ``study.best_trial`` share: a trial is feasible
when every constraint value it has is ``<= 0`` (a trial with none is feasible).
"""

from __future__ import annotations

import math
import warnings
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import optuna
from optuna.study import Study
from optuna.trial import FrozenTrial, TrialState

from optuna_egp import _storage
from optuna_egp._refusals import refuse_constraints_func
from optuna_egp._warnings import caller_stacklevel

__all__ = ["CompletedTrialConstraints", "check_constraints_func", "write_constraints_func_values"]

ConstraintsFunc = Callable[[FrozenTrial], Sequence[float]]

# Optuna 5 deprecates the constraints_func of its samplers in favour of trial.set_constraint.
_DEPRECATED = int(optuna.__version__.split(".")[0]) >= 5
# The text of Optuna's FutureWarning (GPSampler, TPESampler, ...), with the same replacement.
_DEPRECATION = (
    "`constraints_func` has been deprecated in v5.0.0. This feature will be removed in v7.0.0. "
    "See https://github.com/optuna/optuna/releases/tag/v5.0.0. "
    "Use `optuna.trial.Trial.set_constraint` instead."
)


class CompletedTrialConstraints:
    """The constraint values of completed trials, kept between suggestions.

    A completed trial's constraint values never change (Optuna writes ``constraints_func``'s before
    the trial completes, and refuses to change a finished trial), so each trial is read once per
    study; a suggestion then costs a dictionary lookup per trial instead of parsing every trial's
    system attributes again (why: `docs/design-decisions.md#constraint-values-cache`). Studies are
    held weakly, per ``Study`` object, like
    ``CompletedTrialEncodings``. Not thread-safe: callers hold a lock.
    """

    def __init__(self) -> None:
        # study -> trial number -> {constraint name: value}
        self._values: weakref.WeakKeyDictionary[Study, dict[int, dict[str, float]]] = (
            weakref.WeakKeyDictionary()
        )

    def matrix(
        self, study: Study, complete: Sequence[FrozenTrial]
    ) -> tuple[tuple[str, ...], np.ndarray]:
        """The constraint names (the sorted union over ``complete``, completed trials of ``study``)
        and the ``(n, k)`` values of ``complete`` (NaN where a trial has no value for a name)."""
        known = self._values.setdefault(study, {})
        for t in complete:
            if t.number not in known:
                known[t.number] = {
                    str(name): float(value) for name, value in _storage.constraint_values(t).items()
                }
        values = [known[t.number] for t in complete]
        names = tuple(sorted(set().union(*values)))
        # column by column: k passes over n small dicts
        columns = [[v.get(name, math.nan) for v in values] for name in names]
        return names, np.array(columns, dtype=float).T.reshape(len(values), len(names))


def check_constraints_func(
    sampler_name: str, algorithm: object, constraints_func: Any
) -> ConstraintsFunc | None:
    """``constraints_func`` if ``algorithm`` can use it (``None`` stays ``None``); ``ValueError`` if
    it is not callable or the algorithm does not model constraints. On Optuna 5 and later, Optuna's
    ``FutureWarning`` that it is deprecated, pointing at the caller's line."""
    if constraints_func is None:
        return None
    if not callable(constraints_func):
        raise ValueError(
            "constraints_func must be a function of a FrozenTrial that returns its constraint "
            f"values, got {constraints_func!r}"
        )
    refuse_constraints_func(sampler_name, algorithm, constraints_func)
    if _DEPRECATED:
        warnings.warn(_DEPRECATION, FutureWarning, stacklevel=caller_stacklevel())
    return constraints_func


def write_constraints_func_values(
    constraints_func: ConstraintsFunc, study: Study, trial: FrozenTrial, state: TrialState
) -> None:
    """After a completed or pruned ``trial``, its ``constraints_func`` values, written as Optuna's
    samplers write them (``_storage.write_constraint_values``). As theirs: a NaN value is a
    ``ValueError``, a result that is not a list or tuple is warned about, and if the function
    raises, "no values" is written and the error reaches ``study.optimize`` or ``study.tell``."""
    if state not in (TrialState.COMPLETE, TrialState.PRUNED):
        return
    values = None
    try:
        returned = constraints_func(trial)
        if np.any(np.isnan(returned)):
            raise ValueError(
                f"constraints_func returned NaN for trial {trial.number} ({returned!r}): "
                "constraint values cannot be NaN"
            )
        if not isinstance(returned, (tuple, list)):
            warnings.warn(
                f"Constraints should be a sequence of floats but got {type(returned).__name__}.",
                stacklevel=2,
            )
        values = tuple(float(v) for v in returned)
    finally:
        _storage.write_constraint_values(study, trial, values)
