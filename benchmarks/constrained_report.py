"""The tables of the constrained benchmark (``benchmarks.constrained``), for
``benchmarks.report``: per mode, the best feasible regret, the fraction of feasible trials, the
seconds per suggestion and how our samplers compare with the peers."""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np

from benchmarks.constrained_functions import PROBLEMS
from benchmarks.harness.ax import AX_METHODS
from benchmarks.harness.regret import STARTUP_TRIALS
from benchmarks.harness.results import latest
from benchmarks.harness.samplers import LABELS, is_peer, ordered
from benchmarks.harness.tables import fmt, markdown_table, provenance_line

RUN_CELL = ("function", "sampler", "seed", "mode", "workers", "n_trials")


def shown(ours: list[dict], peers: list[dict]) -> list[dict]:
    """The rows a table shows: the latest of each cell; per problem, those of the setting
    (workers, trials) of its latest row (ours first, else the peers'); of the (problem, seed)
    pairs that every sampler of the problem ran."""
    rows = latest(ours, RUN_CELL) + latest(peers, RUN_CELL)
    setting = {r["function"]: (r["workers"], r["n_trials"]) for r in peers + ours}
    rows = [r for r in rows if (r["workers"], r["n_trials"]) == setting[r["function"]]]
    samplers: dict = defaultdict(set)
    ran: dict = defaultdict(set)
    for r in rows:
        samplers[r["function"]].add(r["sampler"])
        ran[(r["function"], r["seed"])].add(r["sampler"])
    return [r for r in rows if ran[(r["function"], r["seed"])] == samplers[r["function"]]]


def regret(row: dict) -> list[float]:
    """The best feasible value so far minus the problem's (``PROBLEMS``), trial by trial; ``inf``
    before the first feasible trial (a run that found none ranks worst)."""
    f_min = PROBLEMS[row["function"]].f_min
    return [math.inf if b is None else b - f_min for b in row["best"]]


def final_regret(row: dict) -> float:
    return regret(row)[-1]


def quantile(values, q: float) -> float:
    """The ``q`` quantile (linear interpolation) of ``values``, which may hold ``inf``: any
    interpolation towards ``inf`` is ``inf``."""
    v = np.sort(np.asarray(values, dtype=float))
    pos = q * (len(v) - 1)
    lo, hi = math.floor(pos), math.ceil(pos)
    if lo == hi or math.isinf(v[hi]):
        return float(v[hi])
    return float(v[lo] + (v[hi] - v[lo]) * (pos - lo))


def by_cell(rows: list[dict]) -> dict:
    """``{problem: {sampler: [rows by seed]}}``."""
    out: dict = defaultdict(lambda: defaultdict(list))
    for r in sorted(rows, key=lambda r: r["seed"]):
        out[r["function"]][r["sampler"]].append(r)
    return out


def _regret(value: float) -> str:
    return "none feasible" if math.isinf(value) else fmt(value)


def _regret_cell(finals: list[float], *, bold: bool) -> str:
    """``median (first quartile – third quartile)``, the median bold if ``bold``."""
    median = _regret(quantile(finals, 0.5))
    quartiles = f"{_regret(quantile(finals, 0.25))} – {_regret(quantile(finals, 0.75))}"
    return f"{f'**{median}**' if bold else median} ({quartiles})"


def summarise(rows: list[dict], title: str) -> list[str]:
    """The tables of one mode: best feasible regret, feasibility, seconds per suggestion, and
    how each of ours compares with the peers."""
    if not rows:
        return []
    cells = by_cell(rows)
    samplers = ordered({r["sampler"] for r in rows})
    header = ["problem", "trials", *(LABELS.get(s, s) for s in samplers)]
    regret, feasible = [], []
    for fn in sorted(cells, key=list(PROBLEMS).index):
        runs = cells[fn]
        n_trials = next(iter(runs.values()))[0]["n_trials"]
        finals = {s: [final_regret(r) for r in runs[s]] for s in samplers if runs.get(s)}
        medians = {s: quantile(v, 0.5) for s, v in finals.items()}
        best = min(medians.values())
        regret.append(
            [fn, n_trials]
            + [
                _regret_cell(finals[s], bold=medians[s] == best < math.inf) if s in finals else "–"
                for s in samplers
            ]
        )
        feasible.append(
            [fn, n_trials]
            + [
                f"{np.median([r['feasible_fraction'] for r in runs[s]]):.2f} "
                f"({sum(r['n_feasible'] == 0 for r in runs[s])} of {len(runs[s])})"
                if runs.get(s)
                else "–"
                for s in samplers
            ]
        )
    seeds = sorted({len(v) for c in cells.values() for v in c.values()})
    return [
        f"## {title}",
        "",
        f"Best feasible value after the last trial minus the problem's best feasible value "
        f"(regret; lower is better): median over {span(seeds)} seed{'s' * (seeds[-1] > 1)} per "
        "problem (the seeds every "
        "sampler ran), quartiles in brackets; a run without a feasible trial counts as the worst "
        "(none feasible). Bold: best median.",
        "",
        *markdown_table(header, regret),
        "Fraction of feasible trials (median over runs), and in brackets the runs without any "
        "feasible trial:",
        "",
        *markdown_table(header, feasible),
        *speed_table(cells, samplers, list(PROBLEMS), rows[0]["workers"]),
        *comparisons(cells, samplers),
        provenance_line(rows),
        "",
    ]


