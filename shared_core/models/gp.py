"""Exact Gaussian-process regression: MAP hyperparameters,
incremental conditioning, pathwise samples.

Glossary (shapes in comments):
    n: observations; b: query points; d: input dimension; D: random frequencies.
    X: ``(n, d)`` inputs in the unit cube; y: ``(n,)`` standardised targets (zero prior mean).
    ls: lengthscales ``(1,)`` or ``(d,)``; amp: signal variance; noise: observation-noise variance.
    L: lower Cholesky factor of ``K + noise * I`` ``(n, n)``; alpha: ``(K + noise I)^-1 y``
    ``(n,)``.

All maths is float64; a Cholesky that fails gets growing jitter, and a hyperparameter fit that fails
falls back to the log-normal priors' mode.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import cast

import numpy as np
from scipy.linalg import cho_solve, cholesky, solve_triangular
from scipy.optimize import minimize

from shared_core.models.kernels import (
    KernelSpec,
    RandomFourierFeatures,
    kernel_grad_x,
    kernel_matrix,
    scaled_sqdist,
)
from shared_core.models.surrogate import VARIANCE_FLOOR, kriging_believer

__all__ = [
    "NOISE_FLOOR",
    "GPHyper",
    "fit_hyperparameters",
    "ExactPosterior",
    "PathwiseSample",
    "safe_cholesky",
]

_logger = logging.getLogger(__name__)
_LOG_2PI = math.log(2.0 * math.pi)

# Bounds (log space) and priors of the MAP fit. Targets are standardised, inputs in the unit cube.
_LOG_AMP_BOUNDS = (math.log(0.05), math.log(20.0))
# The noise variance's floor (standardised scale, as GPSampler's minimum): a deterministic
# objective's GPs fix it there, for a Cholesky that stays stable at repeated points.
NOISE_FLOOR = 1e-6
_LOG_NOISE_BOUNDS = (math.log(NOISE_FLOOR), math.log(0.5))
_LOG_LS_BOUNDS = (math.log(1e-3), math.log(1e3))
_NOISE_PRIOR = (-4.0, 1.0)  # log-normal on the noise variance (BoTorch's current default)
_AMP_PRIOR = (0.0, 1.0)  # log-normal on the signal variance around the standardised scale
# Weight c of the log-prior term ``-c (ls^2 + ls^-2)`` on each lengthscale, on top of the
# log-normal (Optuna's GPSampler puts the same term, ``-(c/rho + c rho)`` with ``rho = ls^-2``, on
# its inverse squared lengthscales). Without it a coordinate whose effect is small next to the
# spread of bad values (an ill-conditioned quadratic: good points differ by 1e4, bad ones by 1e6)
# gets a lengthscale of tens, the model calls it irrelevant, and nearly linear draws along it send
# it to the box bounds, where it stays. 0 turns it off; chosen by ablation
# (docs/benchmarks/defaults.md).
LENGTHSCALE_PENALTY = 0.1


def _ls_prior(d: int) -> tuple[float, float]:
    """Dimension-scaled log-normal lengthscale prior
    (Hvarfner et al., 2024): mean sqrt(2) + log(d)/2."""
    return math.sqrt(2.0) + 0.5 * math.log(d), math.sqrt(3.0)


@dataclass(frozen=True)
class GPHyper:
    """Fitted hyperparameters of one GP."""

    ls: np.ndarray  # (1,) or (d,)
    amp: float
    noise: float


def safe_cholesky(A: np.ndarray) -> np.ndarray:
    """Lower Cholesky factor of a symmetric PSD matrix, adding jitter until it succeeds."""
    scale = float(np.mean(np.diag(A))) if A.size else 1.0
    for jitter in (0.0, 1e-10, 1e-8, 1e-6, 1e-4, 1e-2):
        try:
            return cast(
                np.ndarray,
                cholesky(A + jitter * scale * np.eye(len(A)), lower=True, check_finite=False),
            )
        except np.linalg.LinAlgError:
            continue
    raise np.linalg.LinAlgError("matrix is not positive definite even with 1e-2 relative jitter")


# ------------------------------------------------------------------------------------ fitting
def _unpack(spec: KernelSpec, theta: np.ndarray, d: int) -> GPHyper:
    n_ls = 0 if spec.lengthscale is not None else spec.n_lengthscales(d)
    ls = np.full(1, spec.lengthscale) if spec.lengthscale is not None else np.exp(theta[:n_ls])
    return GPHyper(ls=ls, amp=float(np.exp(theta[n_ls])), noise=float(np.exp(theta[n_ls + 1])))


def _neg_log_posterior(
    theta: np.ndarray,
    spec: KernelSpec,
    X: np.ndarray,
    y: np.ndarray,
    penalty: float | None = None,
) -> tuple[float, np.ndarray]:
    """Negative (log marginal likelihood + log prior) and its gradient in log space; ``penalty``:
    the lengthscale penalty's weight (default ``LENGTHSCALE_PENALTY``)."""
    n, d = X.shape
    h = _unpack(spec, theta, d)
    r2 = scaled_sqdist(X, X, h.ls)  # (n, n)
    Kf = h.amp * spec.k_of_r2(r2)
    try:
        L = cholesky(Kf + h.noise * np.eye(n), lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        return 1e25, np.zeros_like(theta)
    alpha = cho_solve((L, True), y, check_finite=False)
    log_ml = -0.5 * y @ alpha - np.log(np.diag(L)).sum() - 0.5 * n * _LOG_2PI
    # d log_ml / d theta_i = 0.5 tr((alpha alpha^T - K^-1) dK/dtheta_i)
    A = np.outer(alpha, alpha) - cho_solve((L, True), np.eye(n), check_finite=False)  # (n, n)
    grads = []
    if spec.lengthscale is None:
        G = h.amp * spec.dk_dr2(r2)  # (n, n) dk/dr2
        if spec.ard:
            for j in range(d):
                Dj = (X[:, j : j + 1] - X[:, j : j + 1].T) ** 2 / h.ls[j] ** 2
                grads.append(0.5 * np.sum(A * G * (-2.0 * Dj)))
        else:
            grads.append(0.5 * np.sum(A * G * (-2.0 * r2)))
    grads.append(0.5 * np.sum(A * Kf))  # log amp
    grads.append(0.5 * h.noise * np.trace(A))  # log noise
    grad = np.array(grads)
    # Log-normal priors on ls, amp and noise, as densities of the values themselves (as GPyTorch
    # evaluates them): in log space ``-0.5 ((theta - mu) / sd)^2 - theta``, whose mode is
    # ``exp(mu - sd^2)``. Without the ``-theta`` Jacobian term the lengthscale mode would be the
    # prior median (~10 in 6-D), which switches most inputs off and leaves a few spiky ones.
    n_ls = len(theta) - 2
    mu_ls, sd_ls = _ls_prior(d)
    mu = np.concatenate([np.full(n_ls, mu_ls), [_AMP_PRIOR[0], _NOISE_PRIOR[0]]])
    sd = np.concatenate([np.full(n_ls, sd_ls), [_AMP_PRIOR[1], _NOISE_PRIOR[1]]])
    z = (theta - mu) / sd
    lp = float(-0.5 * np.sum(z**2) - np.sum(theta))
    grad += -z / sd - 1.0
    c = LENGTHSCALE_PENALTY if penalty is None else penalty
    if n_ls and c:  # -c (ls^2 + ls^-2)
        ls2 = np.exp(2.0 * theta[:n_ls])  # (n_ls,)
        lp -= c * float(np.sum(ls2 + 1.0 / ls2))
        grad[:n_ls] -= c * 2.0 * (ls2 - 1.0 / ls2)
    return float(-(log_ml + lp)), -grad


def _prior_mode(spec: KernelSpec, d: int) -> np.ndarray:
    """``theta`` at the modes of the priors: ``log`` of ``exp(mu - sd^2)`` for each value."""
    n_ls = 0 if spec.lengthscale is not None else spec.n_lengthscales(d)

    def mode(prior: tuple[float, float]) -> float:
        return prior[0] - prior[1] ** 2

    return np.concatenate(
        [np.full(n_ls, mode(_ls_prior(d))), [mode(_AMP_PRIOR), mode(_NOISE_PRIOR)]]
    )


def _pack(spec: KernelSpec, h: GPHyper, d: int) -> np.ndarray:
    ls = (
        []
        if spec.lengthscale is not None
        else np.log(np.broadcast_to(h.ls, (spec.n_lengthscales(d),)))
    )
    return np.concatenate([ls, [math.log(h.amp), math.log(h.noise)]])


def fit_hyperparameters(
    spec: KernelSpec,
    X: np.ndarray,
    y: np.ndarray,
    warm_start: GPHyper | None = None,
    noise: float | None = None,
    lengthscale_penalty: float | None = None,
) -> GPHyper:
    """MAP estimate of lengthscales, signal and noise variance by L-BFGS-B in log space.

    Starts from ``warm_start`` (the previous refit) and from the prior mode, keeps the better.
    ``noise``: a fixed noise variance instead of a fitted one (e.g. BORE++'s regulariser lambda).
    ``lengthscale_penalty``: the weight of the lengthscale penalty (default
    ``LENGTHSCALE_PENALTY``; 0: the log-normal prior alone).
    """
    n, d = X.shape
    n_ls = 0 if spec.lengthscale is not None else spec.n_lengthscales(d)
    noise_bounds = _LOG_NOISE_BOUNDS if noise is None else (math.log(noise), math.log(noise))
    bounds = [_LOG_LS_BOUNDS] * n_ls + [_LOG_AMP_BOUNDS, noise_bounds]
    starts = [_prior_mode(spec, d)]
    if noise is not None:
        starts[0][-1] = math.log(noise)
    if warm_start is not None and (spec.lengthscale is not None or len(warm_start.ls) == n_ls):
        starts.insert(
            0, np.clip(_pack(spec, warm_start, d), [b[0] for b in bounds], [b[1] for b in bounds])
        )
    best_theta, best_val = starts[-1], math.inf
    for theta0 in starts:
        try:
            res = minimize(
                _neg_log_posterior,
                theta0,
                args=(spec, X, y, lengthscale_penalty),
                jac=True,
                method="L-BFGS-B",
                bounds=bounds,
                options={"maxiter": 200},
            )
        except (
            ValueError,
            np.linalg.LinAlgError,
            FloatingPointError,
        ) as err:  # pragma: no cover - fallback
            _logger.warning(
                "GP hyperparameter fit failed for %s (%s); using prior mode", spec.name, err
            )
            continue
        if np.isfinite(res.fun) and res.fun < min(best_val, 1e24):  # 1e25 marks a failed Cholesky
            best_theta, best_val = res.x, float(res.fun)
    return _unpack(spec, best_theta, d)


def hyperparameters_valid(spec: KernelSpec, hyper: GPHyper, d: int) -> bool:
    """Could :func:`fit_hyperparameters` have returned ``hyper`` for ``spec`` on ``d``
    inputs (shapes and bounds; a fixed lengthscale must be the spec's)? Used to vet
    hyperparameters read from elsewhere."""
    ls = np.asarray(hyper.ls, dtype=float)
    if spec.lengthscale is not None:
        ls_ok = ls.shape == (1,) and math.isclose(float(ls[0]), spec.lengthscale, rel_tol=1e-9)
    else:
        ls_ok = ls.shape == (spec.n_lengthscales(d),) and bool(np.all((ls > 0) & np.isfinite(ls)))
        ls_ok = ls_ok and _inside(np.log(ls), _LOG_LS_BOUNDS)
    scalars_ok = all(v > 0 and math.isfinite(v) for v in (hyper.amp, hyper.noise))
    return bool(
        ls_ok
        and scalars_ok
        and _inside(np.log([hyper.amp]), _LOG_AMP_BOUNDS)
        and _inside(np.log([hyper.noise]), _LOG_NOISE_BOUNDS)
    )


def _inside(log_values: np.ndarray, bounds: tuple[float, float], slack: float = 1e-9) -> bool:
    return bool(np.all((log_values >= bounds[0] - slack) & (log_values <= bounds[1] + slack)))


# ------------------------------------------------------------------------------------ posterior
class ExactPosterior:
    """Exact GP posterior with fixed hyperparameters (the
    :class:`~shared_core.models.surrogate.Posterior` contract); conditioning on new data is
    a block Cholesky append.

    Args:
        spec, hyper: kernel and its hyperparameters.
        X: ``(n, d)``; y: ``(n,)`` standardised targets.
        L: the Cholesky factor of ``K + noise I`` if already known.
        n_frequencies: random frequencies of the prior draw in :meth:`sample_path`.
    """

    def __init__(
        self,
        spec: KernelSpec,
        hyper: GPHyper,
        X: np.ndarray,
        y: np.ndarray,
        L: np.ndarray | None = None,
        *,
        n_frequencies: int = 256,
    ):
        self.spec, self.hyper = spec, hyper
        self.X, self.y = X, y
        self.n_frequencies = n_frequencies
        if L is None:
            K = kernel_matrix(spec, X, X, hyper.ls, hyper.amp) + hyper.noise * np.eye(len(X))
            L = safe_cholesky(K)
        # (n, n); LAPACK's order: scipy copies a C-ordered factor at every solve
        self.L = np.asfortranarray(L)
        # (n,)
        self.alpha = cho_solve((self.L, True), y, check_finite=False) if len(y) else np.zeros(0)

    @property
    def n(self) -> int:
        return len(self.y)

    def log_marginal_likelihood(self) -> float:
        """``log p(y | X, m)`` — the batch weight of eq. (9)."""
        return float(
            -0.5 * self.y @ self.alpha - np.log(np.diag(self.L)).sum() - 0.5 * self.n * _LOG_2PI
        )

    def condition(self, Xn: np.ndarray, yn: np.ndarray) -> tuple[ExactPosterior, float]:
        """Posterior after also observing ``(Xn (k, d), yn (k,))``
        and the joint log predictive density.

        The log predictive ``log N(yn; mu, S)`` is the
        weight update of eq. (13) for a block of points.
        """
        h = self.hyper
        K12 = kernel_matrix(self.spec, self.X, Xn, h.ls, h.amp)  # (n, k)
        K22 = kernel_matrix(self.spec, Xn, Xn, h.ls, h.amp) + h.noise * np.eye(len(Xn))  # (k, k)
        L12 = solve_triangular(self.L, K12, lower=True, check_finite=False)  # (n, k)
        L22 = safe_cholesky(K22 - L12.T @ L12)  # (k, k): predictive covariance S = L22 L22^T
        # (k,) predictive mean
        mu = L12.T @ solve_triangular(self.L, self.y, lower=True, check_finite=False)
        z = solve_triangular(L22, yn - mu, lower=True, check_finite=False)
        # eq. (13)
        log_pred = float(-0.5 * z @ z - np.log(np.diag(L22)).sum() - 0.5 * len(yn) * _LOG_2PI)
        n, k = self.n, len(yn)
        L = np.zeros((n + k, n + k), order="F")
        L[:n, :n], L[n:, :n], L[n:, n:] = self.L, L12.T, L22
        post = ExactPosterior(
            self.spec,
            h,
            np.vstack([self.X, Xn]),
            np.concatenate([self.y, yn]),
            L,
            n_frequencies=self.n_frequencies,
        )
        return post, log_pred

    def believing(self, X_pending: np.ndarray) -> ExactPosterior:
        """Posterior after "observing" its own mean at ``X_pending (p, d)`` (kriging believer).

        The mean is unchanged everywhere; the variance shrinks around the pending points.
        """
        return cast(ExactPosterior, kriging_believer(self, X_pending))

    def predict(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Latent mean and variance ``(b,)`` at ``X (b, d)``."""
        h = self.hyper
        Kq = kernel_matrix(self.spec, X, self.X, h.ls, h.amp)  # (b, n)
        V = solve_triangular(self.L, Kq.T, lower=True, check_finite=False)  # (n, b)
        return Kq @ self.alpha, np.maximum(h.amp - np.einsum("nb,nb->b", V, V), VARIANCE_FLOOR)

    def predict_with_grad(
        self, X: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Mean and variance ``(b,)`` and their input gradients ``(b, d)``."""
        h = self.hyper
        Kq, dKq = kernel_grad_x(self.spec, X, self.X, h.ls, h.amp)  # (b, n), (b, n, d)
        V = solve_triangular(self.L, Kq.T, lower=True, check_finite=False)  # (n, b): L^-1 k
        # (n, b): (K + noise I)^-1 k
        W = solve_triangular(self.L, V, lower=True, trans="T", check_finite=False)
        raw_var = h.amp - np.einsum("nb,nb->b", V, V)
        dvar = -2.0 * np.einsum("bnd,nb->bd", dKq, W)
        dvar[raw_var <= VARIANCE_FLOOR] = 0.0  # the floor is flat
        return (
            Kq @ self.alpha,
            np.maximum(raw_var, VARIANCE_FLOOR),
            np.einsum("bnd,n->bd", dKq, self.alpha),
            dvar,
        )

    def sample_path(self, rng: np.random.Generator) -> PathwiseSample:
        """Pathwise posterior sample (Wilson et al. 2020): RFF prior draw plus exact data update.

        ``f(x) = f_prior(x) + k(x, X) (K + noise I)^-1 (y - f_prior(X) - eps)``,
        ``eps ~ N(0, noise I)``, keeps the exact posterior mean and covariance up to the
        prior approximation; fresh features per draw, so the prior approximations of
        different draws are independent.
        """
        h = self.hyper
        rff = RandomFourierFeatures(self.spec, h.ls, self.X.shape[1], self.n_frequencies, rng)
        theta = rng.standard_normal(rff.n_features) * math.sqrt(h.amp)  # prior weights, eq. (11)
        eps = rng.standard_normal(self.n) * math.sqrt(h.noise)
        resid = self.y - rff.features(self.X) @ theta - eps
        return PathwiseSample(
            self, rff, theta, cho_solve((self.L, True), resid, check_finite=False)
        )


class PathwiseSample:
    """``f(x) = phi(x)^T theta + k(x, X) v``: one draw of an :class:`ExactPosterior`."""

    def __init__(
        self, post: ExactPosterior, rff: RandomFourierFeatures, theta: np.ndarray, v: np.ndarray
    ):
        self.post, self.rff, self.theta, self.v = post, rff, theta, v  # theta (F,), v (n,)

    def value(self, X: np.ndarray) -> np.ndarray:
        p, h = self.post, self.post.hyper
        return cast(
            np.ndarray,
            self.rff.features(X) @ self.theta + kernel_matrix(p.spec, X, p.X, h.ls, h.amp) @ self.v,
        )

    def value_and_grad(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p, h = self.post, self.post.hyper
        Phi, dPhi = self.rff.features_with_grad(X)  # (b, F), (b, F, d)
        Kq, dKq = kernel_grad_x(p.spec, X, p.X, h.ls, h.amp)  # (b, n), (b, n, d)
        return (
            Phi @ self.theta + Kq @ self.v,
            np.einsum("bfd,f->bd", dPhi, self.theta) + np.einsum("bnd,n->bd", dKq, self.v),
        )
