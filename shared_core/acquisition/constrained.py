"""Acquisition functions under black-box inequality constraints ``c_j(x) <= t_j``, with analytic
gradients. Each is an :class:`~shared_core.acquisition.base.Acquisition` to be *maximised*.

Glossary (shapes in comments):
    b: query points; d: input dimension; k: constraints.
    t: ``(k,)`` feasibility thresholds on the constraints' GP scales (feasible: ``c_j <= t_j``).
    violation: ``sum_j max(c_j - t_j, 0)``, zero exactly where every constraint holds.

* :class:`ConstrainedThompsonSampling`: the Thompson rule of SCBO (Eriksson & Poloczek, "Scalable
  constrained Bayesian optimization", AISTATS 2021): for one draw ``f~`` of the objective and one
  draw ``c~_j`` of each constraint, prefer any candidate whose sampled constraints all hold, the
  smallest ``f~`` among them; if there is none, the smallest sampled total violation.
  :meth:`ConstrainedThompsonSampling.merit` is its continuous exact-penalty counterpart, the
  function a gradient method follows (:class:`PenalizedThompsonSampling`).
* :class:`ConstrainedLogExpectedImprovement`: ``log EI + sum_j log P(c_j <= t_j)`` (Gardner et
  al., "Bayesian optimization with inequality constraints", ICML 2014: EI times the probability
  of feasibility, here in log space as Optuna's ``LogCEI``);
  :class:`LogProbabilityOfFeasibility` alone while nothing is feasible.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

import numpy as np
from scipy.special import expit, log_ndtr

from shared_core.acquisition.analytic import LogExpectedImprovement
from shared_core.acquisition.base import Acquisition
from shared_core.models.surrogate import FunctionSample, Posterior

__all__ = [
    "ConstrainedLogExpectedImprovement",
    "ConstrainedThompsonSampling",
    "LogProbabilityOfFeasibility",
    "PenalizedThompsonSampling",
]

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)

# The merit L-BFGS-B follows for the Thompson rule is the l1 exact penalty of the sampled problem
# (Nocedal & Wright, "Numerical optimization", 2006, Sec. 17.2),
#     -f~ - PENALTY_WEIGHT * sum_j max(c~_j - t_j + PENALTY_MARGIN, 0),
# with the hinge smoothed as ``PENALTY_SMOOTHING * log(1 + exp(u / PENALTY_SMOOTHING))``.
# * Weight: a maximiser of the constrained problem is one of the penalty once the weight exceeds
#   its Lagrange multipliers, ``|grad f~| / |grad c~_j|`` at it. Objective and constraints are
#   standardised on their GP scales, so that ratio is of order one unless one function is far
#   steeper than the other: a weight of 10 leaves a factor of ten.
# * Margin: the penalty starts 5 % of a standard deviation inside the sampled feasible set, so
#   that L-BFGS-B, which ends where the penalty takes over, ends on the feasible side, where the
#   rule ranks the point among the feasible ones (an end a hair outside would rank below every
#   feasible candidate). With the smoothing, the end point is where ``sigmoid(u / smoothing)``
#   equals multiplier / weight (``u = c~_j - t_j + margin``): feasible (``u <= margin``) for
#   multipliers up to ``sigmoid(margin / smoothing) = 98 %`` of the weight.
# * Smoothing: a quarter of the margin. At a sharper bend L-BFGS-B's line searches keep
#   backtracking (why: see docs/design-decisions.md#constrained-ts-penalty).
# A weight too small or a boundary missed only costs the refinement: the rule picks the final point
# among refined and raw candidates.
PENALTY_WEIGHT = 10.0
PENALTY_MARGIN = 0.05
PENALTY_SMOOTHING = PENALTY_MARGIN / 4.0


class _SampledConstraints:
    """A draw ``f~`` of the objective and draws ``c~_j`` of the constraints with thresholds."""

    def __init__(
        self,
        objective: FunctionSample,
        constraints: Sequence[FunctionSample],
        thresholds: Sequence[float] | np.ndarray,
    ) -> None:
        self.objective, self.constraints = objective, list(constraints)
        self.thresholds = np.asarray(thresholds, dtype=np.float64).reshape(-1)  # (k,)
        if len(self.thresholds) != len(self.constraints):
            raise ValueError(
                f"{len(self.constraints)} constraint draws but {len(self.thresholds)} thresholds"
            )

    def _excess(self, X: np.ndarray) -> np.ndarray:
        """``c~_j(X) - t_j`` ``(b, k)``."""
        return np.stack([c.value(X) for c in self.constraints], axis=1) - self.thresholds

    def excess_and_grad(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``c~_j(X) - t_j`` ``(b, k)`` and input gradients ``(b, k, d)``."""
        values, grads = zip(*(c.value_and_grad(X) for c in self.constraints))
        return np.stack(values, axis=1) - self.thresholds, np.stack(grads, axis=1)


