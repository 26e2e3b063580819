"""The tables of the benchmarks on lists of problems: each declares its page (``ProblemPage``),
``summarise`` renders a setting's tables and ``benchmarks.pages.problem_page`` the page."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from benchmarks.harness.ax import AX_METHODS
from benchmarks.harness.regret import STARTUP_TRIALS
from benchmarks.harness.results import latest
from benchmarks.harness.samplers import LABELS, is_peer, ordered
from benchmarks.harness.tables import (
    beta_suffix,
    fmt,
    markdown_table,
    median_ranks,
    provenance_line,
    value_table,
)

RUN_CELL = ("function", "sampler", "seed", "mode", "workers", "n_trials")


@dataclass(frozen=True)
class ProblemPage:
    """A problem benchmark's page: its problems, the settings it shows, each run's final value
    (lower is better) and the words and extras of its tables and plots."""

    bench: str
    problems: Mapping[str, Any]
    describe: Callable[[str, Any], str]  # a problem's line in the list at the top of the page
    peers: tuple[str, ...]  # the cached peers of the sequential and asynchronous settings
    stems: tuple[str, str, str]  # results files (no .jsonl): sequential, asynchronous, Ax
    final: Callable[[dict], float]
    measure: str  # what a cell of the first table is (the sentence's start)
    noun: str  # that of a run stopped early: "regret", "gap"
    versus: Callable[[str, dict, dict], str]  # (peer, medians, runs) -> a comparison's middle
    plot_rows: Callable[[list[dict]], list[dict]]  # with "regret" for plots.regret_plot
    plot_title: str
    plot_options: dict = field(default_factory=dict)
    show: Callable[[float], str] = fmt  # a cell's number
    tolerance: Callable[[str], float] | None = None  # ties: differences up to a problem's
    worst: str = ""  # said after "quartiles in brackets"
    suggest: str = "suggest_float"  # the trial methods an ask calls
    extra_tables: Callable[[dict, list[str]], list[str]] | None = None
    extra_plots: Callable[[list[dict], Callable, str, str], list[str]] | None = None
    # samplers run on other seeds (fewer: a wall-time limit, a superseded setting): shown on the
    # seeds they ran, never bold, not counted in "the seeds every sampler ran"
    own_seeds: tuple[str, ...] = ()

    def order(self, problems) -> list[str]:
        return sorted(problems, key=list(self.problems).index)

    def tie(self, fn: str) -> float:
        return self.tolerance(fn) if self.tolerance else 0.0

    def ties(self, fn: str, median: float, best: float) -> bool:
        """Is ``median`` bold: within the problem's tie tolerance of the ``best`` (finite)."""
        return median <= best + self.tie(fn) and best < math.inf


def shown(ours: list[dict], peers: list[dict], own_seeds: Sequence[str] = ()) -> list[dict]:
    """The rows a table shows: the latest of each cell; per problem, those of the setting
    (workers, trials) of its latest row (ours first, else the peers'); of the (problem, seed)
    pairs that every sampler of the problem ran, but those of ``own_seeds``, which keep all
    their rows and are not waited for."""
    rows = latest(ours, RUN_CELL) + latest(peers, RUN_CELL)
    setting = {  # of the latest row; a sampler on its own seeds only where no other ran
        r["function"]: (r["workers"], r["n_trials"])
        for r in sorted(peers + ours, key=lambda r: r["sampler"] not in own_seeds)
    }
    rows = [r for r in rows if (r["workers"], r["n_trials"]) == setting[r["function"]]]
    samplers: dict = defaultdict(set)
    ran: dict = defaultdict(set)
    for r in rows:
        if r["sampler"] not in own_seeds:
            samplers[r["function"]].add(r["sampler"])
            ran[(r["function"], r["seed"])].add(r["sampler"])
    return [
        r
        for r in rows
        if r["sampler"] in own_seeds or ran[(r["function"], r["seed"])] == samplers[r["function"]]
    ]


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


def final_regrets(rows: list[dict]) -> dict:
    """``{(function, sampler): {seed: final regret}}`` (a run stopped early: the regret it
    reached)."""
    out: dict = defaultdict(dict)
    for r in rows:
        out[(r["function"], r["sampler"])][r["seed"]] = r["regret"][-1]
    return out


