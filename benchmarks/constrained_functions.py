"""Constrained benchmark problems (minimisation) from the literature, with their best feasible
values.

Each :class:`Problem` has box bounds, an objective, constraint functions (a point is feasible
when every constraint value is <= 0, Optuna's rule), the best feasible value ``f_min`` with a
point ``x_min`` that attains it, and the benchmark's trial budget. ``f_min`` of each problem was
computed by SLSQP (``scipy.optimize.minimize``, ``ftol=1e-14``) from uniform random starts in the
box, keeping the best converged feasible end point (:func:`best_feasible` does it again; the
test suite checks that every ``x_min`` is feasible and attains ``f_min``); it agrees with the
value reported in the literature where there is one.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from benchmarks.functions import hartmann6


@dataclass(frozen=True)
class Problem:
    """A constrained problem: minimise ``objective(x)`` over ``bounds`` subject to
    ``constraints(x) <= 0`` (every entry).

    Args:
        bounds: ``(d, 2)`` low and high of each parameter.
        objective: ``x (d,) -> float``.
        constraints: ``x (d,) -> (k,)`` constraint values, feasible when all are <= 0.
        constraint_names: the ``k`` names the values are reported under.
        f_min: the best feasible value.
        x_min: a feasible point where the objective equals ``f_min``.
        n_trials: the benchmark's number of trials.
        source: the paper the problem comes from.
    """

    bounds: np.ndarray
    objective: Callable[[np.ndarray], float]
    constraints: Callable[[np.ndarray], np.ndarray]
    constraint_names: tuple[str, ...]
    f_min: float
    x_min: tuple[float, ...]
    n_trials: int
    source: str


def gardner(x) -> float:
    return math.cos(2 * x[0]) * math.cos(x[1]) + math.sin(x[0])


def gardner_constraints(x) -> np.ndarray:
    # cos(x) cos(y) - sin(x) sin(y) <= 0.5, i.e. cos(x + y) <= 0.5
    return np.array([math.cos(x[0]) * math.cos(x[1]) - math.sin(x[0]) * math.sin(x[1]) - 0.5])


def gramacy(x) -> float:
    return float(x[0] + x[1])


def gramacy_constraints(x) -> np.ndarray:
    x1, x2 = x
    return np.array(
        [
            1.5 - x1 - 2 * x2 - 0.5 * math.sin(2 * math.pi * (x1**2 - 2 * x2)),
            x1**2 + x2**2 - 1.5,
        ]
    )


def spring(x) -> float:
    """Weight of a tension/compression spring: wire diameter ``d``, mean coil diameter ``D``,
    number of active coils ``N``."""
    d, D, N = x
    return float((N + 2) * D * d**2)


def spring_constraints(x) -> np.ndarray:
    """Minimum deflection, shear stress, surge frequency, outer diameter."""
    d, D, N = x
    with np.errstate(divide="ignore"):  # D == d: the shear stress is unbounded
        shear = (4 * D**2 - d * D) / (12566 * (D * d**3 - d**4)) + 1 / (5108 * d**2) - 1
    return np.array(
        [
            1 - D**3 * N / (71785 * d**4),
            shear,
            1 - 140.45 * d / (D**2 * N),
            (D + d) / 1.5 - 1,
        ]
    )


def ball_constraint(x) -> np.ndarray:
    return np.array([float(np.linalg.norm(x)) - 1.0])


PROBLEMS: dict[str, Problem] = {
    # Section 5.1 of the paper. The minimum -2 (cos(2x) = -1, cos(y) = 1, sin(x) = -1) lies on
    # the box's edge y = 0, where cos(x + y) = 0 meets the constraint.
    "gardner": Problem(
        bounds=np.array([[0.0, 6.0]] * 2),
        objective=gardner,
        constraints=gardner_constraints,
        constraint_names=("c0",),
        f_min=-2.0,
        x_min=(1.5 * math.pi, 0.0),
        n_trials=40,
        source='Gardner, Kusner, Xu, Weinberger and Cunningham, "Bayesian optimization with '
        'inequality constraints" (ICML 2014)',
    ),
    # The paper gives f* ~= 0.5998 at (0.1954, 0.4044); the optimum lies on the first
    # constraint's boundary.
    "gramacy": Problem(
        bounds=np.array([[0.0, 1.0]] * 2),
        objective=gramacy,
        constraints=gramacy_constraints,
        constraint_names=("c0", "c1"),
        f_min=0.599788052009986,
        x_min=(0.1951226881417946, 0.4046653638681914),
        n_trials=40,
        source='Gramacy, Gray, Le Digabel, Lee, Ranjan, Wells and Wild, "Modeling an augmented '
        'Lagrangian for blackbox constrained optimization" (Technometrics 2016)',
    ),
    # The usual bounds d in [0.05, 2], D in [0.25, 1.3], N in [2, 15]; about 0.8 % of the box
    # is feasible. Coello Coello and Mezura Montes report 0.012681 (their genetic algorithm's
    # best); SLSQP reaches 0.0126652, the first two constraints active.
    "spring": Problem(
        bounds=np.array([[0.05, 2.0], [0.25, 1.3], [2.0, 15.0]]),
        objective=spring,
        constraints=spring_constraints,
        constraint_names=("deflection", "shear", "surge", "diameter"),
        f_min=0.012665232788317202,
        x_min=(0.05168905971949597, 0.35671770700285, 11.288967674374055),
        n_trials=60,
        source='Coello Coello and Mezura Montes, "Constraint-handling in genetic algorithms '
        'through the use of dominance-based tournament selection" (Advanced Engineering '
        'Informatics 2002), from Arora, "Introduction to optimum design" (1989)',
    ),
    # Hartmann-6 on [0, 1]^6 with ||x||_2 <= 1 (about 8 % of the box). The unconstrained
    # minimum -3.32237 lies inside the ball (norm 0.946), so it is the constrained one too.
    "hartmann6-ball": Problem(
        bounds=np.array([[0.0, 1.0]] * 6),
        objective=hartmann6,
        constraints=ball_constraint,
        constraint_names=("norm",),
        f_min=-3.3223680114155116,
        x_min=(
            0.2016895076993412,
            0.15001068610165655,
            0.4768739664168278,
            0.2753324251074977,
            0.3116516132040646,
            0.6573005311871558,
        ),
        n_trials=80,
        source='Letham, Karrer, Ottoni and Bakshy, "Constrained Bayesian optimization with '
        'noisy experiments" (Bayesian Analysis 2019)',
    ),
}


def best_feasible(
    problem: Problem, *, starts: int = 200, seed: int = 0
) -> tuple[float, np.ndarray]:
    """The best feasible value and point found by SLSQP from ``starts`` uniform random points
    (how ``f_min`` and ``x_min`` were computed)."""
    from scipy.optimize import minimize

    rng = np.random.default_rng(seed)
    low, high = problem.bounds.T
    best, x_best = math.inf, low
    for _ in range(starts):
        done = minimize(
            problem.objective,
            rng.uniform(low, high),
            method="SLSQP",
            bounds=problem.bounds,
            constraints=[{"type": "ineq", "fun": lambda x: -problem.constraints(x)}],
            options={"ftol": 1e-14, "maxiter": 1000},
        )
        if done.success and np.all(problem.constraints(done.x) <= 1e-9) and done.fun < best:
            best, x_best = float(done.fun), done.x
    return best, x_best
