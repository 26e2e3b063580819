"""The command line and the run loop shared by the benchmarks on lists of test problems
(``benchmarks.constrained``, ``benchmarks.multi_objective``): one run per seed, problem and
sampler, in ``seq`` or ``async`` mode (Optuna) or through an Ax ``Client`` (sequential); our
samplers' rows to ``--out`` keyed by commit, the peers' to the peer cache; runs already done are
skipped. :func:`regret_run` is one Optuna run of a cell on a problem with a known minimum, its
row holding the regret of the best value so far and the seconds of each ask
(``benchmarks.sto_bnts``).
"""

from __future__ import annotations

import argparse
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

__all__ = ["CELL", "MODES", "ProblemBenchmark", "regret_run"]

# The fields of a cell: with the sampler (and the commit or the peer version) they key a run.
CELL = ("bench", "function", "seed", "mode", "workers", "n_trials")
MODES = ("seq", "async")


@dataclass(frozen=True)
class ProblemBenchmark:
    """One benchmark on ``problems`` (name -> an object with ``n_trials``): ``run_job(job) -> row``
    (a module-level function, for the spawned workers) and ``describe(row) -> str`` (the line
    printed per run)."""

    bench: str
    prog: str
    doc: str
    problems: Mapping[str, Any]
    samplers: str  # the default --samplers
    protocol: int  # the peer cache's protocol version
    run_job: Callable[[dict], dict]
    describe: Callable[[dict], str]

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
                **({"wall_limit": a.wall_limit} if a.wall_limit else {}),
            }
            for seed in range(a.first_seed, a.first_seed + a.seeds)
            for fn in a.functions.split(",")
            for s in a.samplers.split(",")
        ]

    def arguments(self, argv: Sequence[str] | None = None) -> argparse.Namespace:
        """The parsed command line, checked: known problems, known samplers, Ax runs sequential."""
        p = argparse.ArgumentParser(
            prog=self.prog,
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
                make_async_samplers(s, 0, 1)
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


def regret_run(job: dict, samplers: Sequence[Any], problem: Any) -> dict:
    """One Optuna run of a cell (``CELL``'s fields and the sampler; ``wall_limit`` optional) by
    ``harness.asktell.timed_ask_tell``, in ``job["mode"]`` (``seq``, or ``async`` with
    ``job["workers"]`` trials pending, completing in the order drawn by
    ``default_rng(seed + 1000)``).

    Args:
        job: the cell.
        samplers: the sampler of each worker slot.
        problem: ``objective(x) -> float`` of the floats ``x0 ..`` on ``problem.bounds``
            (``(d, 2)``) or, if ``problem.suggest`` is not ``None``, of the point it returns for
            a trial (``suggest(trial) -> x``, e.g. integers and choices mapped to numbers), with
            the known minimum ``problem.f_min``.

    Returns:
        ``job`` with ``values`` (each completed trial's, in trial order), ``regret`` (the best
        value so far minus ``f_min``), the timing fields of ``harness.asktell.timing_fields``
        and, for a run stopped by its wall-time limit, ``stopped_at`` (its trials).
    """
    import optuna

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    if job["mode"] not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {job['mode']!r}")
    run = timed_ask_tell(
        samplers,
        problem.bounds,
        lambda trial, x: problem.objective(x),
        n_trials=job["n_trials"],
        workers=job["workers"] if job["mode"] == "async" else 1,
        rng=np.random.default_rng(job["seed"] + 1000),
        startup=STARTUP_TRIALS,
        wall_limit=job.get("wall_limit"),
        suggest=getattr(problem, "suggest", None),
    )
    values = np.array([t.value for t in run.trials if t.value is not None], dtype=float)
    timing = (run.ask_seconds, run.ask_cpu_seconds, run.model_at_ask, run.seconds)
    return {
        **job,
        "values": values.tolist(),
        "regret": (np.minimum.accumulate(values) - problem.f_min).tolist(),
        **timing_fields(*timing, ours=not is_peer(job["sampler"])),
        **({"stopped_at": len(values)} if len(values) < job["n_trials"] else {}),
    }
