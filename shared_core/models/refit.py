"""When to refit hyperparameters, and on which points: shared by the GP ensemble and BORE++.

Refitting by marginal likelihood costs ``O(iters * m^3)``; between refits a model keeps its
hyperparameters and only conditions on (or rebuilds with) the new data. The schedule follows the
"re-initialisation" of Lu et al. 2023, Algorithm 1, lines 10-15.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["RefitSchedule", "fit_subset"]


@dataclass(frozen=True)
class RefitSchedule:
    """Refit at every new observation below ``always_below`` observations, then when the data grew
    by ``fraction`` since the last refit, and at least every ``max_interval`` observations."""

    fraction: float = 0.1
    max_interval: int = 50
    always_below: int = 10

    def due(self, n_at_refit: int, n: int) -> bool:
        """Is a refit due with ``n`` observations, the last refit having seen ``n_at_refit``?"""
        interval = min(max(1, math.ceil(self.fraction * n_at_refit)), self.max_interval)
        return (n_at_refit < self.always_below and n > n_at_refit) or n - n_at_refit >= interval


def fit_subset(
    X: np.ndarray, y: np.ndarray, max_points: int, rng: np.random.Generator
) -> np.ndarray:
    """Indices of the points to fit hyperparameters on: all of ``(X (n, d), y (n,))`` (``y``
    minimised), or the best fifth of ``max_points`` plus a random rest when ``n > max_points``."""
    n = len(X)
    if n <= max_points:
        return np.arange(n)
    n_best = max_points // 5
    order = np.argsort(y, kind="stable")
    rest = rng.choice(order[n_best:], max_points - n_best, replace=False)
    return np.concatenate([order[:n_best], rest])
