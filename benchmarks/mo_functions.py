"""Multi-objective benchmark problems (every objective minimised) from the literature, with their
reference points and the hypervolume of their Pareto fronts.

Glossary (shapes in comments): ``d`` parameters, ``m`` objectives, ``n`` points.

Each :class:`Problem` has box bounds, a vectorised objective function ``X (n, d) -> Y (n, m)``,
the hypervolume reference point of the literature, a dense sample of its Pareto front and the
benchmark's trial budget. :func:`max_hypervolume` (HV*, computed once per process) is the
hypervolume of that dense sample (``shared_core.pareto.hypervolume``), or the closed form where a
sample cannot reach it: a sample of ``k`` points per axis misses ``O(1 / k)`` of a front's volume
in three objectives (DTLZ2's sphere: 1.4 % with 3541 points), against ``O(1 / n)`` in two.
The test suite checks each sample against the values of the literature.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from shared_core.pareto import hypervolume

# Hypervolume gaps below this fraction of HV* count as this fraction (the floor of the log10
# gap). It keeps the logarithm finite where a run reaches a sampled HV*, which lies below the
# front's true hypervolume (branin-currin's by about 4e-4 of it); runs of 60 trials stay far
# above it (a staircase of 60 points on a front misses more).
GAP_FLOOR = 1e-4


@dataclass(frozen=True)
class Problem:
    """A multi-objective problem: minimise every column of ``objectives(X)`` over ``bounds``.

    Args:
        bounds: ``(d, 2)`` low and high of each parameter.
        objectives: ``X (n, d) -> Y (n, m)``.
        reference_point: ``(m,)`` the hypervolume reference point.
        front: a dense sample ``(n, m)`` of the Pareto front (computed when called).
        n_trials: the benchmark's number of trials.
        source: the paper the problem comes from, and where the reference point does.
        exact_hypervolume: the front's hypervolume in closed form, where a sample cannot reach
            it (three objectives); ``None``: the hypervolume of ``front()``.
    """

    bounds: np.ndarray
    objectives: Callable[[np.ndarray], np.ndarray]
    reference_point: tuple[float, ...]
    front: Callable[[], np.ndarray]
    n_trials: int
    source: str
    exact_hypervolume: Callable[[], float] | None = None

    @property
    def n_objectives(self) -> int:
        return len(self.reference_point)

    def __call__(self, x: np.ndarray) -> list[float]:
        """The objective values of one point ``x`` ``(d,)``."""
        return [float(v) for v in self.objectives(np.asarray(x, dtype=float)[None])[0]]


def branin_currin(X: np.ndarray) -> np.ndarray:
    """Branin rescaled to ``[0, 1]^2`` and Currin's exponential function, ``(n, 2) -> (n, 2)``."""
    a, b = 15 * X[:, 0] - 5, 15 * X[:, 1]  # (n,): Branin's own domain
    branin = (
        (b - 5.1 / (4 * math.pi**2) * a**2 + 5 / math.pi * a - 6) ** 2
        + 10 * (1 - 1 / (8 * math.pi)) * np.cos(a)
        + 10
    )
    x0, x1 = X[:, 0], X[:, 1]
    with np.errstate(divide="ignore"):  # x1 = 0: exp(-inf) = 0
        factor = 1 - np.exp(-1 / (2 * x1))
    currin = (
        factor
        * (2300 * x0**3 + 1900 * x0**2 + 2092 * x0 + 60)
        / (100 * x0**3 + 500 * x0**2 + 4 * x0 + 20)
    )
    return np.stack([branin, currin], axis=1)


def _zdt_g(X: np.ndarray) -> np.ndarray:
    return 1 + 9 * X[:, 1:].mean(axis=1)  # (n,)


def zdt1(X: np.ndarray) -> np.ndarray:
    """ZDT1, ``(n, d) -> (n, 2)``; front ``f1 = 1 - sqrt(f0)`` (``x_1 = .. = x_{d-1} = 0``)."""
    f0, g = X[:, 0], _zdt_g(X)
    return np.stack([f0, g * (1 - np.sqrt(f0 / g))], axis=1)


def zdt3(X: np.ndarray) -> np.ndarray:
    """ZDT3, ``(n, d) -> (n, 2)``: ZDT1 with a sine term that splits the front into five parts.
    As Zitzler, Deb and Thiele define it, ``f1 = g h(f0, g)`` (BoTorch's ``ZDT3`` leaves out the
    factor ``g``; the fronts agree, ``g = 1`` on them)."""
    f0, g = X[:, 0], _zdt_g(X)
    return np.stack([f0, g * (1 - np.sqrt(f0 / g) - f0 / g * np.sin(10 * math.pi * f0))], axis=1)


def dtlz2(X: np.ndarray, m: int = 3) -> np.ndarray:
    """DTLZ2 with ``m`` objectives, ``(n, d) -> (n, m)``: the front is the positive part of the
    unit sphere (``x_{m-1} = .. = x_{d-1} = 1/2``)."""
    angles, rest = X[:, : m - 1] * (math.pi / 2), X[:, m - 1 :]  # (n, m - 1), (n, d - m + 1)
    radius = 1 + ((rest - 0.5) ** 2).sum(axis=1)  # (n,)
    cos = np.cumprod(np.cos(angles), axis=1)  # (n, m - 1)
    F = np.empty((len(X), m))
    F[:, 0] = radius * cos[:, -1]
    for j in range(1, m):  # f_j = r cos(a_0) .. cos(a_{m-2-j}) sin(a_{m-1-j})
        head = cos[:, m - 2 - j] if j < m - 1 else 1.0
        F[:, j] = radius * head * np.sin(angles[:, m - 1 - j])
    return F


