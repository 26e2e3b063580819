"""The tables of the Ax low-budget benchmark (``benchmarks.ax_budget``): per mode, each strategy's
median regret at 20 and 40 trials beside Ax's default's, their seconds per trial, and whether the
target (``REGRET_RATIO``, ``TIME_RATIO``) is met."""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np

from benchmarks.ax_budget import DEFAULT, PROBLEMS
from benchmarks.harness.regret import TIE_FRACTION
from benchmarks.harness.tables import fmt, markdown_table, provenance_line, threads_line
from benchmarks.problem_report import by_cell, median_seconds, quantile, shown, span

BUDGETS = (20, 40)  # trials at which the regret is read (those a run reaches, and its last)
REGRET_RATIO = 1.5  # target: median regret at most this times Ax's default's, at every budget,
TIME_RATIO = 0.1  # in at most this fraction of its seconds per trial
# of the median regret after the initialisation: below it, a regret counts as it (the tie rule)
FLOOR_FRACTION = TIE_FRACTION


def rows_of(rows: list[dict], mode: str) -> list[dict]:
    """The rows a table of ``mode`` shows (``problem_report.shown``), their regret recomputed
    with the problem's current minimum."""
    picked = shown([r for r in rows if r["mode"] == mode], [])
    return [
        {**r, "regret": PROBLEMS[r["function"]].regret(r.get("best_values", r.get("values")))}
        for r in picked
    ]


def budgets(n_trials: int) -> list[int]:
    """The trials at which an ``n_trials`` run's regret is read."""
    return sorted({b for b in BUDGETS if b <= n_trials} | {n_trials})


def regret_floor(runs: list[dict]) -> float:
    """``FLOOR_FRACTION`` of the median regret of ``runs`` after their initialisation."""
    if any(r["initialization_trials"] < 1 for r in runs):  # e.g. Ax renamed its Sobol node
        raise ValueError("a run records no initialisation trial: the floor is undefined")
    after = [r["regret"][r["initialization_trials"] - 1] for r in runs]
    return FLOOR_FRACTION * float(np.median(after))


def _ratio(ours: float, default: float, floor: float) -> float:
    """``ours / default`` with both raised to ``floor`` (1 when both are at most ``floor``)."""
    ours, default = max(ours, floor), max(default, floor)
    return 1.0 if ours == default else ours / default if default > 0 else math.inf


def _median_at(runs: list[dict], trials: int) -> float:
    return quantile([r["regret"][trials - 1] for r in runs], 0.5)


def summarise(rows: list[dict], title: str) -> list[str]:
    """The table of one mode (``rows`` from :func:`rows_of`)."""
    if not rows:
        return []
    cells = by_cell(rows)
    order = list(PROBLEMS)
    trials = sorted({r["n_trials"] for r in rows})
    shown_budgets = budgets(trials[-1])
    header = ["problem", "strategy"]
    for b in shown_budgets:
        header += [f"{b} trials: Ax default", f"{b}: strategy", f"{b}: ratio"]
    header += ["s/trial: Ax default", "s/trial: strategy", "time ratio", "target met"]
    body: list[list[str]] = []
    init: dict[str, set[int]] = defaultdict(set)  # sampler -> its initialisation trials
    for fn in sorted(cells, key=order.index):
        runs = cells[fn]
        for s, rs in runs.items():
            init[s] |= {r["initialization_trials"] for r in rs}
        if DEFAULT not in runs:
            continue
        default, floor = runs[DEFAULT], regret_floor([r for rs in runs.values() for r in rs])
        n = default[0]["n_trials"]
        for s in sorted(set(runs) - {DEFAULT}):
            row, misses = [fn, s], []
            for b in shown_budgets:
                if b > n:
                    row += ["–"] * 3
                    continue
                ratio = _ratio(_median_at(runs[s], b), _median_at(default, b), floor)
                row += [fmt(_median_at(default, b)), fmt(_median_at(runs[s], b)), f"{ratio:.2f}"]
                if ratio > REGRET_RATIO:
                    misses.append(f"regret at {b}")
            secs = median_seconds(runs[s], "seconds_per_trial")
            secs_default = median_seconds(default, "seconds_per_trial")
            time_ratio = secs / secs_default if secs and secs_default else math.nan
            if not time_ratio <= TIME_RATIO:
                misses.append("time")
            row += [fmt(secs_default), fmt(secs), fmt(time_ratio, 2)]
            body.append(row + ["yes" if not misses else f"no ({', '.join(misses)})"])
    seeds = sorted({len(v) for c in cells.values() for v in c.values()})
    initialisation = ", ".join(f"{s} {'/'.join(map(str, sorted(v)))}" for s, v in init.items())
    return [
        f"## {title}",
        "",
        f"Regret (best value so far minus the problem's minimum; lower is better) after "
        f"{' and '.join(map(str, shown_budgets))} trials, read from the same "
        f"{'/'.join(map(str, trials))}-trial runs: median over {span(seeds)} "
        f"seed{'s' * (seeds[-1] > 1)} per problem (the seeds every strategy ran). Ratio: the "
        f"strategy's median over Ax default's, both raised to {FLOOR_FRACTION:g} of the median "
        "regret after the initialisation trials (below it, both have solved the problem as far "
        "as a ratio can tell). Seconds per trial: the wall seconds of the run "
        "(`get_next_trials`, the evaluations, `complete_trial`) over its trials, median over "
        "runs; each seed runs both strategies one after the other in one process. Target: "
        f"ratio at most {REGRET_RATIO:g} at every budget, time ratio at most {TIME_RATIO:g}. "
        f"Initialisation trials (Sobol, and Ax default's centre point): {initialisation}.",
        "",
        *markdown_table(header, body),
        *_cpu_line(cells),
        " ".join(t for t in (provenance_line(rows), threads_line(rows)) if t),
        "",
    ]


def _cpu_line(cells: dict) -> list[str]:
    """CPU seconds per trial of each strategy over Ax default's, per problem."""
    parts = []
    for fn in sorted(cells, key=list(PROBLEMS).index):
        runs = cells[fn]
        cpu_default = median_seconds(runs.get(DEFAULT, []), "cpu_seconds_per_trial")
        for s in sorted(set(runs) - {DEFAULT}):
            cpu = median_seconds(runs[s], "cpu_seconds_per_trial")
            if cpu and cpu_default:
                parts.append(f"{fn} {s} {cpu / cpu_default:.3f}")
    if not parts:
        return []
    return [
        "CPU seconds per trial (the process's, every thread) over Ax default's, medians: "
        + ", ".join(parts)
        + ".",
        "",
    ]
