"""Conditional (define-by-run) search spaces of Optuna studies: which parameters are modelled, the
distribution each is modelled on, and when each is active.

* **Modelled parameters**: those suggested in every completed trial, and those suggested in at least
  ``MIN_TRIALS`` completed trials. Rarer ones are sampled by the independent sampler.
* **One distribution per name**: a name suggested with different ranges (in different branches) is
  modelled on the union of its ranges (the lowest ``low``, the highest ``high``; the ``step`` if
  every range has the same one). Optuna itself refuses a name with distributions of different kinds,
  log scales or categorical choices in one study.
* **Conditions** (:func:`infer_conditions`): a parameter absent from some completed trials is active
  under its parent's values when a categorical or int parameter explains its presence exactly: every
  trial with it has the parent at one of those values, and every trial with the parent at one of
  those values has it. A categorical's values are the choices seen with the child; an int's (an int
  of at most ``MAX_INT_PARENT_VALUES`` values) are an interval: those seen with the child, extended
  to the bound on a side where no trial without the child lies (a threshold such as
  ``n_layers >= 3`` then covers values not seen yet). Of several such parents, the one present in
  the most trials is taken (the one nearest the root; on a tie a categorical). A parameter no parent
  explains (e.g. one suggested when a float exceeds a threshold) is modelled without a condition:
  absent values take the fixed inactive encoding and new points always hold it.
"""

from __future__ import annotations

import math
import weakref
from collections import Counter
from collections.abc import Sequence
from typing import Any, cast

import numpy as np
from optuna.distributions import (
    BaseDistribution,
    CategoricalDistribution,
    FloatDistribution,
    IntDistribution,
)
from optuna.study import Study
from optuna.trial import FrozenTrial, TrialState

from optuna_egp._space import RelativeSpace
from optuna_egp._space import fits as distribution_fits
from shared_core.parameters import Condition

__all__ = [
    "ModelledDistributions",
    "MIN_TRIALS",
    "TrialPresence",
    "conditions_of",
    "first_running_trial_space",
    "infer_conditions",
    "presence_row",
    "merged_distribution",
    "modelled_distributions",
    "projected_value",
]

# A parameter is modelled once it was suggested in this many completed trials (or in every one). No
# share of the trials is asked for: a branch the model rarely picks would drop below it, fall out
# of the model and never be valued by its own parameters again
# (docs/design-decisions.md#branch-parameters-from-the-second-trial).
MIN_TRIALS = 2


class ModelledDistributions:
    """:func:`modelled_distributions` of a study's completed trials, counted once per trial (a
    completed trial never changes). Studies are held weakly; not thread-safe: callers hold a
    lock."""

    def __init__(self) -> None:
        # study -> (trial numbers counted, counts per name, distinct distributions per name)
        self._tallies: weakref.WeakKeyDictionary[Study, _Tally] = weakref.WeakKeyDictionary()

    def calculate(
        self, study: Study, complete: Sequence[FrozenTrial]
    ) -> dict[str, BaseDistribution]:
        tally = self._tallies.setdefault(study, _Tally())
        for t in complete:
            if t.number not in tally.numbers:
                tally.add(t)
        if len(tally.numbers) != len(complete):  # trials this call does not see: count afresh
            return modelled_distributions(complete)
        return tally.modelled()


class _Tally:
    """How often each parameter name was suggested, and with which distributions."""

    def __init__(self) -> None:
        self.numbers: set[int] = set()
        self.n_trials = 0
        self.counts: Counter[str] = Counter()
        self.seen: dict[str, list[BaseDistribution]] = {}

    def add(self, trial: FrozenTrial) -> None:
        self.numbers.add(trial.number)
        self.n_trials += 1
        for name, dist in trial.distributions.items():
            self.counts[name] += 1
            kinds = self.seen.setdefault(name, [])
            if dist not in kinds:
                kinds.append(dist)

    def modelled(self) -> dict[str, BaseDistribution]:
        n = self.n_trials
        needed = min(n, MIN_TRIALS)
        out: dict[str, BaseDistribution] = {}
        for name in sorted(self.counts):
            if self.counts[name] >= needed:
                dist = merged_distribution(self.seen[name])
                if dist is not None and not dist.single():
                    out[name] = dist
        return out


def modelled_distributions(complete: Sequence[FrozenTrial]) -> dict[str, BaseDistribution]:
    """The modelled parameters of the ``complete`` trials and their (merged) distributions, sorted
    by name; single-value distributions left out."""
    tally = _Tally()
    for t in complete:
        tally.add(t)
    return tally.modelled()


