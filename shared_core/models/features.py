"""Bayesian linear regression on random Fourier features (Lu et al. 2023, eq. 11-15): the GP
posterior of the ensemble once there are many observations.

Glossary (shapes in comments):
    D: number of frequency vectors; F = 2 D features ``[sin(W x), cos(W x)] / sqrt(D)``.
    W: ``(D, d)`` frequencies = spectral draws divided by the lengthscales.
    theta: ``(F,)`` feature weights with prior ``N(0, amp I)`` (eq. 11).
    Sigma, theta_hat: posterior covariance ``(F, F)`` and mean ``(F,)`` (eq. 14-15).

With this scaling ``phi(x)^T phi(x') = (1/D) sum_j cos(w_j^T (x - x'))`` is an unbiased Monte-Carlo
estimate of the unit-amplitude kernel.
"""

from __future__ import annotations

import math
from typing import cast

import numpy as np
from scipy.linalg import cho_solve
from scipy.linalg.lapack import dpotri

from shared_core.models.gp import GPHyper, safe_cholesky
from shared_core.models.kernels import KernelSpec, RandomFourierFeatures
from shared_core.models.surrogate import VARIANCE_FLOOR, kriging_believer

__all__ = ["BayesianLinearRegression", "WeightSample"]

_LOG_2PI = math.log(2.0 * math.pi)


