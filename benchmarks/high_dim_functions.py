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
- ``rover-60``: the rover trajectory of Wang, Gehring, Kohli & Jegelka ("Batched large-scale
  Bayesian optimization in high-dimensional spaces", AISTATS 2018) as their ``ebo`` code runs it
  (``create_large_domain``, its 113 boxes, 10 times the l1 misses of start and goal): 30 points on
  [-0.1, 1.1]^2 smoothed by a cubic spline (in effect their least-squares cubic), the cost its
  integral of 20 inside a box or off [0, 1]^2 plus 0.05, plus the misses; the objective is minus
  the reference's reward, ``cost - 5``, made deterministic (the points' jitter drawn once).
  ``f_min`` unknown: no trajectory costs less than the straight line's length cost
  (``ROVER_BOUND``, -4.936), but that line crosses boxes.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.interpolate import splev, splprep
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
# the rover's reference constants: points on [-0.1, 1.1]^2, start and goal, samples along the path,
# boxes 0.05 wide; cost per length inside a box or off the map, everywhere, per l1 miss; reward
# offset; the control points' jitter
ROVER_LOW, ROVER_SPAN = -0.1, 1.2
ROVER_START, ROVER_GOAL = np.array([0.05, 0.05]), np.array([0.95, 0.95])
ROVER_SAMPLES, ROVER_HALF_WIDTH = 1000, 0.025
ROVER_HIT, ROVER_STEP, ROVER_MISS, ROVER_OFFSET = 20.0, 0.05, 10.0, 5.0
ROVER_JITTER, ROVER_SEED = 1e-4, 0
# no trajectory below: its length is at least the start-goal distance less its l1 misses
ROVER_BOUND = ROVER_STEP * float(np.linalg.norm(ROVER_GOAL - ROVER_START)) - ROVER_OFFSET


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


# ------------------------------------------------------------------------------ rover
# the reference's 113 box centres (x, y), from ``create_cost_large``
ROVER_CENTRES = np.array([
    0.43143755, 0.20876147, 0.38485367, 0.39183579, 0.02985961, 0.22328303, 0.7803707, 0.3447003,
    0.93685657, 0.56297285, 0.04194252, 0.23598362, 0.28049582, 0.40984475, 0.6756053, 0.70939481,
    0.01926493, 0.86972335, 0.5993437, 0.63347932, 0.57807619, 0.40180792, 0.56824287, 0.75486851,
    0.35403502, 0.38591056, 0.72492026, 0.59969313, 0.27618746, 0.64322757, 0.54029566, 0.25492943,
    0.30903526, 0.60166842, 0.2913432, 0.29636879, 0.78512072, 0.62340245, 0.29592116, 0.08400595,
    0.87548394, 0.04877622, 0.21714791, 0.9607346, 0.92624074, 0.53441687, 0.53639253, 0.45127928,
    0.99892031, 0.79537837, 0.84621631, 0.41891986, 0.39432819, 0.06768617, 0.92365693, 0.72217512,
    0.95520914, 0.73956575, 0.820383, 0.53880139, 0.22378049, 0.9971974, 0.34023233, 0.91014706,
    0.64960636, 0.35661133, 0.29976464, 0.33578931, 0.43202238, 0.11563227, 0.66764947, 0.52086962,
    0.45431078, 0.94582745, 0.12819915, 0.33555344, 0.19287232, 0.8112075, 0.61214791, 0.71940626,
    0.4522542, 0.47352186, 0.95623345, 0.74174186, 0.17340293, 0.89136853, 0.04600255, 0.53040724,
    0.42493468, 0.41006649, 0.37631485, 0.88033853, 0.66951947, 0.29905739, 0.4151516, 0.77308712,
    0.55762991, 0.26400156, 0.6280609, 0.53201974, 0.92727447, 0.61054975, 0.93206587, 0.42107549,
    0.63885574, 0.37540613, 0.15303425, 0.57377797, 0.8208471, 0.16566631, 0.14889043, 0.35157346,
    0.71724622, 0.57110725, 0.32866327, 0.8929578, 0.74435871, 0.47464421, 0.9252026, 0.21034329,
    0.57039306, 0.54356078, 0.56611551, 0.02531317, 0.84830056, 0.01180542, 0.51282028, 0.73916524,
    0.58795481, 0.46527371, 0.83259048, 0.98598188, 0.00242488, 0.83734691, 0.72505789, 0.04846931,
    0.07312971, 0.30147979, 0.55250344, 0.23891255, 0.51161315, 0.46466442, 0.802125, 0.93440495,
    0.9157825, 0.32441602, 0.44927665, 0.53380074, 0.67708372, 0.67527231, 0.81868924, 0.88356194,
    0.48228814, 0.88668497, 0.39805433, 0.99341196, 0.86671752, 0.79016975, 0.01115417, 0.6924913,
    0.34272199, 0.89543756, 0.40721675, 0.86164495, 0.26317679, 0.37334193, 0.74446787, 0.84782643,
    0.55560143, 0.46405104, 0.73567977, 0.12776233, 0.28080322, 0.26036748, 0.17507419, 0.95540673,
    0.54233783, 0.1196808, 0.76670967, 0.88396285, 0.61297539, 0.79057776, 0.9344029, 0.86252764,
    0.48746839, 0.74942784, 0.18657635, 0.58127321, 0.10377802, 0.71463978, 0.7771771, 0.01463505,
    0.7635042, 0.45498358, 0.83345861, 0.34749363, 0.38273809, 0.51890558, 0.33887574, 0.82842507,
    0.02073685, 0.41776737, 0.68754547, 0.96430979, 0.4704215, 0.92717361, 0.72666234, 0.63241306,
    0.48494401, 0.72003268, 0.52601215, 0.81641253, 0.71426732, 0.47077212, 0.00258906, 0.30377501,
    0.35495269, 0.98585155, 0.65507544, 0.03458909, 0.10550588, 0.62032937, 0.60259145, 0.87110846,
    0.04959159, 0.535785
]).reshape(-1, 2)  # fmt: skip


