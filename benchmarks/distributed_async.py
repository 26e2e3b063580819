"""Asynchronous agents through Optuna (``python -m benchmarks.distributed async``): W worker slots
with a trial pending each, in-process ask/tell; a trial's agent is the slot that asked it."""

from __future__ import annotations

import time

import numpy as np

from benchmarks.functions import FUNCTIONS
from benchmarks.harness.asktell import ask_tell
from benchmarks.harness.probes import ModelProbe
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
    samplers = make_async_samplers(job["sampler"], seed, workers)
    distinct = {id(s): s for s in samplers}  # W agents, or one sampler for every slot
    probes = {i: ModelProbe(s) for i, s in distinct.items()}
    study = optuna.create_study(sampler=samplers[0])
    ask_seconds: list[float] = []
    complete_at_ask: list[int] = []
    model_at_ask: list[bool] = []  # did the ask's suggestion come from the model?
    agent_of: dict[int, int] = {}
    told = 0

    def ask(slot: int) -> tuple:
        study.sampler = samplers[slot]  # the free slot's agent asks
        probe = probes[id(samplers[slot])]
        probe.reset()
        t0 = time.perf_counter()
        trial = study.ask()
        x = np.array([trial.suggest_float(f"x{i}", lo, hi) for i, (lo, hi) in enumerate(bounds)])
        ask_seconds.append(time.perf_counter() - t0)
        complete_at_ask.append(told)
        # peers (no core algorithm to probe): once STARTUP_TRIALS trials completed
        model_at_ask.append(
            bool(probe.model_asks) if probe.model_asks is not None else told >= STARTUP_TRIALS
        )
        agent_of[trial.number] = slot
        return trial, x

    def tell(slot: int, asked: tuple) -> None:
        nonlocal told
        study.sampler = samplers[slot]  # after_trial of the agent that ran it
        study.tell(asked[0], f(asked[1]))
        told += 1

    t_start = time.perf_counter()
    ask_tell(n_evaluations, workers, np.random.default_rng(seed + 1000), ask, tell)
    seconds = time.perf_counter() - t_start
    trials = sorted(study.trials, key=lambda t: t.number)
    values = np.array([t.value for t in trials], dtype=float)
    modelled = [s for s, m in zip(ask_seconds, model_at_ask) if m]
    return {
        **{k: job[k] for k in ("bench", "function", "sampler", "seed", "workers", "n_evaluations")},
        "regret": (np.minimum.accumulate(values) - f_min).tolist(),
        "instant_regret": (values - f_min).tolist(),
        "agent": [agent_of[t.number] for t in trials],
        "ask_seconds": ask_seconds,
        "complete_at_ask": complete_at_ask,
        "model_at_ask": model_at_ask,
        "model_ask_seconds": float(np.mean(modelled)) if modelled else float("nan"),
        "model_asks": sum(model_at_ask),
        "seconds": seconds,
        "seconds_per_trial": seconds / n_evaluations,
    }
