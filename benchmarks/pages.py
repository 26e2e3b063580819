"""The pages other than the quality page, for ``benchmarks.report``: each assembled from its
benchmark's own tables (the ``summarise`` or ``page`` of its report module) and plots; the
problem benchmarks' (constrained, several objectives, conditional) per setting: sequential,
asynchronous, Ax ``Client``.
"""

from __future__ import annotations

import importlib
import pathlib
from collections.abc import Iterator

from benchmarks.harness.cache import PeerCache
from benchmarks.harness.plots import regret_plot
from benchmarks.suite_report import Context


def ax_page(ctx: Context) -> list[str]:
    """Per mode (one trial per call, batches): the table of ``ax_budget_report.summarise`` and
    the regret against trials, Ax's default and our strategies timed in the same runs."""
    from benchmarks import ax_budget_report
    from benchmarks.ax_budget import BENCH, PROBLEMS

    rows = ctx.rows(f"{BENCH}.jsonl")
    lines = [f"- `{name}`: {p.description}" for name, p in PROBLEMS.items()] + [""]
    shown = False
    for mode in ("seq", "batch"):
        picked = ax_budget_report.rows_of(rows, mode)
        if not picked:
            continue
        shown = True
        title = (
            "One trial per call"
            if mode == "seq"
            else f"Batches of {picked[0]['workers']} trials per call"
        )
        stem = f"{BENCH}_{mode}"
        regret_plot(picked, _img(ctx, f"{stem}.png"), f"Ax Client: {title.lower()}")
        lines += ax_budget_report.summarise(picked, title) + [f"![{title}](img/{stem}.png)", ""]
    return lines if shown else []


# ----------------------------------------------------------------------------- other scripts
def script_section(ctx: Context, module: str, results: str, *, peers: tuple = ()) -> list[str]:
    """The tables of a script: its own ``summarise(rows)`` of the rows of ``results`` and of the
    cached rows of ``peers`` (peer names) of the same ``bench``."""
    rows = ctx.rows(results)
    if not rows:
        return []
    if peers:
        cache = PeerCache(ctx.results / "peers.jsonl")
        rows += cache.rows(samplers=peers, bench=rows[0]["bench"])
    summarise = importlib.import_module(f"benchmarks.{module}").summarise
    return section(summarise(rows))


def section(lines: list[str]) -> list[str]:
    """A script's ``summarise`` lines as a section of a page (its ``### `` headings as ``## ``)."""
    return [
        line.replace("### ", "## ", 1) if line.startswith("### ") else line for line in lines
    ] + [""]


def speed_page(ctx: Context) -> list[str]:
    from benchmarks import scale, speed_report

    peers = PeerCache(ctx.results / "peers.jsonl")
    lines = speed_report.sections(ctx.rows, peers)
    lines += script_section(ctx, "threads_report", "threads.jsonl")
    lines += script_section(ctx, "cold_start", "cold_start.jsonl")
    lines += script_section(ctx, "scale", "scale.jsonl", peers=("gp",))
    if ctx.rows("scale.jsonl"):
        scale_rows = ctx.rows("scale.jsonl") + peers.rows(samplers=("gp",), bench="scale")
        scale.plot(scale_rows, _img(ctx, "scale.png"))
        lines += ["![Scale](img/scale.png)", ""]
    return lines + script_section(ctx, "dts_speed", "dts_speed.jsonl")


def robustness_page(ctx: Context) -> list[str]:
    return script_section(ctx, "dead_trials", "dead_trials.jsonl") + script_section(
        ctx, "stress", "stress.jsonl"
    )


def distributed_page(ctx: Context) -> list[str]:
    from benchmarks import distributed_plots, distributed_report

    cache = PeerCache(ctx.results / "peers.jsonl")
    reproduce = ctx.rows("dts_reproduce.jsonl")
    by_workers = [
        distributed_report.with_peers(ctx.rows(f"dts_async{w}.jsonl"), cache) for w in (8, 16)
    ]
    lines: list[str] = []
    for rows in (reproduce, *by_workers):
        lines += section(distributed_report.summarise(rows)) if rows else []
    asynchronous = [r for rows in by_workers for r in rows]
    if reproduce or asynchronous:
        ctx.img.mkdir(parents=True, exist_ok=True)
        for path in distributed_plots.plot(reproduce, asynchronous, ctx.img):
            lines += [f"![{path.stem}](img/{path.name})", ""]
    return lines


def settings(ctx: Context, bench: str, files) -> Iterator[tuple[list[dict], str, str]]:
    """``(rows, title, stem)`` of each setting of a problem benchmark that has rows: ``files``,
    ``(mode, results file, peers)`` per setting (sequential, asynchronous, Ax ``Client``); the
    rows: ``constrained_report.shown`` of our samplers' rows and the peers' cached rows of
    ``bench`` in that mode; ``stem``: the results file's name without ``.jsonl`` (its plots')."""
    from benchmarks import constrained_report

    cache = PeerCache(ctx.results / "peers.jsonl")
    for mode, name, peers in files:
        cached = cache.rows(samplers=peers, bench=bench, mode=mode)
        rows = constrained_report.shown(ctx.rows(name), cached)
        if not rows:
            continue
        title = (
            "Ax Client: our generation strategy against Ax's default"
            if "ax-default" in peers
            else "Sequential"
            if mode == "seq"
            else f"Asynchronous ask/tell, {rows[0]['workers']} workers"
        )
        yield rows, title, name.removesuffix(".jsonl")


