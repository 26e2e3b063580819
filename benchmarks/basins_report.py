"""The basins page: on problems with a wrong branch or basin to fall into, how many runs never left
it. A view of rows other benchmarks measure (the conditional, suite, several-objectives and
constrained ones), sequential and with 4 trials pending: per problem and sampler, the median final
value and the runs that ended *stuck*, at or above the problem's threshold (``Basin.stuck_at``: the
best value outside the best branch or basin, or just below it): in the wrong branch or basin, or
not yet low enough in the right one.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass

from benchmarks.harness.cache import PeerCache
from benchmarks.harness.samplers import LABELS, ordered
from benchmarks.harness.tables import current_line, fmt, markdown_table, provenance_line
from benchmarks.problem_report import shown
from benchmarks.suite_report import Context

# The samplers the runs of this page ask for, ours then the peers (the registry's entries).
OURS = ("egp-auto", "bore++", "dts-complete")
PEERS = ("gp", "tpe", "tpe-mg", "cmaes", "nsga2", "random")
SETTINGS = (("seq", 1, "Sequential"), ("async", 4, "Asynchronous ask/tell, 4 workers"))


@dataclass(frozen=True)
class Source:
    """A benchmark whose rows the page reads: its ``bench``, its results files (sequential, 4
    pending; no ``.jsonl``) and a row's final value (lower is better)."""

    bench: str
    stems: tuple[str, str]
    final: Callable[[dict], float]


@dataclass(frozen=True)
class Basin:
    """A problem of a ``source``; a run whose final value is at or above ``stuck_at`` is stuck
    (``None``: unknown, the optimum is); ``why`` says where the threshold comes from."""

    source: str
    stuck_at: float | None
    why: str


def _sources() -> dict[str, Source]:
    from benchmarks import conditional, constrained, multi_objective

    return {
        "conditional": Source("conditional", ("cond_seq", "cond_async4"), conditional.PAGE.final),
        "suite": Source(
            "suite", ("basins_suite_seq", "basins_suite_async4"), lambda r: r["regret"][-1]
        ),
        "multi_objective": Source(
            "multi_objective", ("mo_seq", "mo_async4"), multi_objective.PAGE.final
        ),
        "constrained": Source(
            "constrained", ("constrained_seq", "constrained_async4"), constrained.PAGE.final
        ),
    }


BASINS: dict[str, Basin] = {
    "two-branch-a": Basin("conditional", 0.5, "regret; the other branch's minimum is 0.5"),
    "two-branch-b": Basin("conditional", 0.5, "regret; the other branch's minimum is 0.5"),
    "nested": Basin(
        "conditional", 0.15, "regret; the best branch but one (`b`/`p`) has its minimum at 0.15"
    ),
    "wide": Basin("conditional", 0.05, "regret; the best branch but one (`t`) has 0.05"),
    "model-choice": Basin("conditional", None, "CV error; its minimum is unknown"),
    "hartmann6": Basin("suite", 0.1, "regret; the next-best local minimum is 0.119"),
    "shekel4": Basin("suite", 5.0, "regret; the next-best local minima are 5.36 and 5.41"),
    # no local fronts: a gap of 1 (under 1 % of HV*) separates the runs that never reached the
    # front from those that did, on both problems (10 seeds of each sampler, 2026-11-27)
    "zdt1": Basin("multi_objective", 0.0, "log10 hypervolume gap; at or above 0: off the front"),
    "zdt3": Basin("multi_objective", 0.0, "log10 hypervolume gap; at or above 0: off the front"),
    "gardner": Basin("constrained", 0.03, "feasible regret; the next-best local minimum is 0.0398"),
}


def stuck(finals: list[float], stuck_at: float | None) -> str:
    """``k/n``: how many of the ``finals`` are at or above ``stuck_at`` (``–`` if unknown)."""
    if stuck_at is None:
        return "–"
    return f"{sum(f >= stuck_at for f in finals)}/{len(finals)}"


def setting_rows(ctx: Context, mode: str, workers: int) -> dict[str, list[dict]]:
    """Per source, the rows of a setting its table shows (``problem_report.shown``: ours and the
    cached peers', latest per cell, on the seeds every sampler of a problem ran), basins only."""
    cache = PeerCache(ctx.results / "peers.jsonl")
    out = {}
    for name, source in _sources().items():
        wanted = {fn for fn, b in BASINS.items() if b.source == name}
        ours = ctx.rows(f"{source.stems[mode == 'async']}.jsonl")
        peers = cache.rows(samplers=PEERS, bench=source.bench, mode=mode, workers=workers)
        out[name] = shown(
            [
                r
                for r in ours
                if r["workers"] == workers and r["function"] in wanted and r["sampler"] in OURS
            ],
            [r for r in peers if r["function"] in wanted],
        )
    return out


def table(rows_by_source: dict[str, list[dict]], title: str) -> list[str]:
    """A setting's table: a row per basin problem that has rows, a column per sampler; a cell:
    the median final value and, in brackets, the runs stuck."""
    sources = _sources()
    rows = [r for rs in rows_by_source.values() for r in rs]
    if not rows:
        return []
    samplers = ordered({r["sampler"] for r in rows})
    body = []
    for fn, basin in BASINS.items():
        by_sampler: dict[str, list[float]] = {}
        for r in rows_by_source.get(basin.source, []):
            if r["function"] == fn:
                by_sampler.setdefault(r["sampler"], []).append(sources[basin.source].final(r))
        if not by_sampler:
            continue
        n_trials = next(r["n_trials"] for r in rows_by_source[basin.source] if r["function"] == fn)
        cells = [
            f"{fmt(statistics.median(v))} ({stuck(v, basin.stuck_at)})" if v else "–"
            for v in (by_sampler.get(s, []) for s in samplers)
        ]
        body.append([f"`{fn}` ({n_trials})", fmt(basin.stuck_at), *cells])
    header = ["problem (trials)", "stuck at", *(LABELS.get(s, s) for s in samplers)]
    lines = [f"## {title}", ""] + markdown_table(header, body)
    return lines + [provenance_line(rows), current_line(rows), ""]


def page(ctx: Context) -> list[str]:
    """The page: the problems and thresholds, then a table per setting."""
    lines = [
        "Each cell: the median final value over the seeds every sampler of the problem ran and, "
        "in brackets, the runs that ended **stuck**: at or above the problem's threshold "
        "(`stuck at`), below which only the best branch or basin reaches: such a run ended in "
        "the wrong branch or basin, or not yet low enough in the right one. Final values: "
        "regret for one objective (for `model-choice` the CV error itself), the log10 "
        "hypervolume gap for ZDT1 and ZDT3 (`python -m benchmarks.multi_objective`), the best "
        "feasible regret for Gardner (`python -m benchmarks.constrained`). The conditional "
        "problems are `python -m benchmarks.conditional`'s; Hartmann-6 and Shekel-4 are run by "
        "`python -m benchmarks.run suite --functions hartmann6,shekel4`.",
        "",
    ]
    lines += [f"- `{fn}`: {b.why}" for fn, b in BASINS.items()] + [""]
    for mode, workers, title in SETTINGS:
        lines += table(setting_rows(ctx, mode, workers), title)
    return lines
