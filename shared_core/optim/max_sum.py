"""Max-sum message passing over per-variable discrete grids, for DEC-HBO (Hoang, Hoang, Ouyang &
Low, "Decentralized high-dimensional Bayesian optimization with factor graphs", 2018, Sec. 3.3).

The objective is a sum of factors, each a table over the product grid of a few variables:

    F(x) = sum_I phi_I(x^I),    x^(i) in {0, ..., D[i] - 1}

Glossary (shapes in brackets):

* ``V``: number of variables; ``D[i]``: grid size of variable ``i``; ``F``: number of factors.
* ``factors[f].variables``: the ``k`` variables of factor ``f`` (its set ``I``, in table-axis
  order); ``factors[f].table`` ``(D[v] for v in variables)``: ``phi_I`` on the product grid.
* ``belief`` of a factor (its table's shape): ``phi_I + sum_{j in I} m_{j->I}``; the messages
  and their schedule are in :mod:`shared_core.optim.max_sum_messages`.

Method:

1. Messages (eq. 3), updated synchronously (a flooding schedule): one iteration computes every
   ``m_{i->I}`` from the current ``m_{I'->i}``, then every ``m_{I->i}`` from those. Every message
   is normalised to a maximum of 0 so that messages cannot drift on loopy graphs. On a factor graph
   with a cycle, factor-to-variable messages are damped,
   ``m_{I->i} <- (1 - damping) * computed + damping * old`` (``damping = 0`` is plain max-sum);
   on a forest damping is not applied, since plain max-sum is exact there and converges within
   the graph's diameter. Iteration stops after ``iterations`` rounds, or earlier once the largest
   change of a factor-to-variable message is at most ``tol`` (``converged``).
2. Decoding (eq. 4), made consistent: factors are visited breadth first over the factor graph, and
   each one sets its still-free variables to the maximiser of its belief with its already-decoded
   variables held fixed. On a tree with converged messages the beliefs are max-marginals and this
   yields a global maximiser. On a loopy graph, where messages may oscillate, every iteration's
   messages are decoded and the decoding of highest ``F`` is kept (an "anytime" max-sum).
3. Iterated conditional modes (ICM): sweeps over the variables set each to its best grid value
   given the others, until no single change improves ``F`` (so on loopy graphs the result is at
   least a local optimum in this sense). With ``rng``, :data:`N_RANDOM_STARTS` further ICM runs
   start from uniformly random assignments; the best assignment is returned (the decoded one
   wins ties).

Variables in no factor get index 0 (with no factors at all: no iteration, ``converged``).

Cost: one iteration touches every table entry about ``k + 1`` times (timings:
[docs/design-decisions.md#max-sum-cost][max-sum-cost]).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from shared_core.optim.max_sum_messages import _groups, _incidence, _is_forest, _rounds, _unstacked
from shared_core.validation import check_int, check_real

__all__ = ["N_RANDOM_STARTS", "Factor", "MaxSumResult", "max_sum"]

N_RANDOM_STARTS = 4  # ICM runs from random starts when an rng is given
_MAX_ICM_SWEEPS = 100  # cap on ICM sweeps; every sweep but the last strictly improves F


@dataclass(frozen=True)
class Factor:
    """One term ``phi_I`` of the objective.

    Attributes:
        variables: Distinct variable indices ``I`` (at least one), in the order of the table's axes.
        table: ``(D[v] for v in variables)`` float64: the factor's value on the product grid.
    """

    variables: tuple[int, ...]
    table: np.ndarray


@dataclass(frozen=True)
class MaxSumResult:
    """Outcome of :func:`max_sum`.

    Attributes:
        assignment: ``(V,)`` int64: grid index per variable.
        value: Sum of the factor tables at ``assignment``.
        iterations: Message-passing iterations run.
        converged: Whether the messages stopped changing (within ``tol``) before the limit.
    """

    assignment: np.ndarray
    value: float
    iterations: int
    converged: bool


def max_sum(
    domain_sizes: Sequence[int],
    factors: Sequence[Factor],
    *,
    iterations: int = 30,
    damping: float = 0.0,
    tol: float = 1e-9,
    rng: np.random.Generator | None = None,
) -> MaxSumResult:
    """Maximise ``sum_I phi_I(x^I)`` over the product grid by max-sum, decoding and ICM.

    Args:
        domain_sizes: ``(V,)`` grid size ``D[i] >= 1`` of each variable.
        factors: The terms; each table's shape must be ``(D[v] for v in variables)``.
        iterations: Most message-passing iterations (the paper runs 30 per BO step).
        damping: In ``[0, 1)``; on a factor graph with a cycle,
            ``m_{I->i} <- (1 - damping) * computed + damping * old``; 0 (the default) is plain
            max-sum. Not applied on a forest.
        tol: Messages have converged once no factor-to-variable message changes by more than this.
        rng: If given, :data:`N_RANDOM_STARTS` extra ICM runs from random assignments.

    Returns:
        The best assignment found, its value, the iterations run and whether messages converged.

    Raises:
        ValueError: On a domain size below 1, a factor with no, repeated or out-of-range variables,
            a table of the wrong shape or with non-finite entries, ``iterations < 1``, ``damping``
            outside ``[0, 1)`` or a negative or non-finite ``tol``.
    """
    sizes = [check_int(f"domain_sizes[{i}]", d, minimum=1) for i, d in enumerate(domain_sizes)]
    iterations = check_int("iterations", iterations, minimum=1)
    damping = check_real("damping", damping, low=0.0, high=1.0, high_open=True)
    tol = check_real("tol", tol, low=0.0)
    scopes, tables = _checked_factors(sizes, factors)
    if not scopes:  # nothing to pass or decode
        return MaxSumResult(np.zeros(len(sizes), dtype=np.int64), 0.0, iterations=0, converged=True)

    groups = _groups(sizes, scopes, tables)
    incidence = _incidence(len(sizes), scopes)
    loopy = not _is_forest(len(sizes), scopes)

    # Messages (eq. 3), decoding (eq. 4): after every iteration on a loopy graph, else at the end.
    rounds = _rounds(groups, sum(sizes), damping if loopy else 0.0)
    next(rounds)  # the beliefs of the zero messages: the tables
    best, best_value = np.zeros(len(sizes), dtype=np.int64), -math.inf
    run, converged = 0, False
    while run < iterations and not converged:
        beliefs, change = next(rounds)
        run, converged = run + 1, change <= tol
        if loopy or converged or run == iterations:
            decoded = _decode(scopes, _unstacked(groups, beliefs), incidence)
            value = _total_value(decoded, scopes, tables)
            if value > best_value:
                best, best_value = decoded, value

    # ICM from the decoded assignment, then optionally from random starts.
    used = np.array([len(edges) > 0 for edges in incidence], dtype=bool)  # (V,)
    best = _icm(best, scopes, tables, incidence)
    best_value = _total_value(best, scopes, tables)
    if rng is not None:
        for _ in range(N_RANDOM_STARTS):
            start = np.where(used, rng.integers(0, sizes), 0).astype(np.int64)  # (V,)
            candidate = _icm(start, scopes, tables, incidence)
            value = _total_value(candidate, scopes, tables)
            if value > best_value:
                best, best_value = candidate, value
    return MaxSumResult(assignment=best, value=best_value, iterations=run, converged=converged)


# --- validation ---------------------------------------------------------------------------------


def _checked_factors(
    sizes: list[int], factors: Sequence[Factor]
) -> tuple[list[tuple[int, ...]], list[np.ndarray]]:
    """Scopes and float64 tables of ``factors``, else ``ValueError`` naming the bad value."""
    scopes: list[tuple[int, ...]] = []
    tables: list[np.ndarray] = []
    for f, factor in enumerate(factors):
        scope = tuple(
            check_int(f"factors[{f}].variables[{p}]", v, minimum=0)
            for p, v in enumerate(factor.variables)
        )
        if not scope:
            raise ValueError(f"factors[{f}].variables must not be empty, got {factor.variables!r}")
        if len(set(scope)) != len(scope):
            raise ValueError(f"factors[{f}].variables has a repeated variable: {scope!r}")
        for v in scope:
            if v >= len(sizes):
                raise ValueError(
                    f"factors[{f}].variables has variable {v} out of range for {len(sizes)} "
                    f"variables: {scope!r}"
                )
        table = np.asarray(factor.table, dtype=np.float64)
        expected = tuple(sizes[v] for v in scope)
        if table.shape != expected:
            raise ValueError(
                f"factors[{f}].table has shape {table.shape}, expected {expected} "
                f"(domain sizes of variables {scope})"
            )
        if not np.all(np.isfinite(table)):
            raise ValueError(f"factors[{f}].table has non-finite values: {table!r}")
        scopes.append(scope)
        tables.append(table)
    return scopes, tables


# --- decoding (eq. 4) and ICM -------------------------------------------------------------------


def _decode(
    scopes: list[tuple[int, ...]],
    beliefs: list[np.ndarray],
    incidence: list[list[tuple[int, int]]],
) -> np.ndarray:
    """Consistent assignment ``(V,)`` from the beliefs, visiting factors breadth first.

    Each factor maximises ``phi_I + sum_{i in I} m_{i->I}`` (eq. 4, over all of ``I`` at once)
    over its free variables, with its already-decoded variables fixed.
    """
    assignment = np.full(len(incidence), -1, dtype=np.int64)  # (V,), -1: not decoded yet
    visited = np.zeros(len(scopes), dtype=bool)  # (F,)
    for root in range(len(scopes)):
        if visited[root]:
            continue
        visited[root] = True
        queue = deque([root])
        while queue:
            f = queue.popleft()
            _decode_factor(scopes[f], beliefs[f], assignment)
            for v in scopes[f]:
                for g, _ in incidence[v]:
                    if not visited[g]:
                        visited[g] = True
                        queue.append(g)
    assignment[assignment < 0] = 0  # variables in no factor
    return assignment


def _decode_factor(scope: tuple[int, ...], belief: np.ndarray, assignment: np.ndarray) -> None:
    """Set the free variables of ``scope`` (``assignment < 0``) to the belief's maximiser."""
    free = [p for p, v in enumerate(scope) if assignment[v] < 0]
    if not free:
        return
    index = tuple(slice(None) if assignment[v] < 0 else int(assignment[v]) for v in scope)
    conditional = belief[index]  # (D[v] for the free v)
    best = np.unravel_index(int(np.argmax(conditional)), conditional.shape)
    for p, h in zip(free, best):
        assignment[scope[p]] = h


