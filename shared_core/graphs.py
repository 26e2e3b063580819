"""Communication graphs of distributed Thompson sampling (Zerefa, Ren, Ma, Li, "Distributed Thompson
sampling under constrained communication", 2024).

M agents ``0..M-1`` sit on an undirected graph; agent ``i`` conditions its model on the data of its
neighbourhood ``N(i) ∪ {i}``. The paper's regret bound depends on the size of the largest complete
subgraph (clique); the clique cover number (fewest cliques that partition the agents) is also reported.

:func:`make_graph` builds a :class:`CommunicationGraph` from

* a topology name (:func:`graph_names`) and ``n_agents``:

  ===================  ==========================================================================
  ``"complete"``       every pair of agents is connected
  ``"star"``           agent 0 is the centre, connected to every other agent
  ``"ring"``           ``i -- i+1`` and ``M-1 -- 0``; for ``M < 3`` (no cycle exists) the ring is the line
  ``"line"``           ``i -- i+1`` (a path)
  ``"grid"``           a 4-neighbour 2-D grid, ``rows`` = the largest divisor of M that is ``<= sqrt(M)``,
                       ``columns = M / rows``, agent ``r * columns + c`` at row ``r``, column ``c`` (a prime
                       M gives one row: the line)
  ``"disconnected"``   no edges
  ``"erdos_renyi"``    each pair connected with probability ``p`` (``"erdos_renyi:0.3"``; default 0.3),
                       then kept connected (see :func:`erdos_renyi_edges`); seeded by ``seed``
  ===================  ==========================================================================

* an edge list (a sequence or set of pairs ``(i, j)`` of integer indices ``>= 0``): ``n_agents`` defaults
  to the largest index + 1 and, if given, must exceed every index. Duplicates, also reversed ones
  (``(0, 1)`` and ``(1, 0)``), are ignored; self-loops ``(i, i)`` are rejected.
* an adjacency matrix (a square numpy array or nested lists of 0/1 or bool, symmetric, zero diagonal);
  ``n_agents``, if given, must equal its size. A square array-like is read as a matrix when its size is
  not 2, and a 2 x 2 one when all its entries are 0/1 (give the single edge of two agents as ``[(0, 1)]``).
* a ``networkx.Graph`` (undirected, not a multigraph, no self-loops) whose nodes are the agent ids
  ``0..M-1`` (a node is an agent; other labels are a ``ValueError``); networkx is optional
  and never imported here: only a graph of an already imported networkx is recognised.
* a :class:`CommunicationGraph`, returned as is (``n_agents``, if given, must match).

Clique numbers are exact for at most :data:`EXACT_CLIQUE_MAX_AGENTS` agents (Bron–Kerbosch with pivoting
for the largest clique; inclusion–exclusion over the 2^M agent subsets for the minimum clique cover, the
chromatic number of the complement). Above that they are greedy bounds, flagged by
:attr:`CommunicationGraph.clique_numbers_exact` being False.
"""

from __future__ import annotations

import functools
import math
import numbers
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from shared_core.validation import check_int, check_real

__all__ = ["EXACT_CLIQUE_MAX_AGENTS", "CommunicationGraph", "erdos_renyi_edges", "graph_names", "make_graph"]

EXACT_CLIQUE_MAX_AGENTS = 20  # clique numbers are exact up to this many agents, greedy bounds above
DEFAULT_EDGE_PROBABILITY = 0.3  # p of "erdos_renyi" without ":p"

Edge = tuple[int, int]


