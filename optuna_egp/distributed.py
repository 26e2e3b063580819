"""Distributed Thompson sampling as an Optuna sampler:
each worker process is one agent of a graph."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from optuna.samplers import BaseSampler, RandomSampler
from optuna.study import Study
from optuna.trial import FrozenTrial

from optuna_egp import _storage
from optuna_egp._named import split_arguments
from optuna_egp._warnings import logger
from optuna_egp.core_sampler import CoreSampler
from shared_core.models.kernels import KernelSpec
from shared_core.registry import make_algorithm
from shared_core.validation import check_int

if TYPE_CHECKING:  # pragma: no cover - annotations only
    from shared_core.algorithms.distributed import DistributedTSAlgorithm
    from shared_core.graphs import CommunicationGraph

__all__ = ["AGENT_ATTR", "AGENT_ENV", "DistributedTSSampler"]

AGENT_ATTR = "agent_id"  # the trial user attribute holding the agent that ran it
AGENT_ENV = "OPTUNA_EGP_AGENT_ID"  # the environment variable giving a process its agent
# study user attribute: the graph every agent of the study must use
GRAPH_ATTR = "egp_samplers:graph"


class DistributedTSSampler(CoreSampler):
    """Distributed Thompson sampling (Zerefa, Ren, Ma, Li 2024) as an Optuna sampler.

    Every worker process is one agent of a communication graph. Its suggestions condition only on
    the completed trials of its neighbourhood N(i) ∪ {i}, with the running trials of the same agents
    as pending points; each trial records its agent as the user attribute ``agent_id`` (a column of
    ``study.trials_dataframe()``). Trials without one (added by hand, enqueued and run by another
    sampler, or from before) are seen by every agent. Threads of one process (``n_jobs``) are the
    same agent. A killed and restarted worker given the same agent id continues as that agent.

    Constraints: constraint values set in the objective with ``trial.set_constraint`` (or returned
    by ``constraints_func``) are modelled with the objective, each agent on its neighbourhood's
    trials. A trial is feasible when every value it has is ``<= 0`` (a trial with none is
    feasible), the rule of ``study.best_trial``. The constraint values of pruned and
    failed trials are not used (a failed trial's point is: ``model_failures``).

    Several objectives (``optuna.create_study(directions=[...])``): a surrogate per objective and
    a Thompson draw of each, scalarised per suggestion with a random weight vector, each agent on
    its neighbourhood's trials; the reference point is inferred from the observed front.

    Examples:
        One script launched M times, e.g. ``OPTUNA_EGP_AGENT_ID=3 python worker.py``:

        >>> import optuna
        >>> from optuna_egp import DistributedTSSampler
        >>> # the agent id comes from OPTUNA_EGP_AGENT_ID
        >>> sampler = DistributedTSSampler(graph="ring", n_agents=8)

    Args:
        agent_id: this process's agent, 0..M-1; default: the environment variable
            ``OPTUNA_EGP_AGENT_ID``.
        graph: ``"complete"`` (default), ``"star"``, ``"ring"``, ``"line"``, ``"grid"``,
            ``"disconnected"``, ``"erdos_renyi:p"`` (with ``n_agents``), an edge list, an adjacency
            matrix or a ``networkx.Graph``.
        n_agents: number of agents M (needed with a topology name; checked against the other forms).
        graph_seed: seed of a random topology (default 0); every agent must use the same one. The
            first agent records the graph in the study (user attribute ``egp_samplers:graph``); an
            agent whose graph differs gets a ``ValueError`` at its first trial.
        surrogate: ``"gp"`` (default: one Matérn-5/2 ARD GP, the paper's) or ``"egp"`` (EGP-TS's
            ensemble).
        kernels: kernel dictionary of ``surrogate="egp"``.
        n_features: surrogate option as in ``EGPTSSampler``.
        fantasize_pending: surrogate option as in ``EGPTSSampler``.
        warp_outputs: surrogate option as in ``EGPTSSampler``.
        deterministic_objective: surrogate option as in ``EGPTSSampler`` (noise fixed at its floor).
        seed: seed of this agent's generator, mixed with ``agent_id`` so that agents given the same
            seed draw different points.
        n_startup_trials: completed trials of the agent's neighbourhood before its model is used.
        independent_sampler: as in :class:`~optuna_egp.CoreSampler`; one other than
            ``RandomSampler`` learns from the whole study (a warning says so).
        share_model: as in :class:`~optuna_egp.CoreSampler`; a shared model is read only from
            records of this agent.
        constraints_func: a function that takes a trial (``FrozenTrial``) and returns its
            constraint values, as in Optuna's samplers (deprecated on Optuna 5, as theirs, in
            favour of ``trial.set_constraint``; see :class:`~optuna_egp.CoreSampler`).

    ``warn_independent_sampling``, ``max_threads``, ``running_trial_timeout`` and
    ``model_failures`` are :class:`~optuna_egp.CoreSampler`'s (each agent learns from the failed
    trials of its neighbourhood).
    """

    METHODS = ("dts",)

    def __init__(
        self,
        *,
        agent_id: int | None = None,
        graph: Any = "complete",
        n_agents: int | None = None,
        graph_seed: int = 0,
        surrogate: str = "gp",
        kernels: Sequence[KernelSpec | str] | str | None = None,
        n_features: int = 512,
        fantasize_pending: bool = True,
        warp_outputs: bool = True,
        deterministic_objective: bool = False,
        seed: int | None = None,
        n_startup_trials: int = 10,
        independent_sampler: BaseSampler | None = None,
        warn_independent_sampling: bool = True,
        max_threads: int | None = 1,
        running_trial_timeout: float | str | None = "auto",
        share_model: bool = True,
        constraints_func: Callable[[FrozenTrial], Sequence[float]] | None = None,
        model_failures: bool = True,
    ) -> None:
        arguments = {k: v for k, v in locals().items() if k not in ("self", "__class__")}
        agent = arguments["agent_id"] = _agent_from(agent_id)
        algorithm_arguments, core_arguments = split_arguments("dts", arguments)
        try:
            algorithm = make_algorithm("dts", **algorithm_arguments)
        except ValueError as err:
            if agent_id is None and "agent_id" in str(err):
                raise ValueError(
                    f"{err} (read from the environment variable {AGENT_ENV})"
                ) from None
            raise
        if seed is not None:  # one stream per agent
            core_arguments["seed"] = int(
                np.random.SeedSequence([check_int("seed", seed, minimum=0), agent]).generate_state(
                    1
                )[0]
            )
        self._graph_checked: set[str] = set()
        super().__init__(algorithm, **core_arguments)
        if not self.graph.is_connected:
            logger.warning(
                "DistributedTSSampler: the communication graph is disconnected "
                f"({len(self.graph.components)} components); agents in different components "
                "never share data."
            )
        if independent_sampler is not None and not isinstance(independent_sampler, RandomSampler):
            logger.warning(
                "DistributedTSSampler: the independent sampler "
                f"{type(independent_sampler).__name__} sees every agent's trials, not only this "
                "agent's neighbourhood."
            )

    @property
    def agent_id(self) -> int:
        return cast("DistributedTSAlgorithm", self.algorithm).agent_id

    @property
    def graph(self) -> CommunicationGraph:
        """The :class:`~shared_core.graphs.CommunicationGraph`."""
        return cast("DistributedTSAlgorithm", self.algorithm).graph

    def before_trial(self, study: Study, trial: FrozenTrial) -> None:
        self._check_graph(study)
        super().before_trial(study, trial)
        # before the objective runs
        _storage.write_user_attr(study, trial, AGENT_ATTR, self.agent_id)

    def _check_graph(self, study: Study) -> None:
        """Record the graph in the study, or check it is
        the one recorded (every agent must agree)."""
        if study.study_name in self._graph_checked:
            return
        mine = self.graph.to_dict()
        recorded = study.user_attrs.get(GRAPH_ATTR)
        if recorded is None:
            study.set_user_attr(GRAPH_ATTR, mine)
        elif recorded != mine:
            raise ValueError(
                f"this agent's graph {mine} differs from the graph of study {study.study_name!r} "
                f"{recorded} (user attribute {GRAPH_ATTR!r}): every agent must use the same graph, "
                "n_agents and graph_seed"
            )
        self._graph_checked.add(study.study_name)


def _agent_from(agent_id: int | None) -> int:
    """``agent_id``, or the integer in ``OPTUNA_EGP_AGENT_ID``;
    ValueError naming both ways if neither."""
    if agent_id is not None:
        return agent_id
    value = os.environ.get(AGENT_ENV)
    if value is None:
        raise ValueError(
            f"DistributedTSSampler needs this process's agent: pass agent_id=... or set the "
            f"environment variable {AGENT_ENV} (e.g. {AGENT_ENV}=0 python worker.py)"
        )
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"{AGENT_ENV} must be an integer agent id, got {value!r}") from None
