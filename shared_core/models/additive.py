"""Additive GP over disjoint groups of input columns: the surrogate of DEC-HBO (Hoang, Hoang,
Ouyang and Low, "Decentralized High-Dimensional Bayesian Optimization with Factor Graphs", 2018).

``f(x) = sum_g f_g(x^g)`` with independent zero-mean GP factors ``f_g`` over the columns ``x^g``
of group ``g`` (Assumptions 1-2), so ``K(x, x') = sum_g amp_g kbar(r2_g(x^g, x'^g))``. Besides the
:class:`~shared_core.models.surrogate.Posterior` contract for ``f``, the posterior gives each
factor's own mean and variance (eq. 1), the terms of the additive acquisition function (eq. 2).

Glossary (shapes in comments):
    n: observations; b: query points; d: input dimension; G: number of groups; m: columns of one
    group; D: random frequencies per group.
    groups: ``G`` disjoint integer arrays of column indices that together cover ``0..d-1``.
    X: ``(n, d)`` inputs in the unit cube; y: ``(n,)`` standardised targets (zero prior mean).
    Z: ``(b, m)`` points given in one group's own columns (``X[:, groups[g]]``).
    ls: ``(d,)`` one lengthscale per column; amps: ``(G,)`` signal variance per group.
    theta: ``(d + G + 1,)`` ``[log ls, log amps, log noise]``, the fit's parameters.
    L: lower Cholesky factor of ``K + noise I`` ``(n, n)``; alpha: ``(K + noise I)^-1 y`` ``(n,)``.

Priors and bounds are those of :mod:`shared_core.models.gp` with each group's size as the dimension
of its lengthscale prior, two differences aside: the signal-variance prior is centred on ``1 / G``,
the groups sharing the standardised variance, and of ``gp.py``'s lengthscale penalty
``-c (ls^2 + ls^-2)`` only the long half ``-c ls^2`` is kept (the comment on ``_log_prior``).
With one group holding every column the model is otherwise the ARD GP of ``gp.py``.
"""

from __future__ import annotations

import functools
import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np
from scipy.integrate import quad
from scipy.linalg import cho_solve, cholesky, solve_triangular
from scipy.optimize import minimize

from shared_core.models.gp import (
    _LOG_AMP_BOUNDS,
    _LOG_LS_BOUNDS,
    _LOG_NOISE_BOUNDS,
    _NOISE_PRIOR,
    LENGTHSCALE_PENALTY,
    _ls_prior,
    safe_cholesky,
)
from shared_core.models.kernels import (
    KernelSpec,
    RandomFourierFeatures,
    kernel_grad_x,
    kernel_matrix,
    scaled_sqdist,
)
from shared_core.models.surrogate import VARIANCE_FLOOR, kriging_believer

__all__ = [
    "AdditiveHyper",
    "AdditivePathSample",
    "AdditivePosterior",
    "additive_log_evidence",
    "fit_additive",
]

_logger = logging.getLogger(__name__)
_LOG_2PI = math.log(2.0 * math.pi)
_FAILED = 1e25  # the objective's value where the Cholesky factorisation fails


@dataclass(frozen=True)
class AdditiveHyper:
    """Hyperparameters of an additive GP."""

    ls: np.ndarray  # (d,) one lengthscale per input column
    amps: np.ndarray  # (G,) signal variance per group
    noise: float  # observation-noise variance


