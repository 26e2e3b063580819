"""High-dimensional problems in three dimension tiers (20-24, 50-60 and 100-102 parameters), for
``DECHBOSampler`` and its peers. Every objective takes a point of the unit cube ``(d,)`` and is
minimised; ``f_min`` is its minimum where it is known or computed, else None (the best value found
is reported instead of a regret).

- ``hartmann6-blocks-<d>``: copies of Hartmann-6 on disjoint blocks of 6 parameters (24, 60 and
  102 parameters): additive, each factor 6 parameters wide; ``f_min`` the copies' minima summed.
- ``branin-chain-<d>``: Branin on every pair of neighbours ``(x_i, x_{i+1})``, ``x_i`` as Branin's
  first input (on [-5, 10]) in pair ``i`` and as its second (on [0, 15]) in pair ``i - 1``: a chain
  of overlapping factors; ``f_min`` by dynamic programming over the chain on a grid of
  ``CHAIN_GRID`` points per parameter, then refined by L-BFGS-B (:func:`chain_minimum`).
- ``michalewicz-50``: Michalewicz (``m = 10``) on [0, pi]^50, a sum of one-parameter terms;
  ``f_min`` the terms' minima summed (each by a dense grid and a bounded refinement).
- ``rotated-levy-<d>``: Levy at ``Q (z - z*) + 1``, ``z`` on [-5, 5]^d, ``Q`` a random rotation
  and ``z*`` a random point (both seeded): no additive structure; ``f_min = 0`` at ``z*``.
- ``weighted-lasso-<d>``: the validation mean squared error of a Lasso fitted with one penalty
  weight per feature, ``alpha * sum_j w_j |beta_j|``, ``log10 w_j`` on [-3, 1], on a
  ``make_regression`` data set of ``d`` features, 30 of them informative (in the spirit of
  LassoBench, Šehić, Gramfort, Salmon & Nardi, "LassoBench: a high-dimensional hyperparameter
  optimization benchmark suite for Lasso", AutoML 2022); ``f_min`` unknown.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize, minimize_scalar

from benchmarks.functions import hartmann6, levy

CHAIN_GRID = 1001  # grid points per parameter of the chain's dynamic programme
H6_ARGMIN = np.array([0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573])
H6_MIN = -3.32237
BRANIN_LOW, BRANIN_SPAN = np.array([-5.0, 0.0]), np.array([15.0, 15.0])
ROTATION_SEED, LASSO_SEED = 7, 0
LASSO_INFORMATIVE, LASSO_ALPHA = 30, 1.0


@dataclass(frozen=True)
class HighDimProblem:
    """Minimise ``objective(u)`` over the unit cube of ``d`` parameters (tier: 20, 50 or 100)."""

    d: int
    tier: int
    objective: Callable[[np.ndarray], float]
    f_min: float | None
    source: str


# ------------------------------------------------------------------------------ block sums
def hartmann6_blocks(u: np.ndarray) -> float:
    """Hartmann-6 on each disjoint block of 6 parameters, summed."""
    return float(sum(hartmann6(block) for block in u.reshape(-1, 6)))


def _branin_grid(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Branin of the unit-cube inputs ``a`` (first, on [-5, 10]) and ``b`` (second, on [0, 15]),
    broadcast."""
    x1, x2 = BRANIN_LOW[0] + BRANIN_SPAN[0] * a, BRANIN_LOW[1] + BRANIN_SPAN[1] * b
    return (
        (x2 - 5.1 / (4 * math.pi**2) * x1**2 + 5 / math.pi * x1 - 6) ** 2
        + 10 * (1 - 1 / (8 * math.pi)) * np.cos(x1)
        + 10
    )


def branin_chain(u: np.ndarray) -> float:
    """Branin on every pair of neighbours ``(u_i, u_{i+1})``, summed."""
    return float(np.sum(_branin_grid(u[:-1], u[1:])))


@functools.cache
def chain_minimum(d: int) -> float:
    """``branin_chain``'s minimum over ``d`` parameters: the chain's dynamic programme (min-sum
    over neighbours) on a grid, then L-BFGS-B from the grid's best point."""
    grid = np.linspace(0.0, 1.0, CHAIN_GRID)
    pair = _branin_grid(grid[:, None], grid[None, :])  # (g, g): [u_i, u_{i+1}]
    best = np.zeros(CHAIN_GRID)  # (g,) the best sum of the pairs so far, by the last parameter
    back = []
    for _ in range(d - 1):
        total = best[:, None] + pair  # (g, g)
        back.append(np.argmin(total, axis=0))
        best = total.min(axis=0)
    index = [int(np.argmin(best))]
    for arg in reversed(back):
        index.append(int(arg[index[-1]]))
    u0 = grid[index[::-1]]
    res = minimize(branin_chain, u0, method="L-BFGS-B", bounds=[(0.0, 1.0)] * d)
    return float(min(res.fun, branin_chain(u0)))


