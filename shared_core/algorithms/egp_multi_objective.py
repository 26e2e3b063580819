"""EGP-TS and EGP-EI with several objectives (:class:`~shared_core.algorithms.egp.EGPAlgorithm`,
``Observations.y`` ``(n, m)``, each minimised; ``m >= 2``): the acquisition of one suggestion from
one sampled member ``m_i ~ Cat(w_i)`` per objective, believed at the pending points.

Glossary (shapes in comments):
    n: observations; m: objectives; p: pending points; d: input dimension; k: points of the
    front (observed feasible rows and believed pending points).
    Y_std: ``(n, m)`` the observed values on each objective's GP scale.

Every objective is on its own GP scale (its output transform is increasing, so dominance is
unchanged), normalised per suggestion by ``u_i = (f_i - z_i) / (r_i - z_i)``: ``z_i`` the best
GP-scale value of the feasible rows (of all rows while none is feasible) and ``r_i`` the reference
point mapped through the same transform. The reference point takes the given entries of
``Observations.reference_point`` and infers the others from the feasible rows
(:func:`~shared_core.pareto.completed_reference_point`). Each suggestion draws a fresh weight
vector (``acquisition/multi_objective.py``):

* TS: one draw ``f~_i`` per objective. The acquisition optimiser's candidates are ranked by the
  hypervolume improvement of ``u(f~(x))`` over the observed feasible front plus the believed
  pending points (the rule of TSEMO, Bradford, Schweidtmann & Lapkin, "Efficient multiobjective
  optimization employing Gaussian processes, spectral sampling and a genetic algorithm", J. Global
  Optim. 2018, on the optimiser's candidates instead of an NSGA-II front of the draws); L-BFGS-B
  refines the best of them on the random hypervolume scalarisation of the same draws (Golovin &
  Zhang, "Random hypervolume scalarizations for provable multi-objective black box
  optimization", ICML 2020, eq. 3; weights uniform on the positive unit sphere). With
  constraints, SCBO's rule ranks the feasible candidates by that improvement and L-BFGS-B follows
  the merit of the scalarised draw. The believed pending points join the front: a candidate next
  to one improves little, which keeps concurrent suggestions apart.
* EI: qParEGO (Daulton, Balandat & Bakshy, "Differentiable expected hypervolume improvement for
  parallel multi-objective Bayesian optimization", NeurIPS 2020): the Monte-Carlo log EI (128
  base samples drawn per suggestion) of a random augmented Chebyshev scalarisation (weights
  uniform on the simplex) of the members' posteriors, over the best scalarised value of the
  feasible rows and believed pending points; with constraints plus ``sum_j log P(c_j <= t_j)``,
  which alone is maximised while nothing is feasible. ``"auto"`` keeps its rule.

The local candidates are the best observed points under the suggestion's own scalarisation
(feasible rows by it, then infeasible ones by violation).
"""

from __future__ import annotations

import numpy as np

from shared_core.acquisition import (
    Acquisition,
    ConstrainedThompsonSampling,
    LogProbabilityOfFeasibility,
    ThompsonSampling,
)
from shared_core.acquisition.multi_objective import (
    ChebyshevScalarization,
    HypervolumeScalarization,
    ObjectiveScales,
    SampledHypervolumeImprovement,
    Scalarization,
    ScalarizedLogExpectedImprovement,
    ScalarizedSample,
    simplex_weights,
    sphere_weights,
)
from shared_core.interface import Observations
from shared_core.models.constraint_models import ConstraintBelief, believed_feasible
from shared_core.models.ensemble import EnsembleGP, Member
from shared_core.pareto import completed_reference_point

__all__ = ["MC_SAMPLES", "multi_objective_acquisition", "objective_scales", "scalarized_log_ei"]

MC_SAMPLES = 128  # base samples of the Monte-Carlo EI of several objectives (qParEGO)