# ------------------------------------------------------------------------------------ validation
def _check_groups(groups: Sequence[np.ndarray], d: int) -> tuple[np.ndarray, ...]:
    """``groups`` as read-only integer arrays; ValueError naming the bad groups unless they are
    non-empty, disjoint and cover ``range(d)`` exactly."""
    valid: dict[int, np.ndarray] = {}
    seen, bad = np.full(d, -1), []
    if len(groups) == 0:
        raise ValueError(f"groups must hold at least one group of columns, got {groups!r}")
    for i, group in enumerate(groups):
        g = np.asarray(group)
        if g.ndim != 1 or g.size == 0 or not np.issubdtype(g.dtype, np.integer):
            bad.append(f"groups[{i}] = {g.tolist()} is not a non-empty 1-D array of column indices")
            continue
        if np.any((g < 0) | (g >= d)):
            bad.append(f"groups[{i}] = {g.tolist()} has columns outside range({d})")
            continue
        if len(np.unique(g)) < len(g):
            bad.append(f"groups[{i}] = {g.tolist()} repeats a column")
        for j in sorted({int(seen[c]) for c in g} - {-1}):
            shared = np.intersect1d(valid[j], g).tolist()
            bad.append(f"groups[{j}] and groups[{i}] share columns {shared}")
        seen[g] = i
        valid[i] = g.astype(np.intp)
        valid[i].flags.writeable = False
    missing = np.flatnonzero(seen < 0)
    if not bad and missing.size:
        bad.append(f"columns {missing.tolist()} are in no group")
    if bad:
        raise ValueError(f"groups must partition the {d} columns: " + "; ".join(bad))
    return tuple(valid.values())


def _check_hyper(hyper: AdditiveHyper, d: int, G: int) -> None:
    ls, amps = np.asarray(hyper.ls), np.asarray(hyper.amps)
    if ls.shape != (d,) or amps.shape != (G,):
        raise ValueError(
            f"hyper must have ls of shape ({d},) and amps of shape ({G},), got {ls.shape} and "
            f"{amps.shape}"
        )
    values = np.concatenate([ls, amps, [hyper.noise]])
    if not np.all((values > 0) & np.isfinite(values)):
        raise ValueError(f"hyperparameters must be positive and finite, got {hyper!r}")


# ------------------------------------------------------------------------------------ fitting
def _unpack(theta: np.ndarray, d: int) -> AdditiveHyper:
    return AdditiveHyper(
        ls=np.exp(theta[:d]), amps=np.exp(theta[d:-1]), noise=float(np.exp(theta[-1]))
    )


def _pack(h: AdditiveHyper) -> np.ndarray:
    return cast(np.ndarray, np.log(np.concatenate([h.ls, h.amps, [h.noise]])))


def _prior_moments(groups: tuple[np.ndarray, ...], d: int) -> tuple[np.ndarray, np.ndarray]:
    """Log-normal ``(mu, sd)`` ``(d + G + 1,)`` of every entry of ``theta``."""
    G = len(groups)
    mu, sd = np.empty(d + G + 1), np.empty(d + G + 1)
    for g in groups:
        mu[g], sd[g] = _ls_prior(len(g))  # Hvarfner et al. (2024), the group's size as dimension
    mu[d:-1], sd[d:-1] = -math.log(G), 1.0
    mu[-1], sd[-1] = _NOISE_PRIOR
    return mu, sd


# The lengthscale penalty is ``-c ls^2``, without ``gp.py``'s short half ``-c ls^-2``. That half
# costs 10 nats per column at ls = 0.1 and 250 at ls = 0.02, and the factors of one or a few
# columns that an additive model is for often vary that fast (each 1-D term of Michalewicz-10 has
# a valley of width 0.01-0.1 of the unit range). With it, on 150 random points of Michalewicz-10
# with the true groups (seeds 0-3), the fit took median lengthscales of 0.4-0.6 and the noise
# bound 0.5, correlated 0.21-0.33 with held-out values, and its factors' minimisers summed to
# -1.6 to -2.8 (minimum -9.66); without it, median lengthscales of 0.03, noise 0.007, correlation
# 0.56-0.63 and -7.0 to -8.6 (measured 2026-11-27 at commit 899774e). The long half is what the
# penalty is for (gp.py).
def _log_prior(
    theta: np.ndarray, groups: tuple[np.ndarray, ...], d: int
) -> tuple[float, np.ndarray]:
    """Unnormalised log prior density of the values (``gp.py``'s convention) and its gradient."""
    mu, sd = _prior_moments(groups, d)
    z = (theta - mu) / sd  # (d + G + 1,)
    lp = float(-0.5 * np.sum(z**2) - np.sum(theta))  # log-normal densities of the values
    grad = -z / sd - 1.0
    ls2 = np.exp(2.0 * theta[:d])  # (d,) the lengthscale penalty -c ls^2
    lp -= LENGTHSCALE_PENALTY * float(np.sum(ls2))
    grad[:d] -= LENGTHSCALE_PENALTY * 2.0 * ls2
    return lp, grad