def _local_values(
    v: int,
    assignment: np.ndarray,
    scopes: list[tuple[int, ...]],
    tables: list[np.ndarray],
    edges: list[tuple[int, int]],
) -> np.ndarray:
    """``(D[v],)``: the factors containing ``v`` summed at every value of ``v``, others fixed."""
    values: np.ndarray = np.zeros(tables[edges[0][0]].shape[edges[0][1]])
    for f, p in edges:
        index = tuple(
            slice(None) if q == p else int(assignment[u]) for q, u in enumerate(scopes[f])
        )
        values += tables[f][index]
    return values


def _icm(
    start: np.ndarray,
    scopes: list[tuple[int, ...]],
    tables: list[np.ndarray],
    incidence: list[list[tuple[int, int]]],
) -> np.ndarray:
    """Coordinate ascent from ``start`` ``(V,)``; a variable moves only to a strictly better value.

    Every move strictly increases ``F``, so the sweeps end at an assignment that no single change
    improves (or after :data:`_MAX_ICM_SWEEPS`).
    """
    assignment: np.ndarray = start.copy()  # (V,)
    for _ in range(_MAX_ICM_SWEEPS):
        moved = False
        for v, edges in enumerate(incidence):
            if not edges:
                continue
            values = _local_values(v, assignment, scopes, tables, edges)
            best = int(np.argmax(values))
            if values[best] > values[assignment[v]]:
                assignment[v] = best
                moved = True
        if not moved:
            break
    return assignment


def _total_value(
    assignment: np.ndarray, scopes: list[tuple[int, ...]], tables: list[np.ndarray]
) -> float:
    """``F(x) = sum_I phi_I(x^I)`` at ``assignment`` ``(V,)``."""
    return math.fsum(
        float(table[tuple(int(assignment[v]) for v in scope)])
        for scope, table in zip(scopes, tables)
    )