# ------------------------------------------------------------------------------ Michalewicz
def michalewicz(u: np.ndarray, m: int = 10) -> float:
    """Michalewicz on [0, pi]^d (``u`` in the unit cube)."""
    x = math.pi * u
    i = np.arange(1, len(x) + 1)
    return float(-np.sum(np.sin(x) * np.sin(i * x**2 / np.pi) ** (2 * m)))


def _michalewicz_term(i: int, x: float, m: int = 10) -> float:
    return float(-math.sin(x) * math.sin(i * x**2 / math.pi) ** (2 * m))


@functools.cache
def michalewicz_minimum(d: int) -> float:
    """The sum over ``i`` of the one-parameter terms' minima (dense grid, then bounded search
    around the grid's best point)."""
    grid = np.linspace(0.0, math.pi, 20001)
    total = 0.0
    for i in range(1, d + 1):
        values = -np.sin(grid) * np.sin(i * grid**2 / np.pi) ** 20
        k = int(np.argmin(values))
        lo, hi = grid[max(k - 1, 0)], grid[min(k + 1, len(grid) - 1)]
        res = minimize_scalar(
            lambda x, i=i: _michalewicz_term(i, x), bounds=(lo, hi), method="bounded"
        )
        total += min(float(res.fun), float(values[k]))
    return total


# ------------------------------------------------------------------------------ rotated Levy
@functools.cache
def _rotation(d: int) -> tuple[np.ndarray, np.ndarray]:
    """A random rotation ``Q`` ``(d, d)`` and optimum ``z*`` ``(d,)`` on [-3, 3]^d, seeded."""
    rng = np.random.default_rng(ROTATION_SEED + d)
    q, r = np.linalg.qr(rng.standard_normal((d, d)))
    return q * np.sign(np.diag(r)), rng.uniform(-3.0, 3.0, d)


def rotated_levy(u: np.ndarray) -> float:
    """Levy at ``Q (z - z*) + 1`` with ``z = -5 + 10 u``: its minimum 0 at ``z*``."""
    q, z_star = _rotation(len(u))
    return levy(q @ (-5.0 + 10.0 * u - z_star) + 1.0)


# ------------------------------------------------------------------------------ weighted Lasso
@functools.cache
def _lasso_data(d: int) -> tuple[np.ndarray, ...]:
    """Standardised ``make_regression`` data of ``d`` features (30 informative), split 150 / 150
    into training and validation sets."""
    from sklearn.datasets import make_regression

    X, y, _ = make_regression(
        n_samples=300,
        n_features=d,
        n_informative=LASSO_INFORMATIVE,
        noise=10.0,
        coef=True,
        random_state=LASSO_SEED,
    )
    X = (X - X.mean(0)) / X.std(0)
    y = (y - y.mean()) / y.std()
    return X[:150], y[:150], X[150:], y[150:]


def weighted_lasso(u: np.ndarray) -> float:
    """Validation MSE of the Lasso with penalty ``alpha * sum_j w_j |beta_j|``, ``log10 w_j = -3 +
    4 u_j``: fitted as a plain Lasso on the columns divided by ``w``."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import Lasso

    X, y, X_val, y_val = _lasso_data(len(u))
    w = 10.0 ** (-3.0 + 4.0 * np.asarray(u))
    with warnings.catch_warnings():  # tiny weights leave a nearly unpenalised, slow fit
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = Lasso(alpha=LASSO_ALPHA / len(y), max_iter=5000).fit(X / w, y)
    return float(np.mean((model.predict(X_val / w) - y_val) ** 2))


# ------------------------------------------------------------------------------ the tiers
def _problems() -> dict[str, HighDimProblem]:
    out: dict[str, HighDimProblem] = {}
    for d, tier in ((24, 20), (60, 50), (102, 100)):
        out[f"hartmann6-blocks-{d}"] = HighDimProblem(
            d, tier, hartmann6_blocks, d // 6 * H6_MIN, f"Hartmann-6 on {d // 6} disjoint blocks"
        )
        out[f"branin-chain-{d}"] = HighDimProblem(
            d, tier, branin_chain, None, f"Branin on the {d - 1} pairs of neighbours"
        )
    out["michalewicz-50"] = HighDimProblem(50, 50, michalewicz, None, "Michalewicz on [0, pi]^50")
    for d, tier in ((20, 20), (50, 50)):
        out[f"rotated-levy-{d}"] = HighDimProblem(d, tier, rotated_levy, 0.0, "Levy, rotated")
    for d, tier in ((50, 50), (100, 100)):
        out[f"weighted-lasso-{d}"] = HighDimProblem(
            d, tier, weighted_lasso, None, f"weighted Lasso, {d} features, 30 informative"
        )
    return out


PROBLEMS = _problems()


def f_min(name: str) -> float | None:
    """The problem's minimum: stored, or computed (and cached) for the chains and Michalewicz."""
    problem = PROBLEMS[name]
    if name.startswith("branin-chain"):
        return chain_minimum(problem.d)
    if name == "michalewicz-50":
        return michalewicz_minimum(50)
    return problem.f_min
