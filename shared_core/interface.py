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

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from shared_core.search_space import SearchSpace

__all__ = ["Observations", "Algorithm", "clean_targets"]


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