# --------------------------------------------------------------------------------------------------
# The graph
# --------------------------------------------------------------------------------------------------


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

    def __post_init__(self) -> None:
        n_agents = check_int("n_agents", self.n_agents, 1)
        edges = frozenset(_normalised_edge(pair, n_agents) for pair in _edge_items(self.edges))
        object.__setattr__(self, "n_agents", n_agents)
        object.__setattr__(self, "edges", edges)

    # ---- neighbourhoods and connectivity ---------------------------------------------------------

    def neighbourhood(self, i: int) -> frozenset[int]:
        """``N(i) ∪ {i}``: the agents whose data agent ``i`` conditions on."""
        return self.neighbours(i) | {self._agent(i)}

    def neighbours(self, i: int) -> frozenset[int]:
        """``N(i)``: the agents adjacent to agent ``i`` (without ``i``)."""
        return frozenset(_bits(self._adjacency[self._agent(i)]))

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

        Exact (Bron–Kerbosch with pivoting) for ``n_agents <= EXACT_CLIQUE_MAX_AGENTS``; above that a
        greedy clique, i.e. a LOWER bound on the true size (see :attr:`clique_numbers_exact`).
        """
        if self.clique_numbers_exact:
            return _max_clique_size(self._adjacency)
        return _greedy_clique_size(self._adjacency)

    @functools.cached_property
    def clique_cover_number(self) -> int:
        """Fewest cliques that partition the agents (the chromatic number of the complement graph).

        Exact (inclusion–exclusion over agent subsets) for ``n_agents <= EXACT_CLIQUE_MAX_AGENTS``; above
        that a greedy cover, i.e. an UPPER bound on the true number (see :attr:`clique_numbers_exact`).
        """
        if self.clique_numbers_exact:
            return _min_clique_cover(self._adjacency)
        return _greedy_clique_cover(self._adjacency)

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
            raise ValueError(f"a graph description must be a mapping with exactly the keys 'n_agents' and "
                             f"'edges', got {description!r}")
        return cls(description["n_agents"], description["edges"])

    def to_networkx(self):
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
        ok = isinstance(i, numbers.Integral) and not isinstance(i, bool) and 0 <= i < self.n_agents
        if not ok:
            raise ValueError(f"agent index must be an integer in 0..{self.n_agents - 1}, got {i!r}")
        return int(i)

    @functools.cached_property
    def _adjacency(self) -> tuple[int, ...]:
        """Bit mask of the neighbours of each agent: bit ``j`` of entry ``i`` is set iff ``i -- j``."""
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
                for v in _bits(frontier):
                    reached |= self._adjacency[v]
                frontier = reached & ~component
                component |= frontier
            unseen &= ~component
            components.append(frozenset(_bits(component)))
        return tuple(components)


# --------------------------------------------------------------------------------------------------
# make_graph
# --------------------------------------------------------------------------------------------------


def graph_names() -> list[str]:
    """The topology names of :func:`make_graph` (``"erdos_renyi"`` also as ``"erdos_renyi:p"``)."""
    return list(_TOPOLOGIES)


def make_graph(graph: Any, n_agents: int | None = None, *, seed: Any = None) -> CommunicationGraph:
    """A :class:`CommunicationGraph` from a name, an edge list, an adjacency matrix, a ``networkx.Graph``
    or a :class:`CommunicationGraph` (see the module docstring for each form and its rules).

    Args:
        graph: the graph.
        n_agents: number of agents M; required with a name, optional (and checked) otherwise.
        seed: seed of ``numpy.random.default_rng`` for ``"erdos_renyi"``; ignored by every other form.
    """
    if isinstance(graph, CommunicationGraph):
        return _checked_size(graph, n_agents, "the CommunicationGraph")
    if isinstance(graph, str):
        return _named_graph(graph, n_agents, seed)
    networkx = sys.modules.get("networkx")  # a networkx graph can only exist if networkx was imported
    if networkx is not None and isinstance(graph, networkx.Graph):
        return _checked_size(_from_networkx(graph), n_agents, "the networkx graph")
    if _is_adjacency_matrix(graph):
        return _checked_size(_from_adjacency(graph), n_agents, "the adjacency matrix")
    if isinstance(graph, (bytes, Mapping)) or not isinstance(graph, Iterable):
        raise ValueError(f"a graph must be a topology name {graph_names()}, an edge list, an adjacency matrix, a "
                         f"networkx.Graph or a CommunicationGraph, got {type(graph).__name__} {graph!r}")
    return _from_edge_list(graph, n_agents)


def _checked_size(graph: CommunicationGraph, n_agents: Any, what: str) -> CommunicationGraph:
    if n_agents is not None and check_int("n_agents", n_agents, 1) != graph.n_agents:
        raise ValueError(f"n_agents={n_agents!r} does not match {what}, which has {graph.n_agents} agents")
    return graph


# ---- names ---------------------------------------------------------------------------------------


def _named_graph(spec: str, n_agents: Any, seed: Any) -> CommunicationGraph:
    name, _, argument = spec.partition(":")
    if name not in _TOPOLOGIES or (argument and name != "erdos_renyi") or (spec.endswith(":") and not argument):
        raise ValueError(f"unknown graph {spec!r}; valid names: {graph_names()} (and 'erdos_renyi:p', e.g. "
                         f"'erdos_renyi:0.3')")
    if n_agents is None:
        raise ValueError(f"graph {spec!r} needs n_agents (the number of agents M), got n_agents=None")
    n = check_int("n_agents", n_agents, 1)
    if name == "erdos_renyi":
        try:
            return CommunicationGraph(n, erdos_renyi_edges(n, _edge_probability(argument), seed))
        except ValueError as err:
            raise ValueError(f"graph {spec!r}: {err}") from None
    return CommunicationGraph(n, _TOPOLOGIES[name](n))


def _edge_probability(text: str) -> float:
    """The ``p`` of ``"erdos_renyi:p"`` (checked to lie in [0, 1] by :func:`erdos_renyi_edges`)."""
    if not text:
        return DEFAULT_EDGE_PROBABILITY
    try:
        return float(text)
    except ValueError:
        message = f"the edge probability p of 'erdos_renyi:p' must be a number in [0, 1], got {text!r}"
        raise ValueError(message) from None


def _complete(n: int) -> list[Edge]:
    return [(i, j) for i in range(n) for j in range(i + 1, n)]


def _star(n: int) -> list[Edge]:
    return [(0, j) for j in range(1, n)]


def _line(n: int) -> list[Edge]:
    return [(i, i + 1) for i in range(n - 1)]


def _ring(n: int) -> list[Edge]:
    return _line(n) + ([(0, n - 1)] if n >= 3 else [])  # M < 3: no cycle, the line


def _grid(n: int) -> list[Edge]:
    rows = max(r for r in range(1, math.isqrt(n) + 1) if n % r == 0)
    columns = n // rows
    right = [(k, k + 1) for k in range(n) if k % columns < columns - 1]
    down = [(k, k + columns) for k in range(n - columns)]
    return right + down


def _disconnected(n: int) -> list[Edge]:
    return []


_TOPOLOGIES = {
    "complete": _complete,
    "star": _star,
    "ring": _ring,
    "line": _line,
    "grid": _grid,
    "disconnected": _disconnected,
    "erdos_renyi": None,  # needs p and a seed: erdos_renyi_edges
}


def erdos_renyi_edges(n_agents: int, p: float = DEFAULT_EDGE_PROBABILITY, seed: Any = None) -> list[Edge]:
    """A connected Erdős–Rényi graph's edges, reproducible from ``seed``.

    ``rng = numpy.random.default_rng(seed)`` draws ``u = rng.random(M (M-1) / 2)``, one number per pair
    ``i < j`` in lexicographic order (``numpy.triu_indices(M, 1)``), and keeps the pairs with ``u < p``.
    If that graph is disconnected, its components ``C_0, C_1, ...`` (ordered by their smallest agent) are
    joined by one edge between each consecutive pair ``C_k, C_k+1``: between ``sorted(C_k)[a]`` and
    ``sorted(C_k+1)[b]`` with ``a = rng.integers(len(C_k))`` then ``b = rng.integers(len(C_k+1))``. Hence
    ``p = 1`` gives the complete graph and ``p = 0`` the line. Edges are returned as ``(i, j)``, ``i < j``.
    """
    n = check_int("n_agents", n_agents, 1)
    p = check_real("erdos_renyi edge probability p", p, low=0.0, high=1.0)
    rng = np.random.default_rng(seed)
    rows, cols = np.triu_indices(n, 1)  # (M (M-1) / 2,) each
    keep = rng.random(rows.size) < p
    edges = [(int(i), int(j)) for i, j in zip(rows[keep], cols[keep])]
    components = [sorted(c) for c in CommunicationGraph(n, edges).components]
    for left, right in zip(components, components[1:]):
        a = int(rng.integers(len(left)))
        b = int(rng.integers(len(right)))
        edges.append((min(left[a], right[b]), max(left[a], right[b])))
    return edges


# ---- edge lists ----------------------------------------------------------------------------------


def _from_edge_list(spec: Iterable, n_agents: Any) -> CommunicationGraph:
    pairs = [_normalised_edge(pair) for pair in _edge_items(spec)]
    if n_agents is None:
        if not pairs:
            raise ValueError("an empty edge list needs n_agents (the number of agents M), got n_agents=None")
        return CommunicationGraph(max(j for _, j in pairs) + 1, pairs)
    n = check_int("n_agents", n_agents, 1)
    for i, j in pairs:
        if j >= n:
            raise ValueError(f"n_agents={n_agents!r} must be larger than every agent index of the edge list, "
                             f"but edge {(i, j)} uses agent {j}")
    return CommunicationGraph(n, pairs)


def _edge_items(edges: Any) -> list:
    if isinstance(edges, (str, bytes, Mapping)) or not isinstance(edges, Iterable):
        raise ValueError(f"edges must be a sequence of pairs (i, j), got {edges!r}")
    return list(edges)


def _normalised_edge(pair: Any, n_agents: int | None = None) -> Edge:
    """``pair`` as ``(min, max)`` of two distinct integer indices ``>= 0`` (and ``< n_agents`` if given)."""
    if not _is_row(pair) or len(pair) != 2:
        raise ValueError(f"each edge must be a pair (i, j) of agent indices, got {pair!r}")
    for index in pair:
        if not isinstance(index, numbers.Integral) or isinstance(index, bool) or index < 0:
            raise ValueError(f"agent indices must be integers >= 0, got {index!r} in edge {pair!r}")
    i, j = sorted((int(pair[0]), int(pair[1])))
    if i == j:
        raise ValueError(f"self-loops are not allowed, got edge {pair!r}")
    if n_agents is not None and j >= n_agents:
        raise ValueError(f"edge {pair!r} uses agent {j}, but n_agents={n_agents} (agents are 0..{n_agents - 1})")
    return i, j


# ---- adjacency matrices --------------------------------------------------------------------------


def _is_adjacency_matrix(spec: Any) -> bool:
    """True for a square 2-D array-like, except a 2 x 2 one with an entry other than 0/1 (an edge list)."""
    if isinstance(spec, np.ndarray):
        rows = list(spec) if spec.ndim == 2 else None
    elif isinstance(spec, (list, tuple)) and all(isinstance(row, (list, tuple, np.ndarray)) for row in spec):
        rows = list(spec)
    else:
        rows = None
    if not rows or any(not _is_row(row) or len(row) != len(rows) for row in rows):
        return False
    return len(rows) != 2 or all(_is_binary(entry) for row in rows for entry in row)


def _is_row(row: Any) -> bool:
    return isinstance(row, (list, tuple)) or (isinstance(row, np.ndarray) and row.ndim == 1)


def _is_binary(entry: Any) -> bool:
    return isinstance(entry, (numbers.Real, np.bool_)) and entry in (0, 1)


def _from_adjacency(spec: Any) -> CommunicationGraph:
    rows = [list(row) for row in spec]
    n = len(rows)
    hint = (" (a 2 x 2 array-like of 0/1 is read as an adjacency matrix; give the edge of two agents as "
            "[(0, 1)])") if n == 2 else ""
    for r, row in enumerate(rows):
        for c, entry in enumerate(row):
            if not _is_binary(entry):
                raise ValueError(f"adjacency matrix entries must be 0/1 or bool, got {entry!r} at [{r}, {c}]")
    matrix = np.array(rows, dtype=bool)  # (M, M)
    diagonal = np.flatnonzero(np.diag(matrix))
    if diagonal.size:
        r = int(diagonal[0])
        raise ValueError(f"adjacency matrix must have a zero diagonal (no self-loops), got {rows[r][r]!r} at "
                         f"[{r}, {r}]{hint}")
    asymmetric = np.argwhere(matrix != matrix.T)
    if asymmetric.size:
        r, c = (int(k) for k in asymmetric[0])
        raise ValueError(f"adjacency matrix must be symmetric, got {rows[r][c]!r} at [{r}, {c}] but "
                         f"{rows[c][r]!r} at [{c}, {r}]{hint}")
    edges = [(int(i), int(j)) for i, j in np.argwhere(np.triu(matrix, 1))]
    return CommunicationGraph(n, edges)


# ---- networkx ------------------------------------------------------------------------------------


def _from_networkx(graph: Any) -> CommunicationGraph:
    if graph.is_directed() or graph.is_multigraph():
        raise ValueError(f"a networkx graph must be undirected and not a multigraph, got {type(graph).__name__}")
    nodes = list(graph.nodes)
    if not nodes:
        raise ValueError("a networkx graph needs at least one node, got an empty graph")
    if set(nodes) != set(range(len(nodes))) or not all(isinstance(n, int) for n in nodes):
        raise ValueError(f"networkx graph nodes must be the agent ids 0..{len(nodes) - 1}, got {nodes!r} (relabel "
                         "them with networkx.convert_node_labels_to_integers)")
    edges = []
    for u, v in graph.edges:
        if u == v:
            raise ValueError(f"self-loops are not allowed, got edge {(u, v)!r} of the networkx graph")
        edges.append((u, v))
    return CommunicationGraph(len(nodes), edges)


# --------------------------------------------------------------------------------------------------
# Cliques (graphs as tuples of neighbour bit masks)
# --------------------------------------------------------------------------------------------------


def _bits(mask: int) -> list[int]:
    """Indices of the set bits of ``mask``, increasing."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _complement(adjacency: tuple[int, ...]) -> tuple[int, ...]:
    full = (1 << len(adjacency)) - 1
    return tuple(full & ~mask & ~(1 << v) for v, mask in enumerate(adjacency))


