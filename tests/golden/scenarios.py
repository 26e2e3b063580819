"""Seeded runs of every sampler and Ax method whose suggestions are recorded in ``traces.json``.

A change that is meant to keep behaviour (a refactoring) must reproduce these traces exactly on the
library versions and the kind of CPU they were recorded with (the last bits of BLAS results differ
between CPU vendors and instruction sets); ``tests/test_golden_traces.py`` checks it. Re-record only
in a commit that says why the suggestions changed::

    python -m tests.golden.scenarios --record

Each scenario returns the trials in order, as ``[number, params, value]`` (``value`` None
for a trial that was still running when the scenario ended). The concurrent scenarios use
ask-and-tell with several trials running and a seeded completion order: what the sampler
sees is the same as with ``n_jobs`` or several processes, without the thread interleaving
that makes ``n_jobs`` runs irreproducible.
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import optuna

TRACES = Path(__file__).with_name("traces.json")
LIBRARIES = ("numpy", "scipy", "torch", "optuna", "ax-platform", "botorch")


def library_versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for name in LIBRARIES:
        try:
            out[name] = public_version(version(name))
        except PackageNotFoundError:
            out[name] = "absent"
    out["cpu"] = cpu_kind()
    return out


def cpu_kind() -> str:
    """The CPU vendor and the instruction sets OpenBLAS chose (e.g. ``"AuthenticAMD SkylakeX"``):
    floating-point results of the same libraries differ in their last bits between kinds."""
    import scipy.linalg  # noqa: F401  (loads scipy's OpenBLAS, so that it is listed)
    from threadpoolctl import threadpool_info

    vendor = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("vendor_id"):
                vendor = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    kernels = sorted(
        {str(i.get("architecture")) for i in threadpool_info() if i["user_api"] == "blas"}
    )
    return " ".join([vendor, *kernels])


def public_version(v: str) -> str:
    """``v`` without a local label: torch 2.13.0+cpu computes as torch 2.13.0 does."""
    from packaging.version import InvalidVersion, Version

    try:
        return Version(v).public
    except InvalidVersion:
        return v


# --- Optuna objectives (deterministic) ------------------------------------------------------------


def _mixed(trial) -> float:
    x = trial.suggest_float("x", -2.0, 2.0)
    lr = trial.suggest_float("lr", 1e-4, 1e-1, log=True)
    n = trial.suggest_int("n", 1, 8)
    act = trial.suggest_categorical("act", ["relu", "tanh", "elu"])
    return (
        (x - 0.7) ** 2
        + (math.log10(lr) + 2.5) ** 2
        + 0.1 * (n - 3) ** 2
        + {"relu": 0.0, "tanh": 0.5, "elu": 0.2}[act]
    )


def _branin(trial) -> float:
    x = trial.suggest_float("x", -5.0, 10.0)
    y = trial.suggest_float("y", 0.0, 15.0)
    b, c, t = 5.1 / (4 * math.pi**2), 5 / math.pi, 1 / (8 * math.pi)
    return (y - b * x**2 + c * x - 6) ** 2 + 10 * (1 - t) * math.cos(x) + 10


def _conditional(trial) -> float:
    kind = trial.suggest_categorical("kind", ["a", "b"])
    x = trial.suggest_float("x", 0.0, 1.0)
    extra = trial.suggest_float(f"extra_{kind}", 0.0, 1.0)
    return (x - 0.3) ** 2 + (extra - 0.6) ** 2 + (0.1 if kind == "a" else 0.0)


OBJECTIVES: dict[str, Callable[[Any], float]] = {
    "mixed": _mixed,
    "branin": _branin,
    "conditional": _conditional,
}


def _record(study: optuna.Study) -> list[list[Any]]:
    return [[t.number, dict(sorted(t.params.items())), t.value] for t in study.trials]


def sequential(
    make_sampler: Callable[[], optuna.samplers.BaseSampler], objective: str, n_trials: int
) -> list:
    study = optuna.create_study(sampler=make_sampler())
    study.optimize(OBJECTIVES[objective], n_trials=n_trials)
    return _record(study)


def concurrent(
    make_samplers: Callable[[], list[optuna.samplers.BaseSampler]],
    objective: str,
    n_trials: int,
    n_running: int = 3,
) -> list:
    """Ask-and-tell with ``n_running`` trials running; a seeded random one completes before each
    new ask. Several samplers (e.g. agents) take turns asking, on one study in one storage."""
    samplers = make_samplers()
    storage = optuna.storages.InMemoryStorage()
    studies = [optuna.create_study(storage=storage, study_name="golden", sampler=samplers[0])]
    studies += [
        optuna.load_study(storage=storage, study_name="golden", sampler=s) for s in samplers[1:]
    ]
    order = np.random.default_rng(0)
    running: list[tuple[optuna.Study, optuna.Trial, float]] = []
    for i in range(n_trials):
        if len(running) == n_running:
            study, trial, value = running.pop(int(order.integers(len(running))))
            study.tell(trial, value)
        study = studies[i % len(studies)]
        trial = study.ask()
        # parameters suggested now, told later
        running.append((study, trial, OBJECTIVES[objective](trial)))
    return _record(studies[0])


def _optuna_scenarios() -> dict[str, Callable[[], list]]:
    from optuna_egp import (
        BORESampler,
        DECHBOSampler,
        DistributedTSSampler,
        EGPTSSampler,
        STOBNTSSampler,
    )

    def dts(agent: int) -> DistributedTSSampler:
        return DistributedTSSampler(
            agent_id=agent, graph="ring", n_agents=3, seed=0, n_startup_trials=4
        )

    return {
        "optuna/egp-ts/mixed/sequential": lambda: sequential(
            lambda: EGPTSSampler(seed=0, n_startup_trials=4, acquisition="ts"), "mixed", 12
        ),
        "optuna/egp-auto/mixed/sequential": lambda: sequential(
            lambda: EGPTSSampler(seed=0, n_startup_trials=4), "mixed", 12
        ),
        "optuna/egp-auto/mixed/concurrent": lambda: concurrent(
            lambda: [EGPTSSampler(seed=0, n_startup_trials=4)], "mixed", 14
        ),
        "optuna/egp-ts/branin/concurrent": lambda: concurrent(
            lambda: [EGPTSSampler(seed=1, n_startup_trials=4, acquisition="ts")], "branin", 14
        ),
        "optuna/egp-ts/conditional/sequential": lambda: sequential(
            lambda: EGPTSSampler(seed=0, n_startup_trials=3, acquisition="ts"), "conditional", 10
        ),
        "optuna/bore++/mixed/sequential": lambda: sequential(
            lambda: BORESampler(seed=0, n_startup_trials=4), "mixed", 12
        ),
        "optuna/bore++/branin/concurrent": lambda: concurrent(
            lambda: [BORESampler(seed=0, n_startup_trials=4)], "branin", 14
        ),
        "optuna/bore++-batch3/branin/concurrent": lambda: concurrent(
            lambda: [BORESampler(seed=0, n_startup_trials=4, batch_size=3)], "branin", 12
        ),
        "optuna/bore/branin/sequential": lambda: sequential(
            lambda: BORESampler(variant="bore", seed=0, n_startup_trials=4), "branin", 8
        ),
        "optuna/dts-ring-agents-0-1/mixed/concurrent": lambda: concurrent(
            lambda: [dts(0), dts(1)], "mixed", 14
        ),
        "optuna/dec-hbo/mixed/concurrent": lambda: concurrent(
            lambda: [DECHBOSampler(seed=0, n_startup_trials=4, mcmc_steps=4, max_factor_size=2)],
            "mixed",
            12,
        ),
        # the paper's algorithm, polished on the additive UCB
        "optuna/dec-hbo-ucb/mixed/concurrent": lambda: concurrent(
            lambda: [
                DECHBOSampler(
                    seed=0, n_startup_trials=4, mcmc_steps=4, max_factor_size=2, acquisition="ucb"
                )
            ],
            "mixed",
            12,
        ),
        "optuna/sto-bnts/mixed/concurrent": lambda: concurrent(
            lambda: [STOBNTSSampler(seed=0, n_startup_trials=4, width=16, max_steps=50)],
            "mixed",
            12,
        ),
    }


# --- Ax -------------------------------------------------------------------------------------------


def ax_batches(method: str, n_rounds: int = 3, batch: int = 3, **options: Any) -> list:
    """Ax ``Client`` with a mixed space and a linear
    constraint: 3 Sobol trials, then ``n_rounds`` batches."""
    import logging
    import warnings

    from ax import ChoiceParameterConfig, Client, RangeParameterConfig

    import ax_egp

    logging.getLogger("ax").setLevel(logging.WARNING)
    warnings.filterwarnings("ignore", module="ax")
    client = Client(random_seed=0)
    client.configure_experiment(
        parameters=[
            RangeParameterConfig(name="x", bounds=(0.0, 2.0), parameter_type="float"),
            RangeParameterConfig(name="k", bounds=(1, 6), parameter_type="int"),
            ChoiceParameterConfig(name="c", values=["a", "b", "c"], parameter_type="str"),
        ],
        parameter_constraints=["x + k <= 5.5"],
    )
    client.configure_optimization(objective="-loss")
    client.set_generation_strategy(
        ax_egp.generation_strategy(method, initialization_trials=3, seed=0, **options)
    )
    out = []
    for _ in range(n_rounds + 1):
        for index, p in client.get_next_trials(max_trials=batch).items():
            loss = (p["x"] - 1.3) ** 2 + 0.2 * (p["k"] - 2) ** 2 + (p["c"] != "b")
            client.complete_trial(index, raw_data={"loss": loss})
            out.append([index, dict(sorted(p.items())), loss])
    return out


def _ax_scenarios() -> dict[str, Callable[[], list]]:
    scenarios = {
        f"ax/{method}/batches": (lambda m=method: ax_batches(m))
        for method in ("egp-ts", "egp-ei", "egp-auto", "bore++")
    }
    scenarios["ax/dts-complete-3/batches"] = lambda: ax_batches("dts", n_agents=3)
    scenarios["ax/bore/batches"] = lambda: ax_batches("bore", n_rounds=2)
    scenarios["ax/dec-hbo/batches"] = lambda: ax_batches("dec-hbo", mcmc_steps=4)
    scenarios["ax/sto-bnts-linear/batches"] = lambda: ax_batches("sto-bnts-linear", width=16)
    return scenarios


def scenarios() -> dict[str, Callable[[], list]]:
    out = _optuna_scenarios()
    try:
        import ax  # noqa: F401  (the Ax scenarios need the optional extra)
    except ImportError:
        return out
    return {**out, **_ax_scenarios()}


def run(name: str) -> list:
    """The trace of scenario ``name`` as it is stored (a JSON round trip)."""
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    try:
        import torch

        torch.set_num_threads(1)  # as in the test session (tests/conftest.py)
    except ImportError:
        pass
    return json.loads(json.dumps(scenarios()[name]()))


def record() -> None:
    traces = {}
    for name in scenarios():
        start = time.perf_counter()
        traces[name] = run(name)
        print(f"{name}: {len(traces[name])} trials, {time.perf_counter() - start:.1f} s")
    TRACES.write_text(
        json.dumps({"libraries": library_versions(), "traces": traces}, indent=1) + "\n"
    )
    print(f"wrote {len(traces)} traces to {TRACES}")


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        sys.exit("usage: python -m tests.golden.scenarios --record")
    record()
