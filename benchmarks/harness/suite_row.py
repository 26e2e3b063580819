"""The measured fields of a suite row (``python -m benchmarks.run suite``), in one place.

Both drivers of the suite build their rows with :func:`regret_fields`: ``benchmarks.run`` for the
Optuna samplers and ``benchmarks.external.worker`` for the peers run in their own environment
(which has numpy but none of our package's other dependencies: this module imports numpy only).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def pending_spread(xs: Sequence[np.ndarray], bounds: np.ndarray) -> float:
    """Mean pairwise distance of points ``xs`` scaled to the unit cube (NaN for fewer than two)."""
    if len(xs) < 2:
        return float("nan")
    U = (np.array(xs) - bounds[:, 0]) / (bounds[:, 1] - bounds[:, 0])  # (n_pending, d)
    d = np.linalg.norm(U[:, None] - U[None], axis=-1)
    return float(d[np.triu_indices(len(U), 1)].mean())


def regret_fields(
    values: Sequence[float], f_min: float, seconds: float, spreads: Sequence[float]
) -> dict:
    """A suite row's measurements.

    Args:
        values: the objective value of each trial, in the order the trials were asked.
        f_min: the function's known minimum.
        seconds: wall seconds of the whole run.
        spreads: :func:`pending_spread` at each ask with trials pending (NaN where fewer than two).

    Returns:
        ``regret`` (best value so far minus ``f_min``, per trial), ``seconds_per_trial``,
        ``instant_regret`` (each trial's value minus ``f_min``) and ``pending_spread`` (the mean
        of ``spreads`` over the asks with at least two points pending; ``None`` if none had).
    """
    v = np.asarray(values, dtype=float)  # (n_trials,)
    spread = [s for s in spreads if s == s]  # NaN: fewer than two pending points
    return {
        "regret": (np.minimum.accumulate(v) - f_min).tolist(),
        "seconds_per_trial": seconds / len(v),
        "instant_regret": (v - f_min).tolist(),
        "pending_spread": float(np.mean(spread)) if spread else None,
    }
