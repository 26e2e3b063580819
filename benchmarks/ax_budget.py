"""Ax at low budgets: our generation strategy against Ax's default (``DEFAULT``) in Ax's ``Client``
on ``PROBLEMS``, one trial per call (``seq``) or in batches; each cell (problem, mode, seed) runs
every strategy one after the other in one process, so they are timed alike (row fields:
docs/benchmarks/index.md).

    python -m benchmarks.ax_budget --seeds 10 --out benchmarks/results/ax_budget.jsonl
"""

from __future__ import annotations

import argparse
import functools
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchmarks import functions, mixed_hartmann
from benchmarks.harness.ax import AX_METHODS, ax_client
from benchmarks.harness.results import RESULTS, ResultsFile
from benchmarks.harness.runner import run_jobs

BENCH = "ax_budget"
# The fields of a cell: with the sampler and the commit they key a run.
CELL = ("bench", "function", "seed", "mode", "workers", "n_trials")
MODES = ("seq", "batch")
DEFAULT = "ax-default"  # Ax's default generation strategy, in every cell
# Nodes of the initialisation of both strategies (``generation_node`` of ``Client.summarize``).
INITIALIZATION_NODES = ("Sobol", "CenterOfSearchSpace")


@dataclass(frozen=True)
class AxProblem:
    """A minimisation problem for Ax's ``Client``: ``evaluate(params)``, ``optimum()`` (computed for
    the mixed problem), and ``bounds`` of floats ``x<i>`` or ``parameters()`` (Ax configs)."""

    evaluate: Callable[[Mapping[str, Any]], float]
    optimum: Callable[[], float]
    bounds: np.ndarray | None = None
    parameters: Callable[[], list] | None = None
    parameter_constraints: tuple[str, ...] = ()
    description: str = ""

    def client(self, sampler: str, seed: int):
        """The Ax ``Client`` of a run of ``sampler`` (``harness.ax.ax_client``)."""
        return ax_client(
            sampler,
            self.bounds,
            seed,
            parameters=self.parameters() if self.parameters else None,
            parameter_constraints=self.parameter_constraints,
        )

    def regret(self, values: Sequence[float]) -> list[float]:
        """Best value so far minus the minimum, after each trial of ``values`` (trial order)."""
        best = np.minimum.accumulate(np.asarray(values, dtype=float))  # (n_trials,)
        return (best - self.optimum()).tolist()


def _box_value(function: str, params: Mapping[str, Any]) -> float:
    bounds, f, _ = functions.FUNCTIONS[function]
    return float(f(np.array([params[f"x{i}"] for i in range(len(bounds))])))


def _box(function: str, description: str) -> AxProblem:
    bounds, _, f_min = functions.FUNCTIONS[function]
    return AxProblem(
        evaluate=functools.partial(_box_value, function),
        optimum=lambda: f_min,
        bounds=bounds,
        description=description,
    )


PROBLEMS: dict[str, AxProblem] = {
    "branin": _box("branin", "Branin, 2 floats"),
    "hartmann6": _box("hartmann6", "Hartmann-6, 6 floats on [0, 1]"),
    "hartmann6-mixed": AxProblem(
        evaluate=mixed_hartmann.evaluate,
        optimum=lambda: mixed_hartmann.optimum()[0],
        parameters=mixed_hartmann.parameters,
        parameter_constraints=mixed_hartmann.PARAMETER_CONSTRAINTS,
        description="Hartmann-6 on 4 floats on [0, 1], an integer 0..20 (x5 / 20) and an "
        f"unordered choice of {len(mixed_hartmann.LEVELS)} levels of x6, with "
        f"{mixed_hartmann.PARAMETER_CONSTRAINTS[0]} (`benchmarks/mixed_hartmann.py`)",
    ),
}


