"""STO-BNTS's page (``benchmarks.sto_bnts``; what it shows: ``docs/benchmarks/index.md``): per
setting, the final regret per problem and sampler and its plot; the paper's claims
(``sto_bnts_claims``); the development runs behind the default ``beta``. Rows: the latest of each
cell, ours from ``sto_bnts.jsonl``, the peers' from the peer cache (GPSampler's on the suite
functions: the suite benchmark's, :func:`suite_peer_rows`).
"""

from __future__ import annotations

import inspect
import pathlib
from collections import defaultdict

import numpy as np

from benchmarks.functions import SUITE
from benchmarks.harness.cache import PeerCache
from benchmarks.harness.plots import regret_plot
from benchmarks.harness.regret import STARTUP_TRIALS, tie_floors, versus
from benchmarks.harness.results import latest, read_rows
from benchmarks.harness.samplers import is_sto_bnts, ordered
from benchmarks.harness.tables import (
    fmt,
    provenance_line,
    seed_text,
)
from benchmarks.problem_report import (
    development_table,
    final_regrets,
    final_table,
    option_value,
)
from benchmarks.sto_bnts import (
    BENCH,
    LEVELS,
    MIXED_CHOICES,
    MIXED_FLOATS,
    MIXED_HIGH,
    MIXED_INTS,
    MIXED_LOW,
    PROBLEMS,
    WALL_LIMITED,
)
from benchmarks.sto_bnts_claims import (
    OURS,
    PEERS,
    RUN_CELL,
    ratio_check,
    sampler_label,
    seconds_check,
    setting_order,
    setting_title,
    settings,
    shared_seeds,
    tpe_check,
)
from shared_core import STOBNTSAlgorithm

BETA_RESULTS = "sto_bnts_beta_dev.jsonl"  # written by run_all's sto_bnts_beta
SUITE_PEERS = ("gp",)  # peers whose suite runs stand for this benchmark's on the suite functions


def _stem(mode: str, workers: int) -> str:
    return f"{BENCH}_{mode}" if mode == "seq" else f"{BENCH}_async{workers}"


def regret_table(rows: list[dict], floors: dict[str, float]) -> list[str]:
    """Per problem: each sampler's median final regret and quartiles over the seeds every
    sampler ran on it; bold: the lowest median and those tied with it (tie floors)."""
    finals = final_regrets(rows)
    samplers = ordered({r["sampler"] for r in rows}, (*OURS, *PEERS))
    by_problem = {}
    for fn in PROBLEMS:
        ran = [s for s in samplers if (fn, s) in finals]
        seeds, regrets = shared_seeds(finals, fn, ran)
        if seeds:
            by_problem[fn] = dict(zip(ran, regrets))
    trials = {r["function"]: str(r["n_trials"]) for r in rows}

    def ties(fn: str, median: float, best: float) -> bool:
        return versus(median, best, floors.get(fn, 0.0)) == 0

    return final_table(by_problem, trials, samplers, ties, label=sampler_label, seeds=True)


def _limits(rows: list[dict]) -> list[str]:
    """The runs stopped by their wall-time limit, per sampler and limit."""
    stopped: dict = defaultdict(list)
    for r in rows:
        if r.get("stopped_at") is not None:
            stopped[(r["sampler"], r["wall_limit"])].append(
                f"{r['function']} seed {r['seed']} at {r['stopped_at']}"
            )
    return [
        f"- {sampler_label(s)}'s runs stopped by the wall-time limit of {limit:g} s (trials done): "
        + ", ".join(sorted(runs))
        for (s, limit), runs in sorted(stopped.items())
    ]


def _setting_section(mode: str, workers: int, rows: list[dict], floors, img) -> list[str]:
    title = setting_title(mode, workers)
    limits = sorted({r["wall_limit"] for r in rows if r.get("wall_limit")})
    limited = ", ".join(sampler_label(s) for s in WALL_LIMITED)
    note = (
        f" {limited}'s runs had a wall-time limit of {', '.join(f'{v:g}' for v in limits)} s; a "
        "run it stopped counts with the regret it reached."
        if limits
        else ""
    )
    stopped = _limits(rows)
    regret_plot(rows, img / f"{_stem(mode, workers)}.png", f"{title}: regret against trials")
    return [
        f"## {title}",
        "",
        "Final regret (the best value found minus the minimum): median (first quartile – third "
        f"quartile) over the seeds every sampler ran on the problem; bold: the lowest median and "
        f"those tied with it.{note}",
        "",
        *regret_table(rows, floors),
        *([*stopped, ""] if stopped else []),
        provenance_line(rows),
        "",
        f"![{title}](img/{_stem(mode, workers)}.png)",
        "",
    ]


def page(results: pathlib.Path, img: pathlib.Path) -> list[str]:
    """The page's lines (``[]`` without rows); plots into ``img``."""
    ours = latest(read_rows(results / f"{BENCH}.jsonl"), RUN_CELL)
    cache = PeerCache(results / "peers.jsonl")
    peers = latest(cache.rows(bench=BENCH), RUN_CELL)
    peers += suite_peer_rows(cache, {_cell(r) for r in peers})
    rows = ours + [r for r in peers if r["sampler"] in PEERS]
    dev = latest(read_rows(results / BETA_RESULTS), RUN_CELL)
    by_setting = settings(rows)
    shown = [r for rs in by_setting.values() for r in rs]
    beta = beta_section(dev, shown)
    if not by_setting:
        return ["No results yet: run `python -m benchmarks.sto_bnts`.", "", *beta] if dev else []
    # the tie floors from the sequential runs when there are some (the start-up is the same)
    floors = tie_floors(by_setting.get(("seq", 1)) or shown)
    lines = [f"- `{name}`: {_describe(name)}" for name in PROBLEMS] + [""]
    lines += [
        "GPSampler's runs on the six suite functions are those of the suite benchmark "
        "(`python -m benchmarks.run suite`, the quality page's): the same cells (function, seed, "
        "100 trials, 10 random, trials pending and the order they complete in).",
        "",
    ]
    img.mkdir(parents=True, exist_ok=True)
    for (mode, workers), these in by_setting.items():
        lines += _setting_section(mode, workers, these, floors, img)
    checks = [
        *ratio_check(by_setting, floors),
        *tpe_check(by_setting, floors),
        *seconds_check(by_setting),
    ]
    if checks:
        lines += ["## The paper's claims", "", *checks, provenance_line(shown), ""]
    return lines + beta


