"""The communication graph of distributed Thompson sampling: :class:`CommunicationGraph`, an
immutable undirected graph on agents ``0..M-1`` with neighbourhoods, connected components,
clique numbers (computed by :mod:`shared_core.graphs.cliques`) and conversions (edge list,
adjacency matrix, dict, networkx).
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from shared_core.graphs.cliques import (
    EXACT_CLIQUE_MAX_AGENTS,
    greedy_clique_cover,
    greedy_clique_size,
    max_clique_size,
    min_clique_cover,
    set_bits,
)
from shared_core.graphs.edges import Edge, edge_items, normalised_edge
from shared_core.validation import check_int

__all__ = ["CommunicationGraph"]


@dataclass(frozen=True, repr=False)
class CommunicationGraph:
    """An immutable undirected graph on agents ``0..n_agents-1``.

    Args:
        n_agents: number of agents M (an integer >= 1).
        edges: pairs ``(i, j)`` of agent indices; stored as ``frozenset`` of ``(min, max)`` tuples.
            Duplicates and reversed duplicates are merged; self-loops and indices outside
            ``0..n_agents-1`` raise ``ValueError``.

    Equality and hashing are by ``(n_agents, edges)``.
    """

    n_agents: int
    edges: frozenset[Edge] = frozenset()

    if TYPE_CHECKING:  # the constructor takes any pairs; __post_init__ stores them as a frozenset

        def __init__(self, n_agents: int, edges: Iterable[Sequence[int]] = ...) -> None: ...

    def __post_init__(self) -> None:
        n_agents = check_int("n_agents", self.n_agents, 1)
        edges = frozenset(normalised_edge(pair, n_agents) for pair in edge_items(self.edges))
        object.__setattr__(self, "n_agents", n_agents)
        object.__setattr__(self, "edges", edges)

    # ---- neighbourhoods and connectivity ---------------------------------------------------------

    def neighbourhood(self, i: int) -> frozenset[int]:
        """``N(i) ∪ {i}``: the agents whose data agent ``i`` conditions on."""
        return self.neighbours(i) | {self._agent(i)}

    def neighbours(self, i: int) -> frozenset[int]:
        """``N(i)``: the agents adjacent to agent ``i`` (without ``i``)."""
        return frozenset(set_bits(self._adjacency[self._agent(i)]))

    @property
    def is_connected(self) -> bool:
        """True if every agent can reach every other one (a single agent is connected)."""
        return len(self._components) == 1

    @property
    def components(self) -> list[frozenset[int]]:
        """The connected components, ordered by their smallest agent."""
        return list(self._components)

    # ---- clique numbers --------------------------------------------------------------------------

    @property
    def clique_numbers_exact(self) -> bool:
        """True if :attr:`largest_clique_size` and :attr:`clique_cover_number` are exact
        (``n_agents <= EXACT_CLIQUE_MAX_AGENTS``); False if they are greedy bounds."""
        return self.n_agents <= EXACT_CLIQUE_MAX_AGENTS

    @functools.cached_property
    def largest_clique_size(self) -> int:
        """Size of the largest complete subgraph (1 without edges).

        Exact (Bron–Kerbosch with pivoting) for ``n_agents <= EXACT_CLIQUE_MAX_AGENTS``; above that
        a greedy clique, i.e. a LOWER bound on the true size (see :attr:`clique_numbers_exact`).
        """
        if self.clique_numbers_exact:
            return max_clique_size(self._adjacency)
        return greedy_clique_size(self._adjacency)

    @functools.cached_property
    def clique_cover_number(self) -> int:
        """Fewest cliques that partition the agents (the chromatic number of the complement graph).

        Exact (inclusion–exclusion over agent subsets) for ``n_agents <= EXACT_CLIQUE_MAX_AGENTS``;
        above that a greedy cover, i.e. an UPPER bound on the true number (see
        :attr:`clique_numbers_exact`).
        """
        if self.clique_numbers_exact:
            return min_clique_cover(self._adjacency)
        return greedy_clique_cover(self._adjacency)

    # ---- conversions -----------------------------------------------------------------------------

    def sorted_edges(self) -> list[Edge]:
        """The edges ``(i, j)``, ``i < j``, in lexicographic order."""
        return sorted(self.edges)

    def adjacency_matrix(self) -> np.ndarray:
        """``(M, M)`` bool adjacency matrix (symmetric, False diagonal)."""
        matrix = np.zeros((self.n_agents, self.n_agents), dtype=bool)  # (M, M)
        if self.edges:
            rows, cols = np.array(self.sorted_edges()).T  # (E,), (E,)
            matrix[rows, cols] = matrix[cols, rows] = True
        return matrix

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly description ``{"n_agents": M, "edges": [[i, j], ...]}`` (edges sorted)."""
        return {"n_agents": self.n_agents, "edges": [[i, j] for i, j in self.sorted_edges()]}

    @classmethod
    def from_dict(cls, description: Mapping[str, Any]) -> CommunicationGraph:
        """The graph of :meth:`to_dict`'s description."""
        if not isinstance(description, Mapping) or set(description) != {"n_agents", "edges"}:
            raise ValueError(
                f"a graph description must be a mapping with exactly the keys 'n_agents' and "
                f"'edges', got {description!r}"
            )
        return cls(description["n_agents"], description["edges"])

    def to_networkx(self) -> Any:
        """A ``networkx.Graph`` with nodes ``0..M-1`` (needs networkx: ``pip install networkx``)."""
        import networkx  # optional dependency, imported only here

        graph = networkx.Graph()
        graph.add_nodes_from(range(self.n_agents))
        graph.add_edges_from(self.sorted_edges())
        return graph

    def __repr__(self) -> str:
        return f"CommunicationGraph(n_agents={self.n_agents}, edges={self.sorted_edges()})"

    # ---- internals -------------------------------------------------------------------------------

    def _agent(self, i: Any) -> int:
        ok = isinstance(i, numbers.Integral) and not isinstance(i, bool)
        ok = ok and 0 <= i < self.n_agents
        if not ok:
            raise ValueError(f"agent index must be an integer in 0..{self.n_agents - 1}, got {i!r}")
        return int(i)

    @functools.cached_property
    def _adjacency(self) -> tuple[int, ...]:
        """Bit mask of the neighbours of each agent: bit
        ``j`` of entry ``i`` is set iff ``i -- j``."""
        masks = [0] * self.n_agents
        for i, j in self.edges:
            masks[i] |= 1 << j
            masks[j] |= 1 << i
        return tuple(masks)

    @functools.cached_property
    def _components(self) -> tuple[frozenset[int], ...]:
        unseen = (1 << self.n_agents) - 1
        components = []
        while unseen:
            frontier = component = unseen & -unseen  # the smallest unseen agent
            while frontier:
                reached = 0
                for v in set_bits(frontier):
                    reached |= self._adjacency[v]
                frontier = reached & ~component
                component |= frontier
            unseen &= ~component
            components.append(frozenset(set_bits(component)))
        return tuple(components)