def speed_table(
    cells: dict,
    samplers: list[str],
    problems: list[str],
    workers: int,
    *,
    suggest: str = "suggest_float",
) -> list[str]:
    """The seconds per suggestion of each sampler on each problem of ``cells`` (``by_cell``;
    rows in the order of ``problems``) with the sentence that says what is timed (``suggest``:
    the trial methods an ask calls)."""
    header = ["problem", "trials", *(LABELS.get(s, s) for s in samplers)]
    body = []
    for fn in sorted(cells, key=problems.index):
        runs = cells[fn]
        cpu, wall = (
            {s: median_seconds(runs[s], f) for s in samplers if runs.get(s)}
            for f in ("cpu_seconds_per_suggestion", "seconds_per_suggestion")
        )
        n_trials = next(iter(runs.values()))[0]["n_trials"]
        body.append(
            [fn, n_trials]
            + [f"{fmt(cpu[s])} ({fmt(wall[s])})" if s in cpu else "–" for s in samplers]
        )
    pending = f", {workers - 1} other trial{'s' if workers > 2 else ''} pending" * (workers > 1)
    asks = (
        "`client.get_next_trials(max_trials=1)`: the trials not generated by Sobol or at the "
        "centre of the search space"
        if any(s in AX_METHODS for s in samplers)
        else f"`study.ask()` with its `{suggest}` calls{pending}; peers: the asks after "
        f"{STARTUP_TRIALS} completed trials"
    )
    return [
        "CPU seconds per suggestion, wall seconds in brackets (median over runs of the mean over "
        f"the model's suggestions of {asks}; one thread per pool, other processes sharing the "
        "cores slow the wall seconds only):",
        "",
        *markdown_table(header, body),
    ]


def median_seconds(runs: list[dict], field: str = "cpu_seconds_per_suggestion") -> float | None:
    """The median over ``runs`` of ``field`` (CPU or wall seconds per suggestion)."""
    values = [r[field] for r in runs if r.get(field)]
    return float(np.median(values)) if values else None


def span(counts) -> str:
    """``"5"`` or ``"3-5"``: the range of sorted ``counts``."""
    return str(counts[0]) if counts[0] == counts[-1] else f"{counts[0]}-{counts[-1]}"


def comparisons(cells: dict, samplers: list[str]) -> list[str]:
    """For each of ours against each peer of ``samplers``: the problems where its median final
    regret is lower, its runs without a feasible trial where the peer's run of the same seed had
    one, and its CPU seconds per suggestion over the peer's per problem."""
    out = []
    peers = [p for p in samplers if is_peer(p)]
    for s in (s for s in samplers if not is_peer(s)):
        for p in peers:
            both = [fn for fn in cells if cells[fn].get(s) and cells[fn].get(p)]
            if not both:
                continue
            wins = [
                fn
                for fn in both
                if quantile([final_regret(r) for r in cells[fn][s]], 0.5)
                < quantile([final_regret(r) for r in cells[fn][p]], 0.5)
            ]
            missed = sum(
                r["n_feasible"] == 0 and q["n_feasible"] > 0
                for fn in both
                for r, q in zip(cells[fn][s], cells[fn][p])
            )
            ratios = [
                median_seconds(cells[fn][s]) / median_seconds(cells[fn][p])
                for fn in both
                if median_seconds(cells[fn][s]) and median_seconds(cells[fn][p])
            ]
            ours, peer = LABELS.get(s, s), LABELS.get(p, p)
            out.append(
                f"- {ours} has a lower median than {peer} on {len(wins)} of {len(both)} problems"
                + (f" ({', '.join(sorted(wins, key=list(PROBLEMS).index))})" if wins else "")
                + f"; runs without a feasible trial where {peer}'s run of the same seed had one: "
                f"{missed}"
                + (
                    f"; CPU seconds per suggestion / {peer}'s: "
                    + ", ".join(f"{v:.2f}" for v in ratios)
                    if ratios
                    else ""
                )
            )
    return out + [""] if out else []


def plot_rows(rows: list[dict]) -> list[dict]:
    """``rows`` with ``regret`` as :func:`regret` gives it, for ``plots.regret_plot``."""
    return [{**r, "regret": regret(r)} for r in rows]
