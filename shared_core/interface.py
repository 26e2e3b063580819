"""The one interface between framework adapters and algorithms.

An adapter (Optuna sampler, Ax node) turns its trials into :class:`Observations` on a
:class:`~shared_core.search_space.SearchSpace` and calls ``algorithm.suggest``; it turns the returned
encoded rows back into parameters with ``space.decode``. Algorithms never see a framework object.

Conventions:
    * ``X``: ``(n, d)`` encoded completed points; ``y``: ``(n,)`` objective values to be
      **minimised** (adapters negate maximised objectives). ``y`` may hold ``+inf``/``-inf``;
      :func:`clean_targets` maps them to the worst/best finite value. NaN rows are dropped.
    * ``X_pending``: ``(p, d)`` encoded points of trials still running (or already suggested in
      the same batch); algorithms should keep new suggestions away from them.
    * ``rng``: the caller's ``numpy.random.Generator``; algorithms draw every random number from it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from shared_core.search_space import SearchSpace

__all__ = ["Observations", "Algorithm", "OneAtATimeAlgorithm", "clean_targets"]


@dataclass(frozen=True)
class Observations:
    """Completed points, their values (minimised) and the points of trials still running."""

    X: np.ndarray  # (n, d)
    y: np.ndarray  # (n,)
    X_pending: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))  # (p, d)

    def __post_init__(self) -> None:
        X = np.asarray(self.X, dtype=np.float64).reshape(len(self.y), -1) if len(self.y) else np.asarray(self.X, dtype=np.float64)
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", np.asarray(self.y, dtype=np.float64).reshape(-1))
        object.__setattr__(self, "X_pending", np.asarray(self.X_pending, dtype=np.float64))
        if len(self.X) != len(self.y):
            raise ValueError(f"X has {len(self.X)} rows but y has {len(self.y)} values")


@runtime_checkable
class Algorithm(Protocol):
    """Anything with this method can be wrapped by the Optuna sampler and the Ax node."""

    def suggest(
        self, space: SearchSpace, obs: Observations, n_suggestions: int, rng: np.random.Generator
    ) -> np.ndarray:
        """Return ``(n_suggestions, space.dim)`` encoded candidates that ``space.decode`` accepts."""
        ...


def clean_targets(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Drop NaN rows; clip ``+inf`` to the worst and ``-inf`` to the best finite value.

    If no value is finite, infinite values become ``+1`` (inf) and ``-1`` (-inf) so that their order
    is kept.
    """
    keep = ~np.isnan(y)
    X, y = X[keep], y[keep].copy()
    finite = np.isfinite(y)
    if finite.any():
        lo, hi = y[finite].min(), y[finite].max()
    else:
        lo, hi = -1.0, 1.0
    y[y == np.inf] = hi
    y[y == -np.inf] = lo
    return X, y


class OneAtATimeAlgorithm:
    """Base of algorithms that build ``n`` suggestions one at a time, each seeing the earlier ones as pending.

    ``suggest`` cleans the targets, falls back to random points without data, then under a lock (the
    model is shared by threads) calls ``_prepare`` once and ``_suggest_one`` per suggestion, adding
    each new point to the pending points. Subclasses implement:

    * ``_prepare(space, X, y, rng) -> context``: bring the model up to date with the observations;
    * ``_suggest_one(space, X, y, pending (p, d), context, rng) -> (d,)``: one valid encoded point.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        del state["_lock"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def suggest(
        self, space: SearchSpace, obs: Observations, n_suggestions: int, rng: np.random.Generator
    ) -> np.ndarray:
        X, y = clean_targets(obs.X, obs.y)
        if len(y) == 0 or space.dim == 0:
            return space.sample(rng, n_suggestions, qmc_sobol=False)
        with self._lock:
            context = self._prepare(space, X, y, rng)
            pending = obs.X_pending.reshape(-1, space.dim) if obs.X_pending.size else np.zeros((0, space.dim))
            out = []
            for _ in range(n_suggestions):
                x = self._suggest_one(space, X, y, pending, context, rng)
                out.append(x)
                pending = np.vstack([pending, x[None]])
        return np.stack(out)

    def _prepare(self, space: SearchSpace, X: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> Any:
        raise NotImplementedError

    def _suggest_one(self, space, X, y, pending, context, rng) -> np.ndarray:
        raise NotImplementedError
