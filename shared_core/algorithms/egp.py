"""EGP-TS and EGP-EI (Lu, Polyzos, Li, Giannakis, "Surrogate modeling for Bayesian optimization
beyond a single Gaussian process", TPAMI 2023): Thompson sampling or EI on an ensemble of GPs,
with constraints and several objectives.

Per suggestion (Algorithm 1, lines 17-19, and Sec. V-D for EI):
    1. bring the ensemble up to date (refit or incremental update, see ``ensemble.py``);
    2. draw ``m ~ Cat(w)`` (eq. 10);
    3. condition GP ``m`` on the pending points (running trials and earlier members of the same
       batch) with kriging-believer fantasies, unless ``fantasize_pending=False``;
    4. TS: draw a posterior function of GP ``m`` (pathwise, or from the feature posterior, eq. 12)
       and minimise it; EI: maximise log EI of GP ``m``.

Constraints (``Observations.constraints``, feasible where every value is ``<= 0``): each
constraint ``j`` has its own ensemble (:class:`~shared_core.models.constraint_models.
ConstraintModels`, the objective's options, fitted on the rows with a value for it), with
threshold ``t_j = transform_j(0)`` on its GP scale; steps 1-3 are repeated per constraint (one
member ``m_j ~ Cat(w_j)``, believed at the pending points).

* TS follows the Thompson rule of SCBO (Eriksson & Poloczek, "Scalable constrained Bayesian
  optimization", AISTATS 2021): one joint draw ``f~`` of the objective and ``c~_j`` of each
  constraint (whole functions: pathwise or random-feature draws, eq. 12, so they can be evaluated
  anywhere and differentiated); among candidates with every ``c~_j <= t_j`` the smallest ``f~``
  wins, and if there is none, the smallest sampled violation ``sum_j max(c~_j - t_j, 0)``. SCBO
  applies the rule to a finite candidate set; here the rule ranks the optimiser's raw candidates
  (Halton points and perturbations of the best observed points), L-BFGS-B refines the best of
  them on the rule's continuous exact-penalty merit ``-f~ - rho sum_j max(c~_j - t_j + margin,
  0)`` with a smoothed hinge (the rule itself jumps at the sampled boundary; constants and their
  reasons in ``acquisition/constrained.py``), and the rule picks the suggestion among the refined
  and the raw candidates, so it is never worse by the rule than the best raw one.
* EI is the constrained EI of Gardner et al., "Bayesian optimization with inequality
  constraints" (ICML 2014), in log space: ``log EI(best feasible) + sum_j log P(c_j <= t_j)``;
  while no observed point (nor believed pending point) is feasible, ``sum_j log P(c_j <= t_j)``
  alone, which leads the search into the feasible region.

Several objectives (``Observations.y`` ``(n, m)``, each minimised; ``m >= 2``): objective ``i``
has its own ensemble (objective 0: :attr:`EGPAlgorithm.model`; the others in
:attr:`EGPAlgorithm.objective_models`, the same options, fitted on every row), and steps 2-3 are
repeated per objective (one member ``m_i ~ Cat(w_i)``, believed at the pending points). Every
objective is on its own GP scale (its output transform is increasing, so dominance is
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
(feasible rows by it, then infeasible ones by violation). The shared model state is the first
objective's ensemble only: each process fits the other objectives' ensembles itself.

With one objective, local candidates are perturbations of the best observed points by
``Observations.best_first``: the best feasible ones, or the least violating while none is feasible.
Unconstrained data (no constraint values) takes exactly the unconstrained path. The shared model
state (:meth:`EGPAlgorithm.model_state`) is the (first) objective's ensemble only: each process
fits its constraint ensembles itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from shared_core.acquisition import (
    Acquisition,
    ConstrainedLogExpectedImprovement,
    ConstrainedThompsonSampling,
    LogExpectedImprovement,
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
from shared_core.interface import Observations, OneAtATimeAlgorithm
from shared_core.models.constraint_models import ConstraintBelief, ConstraintModels, OutcomeModels
from shared_core.models.ensemble import EnsembleGP, Member
from shared_core.models.kernels import KernelSpec, parse_kernels
from shared_core.optim.acquisition_optimizer import maximize_acquisition
from shared_core.pareto import completed_reference_point
from shared_core.search_space import SearchSpace
from shared_core.validation import check_bool, check_int

__all__ = ["EGPAlgorithm", "ACQUISITIONS"]

ACQUISITIONS = ("ts", "ei", "auto")


AUTO_EI_OBSERVATIONS_PER_DIM = 10
N_LOCAL_CENTRES = 5  # the best observed points perturbed into local raw candidates
MC_SAMPLES = 128  # base samples of the Monte-Carlo EI of several objectives (qParEGO)


def _auto_uses_ei(n_observed: int, dim: int) -> bool:
    """``"auto"``: EI while data is scarce (fewer than 10 observations per encoded dimension, where
    Thompson draws over-explore), with running trials as kriging-believer fantasies; TS with
    fantasies once data is plentiful."""
    return n_observed < AUTO_EI_OBSERVATIONS_PER_DIM * dim


class EGPAlgorithm(OneAtATimeAlgorithm):
    """Ensemble-GP Bayesian optimisation behind the
    :class:`~shared_core.interface.Algorithm` interface; models constraint values, one ensemble
    per constraint (:class:`~shared_core.interface.ModelsConstraints`), and several objectives,
    one ensemble per objective (:class:`~shared_core.interface.MultiObjective`; module
    docstring).

    Args:
        kernels: kernel dictionary: ``KernelSpec`` objects and/or names (``"rbf"``,
            ``"matern52-ard"``, ...; :func:`~shared_core.models.kernels.parse_kernels`), ``"grid"``
            (the paper's lengthscale grid) or ``None``: RBF, RBF-ARD, Matérn-3/2, Matérn-5/2 (the
            paper's) and Matérn-5/2-ARD (:func:`~shared_core.models.kernels.default_dictionary`).
        acquisition: ``"ts"`` (EGP-TS), ``"ei"`` (EGP-EI) or ``"auto"`` (EI while there are fewer
            than 10 observations per dimension, running trials and earlier members of a batch as
            kriging-believer fantasies; TS with fantasies once data is plentiful).
        n_features: random Fourier features per GP (``F``; ``F/2`` frequencies).
        fantasize_pending: condition draws on pending points (beyond the paper; see module doc).
        exact_limit: above this many observations each GP is a feature-space posterior.
        warp_outputs: fit GPs to warped values
            (:class:`~shared_core.models.ensemble.OutputTransform`).
        n_raw: acquisition optimiser budget: random candidates scored.
        n_starts: acquisition optimiser budget: the best candidates refined by L-BFGS-B.
    """

    models_constraints = True  # ModelsConstraints: one ensemble per constraint (module docstring)
    multi_objective = True  # MultiObjective: one ensemble per objective (module docstring)

    def __init__(
        self,
        *,
        kernels: Sequence[KernelSpec | str] | str | None = None,
        acquisition: str = "ts",
        n_features: int = 512,
        fantasize_pending: bool = True,
        exact_limit: int = 1000,
        warp_outputs: bool = True,
        n_raw: int = 512,
        n_starts: int = 8,
    ) -> None:
        if acquisition not in ACQUISITIONS:
            raise ValueError(f"acquisition must be one of {ACQUISITIONS}, got {acquisition!r}")
        n_features = check_int("n_features", n_features, minimum=2)
        if n_features % 2:
            raise ValueError(f"n_features must be an even integer >= 2, got {n_features!r}")
        kernels = parse_kernels(kernels)
        exact_limit = check_int("exact_limit", exact_limit, minimum=1)
        self.acquisition = acquisition
        self.fantasize_pending = check_bool("fantasize_pending", fantasize_pending)
        self.n_raw, self.n_starts = (
            check_int("n_raw", n_raw, minimum=1),
            check_int("n_starts", n_starts, minimum=1),
        )
        self.model = EnsembleGP(
            kernels,
            n_frequencies=n_features // 2,
            exact_limit=exact_limit,
            warp_outputs=check_bool("warp_outputs", warp_outputs),
        )
        self.constraint_models = ConstraintModels(self.model)
        self.objective_models = OutcomeModels(self.model)  # objectives 1, ..., m - 1
        super().__init__()

    # Shared model state (hyperparameters, output transform, weights), for adapters that persist it.
    def model_state(self) -> dict[str, Any] | None:
        """The (first) objective ensemble's fitted state as JSON values (:meth:`EnsembleGP.state`),
        None before a fit. Constraint ensembles and those of further objectives are not shared:
        each process fits its own."""
        return self.model.state()

    def wants_model_state(self) -> bool:
        """True until the ensemble is first fitted and while no state has been offered."""
        return not self.model.members and not self.model.has_offered_state

    def offer_model_state(self, state: dict[str, Any]) -> bool:
        """Build the first posteriors from ``state`` (another process's :meth:`model_state`)
        instead of fitting hyperparameters, when it matches the kernels and inputs and no
        refit is due. False if ``state`` does not match or is invalid (nothing kept)."""
        return self.model.offer_state(state)

    def _prepare(self, space: SearchSpace, obs: Observations, rng: np.random.Generator) -> None:
        # refit or incremental update (the cached ensembles are shared by threads)
        self.model.fit(obs.X, obs.y if obs.n_objectives == 1 else obs.Y[:, 0], rng)
        if obs.n_objectives > 1:
            for i in range(1, obs.n_objectives):
                self.objective_models.fit_outcome(i, obs.X, obs.Y[:, i], rng)
        if obs.n_constraints:
            self.constraint_models.fit(obs, rng)

    def _suggest_one(
        self, space: SearchSpace, obs: Observations, context: Any, rng: np.random.Generator
    ) -> np.ndarray:
        if obs.n_objectives > 1:
            acq, smooth, order = self._multi_objective_acquisition(space, obs, rng)
        else:
            acq, smooth = self._acquisition(space, obs, rng)
            order = obs.best_first()
        X_best = obs.X[order[:N_LOCAL_CENTRES]]
        # never repeat a running or an evaluated point if avoidable
        avoid = np.vstack([obs.X_pending, obs.X])
        return maximize_acquisition(
            acq,
            space,
            rng,
            X_best=X_best,
            n_raw=self.n_raw,
            n_starts=self.n_starts,
            avoid=avoid,
            smooth=smooth,
        )

    def _acquisition(
        self, space: SearchSpace, obs: Observations, rng: np.random.Generator
    ) -> tuple[Acquisition, Acquisition]:
        """The acquisition and the one L-BFGS-B follows (the same but for constrained TS): EI or
        a Thompson draw of one member ``m ~ Cat(w)`` (eq. 10), and one member per constraint,
        conditioned on the pending points."""
        model, pending = self.model, obs.X_pending
        believed = pending if self.fantasize_pending else pending[:0]
        member = model.conditioned_on_pending(model.sample_member(rng), believed)
        constraints = self._constraint_beliefs(obs, believed, rng)
        auto_ei = self.acquisition == "auto" and _auto_uses_ei(len(obs.y), space.dim)
        if self.acquisition == "ei" or auto_ei:
            ei = self._log_ei(obs, member, constraints, believed)
            return ei, ei
        sample = member.post.sample_path(rng)  # eq. (12)
        if not constraints:
            ts = ThompsonSampling(sample)
            return ts, ts
        rule = ConstrainedThompsonSampling(
            sample,
            [c.post.sample_path(rng) for c in constraints],
            [c.threshold for c in constraints],
        )
        return rule, rule.merit()

    def _constraint_beliefs(
        self, obs: Observations, believed: np.ndarray, rng: np.random.Generator
    ) -> list[ConstraintBelief]:
        """One member per constraint with values in ``obs``, believed at ``believed`` ``(p, d)``
        (none, and no random numbers drawn, without constraint values)."""
        if not obs.n_constraints:
            return []
        return self.constraint_models.sampled_members(rng, believed)

    def _log_ei(
        self,
        obs: Observations,
        member: Member,
        constraints: list[ConstraintBelief],
        believed: np.ndarray,
    ) -> Acquisition:
        """log EI of the best feasible value on the GP scale, the observed ones and the kriging
        believer's fantasies ``(p,)`` at ``believed`` (they count as observed, each where every
        constraint's mean is feasible); times the probability of feasibility with constraints,
        which alone is maximised while no value is feasible."""
        fantasies = member.post.predict(believed)[0]  # (p,)
        fantasy_feasible = _believed_feasible(constraints, believed)  # (p,)
        feasible_values = np.concatenate(
            [self.model.y_std(obs.y[obs.feasible]), fantasies[fantasy_feasible]]
        )
        if not constraints:
            return LogExpectedImprovement(member.post, best=float(feasible_values.min()))
        feasibility = LogProbabilityOfFeasibility(
            [c.post for c in constraints], [c.threshold for c in constraints]
        )
        if not len(feasible_values):
            return feasibility
        return ConstrainedLogExpectedImprovement(
            member.post, float(feasible_values.min()), feasibility
        )

    def _objective_ensembles(self, m: int) -> list[EnsembleGP]:
        """The ensembles of the ``m`` objectives (objective 0: :attr:`model`)."""
        return [self.model] + [self.objective_models.models[i] for i in range(1, m)]

    def _multi_objective_acquisition(
        self, space: SearchSpace, obs: Observations, rng: np.random.Generator
    ) -> tuple[Acquisition, Acquisition, np.ndarray]:
        """The acquisition for ``m >= 2`` objectives, the one L-BFGS-B follows, and the rows of
        ``obs`` best first under this suggestion's scalarisation (feasible rows by it, then the
        others by violation): one member per objective ``m_i ~ Cat(w_i)`` believed at the pending
        points, a random weight vector, and a Thompson draw per objective ranked by its
        hypervolume improvement (TS) or qParEGO's log EI (EI) (module docstring)."""
        m, pending = obs.n_objectives, obs.X_pending
        believed = pending if self.fantasize_pending else pending[:0]
        ensembles = self._objective_ensembles(m)
        members = [e.conditioned_on_pending(e.sample_member(rng), believed) for e in ensembles]
        constraints = self._constraint_beliefs(obs, believed, rng)
        Y_std = np.stack([e.y_std(obs.Y[:, i]) for i, e in enumerate(ensembles)], axis=1)  # (n, m)
        scales = _objective_scales(obs, ensembles, Y_std)
        auto_ei = self.acquisition == "auto" and _auto_uses_ei(len(obs.y), space.dim)
        use_ei = self.acquisition == "ei" or auto_ei
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
            [Y_std[feasible], fantasies[_believed_feasible(constraints, believed)]]
        )  # (k, m)
        if use_ei:
            acq, smooth = self._scalarized_log_ei(
                members, constraints, scales, scalarization, front, rng
            )
            return acq, smooth, order
        sample = ScalarizedSample(
            [mb.post.sample_path(rng) for mb in members], scales, scalarization
        )
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

    def _scalarized_log_ei(
        self,
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


def _believed_feasible(constraints: list[ConstraintBelief], believed: np.ndarray) -> np.ndarray:
    """``(p,)`` mask of the believed pending points ``(p, d)`` where every constraint's mean is
    feasible (all of them without constraints)."""
    out = np.ones(len(believed), dtype=bool)
    for c in constraints:
        out &= c.post.predict(believed)[0] <= c.threshold
    return out


def _objective_scales(
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
