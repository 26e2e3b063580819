"""The one interface between framework adapters and algorithms.

An adapter (Optuna sampler, Ax node) turns its trials into :class:`Observations` on a
:class:`~shared_core.search_space.SearchSpace` and calls ``algorithm.suggest``; it turns the
returned encoded rows back into parameters with ``space.decode``. Algorithms never see a framework
object.

The contract, in one place (each name below is importable from here):

* :class:`Algorithm`: ``suggest(space, obs, n_suggestions, rng)``, usually built on
  :class:`OneAtATimeAlgorithm` (the shared suggest loop);
* the data, :mod:`shared_core.observations`: :class:`Observations` (its conventions: minimised
  values, pending points, constraint values, source labels), :data:`UNKNOWN_SOURCE`,
  :func:`clean_targets`;
* the optional capabilities, :mod:`shared_core.capabilities`: runtime-checkable protocols an
  adapter tests with ``isinstance(algorithm, P)`` (:class:`SharesModelState`,
  :class:`ReadsSources`, :class:`MultiAgent`), and what an algorithm declares it models
  (:class:`ModelsConstraints`, :class:`MultiObjective`), refused by the adapters before the user
  pays for trials when it does not (:func:`refusal`).

A new algorithm is a class with ``suggest`` (usually a :class:`OneAtATimeAlgorithm`), its
declarations, and a line in :mod:`shared_core.registry`; both adapters then serve it with no code
of their own.
"""

from __future__ import annotations

import threading
from typing import Any, Protocol, runtime_checkable

import numpy as np

from shared_core.capabilities import (
    CAPABILITY_MEMBERS,
    DECLARATIONS,
    ModelsConstraints,
    MultiAgent,
    MultiObjective,
    ReadsSources,
    SharesModelState,
    check_capabilities,
    declares,
    models_constraints,
    multi_objective,
    refusal,
    refuse_unmodelled,
)
from shared_core.observations import UNKNOWN_SOURCE, Observations, clean_targets
from shared_core.search_space import SearchSpace

__all__ = [
    "CAPABILITY_MEMBERS",
    "DECLARATIONS",
    "UNKNOWN_SOURCE",
    "Observations",
    "Algorithm",
    "ModelsConstraints",
    "MultiAgent",
    "MultiObjective",
    "OneAtATimeAlgorithm",
    "ReadsSources",
    "SharesModelState",
    "check_capabilities",
    "clean_targets",
    "declares",
    "models_constraints",
    "multi_objective",
    "refusal",
    "refuse_unmodelled",
]


@runtime_checkable
class Algorithm(Protocol):
    """Anything with this method can be wrapped by the Optuna sampler and the Ax node (optional
    capabilities and declarations: :mod:`shared_core.capabilities`)."""

    def suggest(
        self, space: SearchSpace, obs: Observations, n_suggestions: int, rng: np.random.Generator
    ) -> np.ndarray:
        """Return ``(n_suggestions, space.dim)`` encoded
        candidates that ``space.decode`` accepts."""
        ...


class OneAtATimeAlgorithm:
    """Base of algorithms that build ``n`` suggestions one
    at a time, each seeing the earlier ones as pending.

    ``suggest`` refuses constraint values and several objectives that the subclass does not declare
    it models (:func:`refuse_unmodelled`), cleans the observations and keeps of the repeatable rows
    at one point the best (:meth:`Observations.best_of_repeats`), falls back to random points
    without data, then under a lock (the model is shared by threads) calls ``_prepare`` once and
    ``_suggest_one`` per suggestion, adding each new point to the pending points. Subclasses
    implement:

    * ``_prepare(space, obs, rng) -> context``: bring the model up to date with the (clean)
      observations;
    * ``_suggest_one(space, obs, context, rng) -> (d,)``: one valid encoded point; ``obs.X_pending``
      holds the running trials and the earlier suggestions of this call.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def suggest(
        self, space: SearchSpace, obs: Observations, n_suggestions: int, rng: np.random.Generator
    ) -> np.ndarray:
        refuse_unmodelled(self, obs)
        obs = obs.cleaned().best_of_repeats()
        if len(obs.y) == 0 or space.dim == 0:
            return space.sample(rng, n_suggestions, low_discrepancy=False)
        with self._lock:
            context = self._prepare(space, obs, rng)
            out = []
            for _ in range(n_suggestions):
                x = self._suggest_one(space, obs, context, rng)
                out.append(x)
                obs = obs.with_pending(x[None])
        return np.stack(out)

    def _prepare(self, space: SearchSpace, obs: Observations, rng: np.random.Generator) -> Any:
        raise NotImplementedError

    def _suggest_one(
        self, space: SearchSpace, obs: Observations, context: Any, rng: np.random.Generator
    ) -> np.ndarray:
        raise NotImplementedError
