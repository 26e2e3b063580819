"""Stein variational gradient descent (Liu & Wang, 2016) in the unit box, with frozen particles.

Used by batch BORE / BORE++ (Oliveira et al. 2022, Sec. 5 and App. D): a batch is a set of particles
approximating ``p^(x) ∝ a(x) p(x)`` with ``a`` the acquisition and ``p`` uniform on the box, so
``grad log p^ = grad a / a`` inside the box.

One step moves every free particle ``x_i`` along

    phi(x_i) = 1/N sum_j [ k(x_j, x_i) grad log p^(x_j) + grad_{x_j} k(x_j, x_i) ]        (SVGD)

where ``j`` runs over all ``N`` particles, free and frozen. Frozen particles (points of trials still
running) never move, but their kernel terms push the free particles away from them. The kernel is
``k(x, x') = exp(-||x - x'||^2 / h)`` with the median heuristic
``h = med(||x_i - x_j||^2) / log(N + 1)`` recomputed at every step. Steps are adaptive per
coordinate (the reference implementation's AdaGrad with decay:
``hist = decay hist + (1 - decay) phi^2``, ``u += lr phi / (eps + sqrt(hist))``; decay 0.9 and 1000
steps as in the paper).

Box: particles move in logit coordinates ``u = log(x / (1 - x))``, where the uniform prior on the
box becomes the density ``x (1 - x)`` (the Jacobian), so the score is
``grad_u log p~(u) = x (1 - x) grad_x log p^(x) + 1 - 2x``. Clipping to the box instead let
particles that the acquisition pushes outwards pile up on the same corner, where the RBF repulsion
between (nearly) coincident particles vanishes. The kernel is evaluated in box coordinates,
``k(x(u_j), x(u_i))`` (still a valid kernel on ``u``), so its repulsion
``grad_{u_j} k = x_j (1 - x_j) grad_{x_j} k`` fades at the box's faces, and distances mean the
same everywhere in the box (on the logits, two points near a face are far apart however close they
are, and the faces are infinitely far away). The default step (1e-2 per step, up to 10 logit units
in 1000 steps) is larger than the paper's 1e-3 in box units because logit coordinates are wider.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import numpy as np

__all__ = ["svgd"]

# ``log_density_grad(X (b, d)) -> (b, d)``: gradient of the log target density at each row.
LogDensityGrad = Callable[[np.ndarray], np.ndarray]


def _rbf_kernel_terms(
    X: np.ndarray, free: np.ndarray, jac: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Kernel ``K[j, i] = k(x_j, x_i)`` ``(N, f)`` and
    repulsion ``sum_j grad_{u_j} k(x_j, x_i)`` ``(f, d)``.

    ``X`` ``(N, d)`` are all particles in box coordinates, ``free`` the indices of the ``f`` free
    ones, ``jac`` ``(N, d)`` the Jacobians ``dx/du`` of the particles' coordinates.
    """
    diff = X[:, None, :] - X[None, free, :]  # (N, f, d): x_j - x_i
    sq = np.sum(diff**2, axis=-1)  # (N, f)
    all_sq = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)  # (N, N)
    N = len(X)
    # the N (N - 1) off-diagonal values
    off = np.sort(all_sq.ravel()[1:].reshape(N - 1, N + 1)[:, :-1], axis=None)
    # np.median, cheaper
    med = 0.5 * float(off[(len(off) - 1) // 2] + off[len(off) // 2]) if off.size else 1.0
    h = max(med, 1e-12) / np.log(N + 1.0)  # median heuristic
    K = np.exp(-sq / h)
    # grad_{u_j} k = -2 (x_j - x_i) / h * k * dx_j/du_j  (chain rule; vanishes at the box's faces)
    repulsion = np.einsum("jf,jfd->fd", K, -2.0 * diff / h * jac[:, None, :])
    return K, repulsion


def svgd(
    log_density_grad: LogDensityGrad,
    particles: np.ndarray,
    *,
    frozen: np.ndarray | None = None,
    columns: np.ndarray | None = None,
    steps: int = 1000,
    step_size: float = 1e-2,
    decay: float = 0.9,
) -> np.ndarray:
    """Move ``particles`` ``(f, d)`` in ``[0, 1]^d`` towards the target; return them ``(f, d)``.

    Args:
        log_density_grad: gradient of the log target density, ``(b, d) -> (b, d)``.
        frozen: ``(m, d)`` particles held fixed (e.g. running trials); they repel the free ones.
        columns: indices of the coordinates that move (default all); others stay as given, e.g.
            one-hot categorical columns.
        steps, step_size, decay: the adaptive step schedule described in the module docstring.
    """
    if steps < 0 or step_size <= 0 or not 0 <= decay < 1:
        raise ValueError(
            f"need steps >= 0, step_size > 0, 0 <= decay < 1; got {steps}, {step_size}, {decay}"
        )
    free_X = np.array(particles, dtype=np.float64)  # (f, d)
    d = free_X.shape[1]
    frozen = (
        np.zeros((0, d)) if frozen is None else np.asarray(frozen, dtype=np.float64).reshape(-1, d)
    )
    cols = np.arange(d) if columns is None else np.asarray(columns, dtype=int)
    if len(free_X) == 0 or len(cols) == 0 or steps == 0:
        return free_X
    mask = np.zeros(d)
    mask[cols] = 1.0
    free_u = _to_logit(free_X)
    # (m, d) in the open box, like the free particles
    frozen_x = np.clip(frozen, _X_EPS, 1.0 - _X_EPS)
    # (m, d), once
    frozen_score = _logit_score(log_density_grad, frozen) if len(frozen) else np.zeros((0, d))
    free = np.arange(len(free_X))  # free particles come first in the stacked array
    fixed_values = np.vstack([free_X, frozen])  # (N, d) the fixed columns never change
    hist = None
    for _ in range(steps):
        free_x = _from_logit(free_u)
        scores = np.vstack([_logit_score(log_density_grad, free_x), frozen_score])  # (N, d)
        # the kernel lives in box coordinates (fixed one-hot columns included, so a particle
        # of another category is farther away); the fixed columns' gradients are masked
        box = np.where(mask == 1, np.vstack([free_x, frozen_x]), fixed_values)  # (N, d)
        K, repulsion = _rbf_kernel_terms(box, free, box * (1.0 - box))
        phi = (K.T @ scores + repulsion) / len(box) * mask  # (f, d), SVGD direction
        hist = phi**2 if hist is None else decay * hist + (1.0 - decay) * phi**2
        free_u = np.clip(free_u + step_size * phi / (1e-6 + np.sqrt(hist)), -_U_MAX, _U_MAX)
    out = _from_logit(free_u)
    out[:, mask == 0] = free_X[:, mask == 0]  # columns that do not move are returned exactly
    return out


_X_EPS = 1e-6  # box coordinates are kept in [eps, 1 - eps] so that their logits are finite
_U_MAX = float(np.log((1 - _X_EPS) / _X_EPS))


def _to_logit(X: np.ndarray) -> np.ndarray:
    Xc = np.clip(X, _X_EPS, 1.0 - _X_EPS)
    return cast(np.ndarray, np.log(Xc / (1.0 - Xc)))


def _from_logit(U: np.ndarray) -> np.ndarray:
    return cast(np.ndarray, 1.0 / (1.0 + np.exp(-U)))


def _logit_score(log_density_grad: LogDensityGrad, X: np.ndarray) -> np.ndarray:
    """``(b, d)`` score in logit coordinates:
    ``x (1 - x) grad_x log p^(x) + (1 - 2x)`` (uniform prior)."""
    g = np.nan_to_num(log_density_grad(X), nan=0.0, posinf=0.0, neginf=0.0)
    return cast(np.ndarray, X * (1.0 - X) * g + (1.0 - 2.0 * X))