def merged_distribution(dists: Sequence[BaseDistribution]) -> BaseDistribution | None:
    """One distribution holding every value of ``dists`` (the same kind, as Optuna enforces in a
    study); None if they cannot be merged (kinds, log scales or choices differ)."""
    first = dists[0]
    if len(dists) == 1:
        return first
    if any(type(d) is not type(first) for d in dists):
        return None
    if isinstance(first, CategoricalDistribution):
        same = all(d.choices == first.choices for d in dists)  # type: ignore[attr-defined]
        return first if same else None
    assert isinstance(first, (FloatDistribution, IntDistribution))
    if any(d.log != first.log for d in dists):  # type: ignore[attr-defined]
        return None
    low = min(d.low for d in dists)  # type: ignore[attr-defined]
    high = max(d.high for d in dists)  # type: ignore[attr-defined]
    steps = {d.step for d in dists}  # type: ignore[attr-defined]
    # the common step, if every range's grid is on the merged one
    on_grid = (
        len(steps) == 1
        and first.step is not None
        and all(
            _on_grid(d.low - low, first.step) and _on_grid(d.high - low, first.step)  # type: ignore[attr-defined]
            for d in dists
        )
    )
    if isinstance(first, IntDistribution):
        int_step = first.step if on_grid else 1
        return IntDistribution(int(low), int(high), log=first.log, step=int_step)
    return FloatDistribution(low, high, log=first.log, step=first.step if on_grid else None)


def _on_grid(offset: float, step: float) -> bool:
    return math.isclose(round(offset / step) * step, offset, abs_tol=1e-12)


