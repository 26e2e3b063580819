"""Failed trials: the best value and the trials that failed (or violated a pass/fail constraint)
after the start-up, on the problems of ``benchmarks.failure_functions``.

    python -m benchmarks.failures --mode seq --seeds 10 \\
        --out benchmarks/results/failures_seq.jsonl
    python -m benchmarks.failures --mode async --workers 4 --seeds 5 \\
        --out benchmarks/results/failures_async4.jsonl
    python -m benchmarks.failures --samplers ax-default,ax-egp-auto --functions hpo-crash \\
        --seeds 3 --out benchmarks/results/failures_ax.jsonl

A trial in a crash region fails: the Optuna objective returns NaN (Optuna fails the trial), the Ax
trial is marked failed. A pass/fail constraint is reported as 0 or 1 with ``trial.set_constraint``
(Ax: an outcome constraint ``<name> <= 0``).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from benchmarks.failure_functions import PROBLEMS
from benchmarks.harness.ax import AX_METHODS, ax_client
from benchmarks.harness.regret import STARTUP_TRIALS
from benchmarks.harness.tables import fmt
from benchmarks.problem_report import ProblemPage, lower_on, runs_table
from benchmarks.problem_runs import ProblemBenchmark, ax_run, optuna_run, row_of

# The peer cache's protocol version: bump it when what a run measures changes.
PROTOCOL = 1
BENCH = "failures"
SAMPLERS = "egp-auto,bore++,dts-complete,gp,tpe"


def _outcome(problem: Any, x: np.ndarray) -> tuple[float | None, np.ndarray]:
    """The value at ``x`` (None where the trial fails) and the constraint values ``(k,)``."""
    constraints = problem.constraints(x) if problem.constraints else np.zeros(0)
    return (None if problem.fails(x) else problem.objective(x)), constraints


def run_job(job: dict) -> dict:
    """One run: Optuna (a failing trial returns NaN) or an Ax ``Client`` (a failing trial is
    marked failed). Outcomes: (value or None, succeeded: completed and feasible) per trial."""
    problem = PROBLEMS[job["function"]]
    names = problem.constraint_names
    if job["sampler"] in AX_METHODS:

        def tell(params: dict) -> tuple[dict | None, tuple]:
            x = np.array([params[f"x{i}"] for i in range(len(problem.bounds))])
            value, c = _outcome(problem, x)
            if value is None:
                return None, (None, False)
            return {"loss": value, **dict(zip(names, map(float, c)))}, (value, bool(np.all(c <= 0)))

        client = ax_client(
            job["sampler"], problem.bounds, job["seed"], [f"{n} <= 0" for n in names]
        )
        outcomes, timing = ax_run(job, client, tell)
    else:

        def evaluate(trial, x: np.ndarray) -> float:
            value, c = _outcome(problem, x)
            for name, v in zip(names, c):
                trial.set_constraint(name, float(v))
            return math.nan if value is None else value

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Optuna warns at each trial it fails for a NaN
            trials, timing = optuna_run(job, problem.bounds, evaluate, with_failed=True)
        outcomes = [
            (t.value, t.value is not None and all(v <= 0 for v in t.constraints.values()))
            for t in trials
        ]
    values = [None if v is None else float(v) for v, _ in outcomes]
    succeeded = np.array([ok for _, ok in outcomes], dtype=bool)
    best = np.minimum.accumulate(
        np.where(succeeded, [np.inf if v is None else v for v in values], np.inf)
    )
    after = succeeded[STARTUP_TRIALS:]
    fields = {
        "values": values,
        "succeeded": succeeded.tolist(),
        "regret": [None if b == np.inf else float(b - problem.f_min) for b in best],
        "failed_after_startup": int((~after).sum()),
        "trials_after_startup": len(after),
    }
    return row_of(job, fields, timing, len(values))


def _describe(row: dict) -> str:
    final = row["regret"][-1]
    return (
        f"regret {'none succeeded' if final is None else f'{final:.4g}'}, "
        f"{row['failed_after_startup']} of {row['trials_after_startup']} failed after the start-up"
    )


BENCHMARK = ProblemBenchmark(BENCH, __doc__, PROBLEMS, SAMPLERS, PROTOCOL, run_job, _describe)
main = BENCHMARK.main


def regret(row: dict) -> list[float]:
    """The best value of a succeeded trial so far minus the problem's, trial by trial; ``inf``
    before the first (a run without one ranks worst)."""
    return [math.inf if r is None else r for r in row["regret"]]


def _regret(value: float) -> str:
    return "none succeeded" if math.isinf(value) else fmt(value)


def _failed_table(cells: dict, samplers: list[str]) -> list[str]:
    return runs_table(
        cells,
        samplers,
        PROBLEMS,
        f"Trials after the first {STARTUP_TRIALS} that failed (crash problems) or violated a "
        "constraint (step problems), median over runs:",
        lambda runs: (
            f"{np.median([r['failed_after_startup'] for r in runs]):.3g} of "
            f"{runs[0]['trials_after_startup']}"
        ),
    )


def _versus(peer: str, medians: dict, runs: dict) -> str:
    failed = {
        fn: (
            sum(r["failed_after_startup"] for r in ours),
            sum(r["failed_after_startup"] for r in theirs),
        )
        for fn, (ours, theirs) in runs.items()
    }
    third = [fn for fn, (a, b) in failed.items() if 3 * a <= b]
    return (
        lower_on(peer, medians)
        + f"; failed trials after the start-up at most a third of {peer}'s on {len(third)} of "
        + f"{len(failed)} problems"
        + (f" ({', '.join(third)})" if third else "")
    )


def _problem_line(name: str, p: Any) -> str:
    return f"({len(p.bounds)}-D, {p.kind}, best value {p.f_min:.6g}): {p.source}"


PAGE = ProblemPage(
    bench=BENCH,
    problems=PROBLEMS,
    describe=_problem_line,
    peers=("gp", "tpe"),
    stems=("failures_seq", "failures_async4", "failures_ax"),
    final=lambda row: regret(row)[-1],
    measure="Best value of a trial that neither failed nor violated a constraint, after the last "
    "trial, minus the problem's best (regret; lower is better)",
    noun="regret",
    versus=_versus,
    plot_rows=lambda rows: [{**r, "regret": regret(r)} for r in rows],
    plot_title="best value minus the best possible",
    plot_options={"ylabel": "median regret (IQR)", "linthresh": 1e-6},
    show=_regret,
    worst="; a run without a succeeded trial counts as the worst (none succeeded)",
    extra_tables=_failed_table,
)


if __name__ == "__main__":
    main()
