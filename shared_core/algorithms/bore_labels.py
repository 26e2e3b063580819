"""The labels of BORE and BORE++ (:mod:`shared_core.algorithms.bore`): which observations form the
"good" class the classifier learns, with one objective, under constraints and with several
objectives. Constraints and several objectives reach BORE through these labels only.

``quantile_labels``: observations better than the ``gamma``-quantile ``tau`` are labelled 1, the
rest 0 (Tiao et al., "BORE: Bayesian optimization by density-ratio estimation", ICML 2021).

Constraints (our extension; neither paper treats them). BORE has no model of the objective's
values, so it has none per constraint either: the classifier itself learns "good and feasible"
against the rest, through the labels (:func:`constrained_labels`):

* a trial that violates a constraint (some value ``> 0``) is never good;
* with some feasible trials, the good class is the best ``ceil(gamma n_feasible)`` feasible
  trials by value (ties as in :func:`quantile_labels`);
* while no trial is feasible, the good class is the ``gamma``-fraction with the smallest total
  violation ``sum_j max(c_j, 0)`` (:func:`quantile_labels` of the violations), so the search moves
  towards the feasible region.

Feasibility is Optuna's (:attr:`~shared_core.interface.Observations.feasible`: a missing value
does not count), so a study without constraint values gets :func:`quantile_labels` of ``y``.

Several objectives (MBORE: De Ath, Chugh & Rahat, "MBORE: multi-objective Bayesian optimisation
by density-ratio estimation", GECCO 2022). With ``y`` of shape ``(n, m)`` the classifier is the
same; only the labels change (:func:`pareto_labels`): each point gets a scalar, and the good class
is :func:`quantile_labels` of it. The scalar is the paper's HypI (hypervolume improvement, from
Rahat, Everson & Fieldsend, "Alternative infill strategies for expensive multi-objective
optimisation", GECCO 2017): with the points sorted into non-dominated shells ``S_0, S_1, ...``
(:func:`~shared_core.pareto.dominance_ranks`), a point ``x`` of shell ``S_k`` scores the
hypervolume of ``S_{k+1} ∪ {x}`` (that of ``{x}`` alone in the last shell), larger being better.
The score never increases from one shell to the next, so the non-dominated points are good first
and a shell cut by the quantile keeps the points that add the most hypervolume to the shell behind
it (spread along the front, not bunched). Ties between shells go to the better shell. The paper
also has a dominance-count rank (DomRank), a Pareto-compliant hypervolume contribution (PHC) and an
augmented Chebyshev scalarisation. The hypervolume's reference point is the given entries of
``Observations.reference_point``, the others from
:func:`~shared_core.pareto.infer_reference_point` of the feasible points. Only the shell that the
quantile cuts needs hypervolumes: its points are ordered by their exclusive contribution to it
and the shell behind (the same order as HypI), the other shells are all good or all bad. With
constraints the same rule applies to the feasible points (infeasible ones are never good, least
violation while none is feasible); with one objective the labels are exactly those above.
"""

from __future__ import annotations

import math
from typing import cast

import numpy as np

from shared_core.interface import Observations
from shared_core.pareto import completed_reference_point, dominance_ranks, hypervolume

__all__ = [
    "MAX_EXACT_HYPI_OBJECTIVES",
    "constrained_labels",
    "pareto_labels",
    "quantile_labels",
    "reference_point_of",
]


def quantile_labels(y: np.ndarray, gamma: float) -> np.ndarray:
    """``(n,)`` labels 1 for the best values of ``y`` (minimised), 0 otherwise.

    ``tau`` is the ``ceil(gamma n)``-th smallest value and good means ``y <= tau``, unless
    values tied with ``tau`` would make more than ``ceil(gamma n)`` points good while some
    value is below ``tau``: then good means ``y < tau``. So on a plateau (many equal bad
    values, e.g. failures reported as ``inf``) the few better trials stay the only positives.
    Equal values always get equal labels. With one point, or when every value ties (a constant
    objective), every label is 1: the classifier is flat and BORE++ explores through ``sigma``.
    """
    n = len(y)
    if n == 0:
        return np.zeros(0)
    k = min(n, max(1, math.ceil(gamma * n)))
    tau = np.sort(y)[k - 1]
    good = y <= tau
    if good.sum() > k and (y < tau).any():
        good = y < tau
    return cast(np.ndarray, good.astype(np.float64))


# Above this many objectives the exact HypI of a cut shell (one hypervolume per point, each
# ``O(n^{m-1})``) costs seconds per suggestion at a few hundred trials; the shell is then ordered
# by the volume each point dominates alone.
MAX_EXACT_HYPI_OBJECTIVES = 3