def _cell(row: dict) -> tuple:
    return tuple(row.get(f) for f in RUN_CELL)


def suite_peer_rows(cache: PeerCache, have: set[tuple]) -> list[dict]:
    """The suite benchmark's cached runs (``bench="suite"``) of the peers in ``SUITE_PEERS`` on the
    six suite functions at 100 trials, sequential or asynchronous with 4 or 8 trials pending, for
    the cells (``RUN_CELL``) not in ``have``: the same cells as this benchmark's (the functions,
    seeds, start-up and completion order of ``benchmarks.run``), so they are not run twice."""
    rows = [
        {**r, "bench": BENCH}
        for r in latest(cache.rows(bench="suite", n_trials=100), RUN_CELL)
        if r["sampler"] in SUITE_PEERS
        and r["function"] in SUITE
        and (r["mode"], r["workers"]) in (("seq", 1), ("async", 4), ("async", 8))
    ]
    return [r for r in rows if _cell(r) not in have]


def _default_beta() -> float:
    return float(inspect.signature(STOBNTSAlgorithm).parameters["beta"].default)


def _choice(seeds: str, apart: str, mean_ranks: dict[str, float]) -> str:
    """The sentence on the runs' seeds (``seeds``, apart from the reported ``apart``) and the
    choice of the default: the value with the best mean rank, and whether the current default
    (``STOBNTSAlgorithm``'s) is that value."""
    head = (
        f"These runs' seeds ({seeds}) are apart from the seeds ({apart}) of the tables above, "
        "and the"
        if apart
        else "The"
    ) + " default `beta` is chosen as the value with the best mean rank"
    if not mean_ranks:
        return f"{head}; no problem has a seed that every value ran yet."
    best, default = min(mean_ranks.values()), _default_beta()
    values = sorted(option_value(s, default) for s, rank in mean_ranks.items() if rank == best)
    names = [f"{v:g}" for v in values]
    named = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    return (
        f"{head}, {named} (mean rank {fmt(best)}): the current default, {default:g}, is "
        + ("" if default in values else "not ")
        + ("that value." if len(values) == 1 else "one of them.")
    )


def beta_section(rows: list[dict], reported: list[dict]) -> list[str]:
    """The development runs behind the default ``beta``: ``rows`` of ``sto-bnts[-beta<x>]`` (other
    samplers' left out), on seeds apart from those of the ``reported`` rows; "No results yet"
    without rows."""
    rows = [r for r in rows if is_sto_bnts(r["sampler"]) and "-linear" not in r["sampler"]]
    title = ["## The development runs behind the default `beta`", ""]
    if not rows:
        return [
            *title,
            "No results yet: run `python -m benchmarks.run_all --only sto_bnts_beta`.",
            "",
        ]
    table, mean_ranks = development_table(rows, "beta", _default_beta(), PROBLEMS)
    seeds = seed_text(sorted({r["seed"] for r in rows}))
    apart = seed_text(sorted({r["seed"] for r in reported}))
    trials = "/".join(str(n) for n in sorted({r["n_trials"] for r in rows}))
    modes = ", ".join(
        setting_title(*k).lower()
        for k in sorted({(r["mode"], r["workers"]) for r in rows}, key=setting_order)
    )
    return [
        *title,
        f"`STOBNTSSampler(beta=b)` at each value `b`: {trials} trials (the first "
        f"{STARTUP_TRIALS} random), {modes}, seeds {seeds} (`python -m benchmarks.run_all --only "
        "sto_bnts_beta`). Cells: the median final regret over the seeds every value ran on the "
        "problem (their number in brackets). Mean rank: the mean over the problems of the rank of "
        "the value's median among the values' (1: the lowest; equal medians share their mean "
        "rank).",
        "",
        _choice(seeds, apart, mean_ranks),
        "",
        *table,
        provenance_line(rows),
        "",
    ]


def _describe(name: str) -> str:
    p = PROBLEMS[name]
    if p.bounds is None:  # mixed16
        return (
            f"Levy on {MIXED_FLOATS + MIXED_INTS + MIXED_CHOICES} mixed parameters: "
            f"{MIXED_FLOATS} floats and {MIXED_INTS} integers on [{MIXED_LOW}, {MIXED_HIGH}], "
            f"{MIXED_CHOICES} unordered choices of {len(LEVELS)} values ("
            + ", ".join(f"`{k}`: {v:g}" for k, v in LEVELS.items())
            + f"), minimum {p.f_min:.6g}"
        )
    lows, highs = p.bounds[:, 0], p.bounds[:, 1]
    box = (
        f"[{lows[0]:g}, {highs[0]:g}]^{len(p.bounds)}"
        if np.all(lows == lows[0]) and np.all(highs == highs[0])
        else " x ".join(f"[{lo:g}, {hi:g}]" for lo, hi in p.bounds)
    )
    return f"{len(p.bounds)}-D on {box}, minimum {p.f_min:.6g}"
