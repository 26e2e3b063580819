"""One Ax generation node for every core algorithm (the Ax twin of ``optuna_egp.CoreSampler``)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, NamedTuple, cast

import numpy as np
from ax.core.data import Data
from ax.core.experiment import Experiment
from ax.core.experiment_status import ExperimentStatus
from ax.core.trial_status import TrialStatus
from ax.core.types import TParameterization
from ax.generation_strategy.external_generation_node import ExternalGenerationNode

from ax_egp._outcomes import Outcomes, outcomes
from ax_egp._space import AxSpace
from shared_core.interface import (
    UNKNOWN_SOURCE,
    MultiAgent,
    Observations,
    check_capabilities,
)
from shared_core.registry import make_algorithm
from shared_core.threads import check_max_threads, limited_threads
from shared_core.validation import check_bool, check_int

__all__ = ["AlgorithmNode"]


class _Evaluated(NamedTuple):
    """The evaluated arms of the experiment, as of the last update."""

    params: list[TParameterization]
    y: np.ndarray  # (n,) minimised objective, or (n, m) with m >= 2 objectives
    trial_index: np.ndarray  # (n,) int
    constraints: np.ndarray  # (n, k), NaN where an arm has no value
    constraint_names: tuple[str, ...]  # (k,)
    keys: frozenset[str]  # _key of each params
    reference_point: np.ndarray | None  # (m,) minimised scale, NaN where not given
    failed: list[TParameterization] = []  # the arms of failed trials (model_failures)


class AlgorithmNode(ExternalGenerationNode):
    """Ax node that asks a registered core algorithm (``shared_core.registry``) for candidates.

    Completed and early-stopped trials are the observations; the arms of failed trials
    (``client.mark_trial_failed``) are failed points (``Observations.X_failed``: infeasible to
    algorithms that model constraints, kept off by all) unless ``model_failures`` is False;
    abandoned trials are ignored; the pending parameterizations Ax passes (running trials, the arms
    already generated in the same ``get_next_trials`` call, and completed arms still without data
    for some metric) are the algorithm's pending points, except the arms that are observations.
    Every candidate is checked against the search space (bounds, types, choices, constraints, and in
    a hierarchical space the parameters active under its values, which are all it holds).

    The objective is one metric or a fixed weighted sum of metrics (Ax's scalarized objective),
    turned into a minimisation; several objectives (``"a, -b"``), for algorithms that model
    them (:class:`~shared_core.interface.MultiObjective`), become ``y`` ``(n, m)``, each
    minimised, with the objective thresholds as the hypervolume reference point (NaN where an
    objective has none: the algorithm infers it). Outcome constraints with absolute bounds become
    the core's constraint values (``metric <= bound`` -> ``metric - bound``, ``metric >= bound``
    -> ``bound - metric``; named by their expression), for algorithms that model constraints
    (:class:`~shared_core.interface.ModelsConstraints`). An arm without data for some objective
    metric is not an observation. :mod:`ax_egp._outcomes` has the details;
    :meth:`check_experiment` lists what is refused; :func:`ax_egp.generation_strategy` runs it
    before the first Sobol trial.

    Args:
        method: registered algorithm name, e.g. ``"egp-ts"`` or ``"egp-ei"``.
        seed: seed for the candidates; with a seed the generator is re-seeded from
            ``(seed, number of trials)`` at each update, so a strategy reloaded from JSON continues
            reproducibly.
        options: keyword options of the algorithm (JSON values, saved with the strategy).
        name: node name (default: ``method``).
        max_threads: BLAS/OpenMP/PyTorch threads while a candidate is computed (default 1; ``None``:
            no limit); the previous limits are restored afterwards (``shared_core.threads``).
        model_failures: learn where trials fail from the failed trials (default True).
    """

    def __init__(
        self,
        method: str = "egp-ts",
        seed: int | None = None,
        options: dict[str, Any] | None = None,
        name: str | None = None,
        max_threads: int | None = 1,
        model_failures: bool = True,
    ) -> None:
        options = {key: _plain(value) for key, value in (options or {}).items()}
        try:
            json.dumps(options)
        except TypeError as err:
            raise ValueError(
                f"options must be JSON values (they are saved with the strategy): {options!r}"
            ) from err
        seed = None if seed is None else check_int("seed", seed, minimum=0)
        if name is not None and not (isinstance(name, str) and name):
            raise ValueError(f"name must be a non-empty string or None, got {name!r}")
        self.max_threads = check_max_threads(max_threads)
        self.model_failures = check_bool("model_failures", model_failures)
        self.algorithm = make_algorithm(method, **options)  # ValueError for unknown methods
        check_capabilities(self.algorithm)
        super().__init__(
            name=name or method, suggested_experiment_status=ExperimentStatus.OPTIMIZATION
        )
        self.method, self.seed, self.options = method, seed, options
        self._rng = np.random.default_rng(seed)
        self._experiment: Experiment | None = None
        self._observed = _Evaluated(
            [], np.zeros(0), np.zeros(0, int), np.zeros((0, 0)), (), frozenset(), None
        )
        # Multi-agent algorithms: the trial index of the
        # next candidate, and the agent of each pending arm.
        self._next_index = 0
        self._agent_of_arm: dict[str, int] = {}
        self._fixed: dict[str, Any] = {}  # fixed_parameters of the current get_next_trials call
        # for self._fixed
        self._prepared: tuple[dict[str, Any], AxSpace, Observations] | None = None

    def json_kwargs(self) -> dict[str, Any]:
        """What Ax's JSON storage saves: the constructor arguments."""
        return {
            "method": self.method,
            "seed": self.seed,
            "options": self.options,
            "name": self.name,
            "max_threads": self.max_threads,
            "model_failures": self.model_failures,
        }

    def check_experiment(self, experiment: Experiment) -> Outcomes:
        """What this node models of ``experiment`` (:mod:`ax_egp._outcomes`); ``ValueError`` for
        what it cannot: no optimization config, several objectives when the algorithm does not
        model them, outcome constraints or objective thresholds relative to the status quo,
        outcome constraints when the algorithm does not model constraints, and the search spaces
        :class:`~ax_egp._space.AxSpace` refuses (equality constraints, constraints on conditional
        parameters, ...)."""
        found = outcomes(
            experiment.optimization_config, method=self.method, algorithm=self.algorithm
        )
        AxSpace(experiment.search_space)
        return found

    def update_generator_state(self, experiment: Experiment, data: Data) -> None:
        found = self.check_experiment(experiment)
        evaluated = set(experiment.trial_indices_by_status[TrialStatus.COMPLETED])
        # Ax uses their data too
        evaluated |= set(experiment.trial_indices_by_status[TrialStatus.EARLY_STOPPED])
        trial_index, arm_names, y, constraints = found.values(data, evaluated)
        if self.seed is not None:
            self._rng = np.random.default_rng((self.seed, len(experiment.trials)))
        self._experiment = experiment
        params = [experiment.arms_by_name[arm].parameters for arm in arm_names]
        failed = (
            experiment.trial_indices_by_status[TrialStatus.FAILED] if self.model_failures else ()
        )
        failed_params = [
            arm.parameters for i in sorted(failed) for arm in experiment.trials[i].arms
        ]
        self._observed = _Evaluated(
            params=params,
            y=y,
            trial_index=trial_index,
            constraints=constraints,
            constraint_names=found.constraint_names,
            keys=frozenset(_key(p) for p in params),
            reference_point=(
                None if found.reference_point is None else np.array(found.reference_point)
            ),
            failed=failed_params,
        )
        self._prepared = None

    # Ax's ExternalGenerationNode._gen (the parent's) differs in signature from GenerationNode._gen.
    def _gen(  # type: ignore[override]  # the parent ExternalGenerationNode's signature
        self,
        experiment: Experiment,
        data: Data | None = None,
        n: int | None = None,
        pending_observations: Any = None,
        **kwargs: Any,
    ) -> Any:
        """Record ``fixed_parameters`` of ``Client.get_next_trials``
        (Ax passes them only to ``_gen``)."""
        fixed_features = kwargs.get("fixed_features")
        self._fixed = dict(fixed_features.parameters) if fixed_features is not None else {}
        self._plan_agents(experiment, pending_observations)
        return super()._gen(
            experiment=experiment,
            data=data,
            n=n,
            pending_observations=pending_observations,
            **kwargs,
        )

    def get_next_candidate(self, pending_parameters: list[TParameterization]) -> TParameterization:
        space, obs = self._space_and_observations()
        # Ax also reports an observed arm as pending while it lacks data for some metric (e.g. a
        # constraint's): it is an observation here, with NaN for that constraint.
        pending_parameters = [p for p in pending_parameters if _key(p) not in self._observed.keys]
        obs = replace(
            obs,
            X_pending=space.encode(pending_parameters),
            pending_source=self._pending_agents(pending_parameters),
        )
        agent = self._next_index % self._n_agents if self._n_agents else None
        if agent is not None:  # only a MultiAgent algorithm has agents (_n_agents)
            # the agent of trial index i is i mod n_agents
            cast(MultiAgent, self.algorithm).agent_id = agent
        with limited_threads(self.max_threads):
            x = self.algorithm.suggest(space.core, obs, 1, self._rng)[0]
        candidate = space.decode(x)
        space.check(candidate)
        if agent is not None:
            self._agent_of_arm[_key(candidate)] = agent
        self._next_index += 1
        return candidate

    def _plan_agents(self, experiment: Experiment, pending_observations: Any) -> None:
        """Agents of the pending arms (a running trial's: its index mod n_agents; arms of
        the current ``get_next_trials`` call, not yet trials, take the next indices in
        order) and the index of the next candidate. Recomputed at every ``_gen``, so Ax's
        re-generation of duplicates keeps it right."""
        if not self._n_agents:
            return
        new_arms, self._agent_of_arm = 0, {}
        for features in (pending_observations or {}).values():
            for f in features:
                key = _key(f.parameters)
                if key in self._agent_of_arm:
                    continue
                if f.trial_index is not None:
                    self._agent_of_arm[key] = int(f.trial_index) % self._n_agents
                else:
                    self._agent_of_arm[key] = (len(experiment.trials) + new_arms) % self._n_agents
                    new_arms += 1
        self._next_index = len(experiment.trials) + new_arms

    @property
    def _n_agents(self) -> int | None:
        """Number of agents of a :class:`~shared_core.interface.MultiAgent` algorithm (e.g.
        ``"dts"``), None for the others."""
        return self.algorithm.n_agents if isinstance(self.algorithm, MultiAgent) else None

    def _pending_agents(self, pending: list[TParameterization]) -> np.ndarray | None:
        """``(p,)`` agents of the pending arms (see :meth:`_plan_agents`), -1 if unknown."""
        if not self._n_agents:
            return None
        return np.array(
            [self._agent_of_arm.get(_key(p), UNKNOWN_SOURCE) for p in pending], dtype=np.int64
        )

    def _space_and_observations(self) -> tuple[AxSpace, Observations]:
        """Core space and encoded observations for the
        current fixed parameters (built once per call)."""
        if self._experiment is None:
            raise RuntimeError("update_generator_state must be called before get_next_candidate")
        if self._prepared is None or self._prepared[0] != self._fixed:
            space = AxSpace(self._experiment.search_space, fixed=self._fixed)
            evaluated = self._observed
            # arms outside the current space are skipped
            X, kept = space.encode_kept(evaluated.params)
            source = evaluated.trial_index[kept] % self._n_agents if self._n_agents else None
            obs = Observations(
                X=X,
                y=evaluated.y[kept],
                source=source,
                constraints=evaluated.constraints[kept],
                constraint_names=evaluated.constraint_names,
                reference_point=evaluated.reference_point,
                X_failed=space.encode_kept(evaluated.failed)[0],
            )
            self._prepared = (dict(self._fixed), space, obs)
        return self._prepared[1], self._prepared[2]


def _key(parameters: TParameterization) -> str:
    """A hashable key of a parameterization (to find the trial or agent of a pending arm)."""
    return json.dumps(parameters, sort_keys=True, default=str)


def _plain(value: Any) -> Any:
    """``value`` with numpy scalars (also inside lists)
    turned into Python ones, for JSON storage."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