@functools.lru_cache(maxsize=64)
def _log_ls_normaliser(m: int) -> float:
    """``log`` of the integral of one lengthscale's unnormalised prior density (the log-normal of a
    group of ``m`` columns with the penalty ``-c ls^2``), by quadrature in log space."""
    mu, sd = _ls_prior(m)

    def density(t: float) -> float:  # N(t; mu, sd) exp(-c e^2t)
        return math.exp(
            -0.5 * ((t - mu) / sd) ** 2
            - math.log(sd)
            - 0.5 * _LOG_2PI
            - LENGTHSCALE_PENALTY * math.exp(2 * t)
        )

    return math.log(quad(density, mu - 12.0 * sd, mu + 12.0 * sd, points=[0.0], limit=200)[0])


def _log_prior_constant(groups: tuple[np.ndarray, ...], d: int) -> float:
    """What turns :func:`_log_prior` into a normalised log density."""
    _, sd = _prior_moments(groups, d)
    ls_norm = sum(len(g) * _log_ls_normaliser(len(g)) for g in groups)
    return float(-np.sum(np.log(sd)) - 0.5 * len(sd) * _LOG_2PI - ls_norm)


def _log_ml(L: np.ndarray, y: np.ndarray, alpha: np.ndarray) -> float:
    """``log N(y; 0, L L^T)`` given ``alpha = (L L^T)^-1 y``."""
    return float(-0.5 * y @ alpha - np.log(np.diag(L)).sum() - 0.5 * len(y) * _LOG_2PI)


