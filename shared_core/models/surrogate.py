"""The surrogate contract: what every posterior of the core offers to algorithms and acquisitions.

A posterior is a (latent, noise-free) Gaussian belief about an objective on the encoded unit cube.
Implementations: :class:`~shared_core.models.gp.ExactPosterior` (exact GP),
:class:`~shared_core.models.features.BayesianLinearRegression` (random-feature GP for large
data) and :class:`~shared_core.models.additive.AdditivePosterior` (additive GP over input groups).
``tests/core/test_surrogate_contract.py`` runs the same checks over every implementation.

Shapes: ``X`` ``(b, d)`` query points; ``Xn`` ``(k, d)``, ``yn`` ``(k,)`` new observations.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

__all__ = ["VARIANCE_FLOOR", "FunctionSample", "Posterior", "kriging_believer"]

VARIANCE_FLOOR = 1e-12  # predicted latent variances are floored here; the floor has zero gradient


@runtime_checkable
class FunctionSample(Protocol):
    """One posterior draw ``f~`` as a function of the
    inputs (a whole path, not per-point marginals)."""

    def value(self, X: np.ndarray) -> np.ndarray:
        """``f~(X)`` ``(b,)``."""
        ...

    def value_and_grad(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``f~(X)`` ``(b,)`` and its input gradient ``(b, d)``."""
        ...


@runtime_checkable
class Posterior(Protocol):
    """The surrogate contract."""

    def predict(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Latent mean ``(b,)`` and variance ``(b,)``."""
        ...

    def predict_with_grad(
        self, X: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Mean ``(b,)``, variance ``(b,)`` and their input gradients ``(b, d)``, ``(b, d)``."""
        ...

    def condition(self, Xn: np.ndarray, yn: np.ndarray) -> tuple[Posterior, float]:
        """The posterior after also observing ``(Xn, yn)`` (exact, not refitted) and the joint log
        predictive density ``log p(yn | data so far)`` of the new block (the ensemble's weight
        update)."""
        ...

    def believing(self, X_pending: np.ndarray) -> Posterior:
        """The posterior after "observing" its own mean at ``X_pending`` ``(p, d)`` (kriging
        believer): the mean is unchanged everywhere and the variance never grows."""
        ...

    def sample_path(self, rng: np.random.Generator) -> FunctionSample:
        """A joint posterior draw of the whole function."""
        ...

    def log_marginal_likelihood(self) -> float:
        """``log p(y | X)`` of the data the posterior holds."""
        ...


def kriging_believer(post: Posterior, X_pending: np.ndarray) -> Posterior:
    """``post`` conditioned on its own predicted mean at ``X_pending`` ``(p, d)`` (the
    ``believing`` of every implementation): exact conditioning on the mean leaves the mean
    unchanged everywhere."""
    if len(X_pending) == 0:
        return post
    return post.condition(X_pending, post.predict(X_pending)[0])[0]
