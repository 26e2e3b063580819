"""Pareto dominance and hypervolume of minimised objective vectors.

Glossary (shapes in comments):
    n: points; m: objectives (every objective is minimised).
    ``a`` dominates ``b``: ``a_i <= b_i`` for every ``i`` and ``a_i < b_i`` for some ``i``.
    reference point ``r`` ``(m,)``: the hypervolume of a set is the Lebesgue measure of the region
        it dominates inside the box bounded by ``r``; only points with every ``y_i < r_i`` count.

The hypervolume is computed by slicing (Hypervolume by Slicing Objectives, While, Hingston, Barone
& Huband, "A faster algorithm for calculating hypervolume", IEEE TEVC 2006): exact, with a sweep in
two objectives and a recursion on the last objective above (in three objectives the sweeps of all
slices at once, with ``(n, n)`` arrays); ``O(n^{m-1} log n)``, fast for the fronts of a study
(hundreds of points, 2-4 objectives).
"""

from __future__ import annotations

from typing import cast

import numpy as np

__all__ = [
    "completed_reference_point",
    "dominance_ranks",
    "hypervolume",
    "hypervolume_contributions",
    "hypervolume_improvements",
    "infer_reference_point",
    "non_dominated",
]

# the inferred reference point's margin beyond the nadir, a fraction of the front's range
REFERENCE_POINT_SCALE = 0.1
# most points whose three-objective hypervolume is swept at once ((n, n) arrays), not slice by slice
_MAX_VECTORISED = 1000


def _dominates_matrix(Y: np.ndarray) -> np.ndarray:
    """``(n, n)`` boolean: entry ``[i, j]`` is True when point ``i`` dominates point ``j``."""
    n = len(Y)
    weakly = np.ones((n, n), dtype=bool)
    strictly = np.zeros((n, n), dtype=bool)
    for column in Y.T:  # (n,) per objective: n^2 booleans at a time, not n^2 m floats
        weakly &= column[:, None] <= column[None, :]
        strictly |= column[:, None] < column[None, :]
    return weakly & strictly


def non_dominated(Y: np.ndarray) -> np.ndarray:
    """``(n,)`` mask of the points of ``Y`` ``(n, m)`` that no other point dominates (equal points
    are all non-dominated)."""
    Y = np.asarray(Y, dtype=np.float64)
    if len(Y) == 0:
        return np.zeros(0, dtype=bool)
    return cast(np.ndarray, ~_dominates_matrix(Y).any(axis=0))


def dominance_ranks(Y: np.ndarray) -> np.ndarray:
    """``(n,)`` non-dominated sorting ranks of ``Y`` ``(n, m)`` (Deb et al., "A fast and elitist
    multiobjective genetic algorithm: NSGA-II", 2002): 0 for the non-dominated points, 1 for
    those non-dominated once rank 0 is removed, and so on."""
    Y = np.asarray(Y, dtype=np.float64)
    dominates = _dominates_matrix(Y)  # (n, n)
    ranks = np.full(len(Y), -1, dtype=np.int64)
    remaining = np.ones(len(Y), dtype=bool)
    rank = 0
    while remaining.any():
        # a remaining point is in this front if no remaining point dominates it
        front = remaining & ~dominates[remaining].any(axis=0)
        ranks[front] = rank
        remaining &= ~front
        rank += 1
    return ranks


def hypervolume(Y: np.ndarray, reference_point: np.ndarray) -> float:
    """The hypervolume that the points of ``Y`` ``(n, m)`` dominate inside the box bounded by
    ``reference_point`` ``(m,)`` (0 if no point is below it in every objective)."""
    Y = np.asarray(Y, dtype=np.float64)
    r = np.asarray(reference_point, dtype=np.float64).reshape(-1)
    if Y.ndim != 2 or Y.shape[1] != len(r):
        raise ValueError(f"Y must have shape (n, {len(r)}) for this reference point, got {Y.shape}")
    Y = Y[np.all(Y < r, axis=1)]
    if len(Y) == 0:
        return 0.0
    # the sweeps of two and three objectives need no filtering: dominated points add nothing
    return _sliced_volume(Y if len(r) <= 3 else Y[non_dominated(Y)], r)


def _sliced_volume(Y: np.ndarray, r: np.ndarray) -> float:
    """Hypervolume of points ``(n, m)`` all below ``r`` ``(m,)``: a sweep for ``m <= 2``, else the
    sum over slices of the last objective of the ``(m - 1)``-objective volume of the points below
    the slice."""
    m = Y.shape[1]
    if m == 1:
        return float(r[0] - Y[:, 0].min())
    order = np.argsort(Y[:, -1], kind="stable")
    Y = Y[order]
    if m == 2:
        # sweep in y_1: each point adds the strip between its y_1 and the next one, as wide as
        # the best y_0 so far (dominated points add nothing beyond it, so none is filtered out)
        heights = np.diff(np.append(Y[:, 1], r[1]))  # (n,)
        return float(np.sum((r[0] - np.minimum.accumulate(Y[:, 0])) * heights))
    if m == 3 and len(Y) <= _MAX_VECTORISED:
        # every slice's sweep at once: column i of the (n, n) arrays keeps the points at or
        # below slice i (rows in y_1 order); an interval of y_1 before its first point is 0 wide
        by_y1 = np.argsort(Y[:, 1], kind="stable")  # (n,)
        below = by_y1[:, None] <= np.arange(len(Y))[None, :]  # (n, n)
        best = np.minimum.accumulate(np.where(below, Y[by_y1, :1], r[0]), axis=0)  # (n, n)
        areas = np.diff(np.append(Y[by_y1, 1], r[1])) @ (r[0] - best)  # (n,)
        return float(areas @ np.diff(np.append(Y[:, 2], r[2])))
    volume = 0.0
    for i in range(len(Y)):
        height = (Y[i + 1, -1] if i + 1 < len(Y) else r[-1]) - Y[i, -1]
        if height > 0.0:
            below = Y[: i + 1, :-1]  # the points at or below this slice, last objective dropped
            if m > 3:  # the sweep needs no filtering; deeper recursions gain from it
                below = below[non_dominated(below)]
            volume += _sliced_volume(below, r[:-1]) * height
    return float(volume)