class ConstrainedThompsonSampling(_SampledConstraints, Acquisition):
    """SCBO's Thompson rule (Eriksson & Poloczek 2021) for minimisation, as one value to maximise:
    ``value = P(-f~)`` where every ``c~_j <= t_j`` and ``-violation`` elsewhere, with ``P(u) = u +
    sqrt(u^2 + 1)`` an increasing map of the reals onto ``(0, inf)``. Every candidate whose sampled
    constraints hold thus ranks above every other (positive against negative values), the former
    by ``-f~`` and the latter by ``-violation``: ranking by ``value`` is the lexicographic rule.

    The value jumps at the boundary of the sampled feasible set; a gradient method follows
    :meth:`merit` instead, and the rule ranks its results.

    ``posteriors`` (optional): the constraints' posteriors the draws come from, for
    :func:`~shared_core.optim.boundary_polish.polish_on_boundary`, which moves a suggestion only
    as far as their means call it feasible too.
    """

    def __init__(
        self,
        objective: FunctionSample,
        constraints: Sequence[FunctionSample],
        thresholds: Sequence[float] | np.ndarray,
        posteriors: Sequence[Posterior] = (),
    ) -> None:
        super().__init__(objective, constraints, thresholds)
        self.posteriors = list(posteriors)
        if self.posteriors and len(self.posteriors) != len(self.constraints):
            raise ValueError(
                f"{len(self.constraints)} constraint draws but {len(self.posteriors)} posteriors"
            )

    def value(self, X: np.ndarray) -> np.ndarray:
        violation = np.sum(np.maximum(self._excess(X), 0.0), axis=1)  # (b,)
        return np.where(violation == 0.0, _positive(-self.objective.value(X))[0], -violation)

    def value_and_grad(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        f, df = self.objective.value_and_grad(X)  # (b,), (b, d)
        excess, dexcess = self.excess_and_grad(X)  # (b, k), (b, k, d)
        violation = np.sum(np.maximum(excess, 0.0), axis=1)
        dviolation = np.einsum("bk,bkd->bd", (excess > 0.0).astype(np.float64), dexcess)
        p, dp = _positive(-f)
        feasible = violation == 0.0
        value = np.where(feasible, p, -violation)
        return value, np.where(feasible[:, None], -dp[:, None] * df, -dviolation)

    def merit(self) -> PenalizedThompsonSampling:
        """The continuous exact-penalty merit of the same draws, for L-BFGS-B."""
        return PenalizedThompsonSampling(self.objective, self.constraints, self.thresholds)


class PenalizedThompsonSampling(_SampledConstraints, Acquisition):
    """``-f~ - rho * sum_j hinge(c~_j - t_j + margin)``: the l1 exact penalty of the sampled
    constrained problem, with a smoothed hinge (``rho``: :data:`PENALTY_WEIGHT`, ``margin``:
    :data:`PENALTY_MARGIN`, ``hinge(u) = s log(1 + exp(u / s))``, ``s``:
    :data:`PENALTY_SMOOTHING`)."""

    def value(self, X: np.ndarray) -> np.ndarray:
        penalty = np.sum(_hinge(self._excess(X) + PENALTY_MARGIN)[0], axis=1)
        return cast(np.ndarray, -self.objective.value(X) - PENALTY_WEIGHT * penalty)

    def value_and_grad(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        f, df = self.objective.value_and_grad(X)
        excess, dexcess = self.excess_and_grad(X)  # (b, k), (b, k, d)
        hinge, dhinge = _hinge(excess + PENALTY_MARGIN)
        dpenalty = np.einsum("bk,bkd->bd", dhinge, dexcess)
        return -f - PENALTY_WEIGHT * np.sum(hinge, axis=1), -df - PENALTY_WEIGHT * dpenalty


class LogProbabilityOfFeasibility(Acquisition):
    """``sum_j log P(c_j(x) <= t_j) = sum_j log Phi((t_j - mu_j) / sd_j)`` under independent
    posteriors of the constraints (the feasibility factor of Gardner et al. 2014)."""

    def __init__(
        self, posteriors: Sequence[Posterior], thresholds: Sequence[float] | np.ndarray
    ) -> None:
        self.posteriors = list(posteriors)
        self.thresholds = np.asarray(thresholds, dtype=np.float64).reshape(-1)  # (k,)
        if len(self.thresholds) != len(self.posteriors):
            raise ValueError(
                f"{len(self.posteriors)} constraint posteriors "
                f"but {len(self.thresholds)} thresholds"
            )

    def value(self, X: np.ndarray) -> np.ndarray:
        out = np.zeros(len(X))
        for post, t in zip(self.posteriors, self.thresholds):
            mean, var = post.predict(X)
            out += log_ndtr((t - mean) / np.sqrt(var))
        return out

    def value_and_grad(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        out, grad = np.zeros(len(X)), np.zeros(X.shape)
        for post, t in zip(self.posteriors, self.thresholds):
            mean, var, dmean, dvar = post.predict_with_grad(X)
            sd = np.sqrt(var)
            z = (t - mean) / sd
            log_cdf = log_ndtr(z)
            # d log Phi(z) / dz = phi(z) / Phi(z), in log space (stable for z << 0)
            ratio = np.exp(-0.5 * z * z - _LOG_SQRT_2PI - log_cdf)
            # dz = -dmean / sd - z dsd / sd, with dsd = dvar / (2 sd)
            dz = -dmean / sd[:, None] - (z / (2.0 * var))[:, None] * dvar
            out += log_cdf
            grad += ratio[:, None] * dz
        return out, grad


class ConstrainedLogExpectedImprovement(Acquisition):
    """``log EI(x; best) + sum_j log P(c_j(x) <= t_j)`` (Gardner et al. 2014, in log space):
    ``best`` is the best feasible value observed (on the objective's GP scale)."""

    def __init__(
        self, posterior: Posterior, best: float, feasibility: LogProbabilityOfFeasibility
    ) -> None:
        self.log_ei, self.feasibility = LogExpectedImprovement(posterior, best), feasibility

    def value(self, X: np.ndarray) -> np.ndarray:
        return cast(np.ndarray, self.log_ei.value(X) + self.feasibility.value(X))

    def value_and_grad(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        v_ei, g_ei = self.log_ei.value_and_grad(X)
        v_pf, g_pf = self.feasibility.value_and_grad(X)
        return v_ei + v_pf, g_ei + g_pf


def _hinge(u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The smoothed hinge ``s log(1 + exp(u / s))`` of ``u`` (any shape) and its derivative
    ``sigmoid(u / s)``, ``s``: :data:`PENALTY_SMOOTHING`."""
    scaled = u / PENALTY_SMOOTHING
    return PENALTY_SMOOTHING * np.logaddexp(0.0, scaled), expit(scaled)


def _positive(u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``P(u) = u + sqrt(u^2 + 1)`` ``(b,)`` (``= exp(asinh u)``: increasing, onto ``(0, inf)``)
    and ``dP/du = P(u) / sqrt(u^2 + 1)``; ``1 / (sqrt(u^2 + 1) - u)`` for ``u < 0`` avoids the
    cancellation."""
    root = np.hypot(u, 1.0)
    p = np.where(u >= 0.0, u + root, 1.0 / (root - np.minimum(u, 0.0)))
    return p, p / root