class TrialPresence:
    """Per completed trial and space: which modelled parameters it has and their parent values
    (:func:`presence_row`), computed once per trial (a completed trial never changes). Studies are
    held weakly; not thread-safe: callers hold a lock."""

    def __init__(self) -> None:
        # study -> distributions -> trial number -> (fits, (p,) presence, (p,) values)
        self._rows: weakref.WeakKeyDictionary[Study, dict] = weakref.WeakKeyDictionary()

    def matrices(
        self,
        study: Study,
        distributions: dict[str, BaseDistribution],
        complete: Sequence[FrozenTrial],
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(n, p)`` presence and parent values of the ``complete`` trials that fit the space."""
        rows = self._rows.setdefault(study, {}).setdefault(tuple(distributions.items()), {})
        for t in complete:
            if t.number not in rows:
                rows[t.number] = presence_row(t, distributions)
        kept = [rows[t.number] for t in complete if rows[t.number][0]]
        p = len(distributions)
        present = np.array([r[1] for r in kept], dtype=bool).reshape(len(kept), p)
        values = np.array([r[2] for r in kept], dtype=float).reshape(len(kept), p)
        return present, values

    def relative_space(
        self,
        study: Study,
        distributions: dict[str, BaseDistribution],
        complete: Sequence[FrozenTrial],
    ) -> RelativeSpace:
        """The space of a suggestion: ``distributions`` (the modelled parameters), those that some
        ``complete`` trials lack, and the conditions that explain when they are active."""
        present, values = self.matrices(study, distributions, complete)
        in_every_trial = cast(np.ndarray, present.all(axis=0)).tolist()  # (p,)
        optional = frozenset(name for name, full in zip(distributions, in_every_trial) if not full)
        if not optional:
            return RelativeSpace(distributions)
        return RelativeSpace(distributions, conditions_of(present, values, distributions), optional)


def first_running_trial_space(study: Study, trial: FrozenTrial) -> dict[str, BaseDistribution]:
    """The distributions (sorted by name) of the other running trial that has written the most
    parameters (the first such); ``{}`` if none has. Used before any trial has completed: the search
    space is then known only from the trials that are running (define-by-run), and without one every
    parameter is sampled independently, blind to the other workers' points. A trial still writing
    its parameters gives part of the space; the rest is sampled independently."""
    others = [
        t
        for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))
        if t.number != trial.number
    ]
    fullest = max(others, key=lambda t: len(t.distributions), default=None)
    return dict(sorted(fullest.distributions.items())) if fullest is not None else {}


def presence_row(
    trial: FrozenTrial, distributions: dict[str, BaseDistribution]
) -> tuple[bool, np.ndarray, np.ndarray]:
    """Whether every parameter ``trial`` has in the space fits its distribution, its ``(p,)``
    presence per parameter and ``(p,)`` parent values (NaN where absent; see
    :func:`_internal_value`)."""
    present = np.zeros(len(distributions), dtype=bool)
    values = np.full(len(distributions), np.nan)
    fits = True
    for j, (name, dist) in enumerate(distributions.items()):
        own = trial.distributions.get(name)
        if own is None:
            continue
        fits &= own == dist or distribution_fits(own, dist)
        present[j] = True
        values[j] = _internal_value(dist, trial.params[name])
    return fits, present, values


def infer_conditions(
    complete: Sequence[FrozenTrial], distributions: dict[str, BaseDistribution]
) -> dict[str, Condition]:
    """:func:`conditions_of` the ``complete`` trials that fit ``distributions``."""
    rows = [presence_row(t, distributions) for t in complete]
    kept = [r for r in rows if r[0]]
    p = len(distributions)
    present = np.array([r[1] for r in kept], dtype=bool).reshape(len(kept), p)
    values = np.array([r[2] for r in kept], dtype=float).reshape(len(kept), p)
    return conditions_of(present, values, distributions)


def conditions_of(
    present: np.ndarray, values: np.ndarray, distributions: dict[str, BaseDistribution]
) -> dict[str, Condition]:
    """``{name: Condition}`` for the modelled parameters that some trials lack and whose presence
    a categorical or int parameter explains (module docstring), from the trials' ``(n, p)``
    presence and parent values (categorical values are choice indices, the core space's
    choices)."""
    names = list(distributions)
    n = len(present)
    counts = present.sum(axis=0)  # (p,)
    parents = [j for j, name in enumerate(names) if _can_be_parent(distributions[name])]
    conditions: dict[str, Condition] = {}
    for j, name in enumerate(names):
        if counts[j] == n:
            continue
        explained = []  # ((closeness to the root, is categorical, earlier), parent, values)
        for k in parents:
            # strictly nearer the root (more trials, or as many and earlier): no cycles
            if (counts[k], -k) <= (counts[j], -j):
                continue
            dist = distributions[names[k]]
            categorical = isinstance(dist, CategoricalDistribution)
            allowed = (
                _explaining_choices(present[:, j], present[:, k], values[:, k])
                if categorical
                else _explaining_interval(
                    present[:, j], present[:, k], values[:, k], cast(IntDistribution, dist)
                )
            )
            if allowed is not None:
                explained.append(((counts[k], categorical, -k), k, allowed))
        if explained:  # the parent nearest the root; on a tie a categorical before an int
            _, k, allowed = max(explained, key=lambda e: e[0])
            conditions[name] = Condition(names[k], allowed)
    return conditions


# An int parameter is a candidate parent only if it has at most this many values (a count of
# layers, not a batch size: a many-valued int would "explain" any pattern of a few trials).
MAX_INT_PARENT_VALUES = 32


def _can_be_parent(dist: BaseDistribution) -> bool:
    if isinstance(dist, CategoricalDistribution):
        return True
    return (
        isinstance(dist, IntDistribution)
        and (dist.high - dist.low) // dist.step + 1 <= MAX_INT_PARENT_VALUES
    )


def _explaining_choices(
    child: np.ndarray, parent: np.ndarray, parent_values: np.ndarray
) -> tuple[Any, ...] | None:
    """The choices (indices) of a categorical parent under which the child is present, if they
    explain its presence exactly (``child``, ``parent``: ``(n,)`` presence; ``parent_values``:
    ``(n,)``)."""
    if not child.any() or np.any(child & ~parent):
        return None
    allowed = np.unique(parent_values[child])
    under = parent & np.isin(parent_values, allowed)
    if np.any(under & ~child):
        return None
    return tuple(int(v) for v in allowed)


def _explaining_interval(
    child: np.ndarray, parent: np.ndarray, parent_values: np.ndarray, dist: IntDistribution
) -> tuple[Any, ...] | None:
    """The values of an int parent in an interval under which the child is present, if it explains
    its presence exactly: the interval spans the values seen with the child, and reaches the
    distribution's bound on a side where no trial without the child lies beyond it (so a
    threshold, ``n_layers >= 3``, covers values not seen yet). None if a trial without the child
    has a value inside it."""
    if not child.any() or np.any(child & ~parent):
        return None
    lo, hi = parent_values[child].min(), parent_values[child].max()
    without = parent_values[parent & ~child]  # the parent's values in trials without the child
    if np.any((without >= lo) & (without <= hi)):
        return None
    lo = dist.low if not np.any(without < lo) else lo
    hi = dist.high if not np.any(without > hi) else hi
    return tuple(range(int(lo), int(hi) + 1, dist.step))


def _internal_value(dist: BaseDistribution, value: Any) -> float:
    """A parent value as the core space decodes it: a categorical's choice index, an int itself;
    other kinds are never parents (their value is not used)."""
    if isinstance(dist, CategoricalDistribution):
        return float(dist.to_internal_repr(value))
    return float(value) if isinstance(dist, IntDistribution) else 0.0


def projected_value(dist: BaseDistribution, value: Any) -> Any | None:
    """``value`` (from a merged range) moved into ``dist``: clipped to its range and rounded to its
    step; None if ``dist`` cannot hold it (a categorical value not among its choices)."""
    if isinstance(dist, CategoricalDistribution):
        return value if value in dist.choices else None
    if not isinstance(dist, (FloatDistribution, IntDistribution)):
        return None
    v = min(max(float(value), dist.low), dist.high)
    if dist.step is not None:
        k = round((v - dist.low) / dist.step)
        v = min(dist.low + k * dist.step, dist.high)
        while v > dist.high:
            v -= dist.step
    return int(round(v)) if isinstance(dist, IntDistribution) else float(v)
