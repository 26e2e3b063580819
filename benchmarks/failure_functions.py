"""Problems where trials fail: crash regions, where the objective cannot be evaluated (the trial
fails: Optuna gets NaN, Ax a trial marked failed), and pass/fail (two-level) constraints.

- ``branin-crash``: Branin on [-5, 10] x [0, 15], failing where ``x0 > 5`` (a third of the box,
  holding the minimum at (9.42, 2.47)); best value 0.397887 at the two other minima.
- ``hartmann6-crash``: Hartmann-6 on the unit cube, failing where ``x0 + x1 > 1.2`` (32 % of the
  box); the minimum -3.32237 (``x0 + x1 = 0.35``) is outside.
- ``hpo-crash``: a synthetic training run: ``log10`` learning rate in [-4, 0], ``log2`` width in
  [4, 10], ``log2`` batch size in [4, 9] and dropout in [0, 0.5]; it runs out of memory where
  width times batch size exceeds 2^15 and diverges where the learning rate exceeds 10^-0.5. The
  loss falls with the width and is best at a moderate batch size, so its minimum lies on the
  memory boundary (:func:`_hpo_minimum`).
- ``gramacy-step``, ``gardner-step``, ``hartmann6-ball-step``: the constrained problems of
  ``benchmarks.constrained_functions`` with every constraint reported as 0 (holds) or 1
  (violated), as a pass/fail check does.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize_scalar

from benchmarks.constrained_functions import PROBLEMS as CONSTRAINED
from benchmarks.functions import branin, hartmann6

N_TRIALS = 50


@dataclass(frozen=True)
class FailureProblem:
    """Minimise ``objective(x)`` over ``bounds`` (``(d, 2)``): a trial fails where ``fails(x)``;
    ``constraints(x)`` (``(k,)``, feasible where all are ``<= 0``) are reported under
    ``constraint_names``. ``f_min``: the best value of a trial that neither fails nor violates a
    constraint."""

    bounds: np.ndarray
    objective: Callable[[np.ndarray], float]
    f_min: float
    source: str
    fails: Callable[[np.ndarray], bool] = lambda x: False
    constraints: Callable[[np.ndarray], np.ndarray] | None = None
    constraint_names: tuple[str, ...] = ()
    n_trials: int = N_TRIALS

    @property
    def kind(self) -> str:
        return "step" if self.constraint_names else "crash"


def _hpo_loss(x: np.ndarray) -> float:
    log_lr, log_width, log_batch, dropout = x
    return float(
        0.2 * (log_lr + 2.5) ** 2
        + 0.5 * 2.0 ** (-(log_width - 4.0) / 2.0)
        + 0.3 * ((log_batch - 7.0) / 3.0) ** 2
        + (dropout - 0.2) ** 2
    )


def _hpo_fails(x: np.ndarray) -> bool:
    return bool(x[1] + x[2] > 15.0 or x[0] > -0.5)


@functools.cache
def _hpo_minimum() -> float:
    """The loss's minimum outside the failure region: on the memory boundary ``log2 width =
    15 - log2 batch`` (the width is capped at 2^10), the learning rate and dropout at their
    optima (a one-dimensional bounded search)."""

    def on_boundary(log_batch: float) -> float:
        return _hpo_loss(np.array([-2.5, min(10.0, 15.0 - log_batch), log_batch, 0.2]))

    return float(minimize_scalar(on_boundary, bounds=(5.0, 9.0), method="bounded").fun)


def _step(name: str) -> FailureProblem:
    """The constrained problem ``name`` with every constraint reported as 0 or 1."""
    p = CONSTRAINED[name]
    return FailureProblem(
        bounds=p.bounds,
        objective=p.objective,
        f_min=p.f_min,
        source=f"`{name}` of the constrained benchmark",
        constraints=lambda x: (np.asarray(p.constraints(x)) > 0).astype(float),
        constraint_names=p.constraint_names,
        n_trials=p.n_trials,
    )


PROBLEMS: dict[str, FailureProblem] = {
    "branin-crash": FailureProblem(
        bounds=np.array([[-5.0, 10.0], [0.0, 15.0]]),
        objective=branin,
        f_min=0.397887,
        fails=lambda x: bool(x[0] > 5.0),
        source="Branin, failing where x0 > 5",
    ),
    "hartmann6-crash": FailureProblem(
        bounds=np.array([[0.0, 1.0]] * 6),
        objective=hartmann6,
        f_min=-3.32237,
        fails=lambda x: bool(x[0] + x[1] > 1.2),
        source="Hartmann-6, failing where x0 + x1 > 1.2",
    ),
    "hpo-crash": FailureProblem(
        bounds=np.array([[-4.0, 0.0], [4.0, 10.0], [4.0, 9.0], [0.0, 0.5]]),
        objective=_hpo_loss,
        f_min=_hpo_minimum(),
        fails=_hpo_fails,
        source="a synthetic training run that runs out of memory (width x batch > 2^15) or "
        "diverges (learning rate > 10^-0.5)",
    ),
    **{f"{name}-step": _step(name) for name in ("gramacy", "gardner", "hartmann6-ball")},
}
assert all(math.isfinite(p.f_min) for p in PROBLEMS.values())