def _max_clique_size(adjacency: tuple[int, ...]) -> int:
    """Exact largest clique: Bron–Kerbosch with pivoting (pivot = the vertex of ``P ∪ X`` with the most
    neighbours in ``P``), pruned when the clique cannot grow beyond the best one found."""
    best = 0

    def expand(size: int, candidates: int, excluded: int) -> None:
        nonlocal best
        if not candidates:
            best = max(best, size)
            return
        if size + candidates.bit_count() <= best:
            return
        pivot = max(_bits(candidates | excluded), key=lambda u: (candidates & adjacency[u]).bit_count())
        for v in _bits(candidates & ~adjacency[pivot]):
            expand(size + 1, candidates & adjacency[v], excluded & adjacency[v])
            candidates &= ~(1 << v)
            excluded |= 1 << v

    expand(0, (1 << len(adjacency)) - 1, 0)
    return best


def _min_clique_cover(adjacency: tuple[int, ...]) -> int:
    """Exact minimum clique cover for small graphs (memory and time ~ 2^M).

    Between the lower bound max(independence number, ceil(M / largest clique)) and a greedy cover, the
    smallest k for which some k cliques cover all agents: by inclusion–exclusion, the number of k-tuples of
    (possibly empty) cliques whose union is V is ``a_k = sum_S (-1)^(M - |S|) c(S)^k`` over agent subsets S,
    with c(S) the number of cliques inside S (including the empty one). ``a_k`` is computed exactly
    (Python integers, grouped by the value of c(S)); cliques are closed under subsets, so a cover by k
    cliques can be made a partition.
    """
    n = len(adjacency)
    lower = max(_max_clique_size(_complement(adjacency)), -(-n // _max_clique_size(adjacency)))
    upper = _greedy_clique_cover(adjacency)
    return upper if lower >= upper else _smallest_cover_size(adjacency, lower, upper)


def _smallest_cover_size(adjacency: tuple[int, ...], lower: int, upper: int) -> int:
    """The smallest k in ``lower..upper-1`` with a cover by k cliques (``a_k > 0``, see
    :func:`_min_clique_cover`), else ``upper``."""
    n = len(adjacency)
    counts, sizes = _subset_clique_counts(adjacency)  # (2^M,), (2^M,)
    signs = np.where((n - sizes) % 2 == 0, 1.0, -1.0)  # (2^M,)
    signed = np.bincount(counts, weights=signs)  # (max c + 1,) exact: |entries| <= 2^M
    values = np.flatnonzero(signed)
    weights = [int(w) for w in signed[values]]
    powers = [int(v) ** lower for v in values]
    for k in range(lower, upper):
        if sum(w * pw for w, pw in zip(weights, powers)) > 0:
            return k
        powers = [pw * int(v) for pw, v in zip(powers, values)]
    return upper


def _subset_clique_counts(adjacency: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """For every subset S (bit mask index): c(S) = number of cliques inside S (the empty one included)
    and |S|. Recurrence on the highest agent v of S: c(S) = c(S - v) + c((S - v) ∩ N(v))."""
    counts = np.ones(1, dtype=np.int64)  # c(∅) = 1
    sizes = np.zeros(1, dtype=np.int64)
    for v, mask in enumerate(adjacency):
        lower_subsets = np.arange(1 << v, dtype=np.int64)  # subsets of agents 0..v-1
        lower_neighbours = mask & ((1 << v) - 1)
        counts = np.concatenate([counts, counts + counts[lower_subsets & lower_neighbours]])
        sizes = np.concatenate([sizes, sizes + 1])
    return counts, sizes


def _greedy_clique_size(adjacency: tuple[int, ...]) -> int:
    """A LOWER bound on the largest clique: from every agent, grow a clique by repeatedly adding the
    candidate with the most neighbours among the remaining candidates; the largest such clique."""
    best = 0
    for v, mask in enumerate(adjacency):
        if mask.bit_count() + 1 <= best:
            continue
        size, candidates = 1, mask
        while candidates:
            u = max(_bits(candidates), key=lambda w: (candidates & adjacency[w]).bit_count())
            size, candidates = size + 1, candidates & adjacency[u]
        best = max(best, size)
    return best


def _greedy_clique_cover(adjacency: tuple[int, ...]) -> int:
    """An UPPER bound on the minimum clique cover: repeatedly take the uncovered agent with the fewest
    uncovered neighbours, grow a clique around it among uncovered agents (adding the candidate with the
    most neighbours among the remaining candidates), and remove that clique."""
    uncovered = (1 << len(adjacency)) - 1
    cliques = 0
    while uncovered:
        seed = min(_bits(uncovered), key=lambda w: (uncovered & adjacency[w]).bit_count())
        clique, candidates = 1 << seed, uncovered & adjacency[seed]
        while candidates:
            u = max(_bits(candidates), key=lambda w: (candidates & adjacency[w]).bit_count())
            clique, candidates = clique | (1 << u), candidates & adjacency[u]
        uncovered &= ~clique
        cliques += 1
    return cliques
