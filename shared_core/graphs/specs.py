"""Graph specs: what :func:`make_graph` accepts as the
communication graph of distributed Thompson sampling.

:func:`make_graph` builds a :class:`CommunicationGraph` from

* a topology name (:func:`graph_names`) and ``n_agents``:

    * ``"complete"``: every pair of agents is connected
    * ``"star"``: agent 0 is the centre, connected to every other agent
    * ``"ring"``: ``i -- i+1`` and ``M-1 -- 0``; for ``M < 3`` (no cycle exists) the ring is the
      line
    * ``"line"``: ``i -- i+1`` (a path)
    * ``"grid"``: a 4-neighbour 2-D grid, ``rows`` = the largest divisor of M that is
      ``<= sqrt(M)``, ``columns = M / rows``, agent ``r * columns + c`` at row ``r``, column
      ``c`` (a prime M gives one row: the line)
    * ``"disconnected"``: no edges
    * ``"erdos_renyi"``: each pair connected with probability ``p`` (``"erdos_renyi:0.3"``;
      default 0.3), then kept connected (see :func:`erdos_renyi_edges`); seeded by ``seed``

* an edge list (a sequence or set of pairs ``(i, j)`` of integer indices ``>= 0``): ``n_agents``
  defaults to the largest index + 1 and, if given, must exceed every index. Duplicates, also
  reversed ones (``(0, 1)`` and ``(1, 0)``), are ignored; self-loops ``(i, i)`` are rejected.
* an adjacency matrix (a square numpy array or nested lists of 0/1 or bool, symmetric, zero
  diagonal); ``n_agents``, if given, must equal its size. A square array-like is read as a matrix
  when its size is not 2, and a 2 x 2 one when all its entries are 0/1 (give the single edge of two
  agents as ``[(0, 1)]``).
* a ``networkx.Graph`` (undirected, not a multigraph, no self-loops) whose nodes are the agent ids
  ``0..M-1`` (a node is an agent; other labels are a ``ValueError``); networkx is optional
  and never imported here: only a graph of an already imported networkx is recognised.
* a :class:`CommunicationGraph`, returned as is (``n_agents``, if given, must match).
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from shared_core.graphs.edges import Edge, edge_items, is_row, normalised_edge
from shared_core.graphs.graph import CommunicationGraph
from shared_core.validation import check_int, check_real

__all__ = ["DEFAULT_EDGE_PROBABILITY", "erdos_renyi_edges", "graph_names", "make_graph"]

DEFAULT_EDGE_PROBABILITY = 0.3  # p of "erdos_renyi" without ":p"


def graph_names() -> list[str]:
    """The topology names of :func:`make_graph` (``"erdos_renyi"`` also as ``"erdos_renyi:p"``)."""
    return list(_TOPOLOGIES)


def make_graph(graph: Any, n_agents: int | None = None, *, seed: Any = None) -> CommunicationGraph:
    """A :class:`CommunicationGraph` from a name, an edge list, an adjacency matrix, a
    ``networkx.Graph`` or a :class:`CommunicationGraph` (see :mod:`shared_core.graphs.specs`
    for each form and its rules).

    Args:
        graph: the graph.
        n_agents: number of agents M; required with a name, optional (and checked) otherwise.
        seed: seed of ``numpy.random.default_rng`` for ``"erdos_renyi"``; ignored by every other
            form.
    """
    if isinstance(graph, CommunicationGraph):
        return _checked_size(graph, n_agents, "the CommunicationGraph")
    if isinstance(graph, str):
        return _named_graph(graph, n_agents, seed)
    # a networkx graph can only exist if networkx was imported
    networkx = sys.modules.get("networkx")
    if networkx is not None and isinstance(graph, networkx.Graph):
        return _checked_size(_from_networkx(graph), n_agents, "the networkx graph")
    if _is_adjacency_matrix(graph):
        return _checked_size(_from_adjacency(graph), n_agents, "the adjacency matrix")
    if isinstance(graph, (bytes, Mapping)) or not isinstance(graph, Iterable):
        raise ValueError(
            f"a graph must be a topology name {graph_names()}, an edge list, an adjacency matrix, "
            f"a networkx.Graph or a CommunicationGraph, got {type(graph).__name__} {graph!r}"
        )
    return _from_edge_list(graph, n_agents)


def _checked_size(graph: CommunicationGraph, n_agents: Any, what: str) -> CommunicationGraph:
    if n_agents is not None and check_int("n_agents", n_agents, 1) != graph.n_agents:
        raise ValueError(
            f"n_agents={n_agents!r} does not match {what}, which has {graph.n_agents} agents"
        )
    return graph


# ---- names ---------------------------------------------------------------------------------------


def _named_graph(spec: str, n_agents: Any, seed: Any) -> CommunicationGraph:
    name, _, argument = spec.partition(":")
    if (
        name not in _TOPOLOGIES
        or (argument and name != "erdos_renyi")
        or (spec.endswith(":") and not argument)
    ):
        raise ValueError(
            f"unknown graph {spec!r}; valid names: {graph_names()} (and 'erdos_renyi:p', e.g. "
            f"'erdos_renyi:0.3')"
        )
    if n_agents is None:
        raise ValueError(
            f"graph {spec!r} needs n_agents (the number of agents M), got n_agents=None"
        )
    n = check_int("n_agents", n_agents, 1)
    if name == "erdos_renyi":
        try:
            return CommunicationGraph(n, erdos_renyi_edges(n, _edge_probability(argument), seed))
        except ValueError as err:
            raise ValueError(f"graph {spec!r}: {err}") from None
    topology = _TOPOLOGIES[name]
    assert topology is not None  # erdos_renyi, the one without a function, is built above
    return CommunicationGraph(n, topology(n))


def _edge_probability(text: str) -> float:
    """The ``p`` of ``"erdos_renyi:p"`` (checked to lie in [0, 1] by :func:`erdos_renyi_edges`)."""
    if not text:
        return DEFAULT_EDGE_PROBABILITY
    try:
        return float(text)
    except ValueError:
        message = (
            f"the edge probability p of 'erdos_renyi:p' must be a number in [0, 1], got {text!r}"
        )
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


def erdos_renyi_edges(
    n_agents: int, p: float = DEFAULT_EDGE_PROBABILITY, seed: Any = None
) -> list[Edge]:
    """A connected Erdős–Rényi graph's edges, reproducible from ``seed``.

    ``rng = numpy.random.default_rng(seed)`` draws ``u = rng.random(M (M-1) / 2)``, one number
    per pair ``i < j`` in lexicographic order (``numpy.triu_indices(M, 1)``), and keeps the
    pairs with ``u < p``. If that graph is disconnected, its components ``C_0, C_1, ...``
    (ordered by their smallest agent) are joined by one edge between each consecutive pair
    ``C_k, C_k+1``: between ``sorted(C_k)[a]`` and ``sorted(C_k+1)[b]`` with
    ``a = rng.integers(len(C_k))`` then ``b = rng.integers(len(C_k+1))``. Hence ``p = 1`` gives
    the complete graph and ``p = 0`` the line. Edges are returned as ``(i, j)``, ``i < j``.
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


