"""Optuna distributions <-> core search space (categoricals travel as choice indices).

In a conditional space (``RelativeSpace.conditions``, inferred by ``_conditional``) a trial may lack
some parameters: they encode as inactive (``shared_core.conditions.INACTIVE``), and a decoded point
holds only the parameters active at it. A parameter's distribution may be the merge of the ranges it
was suggested with, so a trial's distribution needs only to fit in it (:func:`fits`).
"""

from __future__ import annotations

import hashlib
import json
import weakref
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from optuna.distributions import (
    BaseDistribution,
    CategoricalDistribution,
    FloatDistribution,
    IntDistribution,
    distribution_to_json,
)
from optuna.study import Study
from optuna.trial import FrozenTrial

from shared_core.conditions import INACTIVE
from shared_core.search_space import (
    CategoricalParam,
    Condition,
    FloatParam,
    IntParam,
    Param,
    SearchSpace,
)


@dataclass(frozen=True)
class RelativeSpace:
    """One suggestion's relative search space: the Optuna distributions, the core space with
    the same parameter order, and a hash of both, converted once and handed to every role of
    the sampler."""

    distributions: dict[str, BaseDistribution]
    # parameters active only under a value of their parent (indices of a categorical's choices)
    conditions: dict[str, Condition] = field(default_factory=dict)
    # parameters a trial may lack: the conditional ones and those without an explaining parent
    optional: frozenset[str] = frozenset()
    core: SearchSpace = field(init=False)
    # space_key(distributions): claims and model records name their space
    key: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "core", to_core_space(self.distributions, self.conditions))
        object.__setattr__(self, "key", space_key(self.distributions))

    def holds(self, trial: FrozenTrial) -> bool:
        """Whether ``trial`` has every parameter of this space that is not optional, and each of
        its parameters in this space fits the space's distribution."""
        return has_all_params(trial, self.distributions, self.optional)

    def written(self, trial: FrozenTrial) -> bool:
        """Whether ``trial`` holds this space and has written every parameter active at its point
        (a running trial of a conditional space may not have reached them yet)."""
        if not self.holds(trial):
            return False
        if not self.optional:
            return True
        active = self.core.active(self.encode([trial]))
        return all(name in trial.params for name in self.distributions if active[name][0])

    def encode(self, trials: list[FrozenTrial]) -> np.ndarray:
        """``(n, d)`` encodings of the trials that this space holds (others are left out)."""
        return encode_trials(self.core, self.distributions, trials, self.optional)

    def decode(self, x: np.ndarray) -> dict[str, Any]:
        """The parameters active at an encoded ``(d,)`` row."""
        return decode_params(self.core, self.distributions, x)

    @property
    def cache_key(self) -> tuple:
        """What a trial's encoding depends on."""
        return (
            tuple(self.distributions.items()),
            tuple(sorted(self.conditions.items())),
            tuple(sorted(self.optional)),
        )


def space_key(search_space: dict[str, BaseDistribution]) -> str:
    """A hash of the search space: parameter names and distributions, in encoding order."""
    described = [[name, distribution_to_json(dist)] for name, dist in search_space.items()]
    return hashlib.sha256(json.dumps(described).encode()).hexdigest()


def to_core_space(
    search_space: dict[str, BaseDistribution], conditions: dict[str, Condition] | None = None
) -> SearchSpace:
    """Core search space with the same parameter order as ``search_space``."""
    params: dict[str, Param] = {}
    for name, dist in search_space.items():
        if isinstance(dist, FloatDistribution):
            params[name] = FloatParam(dist.low, dist.high, log=dist.log, step=dist.step)
        elif isinstance(dist, IntDistribution):
            params[name] = IntParam(dist.low, dist.high, log=dist.log, step=dist.step)
        elif isinstance(dist, CategoricalDistribution):
            params[name] = CategoricalParam(tuple(range(len(dist.choices))))
        else:  # pragma: no cover - Optuna has no other distribution types
            raise ValueError(f"unsupported distribution for {name!r}: {dist!r}")
    return SearchSpace(params, conditions=conditions)