def pareto_labels(Y: np.ndarray, reference_point: np.ndarray, gamma: float) -> np.ndarray:
    """``(n,)`` MBORE labels of the points ``Y`` ``(n, m)`` (every objective minimised):
    :func:`quantile_labels` of the HypI scalarisation (see the module docstring).

    The good class holds ``ceil(gamma n)`` points with the tie rule of :func:`quantile_labels`:
    whole non-dominated shells, best first, then the points of the shell that the quantile cuts
    with the largest hypervolume improvement over the next shell (reference point
    ``reference_point`` ``(m,)``). Equal points get equal labels.
    """
    n = len(Y)
    if n == 0:
        return np.zeros(0)
    k = min(n, max(1, math.ceil(gamma * n)))
    shell = dominance_ranks(Y)  # (n,)
    cut = int(np.searchsorted(np.cumsum(np.bincount(shell)), k))  # the shell of the k-th best point
    score = shell.astype(np.float64)  # (n,) smaller is better
    rows = np.flatnonzero(shell == cut)
    if np.count_nonzero(shell <= cut) > k:  # the cut splits this shell: order it by HypI
        Y_unit, r_unit = _unit_scale(Y, reference_point)
        if Y.shape[1] <= MAX_EXACT_HYPI_OBJECTIVES:
            # HypI less the hypervolume of the next shell, common to the whole shell
            gain = _hypervolume_gains(Y_unit[rows], Y_unit[shell == cut + 1], r_unit)
        else:  # the volume each point dominates alone: no hypervolume of the next shell
            gain = np.prod(np.clip(r_unit - Y_unit[rows], 0.0, None), axis=1)
        # relative rounding: gains equal up to floating-point error tie
        gain = np.round(gain / max(float(gain.max()), np.finfo(float).tiny), 12)
        # in [cut, cut + 1): the shell stays between its neighbours, equal gains tie
        _, position = np.unique(-gain, return_inverse=True)
        score[rows] += position.reshape(-1) / len(rows)
    return quantile_labels(score, gamma)


def _unit_scale(Y: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``Y`` ``(n, m)`` and ``r`` ``(m,)`` mapped per objective by ``(v - ideal) / (r - ideal)``
    (``ideal``: the smallest value; a scale of 1 where ``r`` is not above it): an increasing map
    per objective, so dominance and the order of hypervolume gains are kept, while values of any
    magnitude stay of order one."""
    ideal = Y.min(axis=0)
    span = np.where(r > ideal, r - ideal, 1.0)
    return (Y - ideal) / span, (r - ideal) / span


def _hypervolume_gains(points: np.ndarray, behind: np.ndarray, r: np.ndarray) -> np.ndarray:
    """``(b,)`` hypervolume that each of ``points`` ``(b, m)`` alone adds to ``behind`` ``(c, m)``
    (reference point ``r``): the volume of its box ``[x, r]`` less the hypervolume of ``behind``
    clipped to the box (``max(a, x)``)."""
    gains = np.zeros(len(points))
    for i, x in enumerate(points):
        if np.all(x < r):
            gains[i] = np.prod(r - x) - hypervolume(np.maximum(behind, x), r)
    return np.maximum(gains, 0.0)


def reference_point_of(obs: Observations) -> np.ndarray:
    """``(m,)`` hypervolume reference point for ``obs``: the given entries of
    ``obs.reference_point``, the others (NaN, or all when it is None) from
    :func:`~shared_core.pareto.infer_reference_point` of the feasible rows (all rows if none is
    feasible; :func:`~shared_core.pareto.completed_reference_point`). ``obs`` has at least one
    row."""
    return completed_reference_point(obs.Y, obs.reference_point, obs.feasible)


def constrained_labels(obs: Observations, gamma: float) -> np.ndarray:
    """``(n,)`` labels of ``obs`` with its constraints: 1 for the best feasible values, 0 otherwise.

    Infeasible points (:attr:`Observations.feasible`) are never good. With ``f > 0`` feasible
    points, the good ones are :func:`quantile_labels` of their values, i.e. the best
    ``ceil(gamma f)`` with the same tie rule (with several objectives, :func:`pareto_labels` of
    the feasible points, reference point :func:`reference_point_of`). With none, the good ones are
    :func:`quantile_labels` of the total violations (:attr:`Observations.violation`): the least
    violating. Without constraint values every point is feasible and the labels are
    ``quantile_labels(obs.y, gamma)`` (``pareto_labels`` of ``obs.y``).
    """
    feasible = obs.feasible  # (n,)
    if not feasible.any():
        return quantile_labels(obs.violation, gamma)
    z = np.zeros(len(obs.y))
    if obs.n_objectives == 1:
        z[feasible] = quantile_labels(obs.y[feasible], gamma)
    else:
        z[feasible] = pareto_labels(obs.Y[feasible], reference_point_of(obs), gamma)
    return z
