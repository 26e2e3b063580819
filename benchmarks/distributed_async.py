"""Asynchronous agents through Optuna (``python -m benchmarks.distributed async``): W worker slots
with a trial pending each, in-process ask/tell; a trial's agent is the slot that asked it."""

from __future__ import annotations

import numpy as np

from benchmarks.functions import FUNCTIONS
from benchmarks.harness.asktell import ask_tell, timed_ask_tell
from benchmarks.harness.regret import STARTUP_TRIALS
from benchmarks.harness.samplers import make_agents

# The peer cache's protocol version of the async runs: bump it when what a run measures changes
# (the functions, the completion order's random generator).
PROTOCOL = 1
BENCH_ASYNC = "dts_async"
ASYNC_CELL = ("bench", "function", "seed", "workers", "n_evaluations")
ASYNC_SAMPLERS = "dts-complete,dts-star,dts-ring,egp-ts,tpe"


def make_async_samplers(name: str, seed: int, workers: int) -> list:
    """The sampler of each worker slot: W distinct agents for ``dts-*`` (which never presume
    another agent's running trials dead here), one shared sampler otherwise."""
    options = {"running_trial_timeout": None} if name.startswith("dts-") else {}
    return make_agents(name, seed=seed, n_agents=workers, **options)


def run_async(job: dict) -> dict:
    """One run of the ``job``: a dict of the ``ASYNC_CELL`` fields and ``sampler``."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    seed, workers, n_evaluations = job["seed"], job["workers"], job["n_evaluations"]
    bounds, f, f_min = FUNCTIONS[job["function"]]
    run = timed_ask_tell(
        make_async_samplers(job["sampler"], seed, workers),
        bounds,
        lambda trial, x: f(x),
        n_trials=n_evaluations,
        workers=workers,
        rng=np.random.default_rng(seed + 1000),
        startup=STARTUP_TRIALS,  # peers (no model to probe): once that many trials completed
    )
    agent, complete_at_ask = _schedule(n_evaluations, workers, np.random.default_rng(seed + 1000))
    values = np.array([t.value for t in run.trials], dtype=float)
    modelled = [s for s, m in zip(run.ask_seconds, run.model_at_ask) if m]
    return {
        **{k: job[k] for k in ("bench", "function", "sampler", "seed", "workers", "n_evaluations")},
        "regret": (np.minimum.accumulate(values) - f_min).tolist(),
        "instant_regret": (values - f_min).tolist(),
        "agent": agent,
        "ask_seconds": run.ask_seconds,
        "complete_at_ask": complete_at_ask,
        "model_at_ask": run.model_at_ask,
        "model_ask_seconds": float(np.mean(modelled)) if modelled else float("nan"),
        "model_asks": sum(run.model_at_ask),
        "seconds": run.seconds,
        "seconds_per_trial": run.seconds / n_evaluations,
    }


def _schedule(n_trials: int, workers: int, rng: np.random.Generator) -> tuple[list, list]:
    """The worker slot of each trial and the trials completed at each ask, in trial order: the
    bookkeeping of ``ask_tell``, whose completion order depends on ``rng`` alone."""
    slots: list[int] = []
    complete_at_ask: list[int] = []
    told = 0

    def ask(slot: int) -> None:
        slots.append(slot)
        complete_at_ask.append(told)

    def tell(slot: int, trial) -> None:
        nonlocal told
        told += 1

    ask_tell(n_trials, workers, rng, ask, tell)
    return slots, complete_at_ask