def constrained_page(ctx: Context) -> list[str]:
    """Per setting (sequential, asynchronous, Ax ``Client``): the tables of
    ``constrained_report.summarise`` and the best feasible regret against trials, our samplers'
    rows with the cached peers' of the same setting."""
    from benchmarks import constrained, constrained_report
    from benchmarks.constrained_functions import PROBLEMS

    lines = [
        f"- `{name}` ({len(p.bounds)}-D, {len(p.constraint_names)} constraint"
        f"{'s' if len(p.constraint_names) > 1 else ''}, best feasible value {p.f_min:.6g}): "
        f"{p.source}"
        for name, p in PROBLEMS.items()
    ] + [""]
    shown = False
    files = (
        ("seq", "constrained_seq.jsonl", ("gp", "tpe")),
        ("async", "constrained_async4.jsonl", ("gp", "tpe")),
        ("seq", "constrained_ax.jsonl", ("ax-default",)),
    )
    for rows, title, stem in settings(ctx, constrained.BENCH, files):
        shown = True
        regret_plot(
            constrained_report.plot_rows(rows),
            _img(ctx, f"{stem}.png"),
            f"{title}: best feasible value minus the best possible",
            ylabel="median best feasible regret (IQR)",
            linthresh=1e-6,
        )
        lines += constrained_report.summarise(rows, title) + [f"![{title}](img/{stem}.png)", ""]
    return lines if shown else []


def multi_objective_page(ctx: Context) -> list[str]:
    """Per setting (sequential, asynchronous, Ax ``Client``): the tables of ``mo_report.summarise``,
    the hypervolume gap against trials and the fronts found on the two-objective problems, our
    samplers' rows with the cached peers' of the same setting."""
    from benchmarks import mo_report, multi_objective
    from benchmarks.mo_functions import PROBLEMS

    lines = [
        f"- `{name}` ({len(p.bounds)}-D, {p.n_objectives} objectives, reference point "
        f"({', '.join(f'{v:g}' for v in p.reference_point)})): {p.source}"
        for name, p in PROBLEMS.items()
    ] + [""]
    shown = False
    peers = ("gp", "tpe", "nsga2")
    files = (
        ("seq", "mo_seq.jsonl", peers),
        ("async", "mo_async4.jsonl", peers),
        ("seq", "mo_ax.jsonl", ("ax-default",)),
    )
    for rows, title, stem in settings(ctx, multi_objective.BENCH, files):
        shown = True
        regret_plot(
            mo_report.plot_rows(rows),
            _img(ctx, f"{stem}.png"),
            f"{title}: hypervolume gap",
            ylabel="median HV* - HV (IQR)",
            yscale="log",
        )
        lines += mo_report.summarise(rows, title) + [f"![{title}](img/{stem}.png)", ""]
        if mo_report.front_plot(rows, _img(ctx, f"{stem}_fronts.png"), f"{title}: fronts found"):
            lines += [
                "The non-dominated trials of one run per sampler (the same seed for all), over "
                "the Pareto front:",
                "",
                f"![{title}: fronts](img/{stem}_fronts.png)",
                "",
            ]
    return lines if shown else []


def conditional_page(ctx: Context) -> list[str]:
    """Per setting (sequential, asynchronous, Ax ``Client``): the tables of
    ``conditional_report.summarise`` and the regret against trials, our samplers' rows with the
    cached peers' of the same setting."""
    from benchmarks import conditional, conditional_report
    from benchmarks.conditional_functions import PROBLEMS, names

    lines = [
        f"- `{name}` ({len(names(p.space))} parameters, {p.n_trials} trials): {p.description}"
        for name, p in PROBLEMS.items()
    ] + [""]
    shown = False
    peers = ("gp", "tpe", "tpe-mg")
    files = (
        ("seq", "cond_seq.jsonl", peers),
        ("async", "cond_async4.jsonl", peers),
        ("seq", "cond_ax.jsonl", ("ax-default",)),
    )
    for rows, title, stem in settings(ctx, conditional.BENCH, files):
        shown = True
        regret_plot(
            conditional_report.plot_rows(rows),
            _img(ctx, f"{stem}.png"),
            f"{title}: best value minus the minimum (model-choice: best CV error)",
            ylabel="median regret (IQR)",
            linthresh=1e-4,
        )
        lines += conditional_report.summarise(rows, title) + [f"![{title}](img/{stem}.png)", ""]
    return lines if shown else []


def sto_bnts_page(ctx: Context) -> list[str]:
    """The page of ``benchmarks.sto_bnts`` (``sto_bnts_report``)."""
    from benchmarks import sto_bnts_report

    return sto_bnts_report.page(ctx.results, ctx.img)


def _img(ctx: Context, name: str) -> pathlib.Path:
    ctx.img.mkdir(parents=True, exist_ok=True)
    return ctx.img / name
