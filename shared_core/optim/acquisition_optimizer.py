"""Maximisation of an acquisition function over an encoded mixed search space.

The acquisition is any :class:`~shared_core.acquisition.base.Acquisition`
(``value`` and ``value_and_grad``).

Method (shared by every algorithm):
1. Raw candidates: scrambled Halton points plus Gaussian perturbations of the best observed points.
2. The ``n_starts`` best raw candidates start a batched L-BFGS-B over the continuous columns (floats
   and ints; categorical one-hot columns held fixed), with analytic gradients.
3. Categorical parameters are optimised by coordinate ascent: every choice of each categorical
   parameter is tried at the current point (so one-hot columns never take fractional values), then
   L-BFGS-B runs once more on the continuous columns.
4. Every result is snapped to a valid encoding (grids rounded, one-hots exact) and the best kept.

An acquisition that is not continuous (SCBO's Thompson rule jumps at the boundary of the sampled
feasible set) comes with a ``smooth`` counterpart: L-BFGS-B follows ``smooth``, while the
acquisition itself ranks the raw candidates, chooses categories and picks the result among the
refined and the best raw candidates, so the result is never worse by it than the best raw one.

Conditional spaces (``space.conditions``): every point evaluated has its inactive parameters at
their fixed encoding (``SearchSpace.impute_inactive``); L-BFGS-B moves only the active columns and
never an int parent (which changes with the raw candidates only); categorical ascent visits parents
before their children.

Linear constraints (``space.constraints``): infeasible raw candidates are dropped, and an L-BFGS-B
result that left the feasible set is pulled back along the segment from its (feasible) start by
bisection, so every returned point satisfies the constraints after decoding.
"""

from __future__ import annotations

from typing import cast

import numpy as np
from scipy.optimize import minimize

from shared_core.acquisition.base import Acquisition
from shared_core.search_space import SearchSpace

__all__ = ["maximize_acquisition", "raw_candidates", "pull_back", "matches_any"]