def _non_dominated_2d(Y: np.ndarray) -> np.ndarray:
    """The non-dominated points of a large ``Y`` ``(n, 2)`` by one sweep in ``y_0``
    (``pareto.non_dominated`` compares every pair: n^2 memory); duplicates kept once."""
    Y = Y[np.lexsort((Y[:, 1], Y[:, 0]))]
    best = np.minimum.accumulate(Y[:, 1])
    return Y[np.r_[True, Y[1:, 1] < best[:-1]]]


def _grid(bounds: np.ndarray, k: int) -> np.ndarray:
    """``(k^d, d)`` grid of ``k`` points per axis of ``bounds`` ``(d, 2)``, ends included."""
    axes = np.meshgrid(*(np.linspace(lo, hi, k) for lo, hi in bounds))
    return np.stack([a.ravel() for a in axes], axis=1)


def _branin_currin_front(coarse: int = 200, fine: int = 2000) -> np.ndarray:
    """The non-dominated points of a ``fine`` grid of the box around the Pareto set of a
    ``coarse`` grid of ``[0, 1]^2`` (the front has no closed form): the grid's points on the
    front are ``1 / fine`` of the box apart."""
    X = _grid(np.array([[0.0, 1.0]] * 2), coarse)
    Y = branin_currin(X)
    front = _non_dominated_2d(np.column_stack([Y, X]))[:, 2:]  # the x of the front's points
    step = 2.0 / (coarse - 1)
    box = np.column_stack(
        [np.maximum(front.min(axis=0) - step, 0), np.minimum(front.max(axis=0) + step, 1)]
    )
    return _non_dominated_2d(branin_currin(_grid(box, fine)))


def _zdt1_front(n: int = 5000) -> np.ndarray:
    f0 = np.linspace(0, 1, n)
    return np.column_stack([f0, 1 - np.sqrt(f0)])


def _zdt3_front(n: int = 20000) -> np.ndarray:
    """The non-dominated points of ZDT3's curve ``g = 1`` (its front: five disjoint parts)."""
    f0 = np.linspace(0, 1, n)
    return _non_dominated_2d(zdt3(np.column_stack([f0, np.zeros(n)])))


def _dtlz2_front(k: int = 40) -> np.ndarray:
    """``k x k`` grid of the sphere's angles (ends included), duplicate points dropped."""
    X = np.column_stack([_grid(np.array([[0.0, 1.0]] * 2), k), np.full(k * k, 0.5)])
    return np.unique(np.round(dtlz2(X), 12), axis=0)


def _dtlz2_hypervolume() -> float:
    """The reference box minus the positive part of the unit ball (in the box: r_i >= 1)."""
    r = np.asarray(PROBLEMS["dtlz2"].reference_point)
    m = len(r)
    return float(np.prod(r) - math.pi ** (m / 2) / math.gamma(m / 2 + 1) / 2**m)


_BOTORCH = "the reference point of BoTorch's test problem (botorch.test_functions.multi_objective)"
_ZDT = (
    'Zitzler, Deb and Thiele, "Comparison of multiobjective evolutionary algorithms: empirical '
    'results" (Evolutionary Computation 2000)'
)
PROBLEMS: dict[str, Problem] = {
    "branin-currin": Problem(
        bounds=np.array([[0.0, 1.0]] * 2),
        objectives=branin_currin,
        reference_point=(18.0, 6.0),
        front=_branin_currin_front,
        n_trials=60,
        source='Belakaria, Deshwal and Doppa, "Max-value entropy search for multi-objective '
        'Bayesian optimization" (NeurIPS 2019); ' + _BOTORCH,
    ),
    "zdt3": Problem(
        bounds=np.array([[0.0, 1.0]] * 4),
        objectives=zdt3,
        reference_point=(11.0, 11.0),
        front=_zdt3_front,
        n_trials=60,
        source=f"{_ZDT}; {_BOTORCH}",
    ),
    "dtlz2": Problem(
        bounds=np.array([[0.0, 1.0]] * 6),
        objectives=dtlz2,
        reference_point=(1.1, 1.1, 1.1),
        front=_dtlz2_front,
        n_trials=60,
        source='Deb, Thiele, Laumanns and Zitzler, "Scalable test problems for evolutionary '
        'multiobjective optimization" (Evolutionary Multiobjective Optimization, Springer 2005); '
        + _BOTORCH,
        exact_hypervolume=_dtlz2_hypervolume,
    ),
    "zdt1": Problem(
        bounds=np.array([[0.0, 1.0]] * 8),
        objectives=zdt1,
        reference_point=(11.0, 11.0),
        front=_zdt1_front,
        n_trials=60,
        source=f"{_ZDT}; {_BOTORCH}",
    ),
}


@functools.cache
def max_hypervolume(name: str) -> float:
    """HV* of problem ``name``: its closed form if it has one, else the hypervolume of its dense
    front sample (seconds for ``branin-currin``; computed once per process)."""
    problem = PROBLEMS[name]
    if problem.exact_hypervolume is not None:
        return problem.exact_hypervolume()
    return hypervolume(problem.front(), np.asarray(problem.reference_point))


def log10_gaps(name: str, values) -> list[float]:
    """``log10(HV* - HV)`` after each trial, HV the hypervolume of the trials so far
    (``values`` ``(n, m)``, one row per trial in trial order); gaps below ``GAP_FLOOR`` x HV*
    count as that."""
    Y = np.asarray(values, dtype=float)  # (n, m)
    r = np.asarray(PROBLEMS[name].reference_point)
    best = max_hypervolume(name)
    floor = GAP_FLOOR * best
    return [math.log10(max(best - hypervolume(Y[: i + 1], r), floor)) for i in range(len(Y))]