class BayesianLinearRegression:
    """Gaussian posterior over RFF weights, updated recursively by eq. (13)-(15).

    Implements the :class:`~shared_core.models.surrogate.Posterior` contract for the random-feature
    GP ``f(x) = phi(x)^T theta``. Used once there are more observations than an exact GP should
    carry: its cost per new observation is ``O(F^2)`` whatever the number of observations.
    """

    def __init__(self, rff: RandomFourierFeatures, hyper: GPHyper, spec: KernelSpec):
        self.rff, self.hyper, self.spec = rff, hyper, spec
        F = rff.n_features
        self.theta_hat = np.zeros(F)  # (F,)
        self.Sigma = hyper.amp * np.eye(F)  # (F, F) prior covariance, eq. (11)
        self.log_evidence = 0.0  # running log p(y_1..t), sum of eq. (13) predictive terms
        self._chol: np.ndarray | None = None

    @classmethod
    def from_data(
        cls,
        rff: RandomFourierFeatures,
        hyper: GPHyper,
        spec: KernelSpec,
        X: np.ndarray,
        y: np.ndarray,
    ) -> BayesianLinearRegression:
        """Batch posterior on ``(X (n, d), y (n,))`` —
        equal to n recursive updates, in one solve."""
        blr = cls(rff, hyper, spec)
        if len(y) == 0:
            return blr
        Phi = rff.features(X)  # (n, F)
        s2 = hyper.noise
        A = np.eye(rff.n_features) / hyper.amp + Phi.T @ Phi / s2  # posterior precision
        LA = safe_cholesky(A)
        b = Phi.T @ y / s2
        blr.theta_hat = cho_solve((LA, True), b, check_finite=False)
        blr.Sigma = _inverse_from_cholesky(LA)  # A^-1, well conditioned by the prior term
        # log N(y; 0, amp Phi Phi^T + s2 I) by the matrix determinant and Woodbury lemmas
        logdet = (
            len(y) * math.log(s2)
            + 2.0 * np.log(np.diag(LA)).sum()
            + rff.n_features * math.log(hyper.amp)
        )
        quad = y @ y / s2 - b @ blr.theta_hat  # y^T C^-1 y by Woodbury
        blr.log_evidence = float(-0.5 * (quad + logdet + len(y) * _LOG_2PI))
        return blr

    def copy(self) -> BayesianLinearRegression:
        out = BayesianLinearRegression.__new__(BayesianLinearRegression)
        out.rff, out.hyper, out.spec = self.rff, self.hyper, self.spec
        out.theta_hat, out.Sigma, out.log_evidence, out._chol = (
            self.theta_hat.copy(),
            self.Sigma.copy(),
            self.log_evidence,
            None,
        )
        return out

    def _update(self, x: np.ndarray, y: float) -> float:
        """In-place rank-one update with one observation;
        returns its log predictive density (eq. 13)."""
        phi = self.rff.features(x[None])[0]  # (F,)
        Sphi = self.Sigma @ phi
        s2_pred = float(phi @ Sphi) + self.hyper.noise  # (sigma_{t+1|t})^2
        y_pred = float(phi @ self.theta_hat)  # hat y_{t+1|t}
        self.theta_hat = self.theta_hat + Sphi * (y - y_pred) / s2_pred  # eq. (15a)
        Sigma = self.Sigma - np.outer(Sphi, Sphi) / s2_pred  # eq. (15b)
        self.Sigma = 0.5 * (Sigma + Sigma.T)  # keep it symmetric against round-off
        self._chol = None
        # eq. (13) factor
        log_pred = -0.5 * ((y - y_pred) ** 2 / s2_pred + math.log(s2_pred) + _LOG_2PI)
        self.log_evidence += log_pred
        return log_pred

    def condition(self, Xn: np.ndarray, yn: np.ndarray) -> tuple[BayesianLinearRegression, float]:
        """A copy conditioned on ``(Xn (k, d), yn (k,))`` and the joint log predictive density."""
        out = self.copy()
        return out, float(sum(out._update(x, v) for x, v in zip(Xn, yn)))

    def believing(self, X_pending: np.ndarray) -> BayesianLinearRegression:
        """A copy that "observed" its own mean at ``X_pending (p, d)`` (kriging believer):
        each update has zero residual, so ``theta_hat`` (the mean) is unchanged and
        ``Sigma`` only shrinks."""
        return cast(BayesianLinearRegression, kriging_believer(self, X_pending))

    def log_marginal_likelihood(self) -> float:
        return self.log_evidence

    def predict(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Latent mean and variance ``(b,)``."""
        Phi = self.rff.features(X)  # (b, F)
        return Phi @ self.theta_hat, np.maximum(
            np.einsum("bf,fg,bg->b", Phi, self.Sigma, Phi), VARIANCE_FLOOR
        )

    def predict_with_grad(
        self, X: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Mean and variance ``(b,)`` and their input gradients ``(b, d)``."""
        Phi, dPhi = self.rff.features_with_grad(X)  # (b, F), (b, F, d)
        SPhi = Phi @ self.Sigma  # (b, F)
        raw_var = np.einsum("bf,bf->b", SPhi, Phi)
        dvar = 2.0 * np.einsum("bfd,bf->bd", dPhi, SPhi)
        dvar[raw_var <= VARIANCE_FLOOR] = 0.0  # the floor is flat
        dmean = np.einsum("bfd,f->bd", dPhi, self.theta_hat)
        return Phi @ self.theta_hat, np.maximum(raw_var, VARIANCE_FLOOR), dmean, dvar

    def sample_path(self, rng: np.random.Generator) -> WeightSample:
        """``f(x) = phi(x)^T theta~``, ``theta~ ~ N(theta_hat, Sigma)`` (eq. 12)."""
        if self._chol is None:
            self._chol = safe_cholesky(0.5 * (self.Sigma + self.Sigma.T))
        return WeightSample(
            self.rff, self.theta_hat + self._chol @ rng.standard_normal(len(self.theta_hat))
        )


class WeightSample:
    """``f(x) = phi(x)^T theta``: one draw of a :class:`BayesianLinearRegression`."""

    def __init__(self, rff: RandomFourierFeatures, theta: np.ndarray):
        self.rff, self.theta = rff, theta  # theta (F,)

    def value(self, X: np.ndarray) -> np.ndarray:
        return cast(np.ndarray, self.rff.features(X) @ self.theta)

    def value_and_grad(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        Phi, dPhi = self.rff.features_with_grad(X)
        return Phi @ self.theta, np.einsum("bfd,f->bd", dPhi, self.theta)


def _inverse_from_cholesky(L: np.ndarray) -> np.ndarray:
    """``(L L^T)^-1`` ``(F, F)`` from the lower Cholesky factor ``L`` (LAPACK ``potri``: a
    third of the flops of inverting ``L`` and multiplying)."""
    lower, info = dpotri(L, lower=1)
    if info != 0:  # pragma: no cover - L comes from a successful Cholesky
        raise np.linalg.LinAlgError(f"potri failed with info={info}")
    return cast(np.ndarray, np.tril(lower) + np.tril(lower, -1).T)
