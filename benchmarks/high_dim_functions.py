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

from benchmarks.functions import hartmann6, levy, michalewicz, michalewicz_term

CHAIN_GRID = 1001  # grid points per parameter of the chain's dynamic programme
MICHALEWICZ_PEAKS = 3  # a term's best grid minima refined
H6_ARGMIN = np.array([0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573])
H6_MIN = -3.322368011416
BRANIN_LOW, BRANIN_SPAN = np.array([-5.0, 0.0]), np.array([15.0, 15.0])
ROTATION_SEED, LASSO_SEED = 7, 0
# noise 100: about a tenth of y's variance, so which features to penalise matters (with little
# noise the lightest penalty on every feature is nearly best)
LASSO_INFORMATIVE, LASSO_ALPHA, LASSO_NOISE = 30, 1.0, 100.0


@dataclass(frozen=True)
class HighDimProblem:
    """Minimise ``objective(u)`` over the unit cube of ``d`` parameters (tier: 20, 50 or 100);
    ``minimum()`` its minimum (None: unknown), computed on first use where it is not stored."""

    d: int
    tier: int
    objective: Callable[[np.ndarray], float]
    minimum: Callable[[], float | None]
    source: str

    @property
    def f_min(self) -> float | None:
        return self.minimum()


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
    res = minimize(
        _branin_chain_with_grad,
        u0,
        jac=True,
        method="L-BFGS-B",
        bounds=[(0.0, 1.0)] * d,
        options={"ftol": 1e-15, "gtol": 1e-12},
    )
    return float(min(res.fun, branin_chain(u0)))  # an attained value: never below the minimum


def _branin_chain_with_grad(u: np.ndarray) -> tuple[float, np.ndarray]:
    """:func:`branin_chain` and its gradient ``(d,)``."""
    x1 = BRANIN_LOW[0] + BRANIN_SPAN[0] * u[:-1]
    x2 = BRANIN_LOW[1] + BRANIN_SPAN[1] * u[1:]
    inner = x2 - 5.1 / (4 * math.pi**2) * x1**2 + 5 / math.pi * x1 - 6
    d_x1 = 2 * inner * (-5.1 / (2 * math.pi**2) * x1 + 5 / math.pi) - 10 * (
        1 - 1 / (8 * math.pi)
    ) * np.sin(x1)
    grad = np.zeros_like(u)
    grad[:-1] += BRANIN_SPAN[0] * d_x1
    grad[1:] += BRANIN_SPAN[1] * 2 * inner
    return branin_chain(u), grad


# ------------------------------------------------------------------------------ Michalewicz
def michalewicz_cube(u: np.ndarray) -> float:
    """Michalewicz on [0, pi]^d (``u`` in the unit cube)."""
    return michalewicz(math.pi * np.asarray(u))


@functools.cache
def michalewicz_minimum(d: int) -> float:
    """The sum over ``i`` of the one-parameter terms' minima: each term's ``MICHALEWICZ_PEAKS``
    best local minima on a dense grid, refined by a bounded search (the best grid point can sit on
    a peak a little shallower than a neighbouring one)."""
    grid = np.linspace(0.0, math.pi, 20001)
    total = 0.0
    for i in range(1, d + 1):
        values = michalewicz_term(i, grid)
        interior = (values[1:-1] <= values[:-2]) & (values[1:-1] <= values[2:])
        local = np.flatnonzero(interior) + 1
        best = float(values.min())
        for k in local[np.argsort(values[local])[:MICHALEWICZ_PEAKS]]:
            res = minimize_scalar(
                lambda x, i=i: float(michalewicz_term(i, x)),
                bounds=(grid[k - 1], grid[k + 1]),
                method="bounded",
                options={"xatol": 1e-12},
            )
            best = min(best, float(res.fun))
        total += best
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
    """Standardised ``make_regression`` data of ``d`` features (30 informative, noise 100), split
    150 / 150 into training and validation sets."""
    from sklearn.datasets import make_regression

    X, y, _ = make_regression(
        n_samples=300,
        n_features=d,
        n_informative=LASSO_INFORMATIVE,
        noise=LASSO_NOISE,
        coef=True,
        random_state=LASSO_SEED,
    )
    X = (X - X[:150].mean(0)) / X[:150].std(0)  # by the training rows' moments
    y = (y - y[:150].mean()) / y[:150].std()
    return X[:150], y[:150], X[150:], y[150:]


def weighted_lasso(u: np.ndarray) -> float:
    """Validation MSE of the Lasso minimising ``||y - X beta||^2 / 2 + alpha * sum_j w_j |beta_j|``
    (``alpha = LASSO_ALPHA``), ``log10 w_j = -3 + 4 u_j``: fitted as a plain Lasso on the columns
    divided by ``w`` (scikit-learn's alpha is per sample, hence ``alpha / n``)."""
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
    def known(value: float | None) -> Callable[[], float | None]:
        return lambda: value

    out: dict[str, HighDimProblem] = {}
    for d, tier in ((24, 20), (60, 50), (102, 100)):
        out[f"hartmann6-blocks-{d}"] = HighDimProblem(
            d, tier, hartmann6_blocks, known(d // 6 * H6_MIN), f"Hartmann-6 on {d // 6} blocks"
        )
        out[f"branin-chain-{d}"] = HighDimProblem(
            d,
            tier,
            branin_chain,
            functools.partial(chain_minimum, d),
            f"Branin on the {d - 1} pairs of neighbours",
        )
    out["michalewicz-50"] = HighDimProblem(
        50,
        50,
        michalewicz_cube,
        functools.partial(michalewicz_minimum, 50),
        "Michalewicz on [0, pi]^50",
    )
    for d, tier in ((20, 20), (50, 50)):
        out[f"rotated-levy-{d}"] = HighDimProblem(
            d, tier, rotated_levy, known(0.0), "Levy, rotated"
        )
    for d, tier in ((50, 50), (100, 100)):
        out[f"weighted-lasso-{d}"] = HighDimProblem(
            d, tier, weighted_lasso, known(None), f"weighted Lasso, {d} features, 30 informative"
        )
    return out


PROBLEMS = _problems()
