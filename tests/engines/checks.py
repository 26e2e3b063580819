"""What a run through an engine (Ray Tune, Dask) must show, whatever the engine: every trial
completed, no two trials at one point, and the model's suggestions after the start-up."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import optuna
from optuna.trial import FrozenTrial, TrialState

from optuna_egp import (
    BORESampler,
    DECHBOSampler,
    DistributedTSSampler,
    EGPTSSampler,
    STOBNTSSampler,
)
from optuna_egp._claims import CLAIM_KEY, MIN_CONCURRENT_DISTANCE

N_STARTUP = 5

# name -> sampler of worker ``i`` of ``n`` (each DistributedTSSampler worker its own agent); small
# budgets where a default would only cost time
SAMPLERS: dict[str, Callable[[int, int], optuna.samplers.BaseSampler]] = {
    "EGPTSSampler": lambda i, n: EGPTSSampler(seed=i, n_startup_trials=N_STARTUP),
    "BORESampler": lambda i, n: BORESampler(seed=i, n_startup_trials=N_STARTUP, svgd_steps=100),
    "DECHBOSampler": lambda i, n: DECHBOSampler(seed=i, n_startup_trials=N_STARTUP, mcmc_steps=5),
    "STOBNTSSampler": lambda i, n: STOBNTSSampler(
        seed=i, n_startup_trials=N_STARTUP, width=16, max_steps=30
    ),
    "DistributedTSSampler": lambda i, n: DistributedTSSampler(
        agent_id=i, n_agents=n, seed=i, n_startup_trials=N_STARTUP
    ),
}


def suggested_by(trial: FrozenTrial) -> str | None:
    """How the sampler chose the trial's modelled parameters (the claim's ``"by"``), or None."""
    return (trial.system_attrs.get(CLAIM_KEY) or {}).get("by")


def _overlap(a: FrozenTrial, b: FrozenTrial) -> bool:
    assert a.datetime_start and a.datetime_complete and b.datetime_start and b.datetime_complete
    return a.datetime_start < b.datetime_complete and b.datetime_start < a.datetime_complete


def _unit_point(trial: FrozenTrial) -> np.ndarray:
    """The trial's floats in the unit box (every float of the problem ranges over [-3, 3])."""
    return np.array([(v + 3.0) / 6.0 for k, v in sorted(trial.params.items()) if k != "kind"])


def check_engine_run(trials: list[FrozenTrial], n_trials: int, n_concurrent: int) -> None:
    """Every trial completed, each at its own point (trials that ran at the same time on one
    branch further apart than the claims' ``MIN_CONCURRENT_DISTANCE``), and every trial that had
    ``N_STARTUP`` completed trials before it (numbers ``N_STARTUP + n_concurrent - 1`` on)
    suggested by the model, or at random only where its draws conflicted (rare: at most one)."""
    assert len(trials) == n_trials
    assert all(t.state == TrialState.COMPLETE for t in trials), [t.state for t in trials]
    points = [tuple(sorted(t.params.items())) for t in trials]
    assert len(set(points)) == len(points), "two trials at one point"
    for i, a in enumerate(trials):
        for b in trials[i + 1 :]:
            if _overlap(a, b) and a.params["kind"] == b.params["kind"]:
                distance = float(np.linalg.norm(_unit_point(a) - _unit_point(b)))
                assert distance > MIN_CONCURRENT_DISTANCE, (a.params, b.params)
    later = [suggested_by(t) for t in trials if t.number >= N_STARTUP + n_concurrent - 1]
    assert later and set(later) <= {"model", "random"}, later
    assert later.count("random") <= 1, later
