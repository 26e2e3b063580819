"""Several objectives: the hypervolume gap to the Pareto front against trials on the problems of
``benchmarks.mo_functions`` (``docs/benchmarks/index.md``).

    python -m benchmarks.multi_objective --mode seq --seeds 10 \\
        --out benchmarks/results/mo_seq.jsonl
    python -m benchmarks.multi_objective --mode async --workers 4 --seeds 5 \\
        --out benchmarks/results/mo_async4.jsonl
    python -m benchmarks.multi_objective --samplers ax-default,ax-egp-auto \\
        --functions branin-currin,zdt3 --seeds 5 --trials 40 --out benchmarks/results/mo_ax.jsonl
"""

from __future__ import annotations

import numpy as np

from benchmarks.harness.ax import AX_METHODS, ax_client
from benchmarks.mo_functions import PROBLEMS, log10_gaps, max_hypervolume
from benchmarks.problem_runs import ProblemBenchmark, ax_run, optuna_run, row_of

# The peer cache's protocol version: bump it when what a run measures changes (NSGA-II's
# population too).
PROTOCOL = 1
BENCH = "multi_objective"
SAMPLERS = "egp-auto,bore++,dts-complete,gp,tpe,nsga2"


def run_job(job: dict) -> dict:
    """One run: Optuna (every objective minimised) or an Ax ``Client`` minimising ``f0 ..
    f{m-1}`` with the reference point as objective thresholds."""
    problem = PROBLEMS[job["function"]]
    if job["sampler"] in AX_METHODS:
        names = tuple(f"f{i}" for i in range(problem.n_objectives))
        thresholds = [f"{n} <= {r!r}" for n, r in zip(names, problem.reference_point)]
        client = ax_client(
            job["sampler"], problem.bounds, job["seed"], thresholds, objectives=names
        )

        def tell(params: dict) -> tuple[dict, list]:
            y = problem(np.array([params[f"x{i}"] for i in range(len(problem.bounds))]))
            return dict(zip(names, y)), y

        values, timing = ax_run(job, client, tell)
    else:
        directions = ["minimize"] * problem.n_objectives
        evaluate = lambda trial, x: problem(x)  # noqa: E731
        trials, timing = optuna_run(job, problem.bounds, evaluate, directions=directions)
        values = [t.values for t in trials]
    fields = {
        "values": [list(map(float, v)) for v in values],
        "log10_gap": log10_gaps(job["function"], values),
        "max_hypervolume": max_hypervolume(job["function"]),
    }
    return row_of(job, fields, timing, len(values))


def _describe(row: dict) -> str:
    return f"log10 gap {row['log10_gap'][-1]:.3f}"


BENCHMARK = ProblemBenchmark(BENCH, __doc__, PROBLEMS, SAMPLERS, PROTOCOL, run_job, _describe)
main = BENCHMARK.main

if __name__ == "__main__":
    main()
