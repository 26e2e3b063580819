"""Clique numbers of communication graphs, on graphs given as tuples of neighbour bit masks.

A graph on agents ``0..M-1`` is ``adjacency``, a tuple of ``M`` Python integers: bit ``j`` of
``adjacency[i]`` is set iff ``i -- j`` (what ``CommunicationGraph._adjacency`` holds, see
:mod:`shared_core.graphs.graph`).

Clique numbers are exact for at most :data:`EXACT_CLIQUE_MAX_AGENTS` agents (Bron–Kerbosch with
pivoting for the largest clique; inclusion–exclusion over the 2^M agent subsets for the minimum
clique cover, the chromatic number of the complement). Above that they are greedy bounds, flagged
by :attr:`~shared_core.graphs.graph.CommunicationGraph.clique_numbers_exact` being False.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "EXACT_CLIQUE_MAX_AGENTS",
    "greedy_clique_cover",
    "greedy_clique_size",
    "max_clique_size",
    "min_clique_cover",
    "set_bits",
]

EXACT_CLIQUE_MAX_AGENTS = 20  # clique numbers are exact up to this many agents, greedy bounds above


def set_bits(mask: int) -> list[int]:
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


# ---- exact ---------------------------------------------------------------------------------------


def max_clique_size(adjacency: tuple[int, ...]) -> int:
    """Exact largest clique: Bron–Kerbosch with pivoting (pivot = the vertex of ``P ∪ X`` with the
    most neighbours in ``P``), pruned when the clique cannot grow beyond the best one found."""
    best = 0

    def expand(size: int, candidates: int, excluded: int) -> None:
        nonlocal best
        if not candidates:
            best = max(best, size)
            return
        if size + candidates.bit_count() <= best:
            return
        pivot = max(
            set_bits(candidates | excluded), key=lambda u: (candidates & adjacency[u]).bit_count()
        )
        for v in set_bits(candidates & ~adjacency[pivot]):
            expand(size + 1, candidates & adjacency[v], excluded & adjacency[v])
            candidates &= ~(1 << v)
            excluded |= 1 << v

    expand(0, (1 << len(adjacency)) - 1, 0)
    return best


def min_clique_cover(adjacency: tuple[int, ...]) -> int:
    """Exact minimum clique cover for small graphs (memory and time ~ 2^M).

    Between the lower bound max(independence number, ceil(M / largest clique)) and a greedy cover,
    the smallest k for which some k cliques cover all agents: by inclusion–exclusion, the number of
    k-tuples of (possibly empty) cliques whose union is V is ``a_k = sum_S (-1)^(M - |S|) c(S)^k``
    over agent subsets S, with c(S) the number of cliques inside S (including the empty one).
    ``a_k`` is computed exactly (Python integers, grouped by the value of c(S)); cliques are closed
    under subsets, so a cover by k cliques can be made a partition.
    """
    n = len(adjacency)
    lower = max(max_clique_size(_complement(adjacency)), -(-n // max_clique_size(adjacency)))
    upper = greedy_clique_cover(adjacency)
    return upper if lower >= upper else _smallest_cover_size(adjacency, lower, upper)


def _smallest_cover_size(adjacency: tuple[int, ...], lower: int, upper: int) -> int:
    """The smallest k in ``lower..upper-1`` with a cover by k cliques (``a_k > 0``, see
    :func:`min_clique_cover`), else ``upper``."""
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
    """For every subset S (bit mask index): c(S) = number of cliques inside S (the empty one
    included) and |S|. Recurrence on the highest agent v of S: c(S) = c(S - v) + c((S - v) ∩
    N(v))."""
    counts = np.ones(1, dtype=np.int64)  # c(∅) = 1
    sizes = np.zeros(1, dtype=np.int64)
    for v, mask in enumerate(adjacency):
        lower_subsets = np.arange(1 << v, dtype=np.int64)  # subsets of agents 0..v-1
        lower_neighbours = mask & ((1 << v) - 1)
        counts = np.concatenate([counts, counts + counts[lower_subsets & lower_neighbours]])
        sizes = np.concatenate([sizes, sizes + 1])
    return counts, sizes


# ---- greedy bounds -------------------------------------------------------------------------------


def greedy_clique_size(adjacency: tuple[int, ...]) -> int:
    """A LOWER bound on the largest clique: from every agent, grow a clique by repeatedly adding the
    candidate with the most neighbours among the remaining candidates; the largest such clique."""
    best = 0
    for mask in adjacency:
        if mask.bit_count() + 1 <= best:
            continue
        size, candidates = 1, mask
        while candidates:
            u = max(set_bits(candidates), key=lambda w: (candidates & adjacency[w]).bit_count())
            size, candidates = size + 1, candidates & adjacency[u]
        best = max(best, size)
    return best


def greedy_clique_cover(adjacency: tuple[int, ...]) -> int:
    """An UPPER bound on the minimum clique cover: repeatedly take the uncovered agent with the
    fewest uncovered neighbours, grow a clique around it among uncovered agents (adding the
    candidate with the most neighbours among the remaining candidates), and remove that clique."""
    uncovered = (1 << len(adjacency)) - 1
    cliques = 0
    while uncovered:
        seed = min(set_bits(uncovered), key=lambda w: (uncovered & adjacency[w]).bit_count())
        clique, candidates = 1 << seed, uncovered & adjacency[seed]
        while candidates:
            u = max(set_bits(candidates), key=lambda w: (candidates & adjacency[w]).bit_count())
            clique, candidates = clique | (1 << u), candidates & adjacency[u]
        uncovered &= ~clique
        cliques += 1
    return cliques