def multi_objective_acquisition(
    obs: Observations,
    ensembles: list[EnsembleGP],
    members: list[Member],
    constraints: list[ConstraintBelief],
    believed: np.ndarray,
    *,
    use_ei: bool,
    rng: np.random.Generator,
) -> tuple[Acquisition, Acquisition, np.ndarray]:
    """The acquisition for ``m >= 2`` objectives, the one L-BFGS-B follows, and the rows of
    ``obs`` best first under this suggestion's scalarisation (feasible rows by it, then the
    others by violation).

    Args:
        obs: the observations, ``Y`` ``(n, m)``.
        ensembles: the ``m`` objectives' ensembles (objective 0 first).
        members: one sampled member per objective ``m_i ~ Cat(w_i)``, believed at ``believed``.
        constraints: one sampled member per constraint, believed at ``believed`` (none without
            constraint values).
        believed: ``(p, d)`` the pending points the members are conditioned on.
        use_ei: qParEGO's log EI if True, else a Thompson draw per objective ranked by its
            hypervolume improvement (module docstring).
        rng: draws the random weight vector and the Thompson draws or EI's base samples.
    """
    m = obs.n_objectives
    Y_std = np.stack([e.y_std(obs.Y[:, i]) for i, e in enumerate(ensembles)], axis=1)  # (n, m)
    scales = objective_scales(obs, ensembles, Y_std)
    scalarization: Scalarization = (
        ChebyshevScalarization(simplex_weights(m, rng))  # qParEGO's
        if use_ei
        else HypervolumeScalarization(sphere_weights(m, rng), scales.reference_unit)
    )
    feasible = obs.feasible
    violation = np.where(feasible, 0.0, obs.violation)
    observed = np.where(feasible, scalarization(scales(Y_std)), 0.0)  # (n,)
    order = np.lexsort((observed, violation, ~feasible))
    # the observed feasible front and the believed pending values, each feasible where every
    # constraint's mean is
    fantasies = np.stack([mb.post.predict(believed)[0] for mb in members], axis=1)  # (p, m)
    front = np.vstack(
        [Y_std[feasible], fantasies[believed_feasible(constraints, believed)]]
    )  # (k, m)
    if use_ei:
        acq, smooth = scalarized_log_ei(members, constraints, scales, scalarization, front, rng)
        return acq, smooth, order
    sample = ScalarizedSample([mb.post.sample_path(rng) for mb in members], scales, scalarization)
    improvement = SampledHypervolumeImprovement(sample, scales(front))
    if not constraints:
        return ThompsonSampling(improvement), ThompsonSampling(sample), order
    draws = [c.post.sample_path(rng) for c in constraints]
    thresholds = [c.threshold for c in constraints]
    return (
        ConstrainedThompsonSampling(improvement, draws, thresholds),
        ConstrainedThompsonSampling(sample, draws, thresholds).merit(),
        order,
    )


def scalarized_log_ei(
    members: list[Member],
    constraints: list[ConstraintBelief],
    scales: ObjectiveScales,
    scalarization: Scalarization,
    front: np.ndarray,
    rng: np.random.Generator,
) -> tuple[Acquisition, Acquisition]:
    """qParEGO's log EI over the best scalarised value of ``front`` ``(k, m)`` (GP scales),
    plus the log probability of feasibility with constraints, which alone is maximised while
    ``front`` is empty (nothing feasible)."""
    feasibility = (
        LogProbabilityOfFeasibility(
            [c.post for c in constraints], [c.threshold for c in constraints]
        )
        if constraints
        else None
    )
    if not len(front):
        assert feasibility is not None  # nothing feasible only with constraints
        return feasibility, feasibility
    ei = ScalarizedLogExpectedImprovement(
        [mb.post for mb in members],
        scales,
        scalarization,
        best=float(scalarization(scales(front)).min()),
        base_samples=rng.standard_normal((MC_SAMPLES, len(members))),
        feasibility=feasibility,
    )
    return ei, ei


def objective_scales(
    obs: Observations, ensembles: list[EnsembleGP], Y_std: np.ndarray
) -> ObjectiveScales:
    """The normalisation of the objectives' GP scales ``Y_std`` ``(n, m)``: ideal point the best
    value of each objective among the feasible rows (all rows while none is feasible), reference
    point :func:`~shared_core.pareto.completed_reference_point` mapped through each objective's
    output transform."""
    feasible = obs.feasible
    rows = feasible if feasible.any() else np.ones(len(feasible), dtype=bool)
    reference = completed_reference_point(obs.Y, obs.reference_point, feasible)  # (m,)
    return ObjectiveScales(
        ideal=Y_std[rows].min(axis=0),
        reference=np.array([e.y_std(reference[i : i + 1])[0] for i, e in enumerate(ensembles)]),
    )
