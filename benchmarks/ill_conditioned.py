"""Ill-conditioned test functions of the regret suite (minimisation), all with minimum 0.

Each entry of ``FUNCTIONS``: ``(bounds (d, 2), f(x (d,)) -> float, f_min)``, as in
``benchmarks.functions``; each runs ``N_TRIALS`` trials in the suite. The box is ``[-5, 5]^d``
and the minimum is at ``optimum(d)``: a point drawn once, uniformly in ``[-3.5, 3.5]^d``, from
``numpy.random.default_rng(OPTIMUM_SEED + d)`` (off the centre and off any grid; the same draw
in every process).

- ``ellipsoid<d>`` (5, 10): the separable ellipsoid
  f(x) = Σᵢ 10^(6(i−1)/(d−1)) (xᵢ − x*ᵢ)², condition number 10⁶.
- ``rotellipsoid<d>`` (5, 10): the same ellipsoid of ``R (x − x*)``, ``R = rotation(d)`` an
  orthogonal matrix drawn once (Haar-distributed: the Q factor of a standard normal matrix from
  ``numpy.random.default_rng(ROTATION_SEED + d)``, its columns' signs fixed by R's diagonal).
- ``sharpridge5``: the sharp ridge f(x) = y₁² + 100·‖(y₂, …, y_d)‖ with y = x − x*.
"""

from __future__ import annotations

import functools

import numpy as np

N_TRIALS = 50
OPTIMUM_SEED = 2026_1127
ROTATION_SEED = 2026_1128
BOX = (-5.0, 5.0)


@functools.cache
def optimum(d: int) -> np.ndarray:
    """The minimiser ``x*`` (d,) of the ``d``-dimensional functions (read-only)."""
    x = np.random.default_rng(OPTIMUM_SEED + d).uniform(-3.5, 3.5, size=d)
    x.flags.writeable = False
    return x


@functools.cache
def rotation(d: int) -> np.ndarray:
    """The fixed orthogonal matrix (d, d) of the rotated ellipsoid (read-only)."""
    g = np.random.default_rng(ROTATION_SEED + d).standard_normal((d, d))
    q, r = np.linalg.qr(g)
    q = q * np.sign(np.diag(r))  # Haar measure: the Q of a unique QR (R's diagonal positive)
    q.flags.writeable = False
    return q


def _weights(d: int) -> np.ndarray:
    return 10.0 ** (6.0 * np.arange(d) / (d - 1))  # (d,)


def ellipsoid(x: np.ndarray, *, rotated: bool = False) -> float:
    """The ellipsoid (optionally of ``rotation(d) @ (x - x*)``) at ``x`` (d,)."""
    y = x - optimum(len(x))
    if rotated:
        y = rotation(len(x)) @ y
    return float(np.sum(_weights(len(x)) * y**2))


def rotated_ellipsoid(x: np.ndarray) -> float:
    return ellipsoid(x, rotated=True)


def sharp_ridge(x: np.ndarray) -> float:
    y = x - optimum(len(x))
    return float(y[0] ** 2 + 100.0 * np.linalg.norm(y[1:]))


def _box(d: int) -> np.ndarray:
    return np.array([BOX] * d)


FUNCTIONS = {
    **{f"ellipsoid{d}": (_box(d), ellipsoid, 0.0) for d in (5, 10)},
    **{f"rotellipsoid{d}": (_box(d), rotated_ellipsoid, 0.0) for d in (5, 10)},
    "sharpridge5": (_box(5), sharp_ridge, 0.0),
}
SUITE = list(FUNCTIONS)
