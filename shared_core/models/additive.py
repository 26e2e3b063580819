"""Additive GP over disjoint groups of input columns: the surrogate of DEC-HBO (Hoang, Hoang,
Ouyang and Low, "Decentralized High-Dimensional Bayesian Optimization with Factor Graphs", 2018).

``f(x) = sum_g f_g(x^g)`` with independent zero-mean GP factors ``f_g`` over the columns ``x^g``
of group ``g`` (Assumptions 1-2), so ``K(x, x') = sum_g amp_g kbar(r2_g(x^g, x'^g))``. Besides the
:class:`~shared_core.models.surrogate.Posterior` contract for ``f``, the posterior gives each
factor's own mean and variance (eq. 1), the terms of the additive acquisition function (eq. 2).
The hyperparameters' MAP fit and the evidence that compares structures are in
:mod:`shared_core.models.additive_fit` (re-exported here).

Glossary (shapes in comments):
    n: observations; b: query points; d: input dimension; G: number of groups; m: columns of one
    group; D: random frequencies per group.
    groups: ``G`` disjoint integer arrays of column indices that together cover ``0..d-1``.
    X: ``(n, d)`` inputs in the unit cube; y: ``(n,)`` standardised targets (zero prior mean).
    Z: ``(b, m)`` points given in one group's own columns (``X[:, groups[g]]``).
    ls: ``(d,)`` one lengthscale per column; amps: ``(G,)`` signal variance per group.
    L: lower Cholesky factor of ``K + noise I`` ``(n, n)``; alpha: ``(K + noise I)^-1 y`` ``(n,)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

import numpy as np
from scipy.linalg import cho_solve, lapack, solve_triangular

from shared_core.models.additive_fit import (
    _LOG_2PI,
    AdditiveHyper,
    EvidenceAtFixedHyper,
    _check_data,
    _check_groups,
    _check_hyper,
    _log_ml,
    additive_log_evidence,
    fit_additive,
)
from shared_core.models.gp import safe_cholesky
from shared_core.models.kernels import (
    KernelSpec,
    RandomFourierFeatures,
    kernel_grad_x,
    kernel_matrix,
)
from shared_core.models.surrogate import VARIANCE_FLOOR, kriging_believer

__all__ = [
    "AdditiveHyper",
    "EvidenceAtFixedHyper",
    "AdditivePathSample",
    "AdditivePosterior",
    "additive_log_evidence",
    "fit_additive",
]


_GRAD_ENTRIES = 2_000_000  # (points x n x d) numbers per chunk of predict_with_grad: 16 MB
# factors of one width: their positions, data columns (F_m, n, m) and lengthscales (F_m, m)
_Stack = tuple[list[int], np.ndarray, np.ndarray]


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
        self._group_of = np.empty(X.shape[1], dtype=int)  # (d,): the group of each column
        for i, g in enumerate(self.groups):
            self._group_of[g] = i
        self._membership = np.eye(len(self.groups))[self._group_of]  # (d, G) indicator
        if L is None:
            L = safe_cholesky(self._gram(X) + hyper.noise * np.eye(len(X)))
        self.L = np.asfortranarray(L)  # (n, n)
        self.alpha = cho_solve((self.L, True), y, check_finite=False) if len(y) else np.zeros(0)
        self._K_inv: np.ndarray | None = None  # (n, n), for the optimiser's gradients
        self._stacks: dict[tuple[int, ...], list[_Stack]] = {}

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

    def _moments(
        self, Kq: np.ndarray, prior_var: float | np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
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
        raw_var = prior_var - np.einsum("nb,nb->b", V, V)  # (b,), eq. (1)
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

    def _check_factors(self, factors: Sequence[int], Zs: Sequence[np.ndarray]) -> int:
        """Check each factor's points; return their common number ``b``."""
        if not factors:
            raise ValueError("factors must name at least one factor")
        for g, Z in zip(factors, Zs, strict=True):
            self._check_factor(g, Z)
        if any(len(Z) != len(Zs[0]) for Z in Zs):
            raise ValueError(
                f"every factor needs the same points, got batches {[len(Z) for Z in Zs]}"
            )
        return len(Zs[0])

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
        """Mean and variance ``(b,)`` of ``f`` and their input gradients ``(b, d)``: every
        factor's kernel at once from the per-column scaled differences (one pass, not one per
        factor: the optimiser calls this many times with a few points)."""
        h, d = self.hyper, X.shape[1]
        rows = max(1, _GRAD_ENTRIES // max(self.n * d, 1))
        parts = [self._kernel_grad(X[i : i + rows]) for i in range(0, len(X), rows)]
        Kq = np.concatenate([k for k, _ in parts]) if parts else np.zeros((0, self.n))
        dKq = np.concatenate([g for _, g in parts]) if parts else np.zeros((0, self.n, d))
        return self._moments_with_grad(Kq, dKq, float(np.sum(h.amps)))

    def _kernel_grad(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``K(X, data)`` ``(b, n)`` and its gradient in ``X`` ``(b, n, d)``."""
        h = self.hyper
        D = (X[:, None, :] - self.X[None, :, :]) / h.ls  # (b, n, d) scaled differences
        r2 = (D * D) @ self._membership  # (b, n, G): each factor's scaled squared distance
        amps = np.asarray(h.amps, dtype=float)
        kbar, dkbar = self.spec.k_and_dk_dr2(r2)
        K, dk = amps * kbar, 2.0 * amps * dkbar  # (b, n, G); dk: 2 amp dkbar/dr2
        return K.sum(-1), dk[:, :, self._group_of] * D / h.ls  # dk_g/dx_c, g the group of c

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

    def factors_predict(
        self, factors: Sequence[int], Zs: Sequence[np.ndarray]
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`factor_predict` of each factor ``factors[i]`` at ``Zs[i] (b, m_i)``, in its own
        columns: means and variances ``(len(factors), b)``, one triangular solve for all."""
        b = self._check_factors(factors, Zs)
        Kq = np.vstack([self._factor_cross(g, Z) for g, Z in zip(factors, Zs)])  # (F b, n)
        mean, var = self._moments(Kq, np.repeat(self._amps_of(factors), b))  # eq. (1)
        return mean.reshape(-1, b), var.reshape(-1, b)

    def _amps_of(self, factors: Sequence[int]) -> np.ndarray:
        return np.asarray(self.hyper.amps, dtype=float)[list(factors)]  # (F,)

    def factors_predict_with_grad(
        self, factors: Sequence[int], Zs: Sequence[np.ndarray]
    ) -> tuple[np.ndarray, np.ndarray, list[np.ndarray], list[np.ndarray]]:
        """:meth:`factors_predict` and, per factor, the gradients ``(b, m_i)`` of its mean and
        variance: the kernels of factors of one width evaluated together, and one product with
        ``(K + noise I)^-1`` for all factors (the optimiser's many small calls)."""
        F, b = len(factors), self._check_factors(factors, Zs)
        K, G = np.empty((F, b, self.n)), np.empty((F, b, self.n))  # k and amp * dkbar/dr2
        for rows, X, ls in self._stacked(tuple(factors)):
            Z = np.stack([Zs[i] for i in rows])  # (F_m, b, m)
            A, B = Z / ls[:, None, :], X / ls[:, None, :]  # scaled inputs
            r2 = np.maximum(
                (A * A).sum(-1)[:, :, None]
                + (B * B).sum(-1)[:, None, :]
                - 2.0 * np.einsum("fbm,fnm->fbn", A, B),
                0.0,
            )  # (F_m, b, n)
            amps = self._amps_of([factors[i] for i in rows])[:, None, None]
            K[rows], G[rows] = (amps * k for k in self.spec.k_and_dk_dr2(r2))
        Kq = K.reshape(F * b, self.n)
        W = Kq @ self._inverse()  # (F b, n): ((K + noise I)^-1 k)^T
        raw_var = np.repeat(self._amps_of(factors), b) - np.einsum("rn,rn->r", W, Kq)  # eq. (1)
        # dk/dz = 2 amp dkbar/dr2 (z - x) / ls^2: sums over n of dk times alpha and W
        Ga, Gw = G * self.alpha, G * (-2.0 * W).reshape(F, b, self.n)  # (F, b, n)
        dmeans: list[np.ndarray] = [np.empty(0)] * F
        dvars: list[np.ndarray] = [np.empty(0)] * F
        for rows, X, ls in self._stacked(tuple(factors)):
            Z = np.stack([Zs[i] for i in rows])  # (F_m, b, m)
            scale = 2.0 / (ls * ls)[:, None, :]  # (F_m, 1, m)
            for out, H in ((dmeans, Ga[rows]), (dvars, Gw[rows])):
                grad = scale * (Z * H.sum(-1)[:, :, None] - np.einsum("fbn,fnm->fbm", H, X))
                for j, i in enumerate(rows):
                    out[i] = grad[j]
        floored = raw_var.reshape(F, b) <= VARIANCE_FLOOR
        for i in range(F):
            dvars[i][floored[i]] = 0.0  # the floor is flat
        mean, var = Kq @ self.alpha, np.maximum(raw_var, VARIANCE_FLOOR)
        return mean.reshape(F, b), var.reshape(F, b), dmeans, dvars

    def _stacked(self, factors: tuple[int, ...]) -> list[_Stack]:
        """Per width ``m`` of the factors: their positions in ``factors``, their data columns
        ``(F_m, n, m)`` and lengthscales ``(F_m, m)`` (kept per tuple of factors)."""
        if factors not in self._stacks:
            by_width: dict[int, list[int]] = {}
            for i, g in enumerate(factors):
                by_width.setdefault(len(self.groups[g]), []).append(i)
            self._stacks[factors] = [
                (
                    rows,
                    np.stack([self._Xg[factors[i]] for i in rows]),
                    np.stack([self.hyper.ls[self.groups[factors[i]]] for i in rows]),
                )
                for rows in by_width.values()
            ]
        return self._stacks[factors]

    def _inverse(self) -> np.ndarray:
        """``(K + noise I)^-1`` ``(n, n)``, computed on first use."""
        if self._K_inv is None and self.n == 0:
            self._K_inv = np.zeros((0, 0))
        if self._K_inv is None:
            inverse, info = lapack.dpotri(self.L, lower=1)  # the lower triangle only
            if info != 0:
                raise np.linalg.LinAlgError(f"dpotri failed (info={info})")
            self._K_inv = np.tril(inverse) + np.tril(inverse, -1).T  # exactly symmetric
        return self._K_inv

    def release(self) -> None:
        """Drop what :meth:`factors_predict_with_grad` keeps (``n^2`` numbers): a posterior kept
        between suggestions holds its data and factor only."""
        self._K_inv, self._stacks = None, {}

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
