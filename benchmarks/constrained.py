"""Constrained optimisation: the best feasible value against trials on the problems of
``benchmarks.constrained_functions`` (``docs/benchmarks/index.md``).

    python -m benchmarks.constrained --mode seq --seeds 10 \\
        --out benchmarks/results/constrained_seq.jsonl
    python -m benchmarks.constrained --mode async --workers 4 --seeds 5 \\
        --out benchmarks/results/constrained_async4.jsonl
    python -m benchmarks.constrained --samplers ax-default,ax-egp-auto --functions gramacy \\
        --seeds 5 --out benchmarks/results/constrained_ax.jsonl
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from benchmarks.constrained_functions import PROBLEMS
from benchmarks.harness.ax import AX_METHODS, ax_client
from benchmarks.harness.tables import fmt
from benchmarks.problem_report import ProblemPage, lower_on, runs_table
from benchmarks.problem_runs import ProblemBenchmark, ax_run, optuna_run, row_of

# The peer cache's protocol version: bump it when what a run measures changes.
PROTOCOL = 1
BENCH = "constrained"
SAMPLERS = "egp-auto,bore++,dts-complete,gp,tpe"


def run_job(job: dict) -> dict:
    """One run: Optuna (each trial reports ``trial.set_constraint``) or an Ax ``Client`` with an
    outcome constraint ``<name> <= 0`` per constraint. Outcomes: (value, feasible) per trial."""
    problem = PROBLEMS[job["function"]]
    names = problem.constraint_names
    if job["sampler"] in AX_METHODS:

        def tell(params: dict) -> tuple[dict, tuple]:
            x = np.array([params[f"x{i}"] for i in range(len(problem.bounds))])
            c, value = problem.constraints(x), problem.objective(x)
            return {"loss": value, **dict(zip(names, map(float, c)))}, (value, bool(np.all(c <= 0)))

        client = ax_client(
            job["sampler"], problem.bounds, job["seed"], [f"{n} <= 0" for n in names]
        )
        outcomes, timing = ax_run(job, client, tell)
    else:

        def evaluate(trial, x: np.ndarray) -> float:
            for name, value in zip(names, problem.constraints(x)):
                trial.set_constraint(name, float(value))
            return problem.objective(x)

        trials, timing = optuna_run(job, problem.bounds, evaluate)
        outcomes = [(t.value, all(v <= 0 for v in t.constraints.values())) for t in trials]
    values = np.array([v for v, _ in outcomes], dtype=float)
    feasible = np.array([f for _, f in outcomes], dtype=bool)
    best = np.minimum.accumulate(np.where(feasible, values, np.inf))
    fields = {
        "values": values.tolist(),
        "feasible": feasible.tolist(),
        "best": [None if b == np.inf else float(b) for b in best],
        "regret": [None if b == np.inf else float(b - problem.f_min) for b in best],
        "n_feasible": int(feasible.sum()),
        "feasible_fraction": float(feasible.mean()) if len(values) else 0.0,
    }
    return row_of(job, fields, timing, len(values))


def _describe(row: dict) -> str:
    best = row["best"][-1]
    return (
        f"best {'none feasible' if best is None else f'{best:.6g}'}, {row['n_feasible']} feasible"
    )


BENCHMARK = ProblemBenchmark(BENCH, __doc__, PROBLEMS, SAMPLERS, PROTOCOL, run_job, _describe)
main = BENCHMARK.main


def regret(row: dict) -> list[float]:
    """The best feasible value so far minus the problem's (``PROBLEMS``), trial by trial; ``inf``
    before the first feasible trial (a run that found none ranks worst)."""
    f_min = PROBLEMS[row["function"]].f_min
    return [math.inf if b is None else b - f_min for b in row["best"]]


def _regret(value: float) -> str:
    return "none feasible" if math.isinf(value) else fmt(value)


def _feasible_table(cells: dict, samplers: list[str]) -> list[str]:
    return runs_table(
        cells,
        samplers,
        PROBLEMS,
        "Fraction of feasible trials (median over runs), and in brackets the runs without any "
        "feasible trial:",
        lambda runs: (
            f"{np.median([r['feasible_fraction'] for r in runs]):.2f} "
            f"({sum(r['n_feasible'] == 0 for r in runs)} of {len(runs)})"
        ),
    )


def _versus(peer: str, medians: dict, runs: dict) -> str:
    """Wins (named) and the runs without a feasible trial where the peer's of the seed had one."""
    wins = [fn for fn, (a, b) in medians.items() if a < b]
    missed = sum(
        r["n_feasible"] == 0 and q["n_feasible"] > 0
        for ours, theirs in runs.values()
        for r, q in zip(ours, theirs)
    )
    return (
        lower_on(peer, medians)
        + (f" ({', '.join(wins)})" if wins else "")
        + f"; runs without a feasible trial where {peer}'s run of the same seed had one: {missed}"
    )


def _problem_line(name: str, p: Any) -> str:
    n = len(p.constraint_names)
    return (
        f"({len(p.bounds)}-D, {n} constraint{'s' if n > 1 else ''}, best feasible value "
        f"{p.f_min:.6g}): {p.source}"
    )


PAGE = ProblemPage(
    bench=BENCH,
    problems=PROBLEMS,
    describe=_problem_line,
    peers=("gp", "tpe"),
    stems=("constrained_seq", "constrained_async4", "constrained_ax"),
    final=lambda row: regret(row)[-1],
    measure="Best feasible value after the last trial minus the problem's best feasible value "
    "(regret; lower is better)",
    noun="regret",
    versus=_versus,
    plot_rows=lambda rows: [{**r, "regret": regret(r)} for r in rows],
    plot_title="best feasible value minus the best possible",
    plot_options={"ylabel": "median best feasible regret (IQR)", "linthresh": 1e-6},
    show=_regret,
    worst="; a run without a feasible trial counts as the worst (none feasible)",
    extra_tables=_feasible_table,
)


if __name__ == "__main__":
    main()