def development_table(
    rows: list[dict], option: str, default: float, problems
) -> tuple[list[str], dict[str, float]]:
    """The development runs of an ``option`` (sampler names with a ``-beta<x>`` suffix, none: the
    ``default``): its ``value_table`` on ``problems`` (those with rows) and the values' mean
    ranks."""
    values = {s: option_value(s, default) for s in {r["sampler"] for r in rows}}
    problems = ordered({r["function"] for r in rows}, problems)
    ranked = median_ranks(final_regrets(rows), list(values), problems)
    return value_table(option, values, problems, ranked, default), ranked[1]


def option_value(sampler: str, default: float) -> float:
    value = beta_suffix(sampler)
    return default if value is None else value


def median_seconds(runs: list[dict], field: str = "cpu_seconds_per_suggestion") -> float | None:
    """The median over ``runs`` of ``field`` (CPU or wall seconds per suggestion)."""
    values = [r[field] for r in runs if r.get(field)]
    return float(np.median(values)) if values else None


def span(counts) -> str:
    """``"5"`` or ``"3-5"``: the range of sorted ``counts``."""
    return str(counts[0]) if counts[0] == counts[-1] else f"{counts[0]}-{counts[-1]}"


def summarise(rows: list[dict], title: str, page: ProblemPage) -> list[str]:
    """The tables of one setting: the final values, ``page``'s extra tables, the seconds per
    suggestion, how each of ours compares with the peers, the provenance line."""
    if not rows:
        return []
    cells = by_cell(rows)
    samplers = ordered({r["sampler"] for r in rows})
    finals = {
        fn: {s: [page.final(r) for r in runs] for s, runs in cells[fn].items() if runs}
        for fn in page.order(cells)
    }
    trials = {fn: n_trials(cells[fn]) for fn in cells}
    seeds = sorted(
        {len(v) for c in cells.values() for s, v in c.items() if s not in page.own_seeds}
        or {len(v) for c in cells.values() for v in c.values()}
    )
    bold = "best median"
    if page.tolerance:
        tolerances = ", ".join(f"{fn} {fmt(page.tie(fn))}" for fn in page.order(cells))
        bold = f"the best median and those within the problem's tie tolerance of it ({tolerances})"
    return [
        f"## {title}",
        "",
        f"{page.measure}: median over {span(seeds)} seed{'s' * (seeds[-1] > 1)} per problem (the "
        f"seeds every sampler ran{_own_seeds(cells, page)}), quartiles in brackets{page.worst}. "
        f"Bold: {bold}." + _limits(rows, page.noun),
        "",
        *final_table(finals, trials, samplers, page.ties, show=page.show, unranked=page.own_seeds),
        *(page.extra_tables(cells, samplers) if page.extra_tables else []),
        *speed_table(
            cells, samplers, list(page.problems), rows[0]["workers"], suggest=page.suggest
        ),
        *comparisons(cells, samplers, page),
        provenance_line(rows),
        "",
    ]


def final_table(
    finals: dict,
    trials: dict,
    samplers: list[str],
    ties,
    *,
    show=fmt,
    label=None,
    seeds=False,
    unranked: Sequence[str] = (),
) -> list[str]:
    """Per problem (``finals``: ``{problem: {sampler: [final values]}}`` on the seeds they all
    ran): ``median (first quartile – third quartile)`` per sampler, the median bold where
    ``ties(problem, median, best median)``; ``seeds``: their number in a last column;
    ``unranked``: samplers on other seeds, shown but never bold nor the best."""
    label = label or (lambda s: LABELS.get(s, s))
    body = []
    for fn, by_sampler in finals.items():
        medians = {s: quantile(v, 0.5) for s, v in by_sampler.items()}
        ranked = {s: m for s, m in medians.items() if s not in unranked} or medians
        best = min(ranked.values())
        body.append(
            [fn, trials[fn]]
            + [
                _cell(by_sampler[s], show, s in ranked and ties(fn, medians[s], best))
                if s in by_sampler
                else "–"
                for s in samplers
            ]
            + ([str(len(next(iter(by_sampler.values()))))] if seeds else [])
        )
    header = ["problem", "trials", *map(label, samplers), *(["seeds"] * seeds)]
    return markdown_table(header, body)


