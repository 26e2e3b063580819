"""The command line and run loop of the benchmarks on lists of test problems (constrained,
multi_objective, conditional, dec_hbo, sto_bnts): one run per seed, problem and sampler, in ``seq``
or ``async`` mode (Optuna) or through an Ax ``Client`` (sequential). Modes and rows:
``docs/benchmarks/index.md``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchmarks.distributed_async import make_async_samplers
from benchmarks.harness.asktell import timed_ask_tell, timing_fields
from benchmarks.harness.ax import AX_METHODS
from benchmarks.harness.cache import PeerCache
from benchmarks.harness.regret import STARTUP_TRIALS
from benchmarks.harness.results import RESULTS, ResultsFile
from benchmarks.harness.runner import run_jobs
from benchmarks.harness.samplers import is_peer

# The fields of a cell: with the sampler (and the commit or the peer version) they key a run.
CELL = ("bench", "function", "seed", "mode", "workers", "n_trials")
MODES = ("seq", "async")


@dataclass(frozen=True)
class ProblemBenchmark:
    """One benchmark on ``problems`` (name -> an object with ``n_trials``): ``run_job(job) -> row``
    (module-level, for the spawned workers), ``describe(row)`` (the line printed per run)."""

    bench: str  # also the module's name
    doc: str | None
    problems: Mapping[str, Any]
    samplers: str  # the default --samplers
    protocol: int  # the peer cache's protocol version
    run_job: Callable[[dict], dict]
    describe: Callable[[dict], str]
    make_samplers: Callable[[str, int, int], list] = make_async_samplers  # checks the names
    wall_limited: tuple[str, ...] | None = None  # the samplers --wall-limit applies to (None: all)

    def jobs(self, a: argparse.Namespace) -> list[dict]:
        """Every run the arguments ask for, seeds outermost (partial results cover every cell)."""
        return [
            {
                "bench": self.bench,
                "function": fn,
                "seed": seed,
                "mode": a.mode,
                "workers": a.workers if a.mode == "async" else 1,
                "n_trials": a.trials or self.problems[fn].n_trials,
                "sampler": s,
                **({"wall_limit": a.wall_limit} if a.wall_limit and self._limited(s) else {}),
            }
            for seed in range(a.first_seed, a.first_seed + a.seeds)
            for fn in a.functions.split(",")
            for s in a.samplers.split(",")
        ]

    def _limited(self, sampler: str) -> bool:
        return self.wall_limited is None or sampler in self.wall_limited

    def arguments(self, argv: Sequence[str] | None = None) -> argparse.Namespace:
        """The parsed command line, checked: known problems, known samplers, Ax runs sequential."""
        p = argparse.ArgumentParser(
            prog=f"python -m benchmarks.{self.bench}",
            description=self.doc,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        p.add_argument("--functions", default=",".join(self.problems))
        p.add_argument("--samplers", default=self.samplers, help="comma-separated names")
        p.add_argument("--seeds", type=int, default=10)
        p.add_argument("--first-seed", type=int, default=0, help="seeds: first-seed .. + seeds - 1")
        p.add_argument("--trials", type=int, default=None, help="default: each problem's budget")
        p.add_argument("--mode", choices=MODES, default="seq")
        p.add_argument("--workers", type=int, default=4, help="pending trials in the async mode")
        p.add_argument("--wall-limit", type=float, default=None, help="seconds per run (recorded)")
        p.add_argument("--procs", type=int, default=1, help="runs in parallel processes")
        p.add_argument("--out", required=True, help="JSONL file of our samplers' rows")
        p.add_argument("--cache", default=str(RESULTS / "peers.jsonl"), help="the peer cache")
        a = p.parse_args(argv)
        unknown = [fn for fn in a.functions.split(",") if fn not in self.problems]
        if unknown:
            raise SystemExit(f"unknown problems {unknown}; known: {', '.join(self.problems)}")
        for s in a.samplers.split(","):  # a bad name fails here, not inside a worker process
            if s not in AX_METHODS:
                self.make_samplers(s, 0, 1)
            elif a.mode != "seq":
                raise SystemExit(f"{s}: the Ax runs are sequential (--mode seq)")
        return a

    def main(self, argv: Sequence[str] | None = None) -> None:
        """Run what the command line asks for and is not done yet."""
        a = self.arguments(argv)
        run_jobs(
            self.jobs(a),
            self.run_job,
            out=ResultsFile(a.out),
            cell=CELL,
            cache=PeerCache(a.cache, protocol=self.protocol),
            procs=a.procs,
            describe=lambda row: (
                f"{row['function']} {row['sampler']} {row['mode']} seed={row['seed']}: "
                f"{self.describe(row)}, {row['seconds']:.1f} s, "
                f"{row['cpu_seconds_per_suggestion'] or float('nan'):.3f} CPU s/suggestion"
            ),
        )


def optuna_run(
    job: dict,
    bounds,
    evaluate,
    samplers: Sequence[Any] | None = None,
    *,
    with_failed: bool = False,
    **options,
):
    """One ``harness.asktell.timed_ask_tell`` run of a cell (``CELL``'s fields, the sampler and
    ``wall_limit`` optional): ``seq``, or ``async`` with ``job["workers"]`` trials pending,
    completing in the order drawn by ``default_rng(seed + 1000)``. Returns ``(trials, timing)``:
    the completed trials (``with_failed``: and the failed ones) in trial order and the arguments
    of ``timing_fields``."""
    import warnings

    import optuna

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    if job["mode"] not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {job['mode']!r}")
    run = timed_ask_tell(
        samplers or make_async_samplers(job["sampler"], job["seed"], job["workers"]),
        bounds,
        evaluate,
        n_trials=job["n_trials"],
        workers=job["workers"] if job["mode"] == "async" else 1,
        rng=np.random.default_rng(job["seed"] + 1000),
        startup=STARTUP_TRIALS,
        wall_limit=job.get("wall_limit"),
        **options,
    )
    trials = [t for t in run.trials if t.values is not None or with_failed]
    return trials, (run.ask_seconds, run.ask_cpu_seconds, run.model_at_ask, run.seconds)


def ax_run(job: dict, client, tell: Callable[[dict], tuple[dict, Any]]) -> tuple[list, tuple]:
    """One Ax ``Client`` run of a cell, one trial at a time: ``tell(params) -> (raw_data,
    outcome)`` evaluates a trial (``raw_data`` None: the trial failed, ``mark_trial_failed``).
    Returns ``(outcomes, timing)`` as :func:`optuna_run`; the model's asks: the trials not
    generated by Sobol or at the centre of the search space."""
    outcomes: list = []
    wall: list[float] = []
    cpu: list[float] = []
    t_start = time.perf_counter()
    while len(outcomes) < job["n_trials"]:
        if job.get("wall_limit") and time.perf_counter() - t_start > job["wall_limit"]:
            break
        t0, cpu0 = time.perf_counter(), time.process_time()
        index, params = next(iter(client.get_next_trials(max_trials=1).items()))
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - cpu0)
        raw_data, outcome = tell(params)
        outcomes.append(outcome)
        if raw_data is None:
            client.mark_trial_failed(index)
        else:
            client.complete_trial(index, raw_data=raw_data)
    seconds = time.perf_counter() - t_start
    nodes = client.summarize().sort_values("trial_index")["generation_node"]
    model = [node not in ("Sobol", "CenterOfSearchSpace") for node in nodes]
    return outcomes, (wall, cpu, model, seconds)


def row_of(job: dict, fields: dict, timing: tuple, n_done: int) -> dict:
    """A run's row: the cell, its own ``fields``, the timing fields and, for a run stopped by its
    wall-time limit, ``stopped_at`` (the trials it ran)."""
    return {
        **job,
        **fields,
        **timing_fields(*timing, ours=not is_peer(job["sampler"])),
        **({"stopped_at": n_done} if n_done < job["n_trials"] else {}),
    }


@dataclass(frozen=True)
class RegretProblem:
    """A problem with a known minimum ``f_min``: ``objective(x) -> float`` of the floats ``x0 ..``
    on ``bounds`` (``(d, 2)``) or, when ``suggest`` is given, of the point ``suggest(trial)``."""

    objective: Callable[[np.ndarray], float]
    f_min: float
    bounds: np.ndarray | None = None
    suggest: Callable[[Any], np.ndarray] | None = None
    n_trials: int = 100


def regret_run(job: dict, samplers: Sequence[Any] | None, problem: RegretProblem) -> dict:
    """One Optuna run of a cell on ``problem`` (``samplers``: those of the worker slots, ``None``:
    ``make_async_samplers``'s). Row: ``values`` and ``regret`` (best so far minus ``f_min``)."""
    trials, timing = optuna_run(
        job,
        problem.bounds,
        lambda trial, x: problem.objective(x),
        samplers,
        suggest=problem.suggest,
    )
    values = np.array([t.value for t in trials], dtype=float)
    fields = {
        "values": values.tolist(),
        "regret": (np.minimum.accumulate(values) - problem.f_min).tolist(),
    }
    return row_of(job, fields, timing, len(values))
