"""Distributed Thompson sampling on a communication graph (Zerefa, Ren, Ma, Li, "Distributed
Thompson sampling under constrained communication", 2024, Algorithm 1).

M agents sit on an undirected graph G. Agent i keeps its own surrogate, conditioned only on
the data of its neighbourhood N(i) ∪ {i} (Algorithm 1, lines 8 and 13-15: an agent's
evaluations reach its neighbours and nobody else), draws one function from its posterior
(line 9) and queries the draw's maximiser (line 11). The paper's Bayesian simple-regret
bound improves with the size of the largest clique of G (Corollary 3.2).

Here the graph only decides what an agent may condition on: observations carry the agent that
produced them (``Observations.source``); agent ``i`` keeps the rows whose source is in N(i) ∪ {i},
and the running trials of the same agents as pending points. Rows with an unknown source (-1: e.g.
trials added by hand or run by another sampler) are known to every agent, like prior data.

The Thompson draw is a joint sample of the posterior function (pathwise for exact GPs, eq.
(12) of Lu et al. 2023 for random features), not independent per-point marginals. The
surrogate is the core's: ``surrogate="gp"`` is one Matérn-5/2 ARD GP with MAP hyperparameters
(the paper's kernel; with EGP-TS's output warping unless ``warp_outputs=False``), ``"egp"``
the ensemble of GPs of EGP-TS (Lu et al. 2023). Pending points are handled as in EGP-TS
(kriging believer fantasies), which the paper's synchronous rounds do not need.

Constraints: an agent's surrogate is an :class:`~shared_core.algorithms.egp.EGPAlgorithm`, which
models each constraint by its own ensemble and follows the Thompson rule of SCBO (Eriksson &
Poloczek, "Scalable constrained Bayesian optimization", AISTATS 2021; see ``egp.py``). Constraint
values travel with their rows, so an agent models the constraint values of its neighbourhood only.

Several objectives: likewise, an agent's ``EGPAlgorithm`` models every objective of its
neighbourhood's rows (one ensemble per objective), and its Thompson step draws every objective and
picks the candidate of largest hypervolume improvement of the draws over its neighbourhood's
feasible front and believed pending points, refined along a random hypervolume scalarisation
(TSEMO's rule, Bradford et al. 2018, with Golovin & Zhang's scalarisation, 2020; see ``egp.py``).
The paper treats one objective; this is the same draw-and-maximise step on the scalarised draws.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from shared_core.algorithms.egp import EGPAlgorithm
from shared_core.graphs import CommunicationGraph, make_graph
from shared_core.interface import UNKNOWN_SOURCE, Observations
from shared_core.models.kernels import KernelSpec
from shared_core.search_space import SearchSpace
from shared_core.validation import check_int

__all__ = ["DistributedTSAlgorithm", "SURROGATES"]

SURROGATES = ("gp", "egp")
# Matérn-5/2 (the paper's), one lengthscale per input as BoTorch's default GP
PAPER_KERNEL = "matern52-ard"


class DistributedTSAlgorithm:
    """Distributed Thompson sampling: the suggestions of agent ``agent_id`` on ``graph``.

    Args:
        graph: a topology name (``"complete"``, ``"star"``, ``"ring"``, ``"line"``, ``"grid"``,
            ``"disconnected"``, ``"erdos_renyi:p"``; needs ``n_agents``), an edge list, an adjacency
            matrix, a ``networkx.Graph`` or a :class:`~shared_core.graphs.CommunicationGraph`
            (:func:`~shared_core.graphs.make_graph`).
        n_agents: number of agents M (required with a topology name; checked against other graphs).
        agent_id: the agent that suggests (0..M-1); may be changed between calls (``agent_id``
            attribute), each agent keeps its own surrogate.
        surrogate: ``"gp"`` (one Matérn-5/2 ARD GP, the paper's) or ``"egp"`` (the EGP-TS ensemble).
        kernels: kernel dictionary for ``"egp"`` (default: EGP-TS's kernels).
        graph_seed: seed of a random topology (Erdős–Rényi; default 0, so that every process builds
            the same graph).
        n_features: as in :class:`~shared_core.algorithms.egp.EGPAlgorithm`.
        fantasize_pending: as in :class:`~shared_core.algorithms.egp.EGPAlgorithm`.
        warp_outputs: as in :class:`~shared_core.algorithms.egp.EGPAlgorithm`.
        deterministic_objective: as in :class:`~shared_core.algorithms.egp.EGPAlgorithm`.
    """

    source_attribute = "agent_id"  # the trial attribute adapters read each trial's agent from
    # ModelsConstraints: each agent's EGPAlgorithm models the constraint values of its visible rows
    models_constraints = True
    # MultiObjective: each agent's EGPAlgorithm models every objective of its visible rows
    multi_objective = True

    def __init__(
        self,
        *,
        graph: Any = "complete",
        n_agents: int | None = None,
        agent_id: int = 0,
        surrogate: str = "gp",
        kernels: Sequence[KernelSpec | str] | str | None = None,
        graph_seed: int = 0,
        n_features: int = 512,
        fantasize_pending: bool = True,
        warp_outputs: bool = True,
        deterministic_objective: bool = False,
    ) -> None:
        if surrogate not in SURROGATES:
            raise ValueError(f"surrogate must be one of {SURROGATES}, got {surrogate!r}")
        if surrogate == "gp" and kernels is not None:
            raise ValueError(
                f"kernels are options of surrogate='egp'; surrogate='gp' is one {PAPER_KERNEL} GP, "
                f"got kernels={kernels!r}"
            )
        # checked even where no graph is random
        graph_seed = check_int("graph_seed", graph_seed, minimum=0)
        self.graph: CommunicationGraph = make_graph(graph, n_agents, seed=graph_seed)
        self.agent_id = agent_id
        self.surrogate = surrogate
        self._model_options: dict[str, Any] = dict(
            kernels=[PAPER_KERNEL] if surrogate == "gp" else kernels,
            acquisition="ts",
            n_features=n_features,
            fantasize_pending=fantasize_pending,
            warp_outputs=warp_outputs,
            deterministic_objective=deterministic_objective,
        )
        # validates the options now, not at the first suggestion
        EGPAlgorithm(**self._model_options)
        self._models: dict[int, EGPAlgorithm] = {}  # agent -> its own surrogate
        self.last_view: dict[str, Any] | None = (
            None  # what the last suggestion conditioned on (JSON values)
        )

    @property
    def agent_id(self) -> int:
        return self._agent_id

    @agent_id.setter
    def agent_id(self, agent: int) -> None:
        agent = check_int("agent_id", agent, minimum=0)
        if agent >= self.graph.n_agents:
            raise ValueError(
                f"agent_id must be in 0..{self.graph.n_agents - 1} (the graph has "
                f"{self.graph.n_agents} agents), got {agent}"
            )
        self._agent_id = agent

    @property
    def n_agents(self) -> int:
        return self.graph.n_agents

    def known_sources(self, agent: int | None = None) -> frozenset[int]:
        """Sources ``agent`` (default: ``agent_id``) may learn from: its neighbourhood N(i) ∪ {i}
        and unknown (-1). Adapters use it to skip the other agents' trials before encoding them."""
        agent = self.agent_id if agent is None else agent
        return frozenset(self.graph.neighbourhood(agent)) | {UNKNOWN_SOURCE}

    def _known_sources(self, agent: int) -> np.ndarray:
        return np.array(sorted(self.known_sources(agent)), dtype=np.int64)

    def visible(self, obs: Observations, agent: int | None = None) -> Observations:
        """What ``agent`` (default: ``agent_id``) may condition on: rows and pending points of its
        neighbourhood N(i) ∪ {i} and of unknown source (Algorithm 1, lines 13-15)."""
        agent = self.agent_id if agent is None else agent
        known = self._known_sources(agent)
        assert obs.source is not None and obs.pending_source is not None  # filled by Observations
        rows = np.isin(obs.source, known)  # (n,)
        pending = np.isin(obs.pending_source, known)  # (p,)
        # subset keeps the constraint values and sources aligned with their rows
        return replace(
            obs.subset(rows),
            X_pending=obs.X_pending[pending],
            pending_source=obs.pending_source[pending],
        )

    def suggest(
        self, space: SearchSpace, obs: Observations, n_suggestions: int, rng: np.random.Generator
    ) -> np.ndarray:
        """Algorithm 1, lines 8-11 for agent ``agent_id``: condition on the neighbourhood's
        data, draw a function, return its maximiser (``n_suggestions`` draws, each seeing
        the earlier ones as pending)."""
        # read once: another thread may switch agents (the Ax node does, sequentially)
        agent = self.agent_id
        visible = self.visible(obs, agent)
        assert visible.source is not None  # filled by Observations
        self.last_view = {
            "agent": agent,
            "sources": sorted({int(v) for v in visible.source}),
            "n_observed": int(len(visible.y)),
            "n_pending": int(len(visible.X_pending)),
        }
        return self._model(agent).suggest(space, visible, n_suggestions, rng)

    def _model(self, agent: int | None = None) -> EGPAlgorithm:
        agent = self.agent_id if agent is None else agent
        model = self._models.get(agent)
        # setdefault: two threads creating one agent's surrogate keep the same one
        if model is None:
            model = self._models.setdefault(agent, EGPAlgorithm(**self._model_options))
        return model

    # Shared model state: the current agent's surrogate
    # only (an agent learns from its neighbourhood alone).
    def model_state(self) -> dict[str, Any] | None:
        return self._model().model_state()

    def wants_model_state(self) -> bool:
        return self._model().wants_model_state()

    def offer_model_state(self, state: dict[str, Any]) -> bool:
        return self._model().offer_model_state(state)

    @property
    def model_source(self) -> int:
        """Adapters offer this algorithm only model states
        recorded by trials of this source (agent)."""
        return self.agent_id
