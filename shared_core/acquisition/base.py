"""The acquisition contract shared by every algorithm
and the optimisers in :mod:`shared_core.optim`.

An acquisition is a small object, *maximised* over the encoded unit cube. Anything with these two
methods fits the optimiser: an analytic function of a posterior, a sum of per-factor terms, a
trained network.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

__all__ = ["Acquisition"]


class Acquisition(ABC):
    """``value(X (b, d)) -> (b,)`` and ``value_and_grad(X) -> ((b,), (b, d))``, to be maximised."""

    @abstractmethod
    def value(self, X: np.ndarray) -> np.ndarray:
        """Acquisition values ``(b,)`` at ``X`` ``(b, d)``."""

    @abstractmethod
    def value_and_grad(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Values ``(b,)`` and input gradients ``(b, d)``."""
