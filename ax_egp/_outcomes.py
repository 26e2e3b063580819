"""An Ax optimization config -> the core's minimised objectives, reference point and constraints.

* Objectives: one objective (a metric, or a fixed weighted sum of metrics: Ax's scalarized
  objective ``"-2*a + b"``), or ``m >= 2`` of them (Ax's multi-objective ``"a, -b"``; each part
  a metric or a weighted sum, ``"2*a + b, -c"``). Ax maximises each expression
  ``sum_j w_j * metric_j``; the core minimises ``y_i = -sum_j w_j * metric_j``, so a maximised
  metric is negated and a minimised one (``"-b"``) kept.
* Objective thresholds (Ax's ``outcome_constraints`` on an objective's metric, ``"a >= 0.5"``,
  ``"b <= 2"``) -> the core's hypervolume ``reference_point`` ``(m,)`` on the minimised scale:
  a minimised metric's threshold ``b`` -> ``b``, a maximised metric's -> ``-b`` (in general
  ``-w * b`` for the part ``w * metric``). An objective without a threshold (Ax cannot give one to
  a weighted-sum part) has NaN there: the algorithm infers it from the observed front
  (:func:`shared_core.pareto.infer_reference_point`, BoTorch's ``infer_reference_point`` on the
  feasible observed values). Ax's own models infer a missing threshold the same way but from
  the model's predictions: ``infer_objective_thresholds``
  (``ax/generators/torch/botorch_moo_utils.py``) applies ``infer_reference_point`` to the
  posterior means of the observed points predicted feasible. Thresholds are the reference point
  only: a point beyond one is still an observation and feasible. Relative thresholds are refused.
* Outcome constraints with an absolute bound, on one metric or a weighted sum of metrics:
  ``sum_i w_i * m_i <= bound`` -> constraint value ``sum_i w_i * m_i - bound``;
  ``>= bound`` -> ``bound - sum_i w_i * m_i`` (feasible: ``<= 0``, the core's convention). The
  constraint's name is its expression (``"c <= 2"``). Constraints relative to the status quo arm
  are refused.
* Missing data: an arm without data for a metric of some objective is not an observation; an arm
  without data for a constraint's metric has NaN for that constraint (the core then judges its
  feasibility by the constraints it has values for).

Metrics are matched by signature (Ax's ``metric_signature`` column), as Ax's own models do.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import numpy as np
from ax.core.data import Data
from ax.core.objective import Objective
from ax.core.optimization_config import MultiObjectiveOptimizationConfig, OptimizationConfig
from ax.core.types import ComparisonOp

from shared_core.capabilities import (
    ModelsConstraints,
    MultiObjective,
    models_constraints,
    multi_objective,
    refusal,
)
from shared_core.registry import methods_declaring

__all__ = ["Outcomes", "outcomes"]

_Weights = tuple[tuple[str, float], ...]  # (metric signature, weight) of a weighted sum


@dataclass(frozen=True)
class _Constraint:
    """``sign * (sum_i weight_i * metric_i - bound) <= 0``."""

    name: str
    weights: _Weights
    bound: float
    sign: float  # +1 for <=, -1 for >=


@dataclass(frozen=True)
class Outcomes:
    """What the node models of an experiment: the minimised objectives
    ``y_i = sum_j weight_ij * metric_j``, their reference point, and one value per outcome
    constraint."""

    objectives: tuple[_Weights, ...]  # (m,) weights of each minimised objective
    constraints: tuple[_Constraint, ...] = ()
    # (m,) minimised scale, NaN where no threshold is given; None with one objective
    reference_point: tuple[float, ...] | None = None

    @property
    def n_objectives(self) -> int:
        return len(self.objectives)

    @property
    def constraint_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.constraints)

    def values(
        self, data: Data, trials: Collection[int]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The arms of ``trials`` with data for every objective metric, sorted by trial and arm:
        their trial indices ``(n,)`` and arm names ``(n,)``, ``y`` (``(n,)`` with one objective,
        ``(n, m)`` with several) and constraint values ``(n, k)`` (NaN where a metric of the
        constraint has no data)."""
        signatures = sorted(
            {s for weights in self.objectives for s, _ in weights}
            | {s for c in self.constraints for s, _ in c.weights}
        )
        df = data.df
        rows = df[df["metric_signature"].isin(signatures) & df["trial_index"].isin(list(trials))]
        means = (
            rows.groupby(["trial_index", "arm_name", "metric_signature"])["mean"]
            .last()
            .unstack("metric_signature")
            .reindex(columns=signatures)
        )  # (arms, metrics) sorted by trial and arm; NaN where an arm has no data for a metric
        Y = np.stack([_weighted_sum(means, w) for w in self.objectives], axis=1)  # (n, m)
        keep = ~np.isnan(Y).any(axis=1)
        constraints = np.zeros((len(means), len(self.constraints)))  # (n, k)
        for j, c in enumerate(self.constraints):
            constraints[:, j] = c.sign * (_weighted_sum(means, c.weights) - c.bound)
        trial_index = means.index.get_level_values("trial_index").to_numpy(dtype=int)
        arm_name = means.index.get_level_values("arm_name").to_numpy(dtype=object)
        y = Y if self.n_objectives > 1 else Y[:, 0]
        return trial_index[keep], arm_name[keep], y[keep], constraints[keep]


