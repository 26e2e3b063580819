"""STO-BNTS's benchmark (Dai, Shu, Low & Jaillet, "Sample-then-optimize batch neural Thompson
sampling", NeurIPS 2022): the six functions of the sequential suite and two problems of 12 and 16
dimensions, 100 trials each, sequential and with 4 and 8 trials pending.

    python -m benchmarks.sto_bnts --mode seq --seeds 10 --wall-limit 900 --procs 2 \\
        --out benchmarks/results/sto_bnts.jsonl
    python -m benchmarks.sto_bnts --mode async --workers 4 --seeds 5 --wall-limit 900 \\
        --procs 2 --out benchmarks/results/sto_bnts.jsonl
    python -m benchmarks.sto_bnts --mode async --workers 8 --seeds 5 --wall-limit 900 \\
        --procs 2 --out benchmarks/results/sto_bnts.jsonl

(``python -m benchmarks.run_all --only sto_bnts_seq,sto_bnts_async4,sto_bnts_async8`` runs the
three and then the report, ``--only sto_bnts_beta`` the development runs of ``beta``, sequential
on seeds 10-12 into ``sto_bnts_beta_dev.jsonl``; ``python -m benchmarks.report --pages sto_bnts
--no-readme`` writes docs/benchmarks/sto_bnts.md alone.) The runs go two at a time
(``--procs 2``), one thread each. Samplers (``--samplers``, default ``SAMPLERS``): ``sto-bnts``
(``STOBNTSSampler()``), ``egp-auto`` (``EGPTSSampler()``), ``gp`` (Optuna's ``GPSampler``) and
``tpe``; ``sto-bnts-linear`` (``STOBNTSSampler(variant="linear")``) and ``-beta<x>``
(``beta=x``, e.g. ``sto-bnts-beta0.5``) on request. Every sampler
runs with its defaults; one sampler object serves every worker slot.

Problems (``PROBLEMS``, minimisation, known minima): ``ackley5``, ``zakharov2``, ``dropwave``,
``eggholder``, ``branin`` and ``hartmann6`` of ``benchmarks.functions``; ``levy12``, Levy on
``[-10, 10]^12``; ``mixed16``, Levy in 16 dimensions on mixed parameters (:func:`suggest_mixed16`):
10 floats and 3 integers on ``[-10, 10]`` and 3 unordered choices of ``LEVELS``, minimum 0 at
every coordinate 1 (floats and integers 1, choices ``"c"``).

Modes (``harness.asktell``): ``seq``, one trial at a time; ``async``, ``--workers`` trials
pending, the next to complete drawn by ``default_rng(seed + 1000)`` (the benchmarks' "with N
workers"). ``--wall-limit S`` stops a run of a sampler of ``WALL_LIMITED`` (GPSampler, whose
suggestions grow slow in 12 and 16 dimensions) once it has taken ``S`` seconds: its row records
``wall_limit`` and, if it stopped early, ``stopped_at``; the other samplers' runs are not limited.
Rows (``problem_runs.regret_run``): every trial's value, ``regret`` (the best value so far minus
the minimum, per trial), and the wall and CPU seconds of every ask (``study.ask()`` with its
``suggest_*`` calls; ``model_at_ask`` marks the model's). Our samplers' rows go to ``--out``
keyed by commit, the peers' to the peer cache under ``PROTOCOL``; ``benchmarks.report`` writes
docs/benchmarks/sto_bnts.md (``benchmarks.sto_bnts_report``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchmarks.distributed_async import make_async_samplers
from benchmarks.functions import FUNCTIONS, SUITE, levy
from benchmarks.harness.samplers import is_sto_bnts, make_sto_bnts_sampler
from benchmarks.problem_runs import ProblemBenchmark, regret_run

__all__ = [
    "BENCH",
    "LEVELS",
    "MIXED_CHOICES",
    "MIXED_FLOATS",
    "MIXED_HIGH",
    "MIXED_INTS",
    "MIXED_LOW",
    "PROBLEMS",
    "SAMPLERS",
    "WALL_LIMITED",
    "main",
    "run_job",
    "suggest_mixed16",
]

# The peer cache's protocol version of this benchmark: bump it when what a run measures changes.
PROTOCOL = 1
BENCH = "sto_bnts"
SAMPLERS = "sto-bnts,egp-auto,gp,tpe"
WALL_LIMITED = ("gp",)  # the samplers --wall-limit applies to
N_TRIALS = 100
# mixed16's choices: the values of Levy's coordinate they stand for (its minimiser is at 1)
LEVELS = {"a": -7.0, "b": -3.0, "c": 1.0, "d": 5.0, "e": 9.0}
MIXED_FLOATS, MIXED_INTS, MIXED_CHOICES = 10, 3, 3
MIXED_LOW, MIXED_HIGH = -10, 10  # the range of mixed16's floats and integers


@dataclass(frozen=True)
class Problem:
    """A test problem: ``objective(x) -> float`` of the floats ``x0 ..`` on ``bounds`` or, when
    ``suggest`` is given, of the point ``suggest(trial)`` returns; minimum ``f_min``."""

    objective: Callable[[np.ndarray], float]
    f_min: float
    bounds: np.ndarray | None = None  # (d, 2)
    suggest: Callable[[Any], np.ndarray] | None = None
    n_trials: int = N_TRIALS


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
    **{name: Problem(FUNCTIONS[name][1], FUNCTIONS[name][2], FUNCTIONS[name][0]) for name in SUITE},
    "levy12": Problem(levy, 0.0, np.array([[-10.0, 10.0]] * 12)),
    "mixed16": Problem(levy, 0.0, suggest=suggest_mixed16),
}


def make_samplers(name: str, seed: int, workers: int) -> list:
    """The sampler of each worker slot: one ``STOBNTSSampler`` for every slot for the STO-BNTS
    names, ``distributed.make_async_samplers`` for the others."""
    if is_sto_bnts(name):
        return [make_sto_bnts_sampler(name, seed=seed)] * workers
    return make_async_samplers(name, seed, workers)


def run_job(job: dict) -> dict:
    """One run of ``job["sampler"]`` on a cell (``wall_limit`` optional)."""
    samplers = make_samplers(job["sampler"], job["seed"], job["workers"])
    row = regret_run(job, samplers, PROBLEMS[job["function"]])
    return {**row, "late_seconds": late_seconds(row)}


LATE = slice(89, 100)  # the asks of trials 90-100


def late_seconds(row: dict) -> list[float] | None:
    """``[wall, CPU]``: the mean seconds of a run's asks of trials ``LATE``; ``None`` for a run
    that did not reach them or recorded no per-ask times."""
    if len(row.get("ask_seconds") or ()) <= LATE.start:
        return None
    return [float(np.mean(row[k][LATE])) for k in ("ask_seconds", "ask_cpu_seconds")]


def _describe(row: dict) -> str:
    return f"regret {row['regret'][-1]:.4g} after {len(row['regret'])} trials"


def _samplers_option(argv: Sequence[str], default: str) -> list[str]:
    """The names of ``--samplers`` in ``argv`` (``default`` if absent)."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--samplers", default=default)
    return p.parse_known_args(argv)[0].samplers.split(",")


