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
member ``m_j ~ Cat(w_j)``, believed at the pending points). A two-level constraint is fitted on
labels -1/+1, and failed points (``Observations.X_failed``) add one more such constraint: ``+1``
where a point failed, ``-1`` where one completed (a GP regression on the labels with one kernel,
``LABEL_KERNELS``, chosen over a probit classifier and the kernel dictionary by
``benchmarks/feasibility_models.py``).

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
  and the raw candidates, so it is never worse by the rule than the best raw one; SLSQP then
  polishes it onto the sampled boundary, as far as the constraints' posterior means call feasible
  (``optim/boundary_polish.py``).
* EI is the constrained EI of Gardner et al., "Bayesian optimization with inequality
  constraints" (ICML 2014), in log space: ``log EI(best feasible) + sum_j log P(c_j <= t_j)``;
  while no observed point (nor believed pending point) is feasible, ``sum_j log P(c_j <= t_j)``
  alone, which leads the search into the feasible region.

Several objectives (``Observations.y`` ``(n, m)``, each minimised; ``m >= 2``): objective ``i``
has its own ensemble (objective 0: :attr:`EGPAlgorithm.model`; the others in
:attr:`EGPAlgorithm.objective_models`, the same options, fitted on every row), and steps 2-3 are
repeated per objective (one member ``m_i ~ Cat(w_i)``, believed at the pending points). The
acquisition, TSEMO's hypervolume-improvement rule on Thompson draws (TS) or qParEGO (EI), is built
in :mod:`shared_core.algorithms.egp_multi_objective`.

With one objective, local candidates are perturbations of the best observed points by
``Observations.best_first``: the best feasible ones, or the least violating while none is feasible.
Unconstrained data (no constraint values) takes exactly the unconstrained path. The shared model
state (:meth:`EGPAlgorithm.model_state`) holds every ensemble: the first objective's, and those of
the constraints, the failure model and the further objectives, so a new process adopts them all.
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
from shared_core.algorithms.egp_multi_objective import multi_objective_acquisition
from shared_core.interface import Observations, OneAtATimeAlgorithm
from shared_core.models.constraint_models import (
    ConstraintBelief,
    ConstraintModels,
    OutcomeModels,
    believed_feasible,
)
from shared_core.models.ensemble import EnsembleGP, Member
from shared_core.models.gp import NOISE_FLOOR
from shared_core.models.kernels import KernelSpec, parse_kernels
from shared_core.optim.acquisition_optimizer import matches_any, maximize_acquisition
from shared_core.optim.boundary_polish import polish_on_boundary
from shared_core.search_space import SearchSpace
from shared_core.validation import check_bool, check_int

__all__ = ["EGPAlgorithm", "ACQUISITIONS"]

ACQUISITIONS = ("ts", "ei", "auto")


AUTO_EI_OBSERVATIONS_PER_DIM = 10
N_LOCAL_CENTRES = 5  # the best observed points perturbed into local raw candidates


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
        deterministic_objective: the objective (and constraint values) are noise-free: every GP's
            noise variance is fixed at its floor (:data:`~shared_core.models.gp.NOISE_FLOOR`, as
            GPSampler's ``deterministic_objective``) instead of fitted under its log-normal prior.
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
        deterministic_objective: bool = False,
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
            noise=NOISE_FLOOR
            if check_bool("deterministic_objective", deterministic_objective)
            else None,
        )
        self.constraint_models = ConstraintModels(self.model)
        self.objective_models = OutcomeModels(self.model)  # objectives 1, ..., m - 1
        super().__init__()

    # Shared model state (hyperparameters, output transform, weights), for adapters that persist it.
    def model_state(self) -> dict[str, Any] | None:
        """The (first) objective ensemble's fitted state as JSON values (:meth:`EnsembleGP.state`),
        with the states of the constraint, failure and further objectives' ensembles under
        ``"outcomes"`` (:meth:`OutcomeModels.states`); None before a fit."""
        state = self.model.state()
        if state is None:
            return None
        outcomes = {
            "constraints": self.constraint_models.states(),
            "objectives": self.objective_models.states(),
        }
        if any(outcomes.values()):
            state["outcomes"] = outcomes
        return state

    def wants_model_state(self) -> bool:
        """True until the ensemble is first fitted and while no state has been offered."""
        return not self.model.members and not self.model.has_offered_state

    def offer_model_state(self, state: dict[str, Any]) -> bool:
        """Build the first posteriors from ``state`` (another process's :meth:`model_state`)
        instead of fitting hyperparameters, when it matches the kernels and inputs and no
        refit is due; the other outcomes' ensembles likewise when they are first fitted. False if
        ``state`` does not match or is invalid (nothing kept)."""
        if not self.model.offer_state(state):
            return False
        outcomes = state.get("outcomes")
        outcomes = outcomes if isinstance(outcomes, dict) else {}
        self.constraint_models.offer_states(outcomes.get("constraints"))
        self.objective_models.offer_states(outcomes.get("objectives"))
        return True

    def _prepare(self, space: SearchSpace, obs: Observations, rng: np.random.Generator) -> None:
        # refit or incremental update (the cached ensembles are shared by threads)
        self.model.fit(obs.X, obs.y if obs.n_objectives == 1 else obs.Y[:, 0], rng)
        if obs.n_objectives > 1:
            for i in range(1, obs.n_objectives):
                self.objective_models.fit_outcome(i, obs.X, obs.Y[:, i], rng)
        if obs.models_feasibility:
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
        avoid = obs.X_avoid
        x = maximize_acquisition(
            acq,
            space,
            rng,
            X_best=X_best,
            n_raw=self.n_raw,
            n_starts=self.n_starts,
            avoid=avoid,
            smooth=smooth,
        )
        # one objective: the draw f~ is a function with gradients (with several, the rule ranks
        # a hypervolume improvement, which has none)
        if obs.n_objectives == 1 and isinstance(acq, ConstrainedThompsonSampling):
            polished = polish_on_boundary(acq, space, x)
            x = x if matches_any(polished[None], avoid)[0] else polished
        return x

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
            [c.post for c in constraints],
        )
        return rule, rule.merit()

    def _constraint_beliefs(
        self, obs: Observations, believed: np.ndarray, rng: np.random.Generator
    ) -> list[ConstraintBelief]:
        """One member per constraint with values in ``obs``, believed at ``believed`` ``(p, d)``
        and one for where points fail (none, and no random numbers drawn, without constraint values
        or failed points)."""
        if not obs.models_feasibility:
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
        fantasy_feasible = believed_feasible(constraints, believed)  # (p,)
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
        hypervolume improvement (TS) or qParEGO's log EI (EI)
        (:func:`~shared_core.algorithms.egp_multi_objective.multi_objective_acquisition`)."""
        m, pending = obs.n_objectives, obs.X_pending
        believed = pending if self.fantasize_pending else pending[:0]
        ensembles = self._objective_ensembles(m)
        members = [e.conditioned_on_pending(e.sample_member(rng), believed) for e in ensembles]
        constraints = self._constraint_beliefs(obs, believed, rng)
        auto_ei = self.acquisition == "auto" and _auto_uses_ei(len(obs.y), space.dim)
        use_ei = self.acquisition == "ei" or auto_ei
        return multi_objective_acquisition(
            obs, ensembles, members, constraints, believed, use_ei=use_ei, rng=rng
        )