def _weighted_sum(means: Any, weights: _Weights) -> np.ndarray:
    """``(n,)`` ``sum_i w_i * metric_i`` per arm (``means``: a data frame, one column per metric
    signature), NaN if a metric has no data."""
    total = np.zeros(len(means))
    for signature, w in weights:
        total = total + w * means[signature].to_numpy(dtype=float)
    return total


def outcomes(config: OptimizationConfig | None, *, method: str, algorithm: object) -> Outcomes:
    """The :class:`Outcomes` of an optimization config; ``ValueError`` for what the node cannot
    model: no config, relative outcome constraints or objective thresholds, and what ``algorithm``
    (the algorithm of ``method``) does not declare it models (:mod:`shared_core.capabilities`):
    several objectives, any outcome constraint."""
    if config is None:
        raise ValueError(
            "the experiment has no optimization config: call Client.configure_optimization first"
        )
    objective = config.objective
    parts = _parts(objective)
    if len(parts) > 1 and not multi_objective(algorithm):
        raise ValueError(
            _refusal(method, algorithm, MultiObjective, f"the objective {objective.expression!r}")
        )
    thresholds = (
        list(config.objective_thresholds)
        if isinstance(config, MultiObjectiveOptimizationConfig) and len(parts) > 1
        else []
    )
    relative = [c.expression for c in [*config.outcome_constraints, *thresholds] if c.relative]
    if relative:
        raise ValueError(
            f"the outcome constraints or objective thresholds {relative} are relative to the "
            "status quo arm; egp-samplers' Ax nodes need absolute bounds (e.g. 'c <= 2' "
            "instead of 'c <= 1.1 * baseline')"
        )
    if config.outcome_constraints and not models_constraints(algorithm):
        expressions = [c.expression for c in config.outcome_constraints]
        found = f"the experiment has the outcome constraints {expressions}"
        raise ValueError(_refusal(method, algorithm, ModelsConstraints, found))
    objectives = tuple(tuple((s, -float(w)) for s, w in part) for part in parts)  # Ax maximises
    return Outcomes(
        objectives=objectives,
        constraints=tuple(
            _Constraint(
                name=c.expression,
                weights=tuple((s, float(w)) for s, w in c.metric_weights),
                bound=float(c.bound),
                sign=1.0 if c.op == ComparisonOp.LEQ else -1.0,
            )
            for c in config.outcome_constraints
        ),
        reference_point=_reference_point(objectives, thresholds) if len(parts) > 1 else None,
    )


def _refusal(method: str, algorithm: object, protocol: type, found: str) -> str:
    """The message refusing what ``protocol`` names, found in the experiment (``found``), for
    ``method``'s algorithm: the methods to use instead, or Ax's default generation strategy."""
    methods = [repr(name) for name in methods_declaring(protocol)]
    otherwise = ", or Ax's default generation strategy"
    return refusal(
        f"the method {method!r}", algorithm, protocol, found, methods, otherwise=otherwise
    )


def _parts(objective: Objective) -> list[list[tuple[str, float]]]:
    """The ``(metric signature, weight)`` pairs of each part of ``objective``, maximised: one part
    for a metric or a weighted sum, one per comma-separated expression of a multi-objective.

    Ax exposes the parts only through ``Objective._parsed`` (its own optimization configs and
    adapters read it so): parsing ``objective.expression`` again would mangle metric names with
    operator characters. This is the one private use; the tests of several objectives fail if
    it changes."""
    if not objective.is_multi_objective:
        return [[(s, float(w)) for s, w in objective.metric_weights]]
    signature = objective.metric_name_to_signature
    return [[(signature[name], float(w)) for name, w in part] for part in objective._parsed[1]]


def _reference_point(objectives: tuple[_Weights, ...], thresholds: list[Any]) -> tuple[float, ...]:
    """``(m,)`` the objective thresholds on the minimised scales; NaN for an objective without one.

    Ax accepts a threshold only on a one-metric part, in the direction of its optimisation, and
    stores it as ``metric >= b`` or ``metric <= b`` (``"2*a >= 1"`` as ``a >= 0.5``); the
    objective ``y = w * metric`` (minimised) is then bounded at ``w * b``."""
    bounds = {}
    for threshold in thresholds:
        ((signature, weight),) = threshold.metric_weights
        # Ax stores thresholds with weight 1 (``"2*a >= 1"`` as ``a >= 0.5``); divide anyway
        bounds[signature] = float(threshold.bound) / float(weight)
    point = []
    for weights in objectives:
        if len(weights) == 1 and weights[0][0] in bounds:
            signature, w = weights[0]
            point.append(w * bounds[signature])
        else:
            point.append(float("nan"))
    return tuple(point)
