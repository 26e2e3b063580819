"""Conditional search spaces: the best value against trials on the tree-structured problems of
``benchmarks.conditional_functions`` (``docs/benchmarks/index.md``).

    python -m benchmarks.conditional --mode seq --seeds 10 \\
        --out benchmarks/results/cond_seq.jsonl
    python -m benchmarks.conditional --mode async --workers 4 --seeds 5 \\
        --out benchmarks/results/cond_async4.jsonl
    python -m benchmarks.conditional --samplers ax-default,ax-egp-auto --seeds 10 \\
        --out benchmarks/results/cond_ax.jsonl
"""

from __future__ import annotations

import numpy as np

from benchmarks.conditional_functions import PROBLEMS, ax_parameters, names, suggest
from benchmarks.harness.ax import AX_METHODS, ax_client
from benchmarks.harness.regret import compare
from benchmarks.problem_report import ProblemPage
from benchmarks.problem_runs import ProblemBenchmark, ax_run, optuna_run, row_of

# The peer cache's protocol version: bump it when what a run measures changes.
PROTOCOL = 1
BENCH = "conditional"
SAMPLERS = "egp-auto,bore++,dts-complete,gp,tpe,tpe-mg,random"


def run_job(job: dict) -> dict:
    """One run: Optuna define-by-run (a trial asks only for its branch's parameters) or an Ax
    ``Client`` on the hierarchical parameters, minimising ``loss``. Outcomes: (value, params)."""
    problem = PROBLEMS[job["function"]]
    if job["sampler"] in AX_METHODS:
        client = ax_client(
            job["sampler"], None, job["seed"], parameters=ax_parameters(problem.space)
        )

        def tell(params: dict) -> tuple[dict, tuple]:
            value = problem(params)
            return {"loss": value}, (value, dict(params))

        outcomes, timing = ax_run(job, client, tell)
    else:
        trials, timing = optuna_run(
            job,
            None,
            lambda trial, params: problem(params),
            suggest=lambda trial: suggest(trial, problem.space),
        )
        outcomes = [(t.value, t.params) for t in trials]
    values = [float(v) for v, _ in outcomes]
    fields = {
        "values": values,
        "params": [_plain(p) for _, p in outcomes],
        "regret": problem.regret(values),
        "optimum": problem.optimum,
    }
    return row_of(job, fields, timing, len(values))


def _plain(params: dict) -> dict:
    """``params`` with numpy scalars as Python numbers (for JSON)."""
    return {k: v.item() if isinstance(v, np.generic) else v for k, v in params.items()}


def _describe(row: dict) -> str:
    return f"regret {row['regret'][-1]:.4g}" if row["regret"] else "no trial"


BENCHMARK = ProblemBenchmark(BENCH, __doc__, PROBLEMS, SAMPLERS, PROTOCOL, run_job, _describe)
main = BENCHMARK.main


def regret(row: dict) -> list[float]:
    """The row's regret after each trial, from its ``best_values`` (as stored; ``values`` as made)
    with the problem's current optimum (the best value itself where the optimum is unknown)."""
    return PROBLEMS[row["function"]].regret(row.get("best_values", row.get("values")))


def _versus(peer: str, medians: dict, runs: dict) -> str:
    outcome = [compare(a, b, PROBLEMS[fn].tie_tolerance) for fn, (a, b) in medians.items()]
    lower, tied, higher = (outcome.count(k) for k in (-1, 0, 1))
    return (
        f"against {peer}: lower median on {lower}, tied on {tied}, higher on {higher} of "
        f"{len(medians)} problems; median regret minus {peer}'s: "
        + ", ".join(f"{fn} {a - b:+.3g}" for fn, (a, b) in medians.items())
    )


PAGE = ProblemPage(
    bench=BENCH,
    problems=PROBLEMS,
    describe=lambda name, p: (
        f"({len(names(p.space))} parameters, {p.n_trials} trials): {p.description}"
    ),
    peers=("gp", "tpe", "tpe-mg", "random"),
    stems=("cond_seq", "cond_async4", "cond_ax"),
    final=lambda row: regret(row)[-1],
    measure="Best value after the last trial minus the problem's minimum (regret; for "
    "`model-choice`, whose minimum is unknown, the best CV error itself; lower is better)",
    noun="regret",
    versus=_versus,
    plot_rows=lambda rows: [{**r, "regret": regret(r)} for r in rows],
    plot_title="best value minus the minimum (model-choice: best CV error)",
    plot_options={"ylabel": "median regret (IQR)", "linthresh": 1e-4},
    tolerance=lambda fn: PROBLEMS[fn].tie_tolerance,
    suggest="suggest_*",
)


if __name__ == "__main__":
    main()