def raw_candidates(
    space: SearchSpace, rng: np.random.Generator, n_raw: int, X_best: np.ndarray
) -> np.ndarray:
    """``(n_raw + local, d)`` valid candidates: scrambled
    Halton plus perturbations of ``X_best`` ``(k, d)``."""
    X = space.sample(rng, n_raw)
    cont = space.continuous_columns
    if len(X_best) and len(cont):
        reps = max(1, n_raw // (4 * len(X_best)))
        local = np.repeat(X_best, reps, axis=0)
        scale = rng.choice([0.01, 0.05, 0.2], size=(len(local), 1))
        local[:, cont] = np.clip(
            local[:, cont] + scale * rng.standard_normal((len(local), len(cont))), 0, 1
        )
        X = np.vstack([X, space.round_to_valid(local)])
    return X


def _lbfgs_continuous(
    acq: Acquisition, space: SearchSpace, X0: np.ndarray, maxiter: int
) -> np.ndarray:
    """Batched L-BFGS-B over the continuous columns of every row of ``X0`` ``(s, d)``."""
    cont = space.continuous_columns
    if len(cont) == 0:
        return X0
    s, c = len(X0), len(cont)
    base = space.impute_inactive(X0)
    # (s, c): a conditional space's inactive columns stay at their fixed encoding, and so do its
    # int parents (a move would change which columns are active)
    moving = active_columns(space, base)[:, cont] & ~np.isin(cont, space.parent_columns)

    def fun(z: np.ndarray) -> tuple[float, np.ndarray]:
        X = base.copy()
        X[:, cont] = np.where(moving, z.reshape(s, c), base[:, cont])
        vals, grads = acq.value_and_grad(X)
        # one bad start must not stop the others
        vals = np.nan_to_num(vals, nan=-1e10, neginf=-1e10, posinf=1e10)
        return -float(np.sum(vals)), -(np.nan_to_num(grads[:, cont]) * moving).ravel()

    res = minimize(
        fun,
        X0[:, cont].ravel(),
        jac=True,
        method="L-BFGS-B",
        bounds=[(0.0, 1.0)] * (s * c),
        options={"maxiter": maxiter},
    )
    out = base.copy()
    out[:, cont] = np.where(moving, np.clip(res.x.reshape(s, c), 0.0, 1.0), base[:, cont])
    return cast(np.ndarray, out)


def active_columns(space: SearchSpace, X: np.ndarray) -> np.ndarray:
    """``(n, d)`` mask of the columns of active parameters at the points ``X`` ``(n, d)``."""
    mask = np.ones(X.shape, dtype=bool)
    if space.is_conditional:
        for name, active in space.active(X).items():
            mask[:, space.columns[name]] = active[:, None]
    return mask


def pull_back(space: SearchSpace, starts: np.ndarray, X: np.ndarray, steps: int = 30) -> np.ndarray:
    """Rows of ``X`` ``(s, d)`` moved towards their
    feasible ``starts`` until feasible (bisection)."""
    bad = ~space.feasible(space.round_to_valid(X))
    if not bad.any():
        return X
    lo = np.zeros(int(bad.sum()))  # fraction of the step known feasible
    hi = np.ones_like(lo)
    S, E = starts[bad], X[bad]
    for _ in range(steps):
        mid = 0.5 * (lo + hi)
        ok = space.feasible(space.round_to_valid(S + mid[:, None] * (E - S)))
        lo, hi = np.where(ok, mid, lo), np.where(ok, hi, mid)
    X = X.copy()
    X[bad] = S + lo[:, None] * (E - S)
    return X


def _categorical_ascent(acq: Acquisition, space: SearchSpace, X: np.ndarray) -> np.ndarray:
    """For each row and each categorical parameter, switch to the best choice (others fixed; in a
    conditional space the parameters a switch activates start at their fixed encoding)."""
    X = X.copy()
    for group in space.categorical_groups:
        best_vals = acq.value(X)
        for col in group:
            trial = X.copy()
            trial[:, group] = 0.0
            trial[:, col] = 1.0
            trial = space.impute_inactive(trial)
            vals = acq.value(trial)
            better = vals > best_vals
            X[better], best_vals[better] = trial[better], vals[better]
    return X


def maximize_acquisition(
    acq: Acquisition,
    space: SearchSpace,
    rng: np.random.Generator,
    *,
    X_best: np.ndarray | None = None,
    n_raw: int = 512,
    n_starts: int = 8,
    maxiter: int = 100,
    avoid: np.ndarray | None = None,
    smooth: Acquisition | None = None,
    keep_best: bool = False,
) -> np.ndarray:
    """Return the ``(d,)`` valid encoded point with the largest acquisition value found.

    ``keep_best``: ``X_best``'s rows are candidates themselves too (they may start L-BFGS-B), not
    only the centres of the perturbed ones.

    ``avoid`` ``(k, d)``: valid encoded points not to return (e.g. pending points, so that one batch
    never holds the same point twice); they are only returned if every candidate found is one of
    them. ``smooth``: the function L-BFGS-B follows from the best raw candidates (default: ``acq``);
    ``acq`` alone ranks and picks.
    """
    smooth = acq if smooth is None else smooth
    X_best = np.zeros((0, space.dim)) if X_best is None else X_best
    raw = raw_candidates(space, rng, n_raw, X_best)
    if keep_best:
        raw = np.vstack([raw, space.round_to_valid(X_best)])
    raw_vals = np.concatenate(
        [acq.value(chunk) for chunk in np.array_split(raw, max(1, len(raw) // 512))]
    )
    raw_vals = np.where(np.isfinite(raw_vals), raw_vals, -np.inf)
    if space.constraints:
        feasible = space.feasible(raw)
        raw, raw_vals = raw[feasible], raw_vals[feasible]
        if len(raw) == 0:
            raw = space.sample(rng, 1)  # raises a clear error if nothing is feasible
            raw_vals = acq.value(raw)
    starts = raw[np.argsort(-raw_vals)[:n_starts]]
    X = pull_back(space, starts, _lbfgs_continuous(smooth, space, starts, maxiter))
    if space.categorical_groups:
        X = _categorical_ascent(acq, space, X)
        X = pull_back(space, X, _lbfgs_continuous(smooth, space, X, maxiter))
    avoid = np.zeros((0, space.dim)) if avoid is None else avoid
    # the best new raw points, in case every optimum is avoided
    fallback = raw[~matches_any(raw, avoid)]
    fallback_vals = raw_vals[~matches_any(raw, avoid)]
    X = np.vstack(
        [
            space.round_to_valid(X),
            fallback[np.argsort(-fallback_vals)[:_N_RAW_FINALISTS]],
            raw[np.argmax(raw_vals)][None],
        ]
    )
    vals = acq.value(X)
    vals = np.where(np.isfinite(vals) & space.feasible(X), vals, -np.inf)
    fresh = ~matches_any(X, avoid)
    if fresh.any():
        vals = np.where(fresh, vals, -np.inf)
    return cast(np.ndarray, X[int(np.argmax(vals))])


# best new raw candidates kept as fall-backs when optimised points are to be avoided
_N_RAW_FINALISTS = 32


def matches_any(X: np.ndarray, avoid: np.ndarray) -> np.ndarray:
    """``(n,)`` mask of rows of ``X`` ``(n, d)`` equal (to
    9 decimals) to some row of ``avoid`` ``(k, d)``."""
    keys = {row.tobytes() for row in np.round(avoid, 9) + 0.0}  # + 0.0 turns -0.0 into 0.0
    return np.array([row.tobytes() in keys for row in np.round(X, 9) + 0.0], dtype=bool)
