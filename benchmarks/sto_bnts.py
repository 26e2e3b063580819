"""STO-BNTS's benchmark (Dai, Shu, Low & Jaillet, "Sample-then-optimize batch neural Thompson
sampling", NeurIPS 2022): the six functions of the sequential suite and two problems of 12 and 16
dimensions, 100 trials each, sequential and with 4 and 8 trials pending
(``docs/benchmarks/index.md``).

    python -m benchmarks.sto_bnts --mode seq --seeds 10 --wall-limit 900 --procs 2 \\
        --out benchmarks/results/sto_bnts.jsonl
    python -m benchmarks.sto_bnts --mode async --workers 4 --seeds 5 --wall-limit 900 \\
        --procs 2 --out benchmarks/results/sto_bnts.jsonl
    python -m benchmarks.sto_bnts --mode async --workers 8 --seeds 5 --wall-limit 900 \\
        --procs 2 --out benchmarks/results/sto_bnts.jsonl
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarks.distributed_async import make_async_samplers
from benchmarks.functions import FUNCTIONS, SUITE, levy
from benchmarks.harness.samplers import is_sto_bnts, make_sto_bnts_sampler
from benchmarks.problem_runs import ProblemBenchmark, RegretProblem, regret_run

# The peer cache's protocol version: bump it when what a run measures changes.
PROTOCOL = 1
BENCH = "sto_bnts"
SAMPLERS = "sto-bnts,egp-auto,gp,tpe"
WALL_LIMITED = ("gp",)  # the samplers --wall-limit applies to
N_TRIALS = 100
# mixed16's choices: the values of Levy's coordinate they stand for (its minimiser is at 1)
LEVELS = {"a": -7.0, "b": -3.0, "c": 1.0, "d": 5.0, "e": 9.0}
MIXED_FLOATS, MIXED_INTS, MIXED_CHOICES = 10, 3, 3
MIXED_LOW, MIXED_HIGH = -10, 10  # the range of mixed16's floats and integers
LATE = slice(89, 100)  # the asks of trials 90-100 (the paper's seconds per suggestion)


def suggest_mixed16(trial: Any) -> np.ndarray:
    """The point (16,) of Levy that a trial of ``mixed16`` asks for: floats ``x0 .. x9``, integers
    ``n0 .. n2`` and choices ``c0 .. c2`` (the values of ``LEVELS``)."""
    floats = [
        trial.suggest_float(f"x{i}", float(MIXED_LOW), float(MIXED_HIGH))
        for i in range(MIXED_FLOATS)
    ]
    ints = [trial.suggest_int(f"n{i}", MIXED_LOW, MIXED_HIGH) for i in range(MIXED_INTS)]
    choices = [trial.suggest_categorical(f"c{i}", list(LEVELS)) for i in range(MIXED_CHOICES)]
    return np.array([*floats, *ints, *(LEVELS[c] for c in choices)], dtype=float)


PROBLEMS = {
    **{
        name: RegretProblem(*FUNCTIONS[name][1:], FUNCTIONS[name][0], n_trials=N_TRIALS)
        for name in SUITE
    },
    "levy12": RegretProblem(levy, 0.0, np.array([[-10.0, 10.0]] * 12), n_trials=N_TRIALS),
    "mixed16": RegretProblem(levy, 0.0, suggest=suggest_mixed16, n_trials=N_TRIALS),
}


def make_samplers(name: str, seed: int, workers: int) -> list:
    """The sampler of each worker slot: one ``STOBNTSSampler`` for every slot for the STO-BNTS
    names, ``make_async_samplers``'s for the others."""
    if is_sto_bnts(name):
        return [make_sto_bnts_sampler(name, seed=seed)] * workers
    return make_async_samplers(name, seed, workers)


def run_job(job: dict) -> dict:
    samplers = make_samplers(job["sampler"], job["seed"], job["workers"])
    row = regret_run(job, samplers, PROBLEMS[job["function"]])
    return {**row, "late_seconds": late_seconds(row)}


def late_seconds(row: dict) -> list[float] | None:
    """``[wall, CPU]``: the mean seconds of a run's asks of trials ``LATE``; ``None`` for a run
    that did not reach them or recorded no per-ask times."""
    if len(row.get("ask_seconds") or ()) <= LATE.start:
        return None
    return [float(np.mean(row[k][LATE])) for k in ("ask_seconds", "ask_cpu_seconds")]


def _describe(row: dict) -> str:
    return f"regret {row['regret'][-1]:.4g} after {len(row['regret'])} trials"


BENCHMARK = ProblemBenchmark(
    BENCH, __doc__, PROBLEMS, SAMPLERS, PROTOCOL, run_job, _describe, make_samplers, WALL_LIMITED
)
main = BENCHMARK.main

if __name__ == "__main__":
    main()
