"""An Ax optimization config -> the core's minimised objective and constraint values.

* Objective: one metric, or a fixed weighted sum of metrics (Ax's scalarized objective,
  ``"-2*a + b"``). Ax maximises the expression ``sum_i w_i * m_i``; the core minimises
  ``y = -sum_i w_i * m_i``. Multi-objective configs are refused.
* Outcome constraints with an absolute bound, on one metric or a weighted sum of metrics:
  ``sum_i w_i * m_i <= bound`` -> constraint value ``sum_i w_i * m_i - bound``;
  ``>= bound`` -> ``bound - sum_i w_i * m_i`` (feasible: ``<= 0``, the core's convention). The
  constraint's name is its expression (``"c <= 2"``). Constraints relative to the status quo arm
  are refused.
* Missing data: an arm without data for an objective metric is not an observation; an arm without
  data for a constraint's metric has NaN for that constraint (the core then judges its
  feasibility by the constraints it has values for).

Metrics are matched by signature (Ax's ``metric_signature`` column), as Ax's own models do.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import numpy as np
from ax.core.data import Data
from ax.core.optimization_config import OptimizationConfig
from ax.core.types import ComparisonOp

__all__ = ["Outcomes", "outcomes"]


@dataclass(frozen=True)
class _Constraint:
    """``sign * (sum_i weight_i * metric_i - bound) <= 0``."""

    name: str
    weights: tuple[tuple[str, float], ...]  # (metric signature, weight)
    bound: float
    sign: float  # +1 for <=, -1 for >=


@dataclass(frozen=True)
class Outcomes:
    """What the node models of an experiment: ``y = sum_i weight_i * metric_i`` (minimised) and
    one value per outcome constraint."""

    objective: tuple[tuple[str, float], ...]  # (metric signature, weight of the minimised y)
    constraints: tuple[_Constraint, ...] = ()

    @property
    def constraint_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.constraints)

    def values(
        self, data: Data, trials: Collection[int]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The arms of ``trials`` with data for every objective metric, sorted by trial and arm:
        their trial indices ``(n,)`` and arm names ``(n,)``, ``y`` ``(n,)`` and constraint values
        ``(n, k)`` (NaN where a metric of the constraint has no data)."""
        signatures = sorted(
            {s for s, _ in self.objective} | {s for c in self.constraints for s, _ in c.weights}
        )
        df = data.df
        rows = df[df["metric_signature"].isin(signatures) & df["trial_index"].isin(list(trials))]
        means = (
            rows.groupby(["trial_index", "arm_name", "metric_signature"])["mean"]
            .last()
            .unstack("metric_signature")
            .reindex(columns=signatures)
        )  # (arms, metrics) sorted by trial and arm; NaN where an arm has no data for a metric
        y = _weighted_sum(means, self.objective)
        keep = ~np.isnan(y)
        constraints = np.zeros((len(means), len(self.constraints)))  # (n, k)
        for j, c in enumerate(self.constraints):
            constraints[:, j] = c.sign * (_weighted_sum(means, c.weights) - c.bound)
        trial_index = means.index.get_level_values("trial_index").to_numpy(dtype=int)
        arm_name = means.index.get_level_values("arm_name").to_numpy(dtype=object)
        return trial_index[keep], arm_name[keep], y[keep], constraints[keep]


def _weighted_sum(means: Any, weights: tuple[tuple[str, float], ...]) -> np.ndarray:
    """``(n,)`` ``sum_i w_i * metric_i`` per arm (``means``: a data frame, one column per metric
    signature), NaN if a metric has no data."""
    total = np.zeros(len(means))
    for signature, w in weights:
        total = total + w * means[signature].to_numpy(dtype=float)
    return total


def outcomes(
    config: OptimizationConfig | None, *, method: str, models_constraints: bool
) -> Outcomes:
    """The :class:`Outcomes` of an optimization config; ``ValueError`` for what the node cannot
    model: no config, several objectives, relative constraints, and any outcome constraint when
    the algorithm of ``method`` does not model constraints (``models_constraints`` False)."""
    if config is None:
        raise ValueError(
            "the experiment has no optimization config: call Client.configure_optimization first"
        )
    objective = config.objective
    if config.is_moo_problem or objective.is_multi_objective:
        raise ValueError(
            "egp-samplers' Ax nodes optimise one objective (a metric or a fixed weighted sum of "
            f"metrics), got the multi-objective {objective.expression!r}; use Ax's default "
            "generation strategy for multi-objective optimisation"
        )
    for constraint in config.outcome_constraints:
        if constraint.relative:
            raise ValueError(
                f"the outcome constraint {constraint.expression!r} is relative to the status quo "
                "arm; egp-samplers' Ax nodes need an absolute bound (e.g. 'c <= 2' instead of "
                "'c <= 1.1 * baseline')"
            )
    if config.outcome_constraints and not models_constraints:
        raise ValueError(
            f"the algorithm of method {method!r} does not model outcome constraints, got "
            f"{[c.expression for c in config.outcome_constraints]}; choose a method whose "
            "algorithm models them (shared_core.interface.ModelsConstraints), remove the "
            "constraints, or use Ax's default generation strategy"
        )
    return Outcomes(
        objective=tuple((s, -float(w)) for s, w in objective.metric_weights),  # Ax maximises
        constraints=tuple(
            _Constraint(
                name=c.expression,
                weights=tuple((s, float(w)) for s, w in c.metric_weights),
                bound=float(c.bound),
                sign=1.0 if c.op == ComparisonOp.LEQ else -1.0,
            )
            for c in config.outcome_constraints
        ),
    )
