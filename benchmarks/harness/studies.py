"""Studies that start with random completed trials (the set-up of the timing benchmarks).

Parameters are floats ``x0 .. x{d-1}`` on the rows of ``bounds`` ``(d, 2)``; trial i sits at
the i-th row of ``default_rng(seed).uniform(low, high, (n, d))``, so every sampler of a cell
gets the same points.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

# Hartmann-6's domain. This module imports numpy and optuna only when called (``speed``'s
# import timings run in processes that load it).
H6_BOUNDS = ((0.0, 1.0),) * 6
Bounds = Sequence[Sequence[float]]  # (d, 2): low and high of each parameter


def distributions(bounds: Bounds) -> dict:
    """``{"x<i>": FloatDistribution(low_i, high_i)}`` of the rows of ``bounds``."""
    from optuna.distributions import FloatDistribution

    return {f"x{i}": FloatDistribution(float(lo), float(hi)) for i, (lo, hi) in enumerate(bounds)}


def random_trials(
    f: Callable[[Any], float],
    bounds: Bounds,
    n: int,
    *,
    seed: int,
    agents: int | None = None,
) -> list:
    """``n`` completed ``FrozenTrial`` objects at random points, valued ``f(x)``; ``agents``:
    trial i tagged as agent ``i mod agents`` (user attribute ``agent_id``)."""
    import numpy as np
    from optuna.trial import create_trial

    dists = distributions(bounds)
    low, high = np.asarray(bounds, dtype=float).T
    X = np.random.default_rng(seed).uniform(low, high, (n, len(low)))  # (n, d)
    return [
        create_trial(
            params=dict(zip(dists, map(float, x))),
            distributions=dists,
            value=float(f(x)),
            user_attrs={} if agents is None else {"agent_id": i % agents},
        )
        for i, x in enumerate(X)
    ]


def random_study(
    sampler,
    f: Callable[[Any], float],
    bounds: Bounds,
    n: int,
    *,
    seed: int,
    agents: int | None = None,
    **create: Any,
):
    """A new study (``optuna.create_study(sampler=sampler, **create)``, e.g. ``storage=``)
    holding :func:`random_trials`; returns it and its distributions (for ``study.ask``)."""
    import optuna

    study = optuna.create_study(sampler=sampler, **create)
    study.add_trials(random_trials(f, bounds, n, seed=seed, agents=agents))
    return study, distributions(bounds)
