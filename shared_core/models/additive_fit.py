"""The additive GP's hyperparameters: MAP fit and evidence (DEC-HBO's surrogate; the model and its
posterior are in :mod:`shared_core.models.additive`).

``K(x, x') = sum_g amp_g kbar(r2_g(x^g, x'^g)) + noise`` over disjoint groups ``g`` of columns; the
fit maximises ``log p(y | X, h) + log p(h)`` by L-BFGS-B in log space, and
:func:`additive_log_evidence` gives the normalised value by which structures are compared
(Appendix B of Hoang et al. 2018).

Glossary (shapes in comments):
    n: observations; d: input dimension; G: number of groups; m: columns of one group.
    groups: ``G`` disjoint integer arrays of column indices that together cover ``0..d-1``.
    X: ``(n, d)`` inputs in the unit cube; y: ``(n,)`` standardised targets (zero prior mean).
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
from scipy.linalg import cho_solve, cholesky
from scipy.optimize import minimize

from shared_core.models.gp import (
    _LOG_AMP_BOUNDS,
    _LOG_LS_BOUNDS,
    _LOG_NOISE_BOUNDS,
    _NOISE_PRIOR,
    LENGTHSCALE_PENALTY,
    _ls_prior,
)
from shared_core.models.kernels import KernelSpec, scaled_sqdist

__all__ = ["AdditiveHyper", "additive_log_evidence", "EvidenceAtFixedHyper", "fit_additive"]

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


# The lengthscale penalty is ``-c ls^2``, without ``gp.py``'s short half ``-c ls^-2``, which would
# forbid the short lengthscales of the fast-varying small factors an additive model is for.
# Why: see docs/design-decisions.md#additive-gp-lengthscale-penalty
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
    from_prior: bool = True,
    noise: float | None = None,
) -> tuple[np.ndarray, float]:
    """Best ``theta`` of L-BFGS-B runs from the prior mode (unless ``from_prior`` is False and
    ``start`` fits) and ``start``, and its objective; the noise fixed at ``noise`` if given."""
    d, G = X.shape[1], len(groups)
    # the groups share the standardised variance: each amp's lower bound is gp.py's over G (so
    # the prior mode, 1 / (e G), stays inside it for many groups)
    amp_bounds = (_LOG_AMP_BOUNDS[0] - math.log(G), _LOG_AMP_BOUNDS[1])
    noise_bounds = _LOG_NOISE_BOUNDS if noise is None else (math.log(noise), math.log(noise))
    bounds = [_LOG_LS_BOUNDS] * d + [amp_bounds] * G + [noise_bounds]
    lo, hi = np.array(bounds).T  # (d + G + 1,) each
    mu, sd = _prior_moments(groups, d)
    starts = [mu - sd**2]  # the log-normal modes, exp(mu - sd^2) for each value
    if start is not None and np.shape(start.ls) == (d,) and np.shape(start.amps) == (G,):
        starts = [_pack(start)] + (starts if from_prior else [])
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
    noise: float | None = None,
) -> AdditiveHyper:
    """MAP lengthscales, signal variances and noise variance by L-BFGS-B in log space.

    Args:
        groups: disjoint column-index arrays covering ``0..d-1``.
        X: ``(n, d)``; y: ``(n,)`` standardised targets.
        form: the factors' kernel form, ``"matern52"``, ``"matern32"`` or ``"rbf"``.
        start: a previous fit, tried as a start besides the prior mode (ignored if its shapes
            do not fit); the better optimum is kept.
        maxiter: L-BFGS-B iterations per start.
        noise: a fixed noise variance instead of a fitted one (e.g.
            :data:`~shared_core.models.gp.NOISE_FLOOR` for a deterministic objective).
    """
    return additive_log_evidence(
        groups, X, y, form=form, start=start, maxiter=maxiter, noise=noise
    )[0]


def additive_log_evidence(
    groups: Sequence[np.ndarray],
    X: np.ndarray,
    y: np.ndarray,
    *,
    form: str = "matern52",
    start: AdditiveHyper | None = None,
    maxiter: int = 200,
    from_prior: bool = True,
    noise: float | None = None,
) -> tuple[AdditiveHyper, float]:
    """:func:`fit_additive`'s hyperparameters and the maximised ``log p(y | X, h) + log p(h)``.

    The prior is a normalised density here (the fit drops its constants, which depend on the
    group sizes and their number), so values for different groupings of the same data compare:
    the score by which a structure is chosen (Appendix B). It is the density of ``theta``, the
    log hyperparameters (normal, and the lengthscales' penalty), at the fit's ``theta``: the
    density of the values that the fit maximises has the Jacobian ``-sum(theta)`` besides, which
    gives each factor's amplitude about ``log G`` nats that have nothing to do with the data and
    so would favour many small groups when there are few observations. ``-inf`` if no fit
    succeeded. ``from_prior=False``: from ``start`` alone when it fits (a warm refit). ``noise``:
    as :func:`fit_additive`'s.
    """
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    _check_data(X, y)
    spec = KernelSpec(form, ard=True)
    checked = _check_groups(groups, X.shape[1])
    theta, val = _fit(checked, X, y, spec, start, maxiter, from_prior, noise)
    failed = val >= 0.1 * _FAILED
    log_evidence = -math.inf if failed else _evidence(-val, theta, checked, X.shape[1])
    return _unpack(theta, X.shape[1]), float(log_evidence)


def _evidence(
    log_posterior: float, theta: np.ndarray, groups: tuple[np.ndarray, ...], d: int
) -> float:
    """The score of :func:`additive_log_evidence` from ``log_ml + log prior`` at ``theta``: the
    values' density is the log-space prior minus its Jacobian ``-sum(theta)``, plus the prior's
    normalising constants."""
    return log_posterior + float(np.sum(theta)) + _log_prior_constant(groups, d)


class EvidenceAtFixedHyper:
    """:func:`additive_log_evidence`'s score of partitions of ``X``'s columns at fixed lengthscales
    ``ls (d,)`` and ``noise``, each group's signal variance given per call, instead of fitted:
    one Cholesky factorisation per partition, no fit (``-inf`` if it fails). Structures compared
    at fixed hyperparameters, as Wang, Li, Jegelka & Kohli, "Batched high-dimensional Bayesian
    optimization via structural kernel learning" (ICML 2017) compare decompositions. Each
    group's unit-variance Gram matrix is kept while the last two partitions scored hold it (a
    chain's proposal changes at most two groups of its state)."""

    def __init__(
        self, X: np.ndarray, y: np.ndarray, ls: np.ndarray, noise: float, *, form: str = "matern52"
    ) -> None:
        self.X, self.y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
        _check_data(self.X, self.y)
        self.ls, self.noise = np.asarray(ls, dtype=float), float(noise)
        self.spec = KernelSpec(form, ard=True)
        self._unit: dict[tuple[int, ...], np.ndarray] = {}  # group -> (n, n)
        self._last: set[tuple[int, ...]] = set()

    def __call__(self, groups: Sequence[np.ndarray], amps: np.ndarray) -> float:
        n, d = self.X.shape
        checked = _check_groups(groups, d)
        hyper = AdditiveHyper(self.ls, np.asarray(amps, dtype=float), self.noise)
        _check_hyper(hyper, d, len(checked))
        K = self.noise * np.eye(n)  # (n, n)
        for g, amp in zip(checked, hyper.amps):
            K += amp * self._unit_gram(g)
        keys = {tuple(int(c) for c in g) for g in checked}
        kept = keys | self._last
        self._unit = {k: v for k, v in self._unit.items() if k in kept}
        self._last = keys
        try:
            L = cholesky(K, lower=True, check_finite=False)
        except np.linalg.LinAlgError:
            return -math.inf
        alpha = cho_solve((L, True), self.y, check_finite=False)  # (n,)
        theta = _pack(hyper)
        lp, _ = _log_prior(theta, checked, d)
        return _evidence(_log_ml(L, self.y, alpha) + lp, theta, checked, d)

    def _unit_gram(self, g: np.ndarray) -> np.ndarray:
        key = tuple(int(c) for c in g)
        if key not in self._unit:
            self._unit[key] = self.spec.k_of_r2(
                scaled_sqdist(self.X[:, g], self.X[:, g], self.ls[g])
            )
        return self._unit[key]