def hypervolume_contributions(Y: np.ndarray, reference_point: np.ndarray) -> np.ndarray:
    """``(n,)`` exclusive hypervolume contribution of each point of ``Y`` ``(n, m)``: the
    hypervolume lost when it alone is removed (0 for dominated points, points not below the
    reference point, and each of several equal points)."""
    Y = np.asarray(Y, dtype=np.float64)
    total = hypervolume(Y, reference_point)
    out = np.zeros(len(Y))
    candidates = np.flatnonzero(non_dominated(Y) & np.all(Y < reference_point, axis=1))
    for i in candidates:
        out[i] = total - hypervolume(np.delete(Y, i, axis=0), reference_point)
    return np.maximum(out, 0.0)


def hypervolume_improvements(
    Y_new: np.ndarray, Y: np.ndarray, reference_point: np.ndarray
) -> np.ndarray:
    """``(b,)`` hypervolume improvement of each point of ``Y_new`` ``(b, m)`` alone over the points
    ``Y`` ``(n, m)``: ``HV(Y + {y}) - HV(Y)``.

    The region ``y`` adds is the box ``[y, r]`` less its part dominated by ``Y``, which is the
    region dominated by the points ``max(y, Y_k)`` (componentwise): ``prod(r - y) - HV(max(y, Y),
    r)``. Two objectives are computed for every point at once (a sweep over the sorted points);
    more objectives point by point, for the points that no point of ``Y`` weakly dominates.
    """
    Y_new = np.asarray(Y_new, dtype=np.float64)
    r = np.asarray(reference_point, dtype=np.float64).reshape(-1)
    Y = np.asarray(Y, dtype=np.float64).reshape(-1, len(r))
    Y = Y[np.all(Y < r, axis=1)]
    below = np.all(Y_new < r, axis=1)  # (b,)
    if len(Y):
        Y = Y[non_dominated(Y)]
        weakly_dominated = np.any(np.all(Y[None] <= Y_new[:, None], axis=2), axis=1)  # (b,)
        below &= ~weakly_dominated
    out = np.zeros(len(Y_new))
    box = np.prod(r - Y_new[below], axis=1)  # (c,)
    if not len(Y):
        out[below] = box
        return out
    clipped = np.maximum(Y[None], Y_new[below][:, None])  # (c, n, m)
    if len(r) == 2:
        # per point: sort the clipped points by objective 0; each adds a strip of height
        # r_1 - (the best objective 1 so far) up to the next point's objective 0
        order = np.argsort(clipped[..., 0], axis=1)
        c0 = np.take_along_axis(clipped[..., 0], order, axis=1)  # (c, n)
        c1 = np.minimum.accumulate(np.take_along_axis(clipped[..., 1], order, axis=1), axis=1)
        widths = np.diff(np.concatenate([c0, np.full((len(c0), 1), r[0])], axis=1), axis=1)
        dominated = np.sum(widths * (r[1] - c1), axis=1)
    else:
        dominated = np.array([hypervolume(c, r) for c in clipped])
    out[below] = np.maximum(box - dominated, 0.0)
    return out


def infer_reference_point(Y: np.ndarray, scale: float = REFERENCE_POINT_SCALE) -> np.ndarray:
    """``(m,)`` reference point for the points ``Y`` ``(n, m)`` (n >= 1), as BoTorch's
    ``infer_reference_point`` (which Ax uses for missing objective thresholds) in the minimised
    convention: the nadir of the non-dominated points plus ``scale`` times the front's range per
    objective (times ``max(|nadir|, 1)`` where the range is 0, e.g. one point)."""
    Y = np.asarray(Y, dtype=np.float64)
    if Y.ndim != 2 or len(Y) == 0:
        raise ValueError(f"Y must have shape (n, m) with n >= 1, got {Y.shape}")
    front = Y[non_dominated(Y)]
    nadir, ideal = front.max(axis=0), front.min(axis=0)  # (m,)
    span = nadir - ideal
    span = np.where(span > 0.0, span, np.maximum(np.abs(nadir), 1.0))
    return cast(np.ndarray, nadir + scale * span)


def completed_reference_point(
    Y: np.ndarray, given: np.ndarray | None = None, feasible: np.ndarray | None = None
) -> np.ndarray:
    """``(m,)`` the reference point the algorithms use for the points ``Y`` ``(n, m)`` (n >= 1):
    the entries of ``given`` ``(m,)`` that are not NaN, the others from
    :func:`infer_reference_point` of the ``feasible`` ``(n,)`` rows (of every row if none is
    feasible or ``feasible`` is None)."""
    Y = np.asarray(Y, dtype=np.float64)
    given = np.full(Y.shape[1], np.nan) if given is None else np.asarray(given, dtype=np.float64)
    if not np.isnan(given).any():
        return cast(np.ndarray, given.copy())
    rows = np.ones(len(Y), dtype=bool) if feasible is None or not np.any(feasible) else feasible
    return np.where(np.isnan(given), infer_reference_point(Y[rows]), given)