def run_one(sampler: str, job: Mapping[str, Any]) -> dict:
    """One Ax ``Client`` run of ``sampler`` on the cell ``job`` (a ``CELL`` dict)."""
    problem = PROBLEMS[job["function"]]
    if job["mode"] not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {job['mode']!r}")
    per_call = job["workers"] if job["mode"] == "batch" else 1
    n_trials = job["n_trials"]
    client = problem.client(sampler, job["seed"])
    # "4 trials requested but only 1 could be generated": the batch sizes are recorded instead
    logging.getLogger("ax.api.client").setLevel(logging.ERROR)
    values: list[float] = []
    params: list[dict] = []
    batch_sizes: list[int] = []
    t0, cpu0 = time.perf_counter(), time.process_time()
    while len(values) < n_trials:
        trials = client.get_next_trials(max_trials=min(per_call, n_trials - len(values)))
        if not trials:
            raise RuntimeError(f"{sampler} generated no trial after {len(values)} trials")
        batch = {index: problem.evaluate(point) for index, point in trials.items()}
        for index, value in batch.items():  # all evaluated, then all completed
            client.complete_trial(index, raw_data={"loss": value})
        values += batch.values()
        params += [dict(trials[index]) for index in batch]  # Python values (Ax casts them)
        batch_sizes.append(len(batch))
    seconds, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    nodes = client.summarize().sort_values("trial_index")["generation_node"]
    return {
        **job,
        "sampler": sampler,
        "values": values,
        "params": params,
        "regret": problem.regret(values),
        "optimum": problem.optimum(),
        "batch_sizes": batch_sizes,
        "initialization_trials": int(sum(node in INITIALIZATION_NODES for node in nodes)),
        "seconds": seconds,
        "seconds_per_trial": seconds / n_trials,
        "cpu_seconds_per_trial": cpu / n_trials,
    }


def run_cell(job: dict) -> list[dict]:
    """The rows of every sampler of ``job["samplers"]`` on the cell ``job``, run one after the
    other (reversed for odd seeds). The worker entry point of the pool (module-level, so spawned
    processes can import it)."""
    cell = {f: job[f] for f in CELL}
    order = job["samplers"] if job["seed"] % 2 == 0 else job["samplers"][::-1]
    return [{**run_one(s, cell), "run_order": i} for i, s in enumerate(order)]


def cells(a: argparse.Namespace) -> list[dict]:
    """Every cell the arguments ask for, seeds outermost (partial results cover every cell)."""
    return [
        {
            "bench": BENCH,
            "function": fn,
            "seed": seed,
            "mode": mode,
            "workers": a.workers if mode == "batch" else 1,
            "n_trials": a.trials,
            "samplers": a.samplers.split(","),
        }
        for seed in range(a.first_seed, a.first_seed + a.seeds)
        for mode in a.modes.split(",")
        for fn in a.functions.split(",")
    ]


def arguments(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The parsed command line, checked: known problems, modes and samplers."""
    p = argparse.ArgumentParser(prog="python -m benchmarks.ax_budget", description=__doc__)
    p.add_argument("--functions", default=",".join(PROBLEMS))
    p.add_argument("--samplers", default="ax-default,ax-egp-auto", help=", ".join(AX_METHODS))
    p.add_argument("--modes", default=",".join(MODES), help="comma-separated: seq, batch")
    p.add_argument("--workers", type=int, default=4, help="trials per call in the batch mode")
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--first-seed", type=int, default=0, help="seeds: first-seed .. + seeds - 1")
    p.add_argument("--trials", type=int, default=40)
    p.add_argument("--procs", type=int, default=1, help="cells in parallel processes")
    p.add_argument("--out", default=str(RESULTS / f"{BENCH}.jsonl"), help="JSONL file of rows")
    a = p.parse_args(argv)
    for option, names, known in (
        ("problems", a.functions, PROBLEMS),
        ("samplers", a.samplers, AX_METHODS),
        ("modes", a.modes, MODES),
    ):
        unknown = [n for n in names.split(",") if n not in known]
        if unknown:
            raise SystemExit(f"unknown {option} {unknown}; known: {', '.join(known)}")
    if DEFAULT not in a.samplers.split(","):
        raise SystemExit(f"--samplers must include {DEFAULT} (timed beside ours), got {a.samplers}")
    if a.workers < 1 or a.trials < 1:
        raise SystemExit(f"--workers and --trials must be >= 1, got {a.workers}, {a.trials}")
    return a


def main(argv: Sequence[str] | None = None) -> None:
    """Run the cells the command line asks for that are not done at this commit."""
    a = arguments(argv)
    run_jobs(
        cells(a),
        run_cell,
        out=ResultsFile(a.out),
        cell=CELL,
        procs=a.procs,
        describe=lambda row: (
            f"{row['function']} {row['mode']} seed={row['seed']} {row['sampler']}: regret "
            f"{row['regret'][-1]:.4g}, {row['seconds_per_trial']:.3f} s/trial "
            f"({row['cpu_seconds_per_trial']:.3f} CPU)"
        ),
    )


if __name__ == "__main__":
    main()