@dataclass(frozen=True)
class StoBntsBenchmark(ProblemBenchmark):
    """``ProblemBenchmark`` with the STO-BNTS names (built by ``make_sto_bnts_sampler``, which
    ``ProblemBenchmark``'s name check does not know) and ``--wall-limit`` on ``WALL_LIMITED``
    only."""

    def arguments(self, argv: Sequence[str] | None = None) -> argparse.Namespace:
        argv = list(sys.argv[1:] if argv is None else argv)
        names = _samplers_option(argv, self.samplers)
        for s in filter(is_sto_bnts, names):  # a bad option fails here, not in a worker
            make_sto_bnts_sampler(s, seed=0)
        others = [s for s in names if not is_sto_bnts(s)]
        # ProblemBenchmark checks the other names (the last --samplers wins); "tpe" if none
        a = super().arguments([*argv, "--samplers", ",".join(others or ["tpe"])])
        a.samplers = ",".join(names)
        return a

    def jobs(self, a: argparse.Namespace) -> list[dict]:
        return [
            job
            if job["sampler"] in WALL_LIMITED
            else {k: v for k, v in job.items() if k != "wall_limit"}
            for job in super().jobs(a)
        ]


BENCHMARK = StoBntsBenchmark(
    bench=BENCH,
    prog="python -m benchmarks.sto_bnts",
    doc=__doc__ or "",
    problems=PROBLEMS,
    samplers=SAMPLERS,
    protocol=PROTOCOL,
    run_job=run_job,
    describe=_describe,
)
main = BENCHMARK.main

if __name__ == "__main__":
    main()
