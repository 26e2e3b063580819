"""The factor graph of :func:`~shared_core.optim.max_sum.max_sum` and its messages (eq. 3 of Hoang,
Hoang, Ouyang & Low, "Decentralized high-dimensional Bayesian optimization with factor graphs",
2018): which factors reach each variable, whether the graph is a forest, and the synchronous
(flooding) schedule of max-sum messages, one numpy call per group of same-shaped factors.

Glossary (shapes in brackets):

* ``V``: number of variables; ``D[i]``: grid size of variable ``i``; ``F``: number of factors.
* ``scopes[f]``: the ``k`` variables of factor ``f`` (its set ``I``, in table-axis order);
  ``tables[f]`` ``(D[v] for v in scopes[f])``: ``phi_I`` on the product grid.
* ``to_var[g][p]`` ``(n, D_p)``: messages ``m_{I->i}`` from the ``n`` factors of group ``g``
  (the factors whose tables share one shape, stacked so that each update is one numpy call per
  group) to their ``p``-th variables; ``to_factor[g][p]`` ``(n, D_p)``: messages ``m_{i->I}`` back.
* ``belief`` of a factor (its table's shape): ``phi_I + sum_{j in I} m_{j->I}``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

__all__: list[str] = []  # helpers of shared_core.optim.max_sum only

# --- factor graph -------------------------------------------------------------------------------


def _incidence(n_vars: int, scopes: list[tuple[int, ...]]) -> list[list[tuple[int, int]]]:
    """Per variable, the ``(factor, position)`` edges that reach it."""
    incidence: list[list[tuple[int, int]]] = [[] for _ in range(n_vars)]
    for f, scope in enumerate(scopes):
        for p, v in enumerate(scope):
            incidence[v].append((f, p))
    return incidence


def _is_forest(n_vars: int, scopes: list[tuple[int, ...]]) -> bool:
    """Whether the bipartite factor graph has no cycle: edges = nodes - components."""
    parent = list(range(n_vars))  # union-find over variables; a factor joins its variables

    def root(v: int) -> int:
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    for scope in scopes:
        for v in scope[1:]:
            parent[root(v)] = root(scope[0])
    used = {v for scope in scopes for v in scope}
    n_components = len({root(v) for v in used})
    n_edges = sum(len(scope) for scope in scopes)
    return n_edges == len(used) + len(scopes) - n_components


@dataclass(frozen=True)
class _Group:
    """The ``n`` factors whose tables share one shape ``(D_0, ..., D_{k-1})``, stacked.

    Attributes:
        factors: ``(n,)`` their indices in the factor list.
        tables: ``(n, D_0, ..., D_{k-1})`` their tables.
        slots: ``k`` arrays ``(n, D_p)``: where ``(variable at position p, h)`` sits in the flat
            layout of all variables' values (``offset[v] + h``).
    """

    factors: np.ndarray
    tables: np.ndarray
    slots: tuple[np.ndarray, ...]


def _groups(
    sizes: list[int], scopes: list[tuple[int, ...]], tables: list[np.ndarray]
) -> list[_Group]:
    """Factors stacked by table shape, so that each message update is one numpy call per group."""
    offsets = np.cumsum([0, *sizes])  # (V + 1,)
    by_shape: dict[tuple[int, ...], list[int]] = {}
    for f, table in enumerate(tables):
        by_shape.setdefault(table.shape, []).append(f)
    groups = []
    for shape, members in by_shape.items():
        variables = np.array([scopes[f] for f in members], dtype=np.int64)  # (n, k)
        slots = tuple(
            offsets[variables[:, p]][:, None] + np.arange(d)[None, :]  # (n, D_p)
            for p, d in enumerate(shape)
        )
        stacked = np.stack([tables[f] for f in members])  # (n, *shape)
        groups.append(_Group(np.array(members, dtype=np.int64), stacked, slots))
    return groups


# --- messages (eq. 3) ---------------------------------------------------------------------------

# Messages of a group, one ``(n, D_p)`` array per position ``p``.
_Messages = list[np.ndarray]


def _normalised(messages: np.ndarray) -> np.ndarray:
    """``messages`` ``(n, D)`` shifted to a row maximum of 0 (max-sum is invariant to the shift)."""
    shifted: np.ndarray = messages - np.max(messages, axis=1, keepdims=True)
    return shifted


def _rounds(
    groups: list[_Group], n_slots: int, damping: float
) -> Iterator[tuple[list[np.ndarray], float]]:
    """Synchronous max-sum from zero messages, one iteration per ``next``.

    Yields the beliefs ``(n, *shape)`` per group of the current messages and the largest change
    of a factor-to-variable message in the iteration that produced them (``inf`` at first).
    """
    to_var = [[np.zeros(slot.shape) for slot in group.slots] for group in groups]
    change = math.inf
    while True:
        to_factor = _variable_to_factor(groups, to_var, n_slots)
        beliefs = [_belief(group.tables, messages) for group, messages in zip(groups, to_factor)]
        yield beliefs, change
        change = 0.0
        for g, belief in enumerate(beliefs):
            computed = _factor_to_variable(belief, to_factor[g])
            for p, (new, old) in enumerate(zip(computed, to_var[g])):
                new = (1.0 - damping) * new + damping * old  # damping (0 on a forest)
                change = max(change, float(np.max(np.abs(new - old))))
                to_var[g][p] = new


def _unstacked(groups: list[_Group], stacked: list[np.ndarray]) -> list[np.ndarray]:
    """Per-group arrays ``(n, *shape)`` as one array per factor, in factor order."""
    out: list[np.ndarray] = [np.empty(0)] * sum(len(group.factors) for group in groups)
    for group, arrays in zip(groups, stacked):
        for f, array in zip(group.factors, arrays):
            out[f] = array
    return out


def _variable_to_factor(
    groups: list[_Group], to_var: list[_Messages], n_slots: int
) -> list[_Messages]:
    """``m_{i->I}(h) = sum_{I' in A(i) \\ I} m_{I'->i}(h)`` (eq. 3, second line), normalised."""
    slots = np.concatenate([slot.ravel() for group in groups for slot in group.slots])
    values = np.concatenate([message.ravel() for messages in to_var for message in messages])
    totals = np.bincount(slots, weights=values, minlength=n_slots)  # (sum D,): over all of A(i)
    return [
        [_normalised(totals[slot] - message) for slot, message in zip(group.slots, messages)]
        for group, messages in zip(groups, to_var)
    ]


def _outer_sum(messages: _Messages) -> np.ndarray:
    """``(n, D_1, ..., D_j)``: ``sum_p messages[p]``, each broadcast on its own axis."""
    total = messages[0]  # (n, D_1)
    for message in messages[1:]:
        # (n, D_1, ..., D_p, 1) + (n, 1, ..., 1, D_{p+1})
        total = total[..., None] + message.reshape(
            (len(message),) + (1,) * (total.ndim - 1) + (-1,)
        )
    return total


def _belief(tables: np.ndarray, to_factor: _Messages) -> np.ndarray:
    """``phi_I + sum_{j in I} m_{j->I}`` ``(n, *shape)``.

    The messages of all axes but the first are summed on their own grid (``1 / D_0`` of the table)
    and added to the tables, then the first axis' messages in place: numpy adds an operand
    broadcast on leading axes much faster than one broadcast on trailing ones (why: see
    [docs/design-decisions.md#max-sum-beliefs][max-sum-beliefs]).
    """
    first = to_factor[0]  # (n, D_0)
    if len(to_factor) == 1:
        return tables + first
    belief: np.ndarray = tables + _outer_sum(to_factor[1:])[:, None]
    belief += first.reshape(first.shape + (1,) * (tables.ndim - 2))
    return belief


def _max_marginals(belief: np.ndarray) -> _Messages:
    """``max`` of ``belief`` ``(n, *shape)`` over all axes but ``p``, ``(n, D_p)`` for each ``p``.

    The axes before ``p`` are reduced one at a time (each reduction then runs over contiguous
    blocks, and the reductions are shared between positions), the axes after ``p`` jointly: numpy
    reduces a strided axis with short inner blocks several times slower.
    """
    marginals = []
    reduced = belief  # (n, D_p, ..., D_{k-1}): max over the axes before p
    for _ in range(belief.ndim - 1):
        marginals.append(np.max(reduced, axis=tuple(range(2, reduced.ndim))))
        if reduced.ndim > 2:
            reduced = np.max(reduced, axis=1)
    return marginals


def _factor_to_variable(belief: np.ndarray, to_factor: _Messages) -> _Messages:
    """``m_{I->i}(h) = max_{h^{I\\i}} [Delta^{-i}(h^{I\\i}) + phi_I(h^{I\\i}, h)]`` (eq. 3, first
    line) for every factor of a group and each of its variables ``i``, normalised.

    ``Delta^{-i}`` sums the incoming messages of the other variables, so the bracket is the belief
    ``(n, *shape)`` minus ``m_{i->I}``, which depends on axis ``i`` only and comes out of the max.
    """
    marginals = _max_marginals(belief)  # k x (n, D_p)
    return [_normalised(m - message) for m, message in zip(marginals, to_factor)]
