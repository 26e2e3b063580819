"""The conditional benchmark's page declared (``benchmarks.conditional``): the final regret (the
best CV error for ``model-choice``), differences below a problem's tie tolerance
(``conditional_functions.Problem.tie_tolerance``) counting as ties."""

from __future__ import annotations

from benchmarks.conditional_functions import PROBLEMS, names
from benchmarks.constrained_report import ProblemPage
from benchmarks.harness.regret import compare

__all__ = ["PAGE", "regret"]


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
    bench="conditional",
    problems=PROBLEMS,
    describe=lambda name, p: (
        f"({len(names(p.space))} parameters, {p.n_trials} trials): {p.description}"
    ),
    peers=("gp", "tpe", "tpe-mg"),
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
