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


def settings(ctx: Context, page) -> Iterator[tuple[list[dict], str, str]]:
    """``(rows, title, stem)`` of each setting of a problem benchmark (``ProblemPage``) that has
    rows: sequential, asynchronous, Ax ``Client``; the rows: ``problem_report.shown`` of our
    samplers' rows and the peers' cached rows of that setting; ``stem``: its results file's."""
    from benchmarks import problem_report

    cache = PeerCache(ctx.results / "peers.jsonl")
    modes = (("seq", page.peers), ("async", page.peers), ("seq", ("ax-default",)))
    for (mode, peers), stem in zip(modes, page.stems):
        cached = cache.rows(samplers=peers, bench=page.bench, mode=mode)
        rows = problem_report.shown(ctx.rows(f"{stem}.jsonl"), cached, page.own_seeds)
        if not rows:
            continue
        title = (
            "Ax Client: our generation strategy against Ax's default"
            if "ax-default" in peers
            else "Sequential"
            if mode == "seq"
            else f"Asynchronous ask/tell, {rows[0]['workers']} workers"
        )
        yield rows, title, stem


def problem_page(ctx: Context, page) -> list[str]:
    """A problem benchmark's page: its problems, then per setting the tables of
    ``problem_report.summarise`` and the plots, our samplers' rows with the cached peers'."""
    from benchmarks.problem_report import summarise

    lines = [f"- `{name}` {page.describe(name, p)}" for name, p in page.problems.items()] + [""]
    shown = False
    for rows, title, stem in settings(ctx, page):
        shown = True
        plot = _img(ctx, f"{stem}.png")
        regret_plot(page.plot_rows(rows), plot, f"{title}: {page.plot_title}", **page.plot_options)
        lines += summarise(rows, title, page) + [f"![{title}](img/{stem}.png)", ""]
        if page.extra_plots:
            lines += page.extra_plots(rows, lambda name: _img(ctx, name), title, stem)
    return lines if shown else []


def constrained_page(ctx: Context) -> list[str]:
    from benchmarks import constrained

    return problem_page(ctx, constrained.PAGE)


def multi_objective_page(ctx: Context) -> list[str]:
    from benchmarks import multi_objective

    return problem_page(ctx, multi_objective.PAGE)


def conditional_page(ctx: Context) -> list[str]:
    from benchmarks import conditional

    return problem_page(ctx, conditional.PAGE)


def high_dim_page(ctx: Context) -> list[str]:
    """The high-dimensional problems' settings, then seconds per suggestion on stored trials."""
    from benchmarks import high_dim

    speed = script_section(ctx, "high_dim_speed", "high_dim_speed.jsonl", peers=("gp",))
    return problem_page(ctx, high_dim.PAGE) + speed


def failures_page(ctx: Context) -> list[str]:
    """The failures benchmark's settings, then the comparison of feasibility models."""
    from benchmarks import failures

    models = script_section(ctx, "feasibility_models", "feasibility_models.jsonl")
    heading = ["## Feasibility models", "", *failures_models_intro(), ""] if models else []
    cost = script_section(ctx, "failure_cost", "failure_cost.jsonl")
    cost_heading = ["## Cost of a suggestion", "", *failure_cost_intro(), ""] if cost else []
    return problem_page(ctx, failures.PAGE) + heading + models + cost_heading + cost


def failure_cost_intro() -> list[str]:
    return [
        "Milliseconds per `EGPTSSampler` suggestion with failed trials modelled "
        "(`model_failures=True`) and ignored, on the same stored trials: each run's trials "
        "replayed one at a time to one sampler per setting, every suggestion once 10 trials "
        "have completed timed (`python -m benchmarks.failure_cost`); medians over the seeds, "
        "the ratio the median of the seeds' ratios, both settings timed in one process."
    ]


def failures_models_intro() -> list[str]:
    return [
        "How well GP regressions on the labels (+1 failed, -1 completed: `latent-gp`, one "
        "Matern-5/2 ARD GP; `failure-model`, the samplers' failure model, the same kernel with "
        "standardised labels; `ensemble`, the same on the samplers' kernel dictionary) and a GP "
        "probit classifier (Laplace approximation) predict where uniform points fail, from 20 "
        "and 60 labelled points "
        "(`python -m benchmarks.feasibility_models`): log loss, Brier score, error rate, the "
        "mean probability of failure at the quarter of feasible test points farthest from any "
        "failing one (`p_far`), milliseconds per fit; means over the seeds."
    ]


def sto_bnts_page(ctx: Context) -> list[str]:
    """The page of ``benchmarks.sto_bnts`` (``sto_bnts_report``)."""
    from benchmarks import sto_bnts_report

    return sto_bnts_report.page(ctx.results, ctx.img)


def _img(ctx: Context, name: str) -> pathlib.Path:
    ctx.img.mkdir(parents=True, exist_ok=True)
    return ctx.img / name