def encode_trials(
    space: SearchSpace,
    search_space: dict[str, BaseDistribution],
    trials: list[FrozenTrial],
    optional: frozenset[str] = frozenset(),
) -> np.ndarray:
    """``(n, d)`` encodings of the trials that hold the space (:func:`has_all_params`; others are
    left out); an absent optional parameter encodes as inactive."""
    kept = [t for t in trials if has_all_params(t, search_space, optional)]
    columns: dict[str, list[Any]] = {}
    for name, dist in search_space.items():
        values = [t.params.get(name, INACTIVE) for t in kept]
        if isinstance(dist, CategoricalDistribution):
            values = [v if v is INACTIVE else int(dist.to_internal_repr(v)) for v in values]
        columns[name] = values
    return space.encode_columns(columns, n_rows=len(kept))


def has_all_params(
    trial: FrozenTrial,
    search_space: dict[str, BaseDistribution],
    optional: frozenset[str] = frozenset(),
) -> bool:
    """Whether ``trial`` has every parameter of ``search_space`` but the ``optional`` ones, each
    with a distribution that fits the space's (:func:`fits`)."""
    for name, dist in search_space.items():
        own = trial.distributions.get(name)
        if own is None:
            if name not in optional:
                return False
        elif own != dist and not fits(own, dist):
            return False
    return True


def fits(inner: BaseDistribution, outer: BaseDistribution) -> bool:
    """Whether every value of ``inner`` is a value of ``outer`` (same kind and scale; a range
    within the range; steps are not compared: values are rounded to ``outer``'s grid)."""
    if type(inner) is not type(outer):
        return False
    if isinstance(inner, CategoricalDistribution):
        return inner.choices == outer.choices  # type: ignore[attr-defined]
    assert isinstance(inner, (FloatDistribution, IntDistribution))
    return (
        inner.log == outer.log  # type: ignore[attr-defined]
        and inner.low >= outer.low  # type: ignore[attr-defined]
        and inner.high <= outer.high  # type: ignore[attr-defined]
    )


# Search spaces whose encodings are kept per study.
_MAX_SPACES_PER_STUDY = 4


class CompletedTrialEncodings:
    """Encodings of completed trials, kept between suggestions.

    A completed trial never changes, so each one is checked (:func:`has_all_params`) and
    encoded once per study and search space; a suggestion then costs a dictionary lookup per
    completed trial instead of comparing every distribution of every trial again. Studies
    are held weakly (per ``Study`` object, so two studies of the same name in different
    storages never mix). Not thread-safe: callers hold a lock.
    """

    def __init__(self) -> None:
        # study -> search space (tuple of (name, distribution)) -> trial number -> (d,) row,
        # or None if the trial lacks a parameter of the space
        self._rows: weakref.WeakKeyDictionary[Study, dict] = weakref.WeakKeyDictionary()

    def encode(
        self, study: Study, space: RelativeSpace, complete: list[FrozenTrial]
    ) -> tuple[list[FrozenTrial], np.ndarray]:
        """The trials of ``complete`` (completed trials of ``study``) that ``space`` holds, and
        their ``(n, d)`` encodings."""
        spaces = self._rows.setdefault(study, {})
        if space.cache_key not in spaces and len(spaces) >= _MAX_SPACES_PER_STUDY:
            del spaces[next(iter(spaces))]  # the oldest (a study's conditions change as it runs)
        rows = spaces.setdefault(space.cache_key, {})
        new = [t for t in complete if t.number not in rows]
        if new:
            usable = [t for t in new if space.holds(t)]
            # first: if it raises, nothing is marked
            encoded = space.encode(usable)
            rows.update(dict.fromkeys((t.number for t in new), None))
            rows.update(zip((t.number for t in usable), encoded))
        kept = [t for t in complete if rows[t.number] is not None]
        return kept, np.array([rows[t.number] for t in kept], dtype=float).reshape(
            len(kept), space.core.dim
        )


def decode_params(
    space: SearchSpace, search_space: dict[str, BaseDistribution], x: np.ndarray
) -> dict[str, Any]:
    """The parameters active at an encoded row, as the plain Python values Optuna expects."""
    values = space.decode_active(x)
    out: dict[str, Any] = {}
    for name, dist in search_space.items():
        if name not in values:
            continue
        v = values[name]
        if isinstance(dist, CategoricalDistribution):
            out[name] = dist.to_external_repr(v)
        elif isinstance(dist, IntDistribution):
            out[name] = int(v)
        else:
            out[name] = float(v)
    return out
