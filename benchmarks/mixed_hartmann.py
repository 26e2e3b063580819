"""Hartmann-6 on a mixed, linearly constrained domain: the constrained mixed problem of the Ax
benchmark (``benchmarks.ax_budget``), defined once here.

Parameters (Ax names): ``x1`` .. ``x4`` floats on ``[0, 1]``; ``x5`` an integer ``0 .. 20``,
Hartmann's fifth coordinate ``x5 / 20``; ``x6`` an unordered choice of ``LEVELS`` (``"a"`` ..
``"d"``), Hartmann's sixth coordinate the level's value. Linear constraint ``x1 + x2 <= 0.6``
(``PARAMETER_CONSTRAINTS``): it keeps the continuous minimiser (0.20169, 0.150011, 0.476874,
0.275332, 0.311652, 0.6573) inside and cuts off the local minimum near (0.4047, 0.8828, 0.8461,
0.5740, 0.1389, 0.0385) (value about -3.20).

Minimisation. The minimum on this domain is above Hartmann-6's -3.32237 (the fifth and sixth
coordinates are restricted to grids): :func:`optimum` computes it, once per process, by a local
minimisation of the four floats for each of the 84 (integer, level) pairs.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import numpy as np
from scipy.optimize import minimize
from scipy.stats import qmc

from benchmarks.functions import _H6_A, _H6_ALPHA, _H6_P, hartmann6

INT_STEPS = 20  # x5 in 0 .. INT_STEPS, Hartmann's x5 / INT_STEPS
# x6: a choice whose values name these levels of Hartmann's sixth coordinate.
LEVELS = {"a": 0.15, "b": 0.4, "c": 0.65, "d": 0.9}
SUM_BOUND = 0.6  # x1 + x2 <= SUM_BOUND
PARAMETER_CONSTRAINTS = (f"x1 + x2 <= {SUM_BOUND}",)
# Starts of the local minimisations: the unscrambled Sobol points (deterministic, no seed) of
# the four floats, 2**3 of them per (integer, level) pair (4 already find the same minimum).
_STARTS_LOG2 = 3


def parameters() -> list:
    """The Ax ``Client.configure_experiment`` parameters."""
    from ax import ChoiceParameterConfig, RangeParameterConfig

    floats = [
        RangeParameterConfig(name=f"x{i}", bounds=(0.0, 1.0), parameter_type="float")
        for i in range(1, 5)
    ]
    return [
        *floats,
        RangeParameterConfig(name="x5", bounds=(0, INT_STEPS), parameter_type="int"),
        ChoiceParameterConfig(
            name="x6", values=list(LEVELS), parameter_type="str", is_ordered=False
        ),
    ]


def to_unit(params: Mapping[str, Any]) -> np.ndarray:
    """Hartmann-6's point (6,) of the parameters ``params``."""
    floats = [float(params[f"x{i}"]) for i in range(1, 5)]
    return np.array([*floats, int(params["x5"]) / INT_STEPS, LEVELS[params["x6"]]])


def evaluate(params: Mapping[str, Any]) -> float:
    """Hartmann-6 at ``params`` (the constraint is the search space's: not checked here)."""
    return hartmann6(to_unit(params))


def _value_and_grad(x: np.ndarray) -> tuple[float, np.ndarray]:
    """Hartmann-6 and its gradient at ``x`` (6,)."""
    terms = _H6_ALPHA * np.exp(-np.sum(_H6_A * (x - _H6_P) ** 2, axis=1))  # (4,)
    return -float(terms.sum()), (terms[:, None] * 2 * _H6_A * (x - _H6_P)).sum(axis=0)


def minimise(step: int, level: float) -> tuple[float, np.ndarray]:
    """The minimum of Hartmann-6 over the four floats (``x1 + x2 <= SUM_BOUND``, the unit box)
    with ``x5 = step / INT_STEPS`` and ``x6 = level``: the best feasible end point of SLSQP
    started from each of the Sobol starts. Returns (value, the point (6,))."""
    fixed = np.array([step / INT_STEPS, level])

    def value_and_grad(z: np.ndarray) -> tuple[float, np.ndarray]:
        value, grad = _value_and_grad(np.concatenate([z, fixed]))
        return value, grad[:4]

    constraint = {
        "type": "ineq",
        "fun": lambda z: SUM_BOUND - z[0] - z[1],
        "jac": lambda z: np.array([-1.0, -1.0, 0.0, 0.0]),
    }
    best, best_z = np.inf, np.full(4, np.nan)
    for start in qmc.Sobol(4, scramble=False).random_base2(_STARTS_LOG2):
        found = minimize(
            value_and_grad,
            start,
            jac=True,
            method="SLSQP",
            bounds=[(0.0, 1.0)] * 4,
            constraints=[constraint],
            options={"ftol": 1e-12, "maxiter": 200},
        )
        z = np.clip(found.x, 0.0, 1.0)
        if z[0] + z[1] <= SUM_BOUND + 1e-12 and found.fun < best:
            best, best_z = float(found.fun), z
    return best, np.concatenate([best_z, fixed])


@functools.cache
def optimum() -> tuple[float, dict[str, Any]]:
    """(the minimum on the mixed, constrained domain, the parameters attaining it): the best of
    :func:`minimise` over every (integer, level) pair. About 1 s, once per process."""
    value, params = np.inf, {}
    for step in range(INT_STEPS + 1):
        for name, level in LEVELS.items():
            v, x = minimise(step, level)
            if v < value:
                value = v
                params = {**{f"x{i + 1}": float(x[i]) for i in range(4)}, "x5": step, "x6": name}
    return value, params