def _from_edge_list(spec: Iterable[Any], n_agents: Any) -> CommunicationGraph:
    pairs = [normalised_edge(pair) for pair in edge_items(spec)]
    if n_agents is None:
        if not pairs:
            raise ValueError(
                "an empty edge list needs n_agents (the number of agents M), got n_agents=None"
            )
        return CommunicationGraph(max(j for _, j in pairs) + 1, pairs)
    n = check_int("n_agents", n_agents, 1)
    for i, j in pairs:
        if j >= n:
            raise ValueError(
                f"n_agents={n_agents!r} must be larger than every agent index of the edge list, "
                f"but edge {(i, j)} uses agent {j}"
            )
    return CommunicationGraph(n, pairs)


# ---- adjacency matrices --------------------------------------------------------------------------


def _is_adjacency_matrix(spec: Any) -> bool:
    """True for a square 2-D array-like, except a 2 x 2
    one with an entry other than 0/1 (an edge list)."""
    if isinstance(spec, np.ndarray):
        rows = list(spec) if spec.ndim == 2 else None
    elif isinstance(spec, (list, tuple)) and all(
        isinstance(row, (list, tuple, np.ndarray)) for row in spec
    ):
        rows = list(spec)
    else:
        rows = None
    if not rows or any(not is_row(row) or len(row) != len(rows) for row in rows):
        return False
    return len(rows) != 2 or all(_is_binary(entry) for row in rows for entry in row)


def _is_binary(entry: Any) -> bool:
    return isinstance(entry, (numbers.Real, np.bool_)) and entry in (0, 1)


def _from_adjacency(spec: Any) -> CommunicationGraph:
    rows = [list(row) for row in spec]
    n = len(rows)
    hint = (
        (
            " (a 2 x 2 array-like of 0/1 is read as an adjacency matrix; give the edge of two "
            "agents as [(0, 1)])"
        )
        if n == 2
        else ""
    )
    for r, row in enumerate(rows):
        for c, entry in enumerate(row):
            if not _is_binary(entry):
                raise ValueError(
                    f"adjacency matrix entries must be 0/1 or bool, got {entry!r} at [{r}, {c}]"
                )
    matrix = np.array(rows, dtype=bool)  # (M, M)
    diagonal = np.flatnonzero(np.diag(matrix))
    if diagonal.size:
        r = int(diagonal[0])
        raise ValueError(
            f"adjacency matrix must have a zero diagonal (no self-loops), got {rows[r][r]!r} at "
            f"[{r}, {r}]{hint}"
        )
    asymmetric = np.argwhere(matrix != matrix.T)
    if asymmetric.size:
        r, c = (int(k) for k in asymmetric[0])
        raise ValueError(
            f"adjacency matrix must be symmetric, got {rows[r][c]!r} at [{r}, {c}] but "
            f"{rows[c][r]!r} at [{c}, {r}]{hint}"
        )
    edges = [(int(i), int(j)) for i, j in np.argwhere(np.triu(matrix, 1))]
    return CommunicationGraph(n, edges)


# ---- networkx ------------------------------------------------------------------------------------


def _from_networkx(graph: Any) -> CommunicationGraph:
    if graph.is_directed() or graph.is_multigraph():
        raise ValueError(
            f"a networkx graph must be undirected and not a multigraph, got {type(graph).__name__}"
        )
    nodes = list(graph.nodes)
    if not nodes:
        raise ValueError("a networkx graph needs at least one node, got an empty graph")
    if set(nodes) != set(range(len(nodes))) or not all(isinstance(n, int) for n in nodes):
        raise ValueError(
            f"networkx graph nodes must be the agent ids 0..{len(nodes) - 1}, got {nodes!r} "
            "(relabel them with networkx.convert_node_labels_to_integers)"
        )
    edges = []
    for u, v in graph.edges:
        if u == v:
            raise ValueError(
                f"self-loops are not allowed, got edge {(u, v)!r} of the networkx graph"
            )
        edges.append((u, v))
    return CommunicationGraph(len(nodes), edges)