def runs_table(
    cells: dict,
    samplers: list[str],
    problems: Mapping[str, Any],
    intro: str,
    cell: Callable[[list[dict]], str],
) -> list[str]:
    """A table of one figure per problem and sampler, ``cell(runs)`` of the sampler's runs of the
    problem ("–" without runs), problems in the order of ``problems``, under ``intro``."""
    header = ["problem", "trials", *(LABELS.get(s, s) for s in samplers)]
    body = [
        [fn, n_trials(cells[fn])]
        + [cell(runs) if (runs := cells[fn].get(s)) else "–" for s in samplers]
        for fn in sorted(cells, key=list(problems).index)
    ]
    return [intro, "", *markdown_table(header, body)]


def n_trials(runs: dict) -> int:
    return next(iter(runs.values()))[0]["n_trials"]


def _cell(finals: list[float], show: Callable[[float], str], bold: bool) -> str:
    """``median (first quartile – third quartile)``, the median bold if ``bold``."""
    median = show(quantile(finals, 0.5))
    quartiles = f"{show(quantile(finals, 0.25))} – {show(quantile(finals, 0.75))}"
    return f"{f'**{median}**' if bold else median} ({quartiles})"


def _own_seeds(cells: dict, page: ProblemPage) -> str:
    """What the first sentence says of the samplers shown on their own seeds (``cells``:
    ``by_cell``'s)."""
    own = [s for s in page.own_seeds if any(s in c for c in cells.values())]
    if not own:
        return ""
    counts = [
        f"{LABELS.get(s, s)} {span(sorted({len(c[s]) for c in cells.values() if s in c}))}"
        for s in own
    ]
    return (
        f"; on the seeds they ran, never bold: {', '.join(counts)}; comparisons below: on the "
        "seeds both ran"
    )


def _limits(rows: list[dict], noun: str) -> str:
    """Each sampler's wall-time limit with the problems it held, and how many of those runs it
    stopped."""
    limited = [r for r in rows if r.get("wall_limit")]
    if not limited:
        return ""
    parts = []
    for limit, sampler in sorted({(r["wall_limit"], r["sampler"]) for r in limited}):
        rs = [r for r in limited if (r["wall_limit"], r["sampler"]) == (limit, sampler)]
        problems = ", ".join(sorted({r["function"] for r in rs}))
        stopped = sum(r.get("stopped_at") is not None for r in rs)
        parts.append(
            f"{LABELS.get(sampler, sampler)} {limit:g} s on {problems} "
            f"({stopped} of {len(rs)} runs stopped by it)"
        )
    return (
        f" Wall-time limits: {'; '.join(parts)}; a stopped run's {noun} is that of the trials "
        "it ran."
    )


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
        body.append(
            [fn, n_trials(runs)]
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


def comparisons(cells: dict, samplers: list[str], page: ProblemPage) -> list[str]:
    """For each of ours against each peer of ``samplers``: ``page.versus`` on the median final
    values per problem both ran (on the seeds both ran), then its CPU seconds per suggestion
    over the peer's."""
    out = []
    for s in (s for s in samplers if not is_peer(s)):
        for p in (p for p in samplers if is_peer(p)):
            runs = {
                fn: pair
                for fn in page.order(cells)
                if all(pair := _same_seeds(cells[fn].get(s, []), cells[fn].get(p, [])))
            }
            if not runs:
                continue
            medians = {
                fn: tuple(quantile([page.final(r) for r in rs], 0.5) for rs in pair)
                for fn, pair in runs.items()
            }
            seconds = [tuple(map(median_seconds, pair)) for pair in runs.values()]
            ratios = [a / b for a, b in seconds if a and b]
            peer = LABELS.get(p, p)
            out.append(
                f"- {LABELS.get(s, s)} {page.versus(peer, medians, runs)}"
                + (
                    f"; CPU seconds per suggestion / {peer}'s: "
                    + ", ".join(f"{v:.2f}" for v in ratios)
                    if ratios
                    else ""
                )
            )
    return out + [""] if out else []


def _same_seeds(a: list[dict], b: list[dict]) -> tuple[list[dict], list[dict]]:
    """The runs of ``a`` and of ``b`` on the seeds both ran."""
    common = {r["seed"] for r in a} & {r["seed"] for r in b}
    return [r for r in a if r["seed"] in common], [r for r in b if r["seed"] in common]


def lower_on(peer: str, medians: dict) -> str:
    """The start of a comparison: on how many problems ours has the lower median."""
    wins = [fn for fn, (a, b) in medians.items() if a < b]
    return f"has a lower median than {peer} on {len(wins)} of {len(medians)} problems"