def _neg_log_posterior(
    theta: np.ndarray,
    spec: KernelSpec,
    groups: tuple[np.ndarray, ...],
    X: np.ndarray,
    y: np.ndarray,
) -> tuple[float, np.ndarray]:
    """Negative (log marginal likelihood + unnormalised log prior) and its gradient in log space."""
    n, d = X.shape
    h = _unpack(theta, d)
    r2 = [scaled_sqdist(X[:, g], X[:, g], h.ls[g]) for g in groups]  # G x (n, n)
    Kbar = [spec.k_of_r2(r) for r in r2]  # G x (n, n) unit-amplitude factor kernels
    K = sum((a * Kb for a, Kb in zip(h.amps, Kbar)), h.noise * np.eye(n))  # (n, n)
    try:
        L = cholesky(K, lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        return _FAILED, np.zeros_like(theta)
    alpha = cho_solve((L, True), y, check_finite=False)  # (n,)
    # d log_ml / d theta_i = 0.5 tr(A dK/dtheta_i)
    A = np.outer(alpha, alpha) - cho_solve((L, True), np.eye(n), check_finite=False)  # (n, n)
    grad = np.empty_like(theta)
    for i, (g, a, r, Kb) in enumerate(zip(groups, h.amps, r2, Kbar)):
        M = A * (a * spec.dk_dr2(r))  # (n, n) symmetric
        Xg = X[:, g]  # (n, m)
        # dK/dlog ls_j = a kbar'(r2) (-2 (x_j - x'_j)^2 / ls_j^2), and
        # sum_ik M_ik (x_ij - x_kj)^2 = 2 (M 1)^T x_j^2 - 2 x_j^T M x_j
        sq = 2.0 * (M.sum(1) @ Xg**2 - np.sum(Xg * (M @ Xg), axis=0))  # (m,)
        grad[g] = -sq / h.ls[g] ** 2
        grad[d + i] = 0.5 * np.sum(A * (a * Kb))  # log amp_g
    grad[-1] = 0.5 * h.noise * np.trace(A)  # log noise
    lp, dlp = _log_prior(theta, groups, d)
    return -(_log_ml(L, y, alpha) + lp), -(grad + dlp)


def _fit(
    groups: tuple[np.ndarray, ...],
    X: np.ndarray,
    y: np.ndarray,
    spec: KernelSpec,
    start: AdditiveHyper | None,
    maxiter: int,
) -> tuple[np.ndarray, float]:
    """Best ``theta`` of L-BFGS-B runs from the prior mode and ``start``, and its objective."""
    d, G = X.shape[1], len(groups)
    # the groups share the standardised variance: each amp's lower bound is gp.py's over G (so
    # the prior mode, 1 / (e G), stays inside it for many groups)
    amp_bounds = (_LOG_AMP_BOUNDS[0] - math.log(G), _LOG_AMP_BOUNDS[1])
    bounds = [_LOG_LS_BOUNDS] * d + [amp_bounds] * G + [_LOG_NOISE_BOUNDS]
    lo, hi = np.array(bounds).T  # (d + G + 1,) each
    mu, sd = _prior_moments(groups, d)
    starts = [mu - sd**2]  # the log-normal modes, exp(mu - sd^2) for each value
    if start is not None and np.shape(start.ls) == (d,) and np.shape(start.amps) == (G,):
        starts.insert(0, _pack(start))
    best_theta, best_val = np.clip(starts[-1], lo, hi), math.inf
    for theta0 in starts:
        try:
            res = minimize(
                _neg_log_posterior,
                np.clip(theta0, lo, hi),
                args=(spec, groups, X, y),
                jac=True,
                method="L-BFGS-B",
                bounds=bounds,
                options={"maxiter": maxiter},
            )
        except (ValueError, np.linalg.LinAlgError, FloatingPointError) as err:  # pragma: no cover
            _logger.warning("additive GP fit failed (%s); using the prior mode", err)
            continue
        if np.isfinite(res.fun) and res.fun < min(best_val, 0.1 * _FAILED):
            best_theta, best_val = res.x, float(res.fun)
    if not math.isfinite(best_val):  # every run failed: the objective at the fallback
        best_val = _neg_log_posterior(best_theta, spec, groups, X, y)[0]
    return best_theta, best_val


def _check_data(X: np.ndarray, y: np.ndarray) -> None:
    if X.ndim != 2 or y.shape != (len(X),):
        raise ValueError(f"X must be (n, d) and y (n,), got shapes {X.shape} and {y.shape}")


def fit_additive(
    groups: Sequence[np.ndarray],
    X: np.ndarray,
    y: np.ndarray,
    *,
    form: str = "matern52",
    start: AdditiveHyper | None = None,
    maxiter: int = 200,
) -> AdditiveHyper:
    """MAP lengthscales, signal variances and noise variance by L-BFGS-B in log space.

    Args:
        groups: disjoint column-index arrays covering ``0..d-1``.
        X: ``(n, d)``; y: ``(n,)`` standardised targets.
        form: the factors' kernel form, ``"matern52"``, ``"matern32"`` or ``"rbf"``.
        start: a previous fit, tried as a start besides the prior mode (ignored if its shapes
            do not fit); the better optimum is kept.
        maxiter: L-BFGS-B iterations per start.
    """
    return additive_log_evidence(groups, X, y, form=form, start=start, maxiter=maxiter)[0]


def additive_log_evidence(
    groups: Sequence[np.ndarray],
    X: np.ndarray,
    y: np.ndarray,
    *,
    form: str = "matern52",
    start: AdditiveHyper | None = None,
    maxiter: int = 200,
) -> tuple[AdditiveHyper, float]:
    """:func:`fit_additive`'s hyperparameters and the maximised ``log p(y | X, h) + log p(h)``.

    The prior is a normalised density here (the fit drops its constants, which depend on the
    group sizes and their number), so values for different groupings of the same data compare:
    the score by which a structure is chosen (Appendix B). It is the density of ``theta``, the
    log hyperparameters (normal, and the lengthscales' penalty), at the fit's ``theta``: the
    density of the values that the fit maximises has the Jacobian ``-sum(theta)`` besides, which
    gives each factor's amplitude about ``log G`` nats that have nothing to do with the data and
    so would favour many small groups when there are few observations. ``-inf`` if no fit
    succeeded.
    """
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    _check_data(X, y)
    spec = KernelSpec(form, ard=True)
    checked = _check_groups(groups, X.shape[1])
    theta, val = _fit(checked, X, y, spec, start, maxiter)
    failed = val >= 0.1 * _FAILED
    jacobian = -float(np.sum(theta))  # log |d values / d theta|^-1, in val's prior (_log_prior)
    log_evidence = (
        -math.inf if failed else -val - jacobian + _log_prior_constant(checked, X.shape[1])
    )
    return _unpack(theta, X.shape[1]), float(log_evidence)


# ------------------------------------------------------------------------------------ posterior
class AdditivePosterior:
    """Exact posterior of an additive GP with fixed hyperparameters (the
    :class:`~shared_core.models.surrogate.Posterior` contract for ``f``, and per-factor moments);
    conditioning on new data is a block Cholesky append.

    Args:
        groups: disjoint column-index arrays covering ``0..d-1``.
        hyper: the hyperparameters, ``ls`` ``(d,)`` and ``amps`` ``(G,)``.
        X: ``(n, d)``; y: ``(n,)`` standardised targets.
        L: the Cholesky factor of ``K + noise I`` if already known.
        form: the factors' kernel form, ``"matern52"``, ``"matern32"`` or ``"rbf"``.
        n_frequencies: random frequencies per group of the prior draw in :meth:`sample_path`.
    """

    def __init__(
        self,
        groups: Sequence[np.ndarray],
        hyper: AdditiveHyper,
        X: np.ndarray,
        y: np.ndarray,
        L: np.ndarray | None = None,
        *,
        form: str = "matern52",
        n_frequencies: int = 256,
    ):
        _check_data(X, y)
        self.spec = KernelSpec(form, ard=True)
        self.groups = _check_groups(groups, X.shape[1])
        _check_hyper(hyper, X.shape[1], len(self.groups))
        self.hyper, self.X, self.y = hyper, X, y
        self.n_frequencies = n_frequencies
        self._Xg = tuple(X[:, g] for g in self.groups)  # G x (n, m)
        if L is None:
            L = safe_cholesky(self._gram(X) + hyper.noise * np.eye(len(X)))
        self.L = np.asfortranarray(L)  # (n, n)
        self.alpha = cho_solve((self.L, True), y, check_finite=False) if len(y) else np.zeros(0)

    @property
    def n(self) -> int:
        return len(self.y)

    # -------------------------------------------------------------------------- kernels
    def _factor_cross(self, g: int, Z: np.ndarray) -> np.ndarray:
        """``k_g(Z, X^g)`` ``(b, n)``."""
        h, grp = self.hyper, self.groups[g]
        return kernel_matrix(self.spec, Z, self._Xg[g], h.ls[grp], float(h.amps[g]))

    def _gram(self, X1: np.ndarray, X2: np.ndarray | None = None) -> np.ndarray:
        """``K(X1, X2)`` ``(b, b2)``, or ``K(X1, X)`` with the data if ``X2`` is None."""
        h = self.hyper
        return cast(
            np.ndarray,
            sum(
                kernel_matrix(
                    self.spec,
                    X1[:, g],
                    self._Xg[i] if X2 is None else X2[:, g],
                    h.ls[g],
                    float(h.amps[i]),
                )
                for i, g in enumerate(self.groups)
            ),
        )

    def _moments(self, Kq: np.ndarray, prior_var: float) -> tuple[np.ndarray, np.ndarray]:
        """Mean and floored variance ``(b,)`` from the cross-covariances ``Kq`` ``(b, n)``."""
        V = solve_triangular(self.L, Kq.T, lower=True, check_finite=False)  # (n, b)
        return Kq @ self.alpha, np.maximum(prior_var - np.einsum("nb,nb->b", V, V), VARIANCE_FLOOR)

    def _moments_with_grad(
        self, Kq: np.ndarray, dKq: np.ndarray, prior_var: float
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`_moments` and their gradients ``(b, m)`` from ``dKq`` ``(b, n, m)``."""
        V = solve_triangular(self.L, Kq.T, lower=True, check_finite=False)  # (n, b): L^-1 k
        # (n, b): (K + noise I)^-1 k
        W = solve_triangular(self.L, V, lower=True, trans="T", check_finite=False)
        raw_var = prior_var - np.einsum("nb,nb->b", V, V)
        dvar = -2.0 * np.einsum("bnm,nb->bm", dKq, W)
        dvar[raw_var <= VARIANCE_FLOOR] = 0.0  # the floor is flat
        dmean = np.einsum("bnm,n->bm", dKq, self.alpha)
        return Kq @ self.alpha, np.maximum(raw_var, VARIANCE_FLOOR), dmean, dvar

    def _check_factor(self, g: int, Z: np.ndarray) -> None:
        if not 0 <= g < len(self.groups):
            raise ValueError(f"g must be in range({len(self.groups)}), got {g!r}")
        if Z.ndim != 2 or Z.shape[1] != len(self.groups[g]):
            raise ValueError(
                f"Z must be (b, {len(self.groups[g])}) in group {g}'s columns, got {Z.shape}"
            )

    # -------------------------------------------------------------------------- contract
    def log_marginal_likelihood(self) -> float:
        """``log p(y | X)``."""
        return _log_ml(self.L, self.y, self.alpha)

    def predict(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Latent mean and variance ``(b,)`` of ``f`` at ``X (b, d)``."""
        return self._moments(self._gram(X), float(np.sum(self.hyper.amps)))

    def predict_with_grad(
        self, X: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Mean and variance ``(b,)`` of ``f`` and their input gradients ``(b, d)``."""
        h = self.hyper
        Kq, dKq = np.zeros((len(X), self.n)), np.zeros((len(X), self.n, X.shape[1]))
        for i, g in enumerate(self.groups):
            Kg, dKq[:, :, g] = kernel_grad_x(self.spec, X[:, g], self._Xg[i], h.ls[g], h.amps[i])
            Kq += Kg
        return self._moments_with_grad(Kq, dKq, float(np.sum(h.amps)))

    def factor_predict(self, g: int, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Posterior mean and variance ``(b,)`` of the factor ``f_g`` at ``Z (b, m)``, given in
        group ``g``'s own columns (eq. 1). The means over all factors sum to :meth:`predict`'s."""
        self._check_factor(g, Z)
        return self._moments(self._factor_cross(g, Z), float(self.hyper.amps[g]))

    def factor_predict_with_grad(
        self, g: int, Z: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`factor_predict` and the gradients ``(b, m)`` of the mean and variance."""
        self._check_factor(g, Z)
        h, grp = self.hyper, self.groups[g]
        Kq, dKq = kernel_grad_x(self.spec, Z, self._Xg[g], h.ls[grp], float(h.amps[g]))
        return self._moments_with_grad(Kq, dKq, float(h.amps[g]))

    def condition(self, Xn: np.ndarray, yn: np.ndarray) -> tuple[AdditivePosterior, float]:
        """Posterior after also observing ``(Xn (k, d), yn (k,))`` and the joint log predictive
        density ``log N(yn; mu, S)`` of the new block."""
        k = len(yn)
        K12 = self._gram(self.X, Xn)  # (n, k)
        K22 = self._gram(Xn, Xn) + self.hyper.noise * np.eye(k)  # (k, k)
        L12 = solve_triangular(self.L, K12, lower=True, check_finite=False)  # (n, k)
        L22 = safe_cholesky(K22 - L12.T @ L12)  # (k, k): predictive covariance S = L22 L22^T
        mu = K12.T @ self.alpha  # (k,) predictive mean
        z = solve_triangular(L22, yn - mu, lower=True, check_finite=False)
        log_pred = float(-0.5 * z @ z - np.log(np.diag(L22)).sum() - 0.5 * k * _LOG_2PI)
        L = np.zeros((self.n + k, self.n + k), order="F")
        L[: self.n, : self.n], L[self.n :, : self.n], L[self.n :, self.n :] = self.L, L12.T, L22
        post = AdditivePosterior(
            self.groups,
            self.hyper,
            np.vstack([self.X, Xn]),
            np.concatenate([self.y, yn]),
            L,
            form=self.spec.form,
            n_frequencies=self.n_frequencies,
        )
        return post, log_pred

    def believing(self, X_pending: np.ndarray) -> AdditivePosterior:
        """Posterior after "observing" its own mean at ``X_pending (p, d)`` (kriging believer):
        every factor's mean is unchanged and no factor's variance grows."""
        return cast(AdditivePosterior, kriging_believer(self, X_pending))

    def sample_path(self, rng: np.random.Generator) -> AdditivePathSample:
        """Pathwise posterior sample (Wilson et al. 2020) as in
        :meth:`~shared_core.models.gp.ExactPosterior.sample_path`, the prior drawn by random
        Fourier features on each group's columns: ``f_g(z) = phi_g(z)^T theta_g + k_g(z, X^g) v``
        with ``v = (K + noise I)^-1 (y - sum_g phi_g(X^g) theta_g - eps)``."""
        h = self.hyper
        rffs, thetas = [], []
        for g, amp in zip(self.groups, h.amps):
            rffs.append(RandomFourierFeatures(self.spec, h.ls[g], len(g), self.n_frequencies, rng))
            thetas.append(rng.standard_normal(rffs[-1].n_features) * math.sqrt(amp))  # (F,)
        eps = rng.standard_normal(self.n) * math.sqrt(h.noise)
        prior = sum((r.features(Xg) @ t for r, Xg, t in zip(rffs, self._Xg, thetas)), eps)
        v = cho_solve((self.L, True), self.y - prior, check_finite=False)  # (n,)
        return AdditivePathSample(self, tuple(rffs), tuple(thetas), v)


class AdditivePathSample:
    """One draw of an :class:`AdditivePosterior`: ``f(x) = sum_g f_g(x^g)`` with each factor's
    path available on its own (:meth:`factor_value`)."""

    def __init__(
        self,
        post: AdditivePosterior,
        rffs: tuple[RandomFourierFeatures, ...],
        thetas: tuple[np.ndarray, ...],
        v: np.ndarray,
    ):
        self.post, self.rffs, self.thetas, self.v = post, rffs, thetas, v  # G x (F,), (n,)

    def factor_value(self, g: int, Z: np.ndarray) -> np.ndarray:
        """``f_g(Z)`` ``(b,)`` at ``Z (b, m)`` in group ``g``'s own columns."""
        self.post._check_factor(g, Z)
        return cast(
            np.ndarray,
            self.rffs[g].features(Z) @ self.thetas[g] + self.post._factor_cross(g, Z) @ self.v,
        )

    def factor_value_and_grad(self, g: int, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``f_g(Z)`` ``(b,)`` and its gradient ``(b, m)``."""
        p = self.post
        p._check_factor(g, Z)
        Phi, dPhi = self.rffs[g].features_with_grad(Z)  # (b, F), (b, F, m)
        grp = p.groups[g]
        Kq, dKq = kernel_grad_x(p.spec, Z, p._Xg[g], p.hyper.ls[grp], float(p.hyper.amps[g]))
        return (
            Phi @ self.thetas[g] + Kq @ self.v,
            np.einsum("bfm,f->bm", dPhi, self.thetas[g]) + np.einsum("bnm,n->bm", dKq, self.v),
        )

    def value(self, X: np.ndarray) -> np.ndarray:
        """``f(X)`` ``(b,)``."""
        return cast(
            np.ndarray,
            sum(self.factor_value(i, X[:, g]) for i, g in enumerate(self.post.groups)),
        )

    def value_and_grad(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``f(X)`` ``(b,)`` and its input gradient ``(b, d)``."""
        f, grad = np.zeros(len(X)), np.zeros(X.shape)
        for i, g in enumerate(self.post.groups):
            fg, grad[:, g] = self.factor_value_and_grad(i, X[:, g])
            f += fg
        return f, grad
