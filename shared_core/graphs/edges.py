"""Edges of communication graphs: pairs ``(i, j)`` of
agent indices, checked and normalised to ``(min, max)``.

Shared by :class:`~shared_core.graphs.graph.CommunicationGraph` (which stores its edges this
way) and the spec parsers of :mod:`shared_core.graphs.specs` (edge lists, adjacency matrices).
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

__all__ = ["Edge", "edge_items", "is_row", "normalised_edge"]

Edge = tuple[int, int]


def edge_items(edges: Any) -> list[Any]:
    """The items of an edge collection as a list;
    ``ValueError`` unless it is a non-string iterable."""
    if isinstance(edges, (str, bytes, Mapping)) or not isinstance(edges, Iterable):
        raise ValueError(f"edges must be a sequence of pairs (i, j), got {edges!r}")
    return list(edges)


def normalised_edge(pair: Any, n_agents: int | None = None) -> Edge:
    """``pair`` as ``(min, max)`` of two distinct integer
    indices ``>= 0`` (and ``< n_agents`` if given)."""
    if not is_row(pair) or len(pair) != 2:
        raise ValueError(f"each edge must be a pair (i, j) of agent indices, got {pair!r}")
    for index in pair:
        if not isinstance(index, numbers.Integral) or isinstance(index, bool) or index < 0:
            raise ValueError(f"agent indices must be integers >= 0, got {index!r} in edge {pair!r}")
    i, j = sorted((int(pair[0]), int(pair[1])))
    if i == j:
        raise ValueError(f"self-loops are not allowed, got edge {pair!r}")
    if n_agents is not None and j >= n_agents:
        raise ValueError(
            f"edge {pair!r} uses agent {j}, but n_agents={n_agents} (agents are 0..{n_agents - 1})"
        )
    return i, j


def is_row(row: Any) -> bool:
    """True for a list, a tuple or a 1-D numpy array (an edge, or a row of an adjacency matrix)."""
    return isinstance(row, (list, tuple)) or (isinstance(row, np.ndarray) and row.ndim == 1)