@functools.cache
def _rover_jitter(n: int) -> np.ndarray:
    """The reference's ``N(0, 1e-4)`` jitter of ``n`` control points ``(n, 2)``, which keeps
    coinciding points apart (the fit divides by their chord length): drawn once (seeded), where the
    reference draws it at every call (a noise of sd about 0.01 to 0.05: sampled box edges move)."""
    return np.random.default_rng(ROVER_SEED).normal(0.0, ROVER_JITTER, 2 * n).reshape(n, 2)


def rover_path(u: np.ndarray) -> np.ndarray:
    """The trajectory ``(ROVER_SAMPLES, 2)``: the reference's cubic smoothing spline of the control
    points ``(d / 2, 2)``, ``(u_0, u_1), (u_2, u_3), ...`` on [-0.1, 1.1], by chord length. With
    ``splprep``'s default smoothing ``s = m - sqrt(2 m)`` (22.25 for 30 points) it is always the
    least-squares cubic, not a curve through the points: the points' squared distances from their
    mean sum to at most 30 * 2 * 0.6^2 = 21.6, so the cubic is smooth enough."""
    points = ROVER_LOW + ROVER_SPAN * np.asarray(u, dtype=float).reshape(-1, 2)
    tck, _ = splprep((points + _rover_jitter(len(points))).T, k=3)
    return np.column_stack(splev(np.linspace(0.0, 1.0, ROVER_SAMPLES), tck))


def rover_cost(path: np.ndarray) -> float:
    """The reference's cost of a path ``(n, 2)``: the trapezoidal integral along it of 20 inside
    a box (``low <= x < high``) or off [0, 1]^2 plus 0.05, and 10 times its ends' l1 misses."""
    low = (ROVER_CENTRES - ROVER_HALF_WIDTH).T  # (2, 113)
    high = (ROVER_CENTRES + ROVER_HALF_WIDTH).T
    x, y = path[:, :1], path[:, 1:]  # (n, 1): a coordinate at a time, ten times faster
    hit = ((low[0] <= x) & (x < high[0]) & (low[1] <= y) & (y < high[1])).any(axis=1)  # (n,)
    hit |= ~((path >= 0.0) & (path < 1.0)).all(axis=1)
    density = ROVER_HIT * hit + ROVER_STEP  # (n,)
    lengths = np.linalg.norm(np.diff(path, axis=0), axis=1)  # (n - 1,)
    miss = np.abs(path[0] - ROVER_START).sum() + np.abs(path[-1] - ROVER_GOAL).sum()
    return float(np.sum(lengths * (density[:-1] + density[1:]) / 2) + ROVER_MISS * miss)


def rover(u: np.ndarray) -> float:
    """Minus the reference's reward ``5 - cost`` (maximised there)."""
    return rover_cost(rover_path(u)) - ROVER_OFFSET


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
    out["rover-60"] = HighDimProblem(
        60, 50, rover, known(None), "rover trajectory, 30 spline points among 113 boxes"
    )
    return out


PROBLEMS = _problems()
