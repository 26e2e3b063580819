"""The page of STO-BNTS's benchmark (``benchmarks.sto_bnts``), for ``benchmarks.report``: per
setting (sequential, 4 and 8 trials pending), the median and quartiles of the final regret per
problem and sampler and a plot of the regret against trials; then the paper's claims checked on
the rows: (a) with 4 trials pending, STO-BNTS's median regret within ``RATIO_TARGET`` times its
sequential median on at least ``RATIO_COUNT`` of the six suite functions; (b) with 8 pending,
STO-BNTS better than TPE on most problems; (c) its seconds per suggestion at trials 90-100 at
most ``SECONDS_TARGET``. Then the development runs behind the default ``beta``
(``sto_bnts_beta_dev.jsonl``, seeds apart from the reported ones): per value, the median final
regret per problem and the mean rank of those medians over the problems (the medians as they are,
without the tie floors), and whether the default is the value with the best mean rank.

Rows: the latest of each cell; our samplers' from ``sto_bnts.jsonl``, the peers' (``gp``, ``tpe``)
from the peer cache, GPSampler's on the six suite functions from the suite benchmark's cached runs
(:func:`suite_peer_rows`). Each comparison uses the seeds that every sampler (or setting) it
compares ran on the problem. Above the development runs, medians at or below a problem's tie floor
(``report.tie_floors``: a fraction of its median regret after the random start-up) count as the
floor, so two runs that both solved a problem tie.
"""

from __future__ import annotations

import inspect
import pathlib
from collections import defaultdict

import numpy as np

from benchmarks.distributed import STARTUP_TRIALS
from benchmarks.functions import SUITE
from benchmarks.harness.cache import PeerCache
from benchmarks.harness.plots import regret_plot
from benchmarks.harness.results import latest, read_rows
from benchmarks.harness.samplers import LABELS, is_sto_bnts, ordered
from benchmarks.harness.tables import (
    beta_suffix,
    fmt,
    markdown_table,
    median_ranks,
    provenance_line,
    seed_text,
    threads_line,
    value_table,
)
from benchmarks.report import TIE_FRACTION, tie_floors, versus
from benchmarks.sto_bnts import (
    BENCH,
    LATE,
    LEVELS,
    MIXED_CHOICES,
    MIXED_FLOATS,
    MIXED_HIGH,
    MIXED_INTS,
    MIXED_LOW,
    PROBLEMS,
    WALL_LIMITED,
)
from shared_core import STOBNTSAlgorithm

__all__ = ["beta_section", "page", "ratio_check", "seconds_check", "settings", "tpe_check"]

RUN_CELL = ("function", "sampler", "seed", "mode", "workers", "n_trials")
OURS = ("sto-bnts", "sto-bnts-linear", "egp-auto")
PEERS = ("gp", "tpe")
NAMES = {**LABELS, "sto-bnts": "STOBNTSSampler", "sto-bnts-linear": "STOBNTSSampler (linear)"}
PENDING = (4, 8)  # (a)'s columns: trials pending against sequential
RATIO_WORKERS, TPE_WORKERS = 4, 8  # the settings of (a)'s target and of (b)
RATIO_TARGET, RATIO_COUNT = 1.5, 4  # (a): ratio <= 1.5 on at least 4 of the 6 suite functions
SECONDS_TARGET = 2.0  # (c): seconds per suggestion at trials 90-100
BETA_RESULTS = "sto_bnts_beta_dev.jsonl"  # written by run_all's sto_bnts_beta
SUITE_PEERS = ("gp",)  # peers whose suite runs stand for this benchmark's on the suite functions


def _title(mode: str, workers: int) -> str:
    return "Sequential" if mode == "seq" else f"{workers} trials pending"


def _stem(mode: str, workers: int) -> str:
    return f"{BENCH}_{mode}" if mode == "seq" else f"{BENCH}_async{workers}"


def settings(rows: list[dict]) -> dict[tuple[str, int], list[dict]]:
    """``{(mode, workers): rows}`` of the settings that have rows, sequential first, then by
    workers; each at its largest number of trials (a short trial run in the same file is left
    out)."""
    out = {}
    for mode, workers in sorted({(r["mode"], r["workers"]) for r in rows}, key=_setting_order):
        these = [r for r in rows if r["mode"] == mode and r["workers"] == workers]
        trials = max(r["n_trials"] for r in these)
        out[(mode, workers)] = [r for r in these if r["n_trials"] == trials]
    return out


def _setting_order(setting: tuple[str, int]) -> tuple[bool, int]:
    return setting[0] != "seq", setting[1]


def _finals(rows: list[dict]) -> dict:
    """``{(function, sampler): {seed: final regret}}`` (a run stopped by its wall-time limit: the
    regret it reached)."""
    out: dict = defaultdict(dict)
    for r in rows:
        out[(r["function"], r["sampler"])][r["seed"]] = r["regret"][-1]
    return out


def _paired(finals: dict, fn: str, samplers) -> tuple[list[int], list[list[float]]]:
    """The seeds every one of ``samplers`` ran on ``fn``, and each sampler's final regrets on
    them."""
    runs = [finals.get((fn, s), {}) for s in samplers]
    seeds = sorted(set.intersection(*(set(r) for r in runs))) if runs else []
    return seeds, [[r[k] for k in seeds] for r in runs]


def _label(s: str) -> str:
    return NAMES.get(s, s)


def regret_table(rows: list[dict], floors: dict[str, float]) -> list[str]:
    """Per problem: each sampler's median final regret and quartiles over the seeds every
    sampler ran on it (their number in the last column); bold: the lowest median and those tied
    with it."""
    finals = _finals(rows)
    samplers = ordered({r["sampler"] for r in rows}, (*OURS, *PEERS))
    trials = {r["function"]: r["n_trials"] for r in rows}
    body = []
    for fn in PROBLEMS:
        ran = [s for s in samplers if (fn, s) in finals]
        seeds, regrets = _paired(finals, fn, ran)
        if not seeds:
            continue
        medians = {s: float(np.median(v)) for s, v in zip(ran, regrets)}
        best = min(medians.values())
        cells = []
        for s in samplers:
            if s not in medians:
                cells.append("–")
                continue
            q1, q3 = np.quantile(regrets[ran.index(s)], [0.25, 0.75])
            median = fmt(medians[s])
            if versus(medians[s], best, floors.get(fn, 0.0)) == 0:
                median = f"**{median}**"
            cells.append(f"{median} [{fmt(float(q1))}, {fmt(float(q3))}]")
        body.append([fn, str(trials[fn]), *cells, str(len(seeds))])
    return markdown_table(["problem", "trials", *map(_label, samplers), "seeds"], body)


def _limits(rows: list[dict]) -> list[str]:
    """The runs stopped by their wall-time limit, per sampler and limit."""
    stopped: dict = defaultdict(list)
    for r in rows:
        if r.get("stopped_at") is not None:
            stopped[(r["sampler"], r["wall_limit"])].append(
                f"{r['function']} seed {r['seed']} at {r['stopped_at']}"
            )
    return [
        f"- {_label(s)}'s runs stopped by the wall-time limit of {limit:g} s (trials done): "
        + ", ".join(sorted(runs))
        for (s, limit), runs in sorted(stopped.items())
    ]


def _setting_section(mode: str, workers: int, rows: list[dict], floors, img) -> list[str]:
    title = _title(mode, workers)
    limits = sorted({r["wall_limit"] for r in rows if r.get("wall_limit")})
    limited = ", ".join(_label(s) for s in WALL_LIMITED)
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
        "Final regret (the best value found minus the minimum): median [first quartile, third "
        f"quartile] over the seeds every sampler ran on the problem; bold: the lowest median and "
        f"those tied with it.{note}",
        "",
        *regret_table(rows, floors),
        *([*stopped, ""] if stopped else []),
        provenance_line(rows),
        "",
        f"![{title}](img/{_stem(mode, workers)}.png)",
        "",
    ]


def _verdict(met: int, undecided: int, needed: int) -> str:
    """``met`` when ``met >= needed``, ``not met`` when even the ``undecided`` cases (no rows
    yet) could not make it, else ``undecided``."""
    if met >= needed:
        return "met"
    return "not met" if met + undecided < needed else "undecided (rows missing)"


def ratio_check(by_setting: dict, floors: dict[str, float]) -> list[str]:
    """(a): per suite function, STO-BNTS's median final regret with each of ``PENDING`` trials
    pending over its sequential median on the seeds both ran (medians raised to the function's
    tie floor), and on how many functions the ratio with ``RATIO_WORKERS`` pending is at most
    ``RATIO_TARGET``."""
    seq = _finals(by_setting.get(("seq", 1), []))
    body, ratios = [], []
    for fn in SUITE:
        cells = []
        for w in PENDING:
            ours = _finals(by_setting.get(("async", w), [])).get((fn, "sto-bnts"), {})
            theirs = seq.get((fn, "sto-bnts"), {})
            seeds = sorted(set(ours) & set(theirs))
            if not seeds:
                cells += ["–", "–"]
                continue
            floor = max(floors.get(fn, 0.0), 1e-12)
            par = max(float(np.median([ours[k] for k in seeds])), floor)
            base = max(float(np.median([theirs[k] for k in seeds])), floor)
            cells += [f"{fmt(par)} / {fmt(base)} ({len(seeds)})", f"{par / base:.2f}"]
            if w == RATIO_WORKERS:
                ratios.append(par / base)
        body.append([fn, *cells])
    if not ratios:
        return []
    met = sum(r <= RATIO_TARGET for r in ratios)
    verdict = _verdict(met, len(SUITE) - len(ratios), RATIO_COUNT)
    header = [h for w in PENDING for h in (f"{w} pending / sequential", "ratio")]
    return [
        "**(a) Trials pending against sequential.** STO-BNTS's median final regret with "
        + " and ".join(map(str, PENDING))
        + " trials pending over its sequential median, on the seeds both ran (their number in "
        f"brackets; medians raised to the function's tie floor, {TIE_FRACTION:g} of its median "
        f"regret after the {STARTUP_TRIALS} start-up trials). With {RATIO_WORKERS} pending the "
        f"ratio is at most {RATIO_TARGET:g} on **{met} of {len(ratios)}** suite functions "
        f"(target: at least {RATIO_COUNT} of {len(SUITE)}): {verdict}.",
        "",
        *markdown_table(["function", *header], body),
    ]


def tpe_check(by_setting: dict, floors: dict[str, float]) -> list[str]:
    """(b): with ``TPE_WORKERS`` trials pending, STO-BNTS's median final regret against TPE's
    per problem, on the seeds both ran; the target: lower on more than half of the problems."""
    finals = _finals(by_setting.get(("async", TPE_WORKERS), []))
    body, outcomes = [], []
    for fn in PROBLEMS:
        seeds, regrets = _paired(finals, fn, ("sto-bnts", "tpe"))
        if not seeds:
            continue
        ours, tpe = (float(np.median(v)) for v in regrets)
        outcome = versus(ours, tpe, floors.get(fn, 0.0))
        outcomes.append(outcome)
        word = {-1: "lower", 0: "tie", 1: "higher"}[outcome]
        body.append([fn, fmt(ours), fmt(tpe), str(len(seeds)), word])
    if not body:
        return []
    wins, ties = outcomes.count(-1), outcomes.count(0)
    verdict = _verdict(wins, len(PROBLEMS) - len(outcomes), len(PROBLEMS) // 2 + 1)
    return [
        f"**(b) {TPE_WORKERS} trials pending, against TPE.** Median final regret on the seeds "
        f"both ran: STO-BNTS's is lower on **{wins} of {len(outcomes)}** problems, tied on "
        f"{ties} (target: lower on most of the {len(PROBLEMS)}): {verdict}.",
        "",
        *markdown_table(
            ["problem", _label("sto-bnts"), _label("tpe"), "seeds", "STO-BNTS's median"], body
        ),
    ]


def _late_seconds(rows: list[dict]) -> dict:
    """``{(sampler, (mode, workers)): {function: [(wall, CPU) per run]}}``: each run's mean
    seconds of the asks of trials ``LATE`` (``sto_bnts.late_seconds``; runs that did not reach
    them, or that recorded no per-ask times, as the suite's runs of GPSampler, left out)."""
    out: dict = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if r.get("late_seconds"):
            wall, cpu = r["late_seconds"]
            out[(r["sampler"], (r["mode"], r["workers"]))][r["function"]].append((wall, cpu))
    return out


def _seconds_cell(runs: list[tuple[float, float]]) -> str:
    """``wall (CPU)``: the medians over ``runs``."""
    if not runs:
        return "–"
    wall, cpu = np.median(np.array(runs), axis=0)
    return f"{fmt(float(wall))} ({fmt(float(cpu))})"


def seconds_check(by_setting: dict) -> list[str]:
    """(c): the median over runs of the mean seconds (wall, CPU) of the asks of trials ``LATE``:
    every sampler's over all problems per setting, and STO-BNTS's per problem; the target holds
    in a setting when STO-BNTS's median over all its runs there is at most ``SECONDS_TARGET``."""
    rows = [r for rs in by_setting.values() for r in rs]
    late = _late_seconds(rows)
    if not any(s == "sto-bnts" for s, _ in late):
        return []
    samplers = ordered({s for s, _ in late}, (*OURS, *PEERS))
    pooled = {k: [v for runs in by_fn.values() for v in runs] for k, by_fn in late.items()}
    overall = [
        [_label(s), *(_seconds_cell(pooled.get((s, k), [])) for k in by_setting)] for s in samplers
    ]
    ours = {k: late.get(("sto-bnts", k), {}) for k in by_setting}
    per_problem = [
        [fn, *(_seconds_cell(ours[k].get(fn, [])) for k in by_setting)] for fn in PROBLEMS
    ]
    verdicts = []
    for k in by_setting:
        if pooled.get(("sto-bnts", k)):
            wall = float(np.median([w for w, _ in pooled[("sto-bnts", k)]]))
            word = "met" if wall <= SECONDS_TARGET else "not met"
            verdicts.append(f"{_title(*k).lower()} {fmt(wall)} s ({word})")
    names = [_title(*k) for k in by_setting]
    return [
        "**(c) Seconds per suggestion.** The wall seconds (CPU seconds in brackets) of "
        f"`study.ask()` with its `suggest_*` calls at trials {LATE.start + 1}-{LATE.stop}: each "
        "run's mean, median over the runs (GPSampler's on levy12 and mixed16 only: its suite runs "
        "recorded no per-ask times). STO-BNTS's median over all its runs (target: at most "
        f"{SECONDS_TARGET:g} s): " + "; ".join(verdicts) + ".",
        "",
        *markdown_table(["sampler", *names], overall),
        f"{_label('sto-bnts')} per problem:",
        "",
        *markdown_table(["problem", *names], per_problem),
        threads_line(rows),
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


def _beta(sampler: str) -> float:
    """The ``beta`` of a ``sto-bnts[-beta<x>]`` name (no suffix: the default)."""
    value = beta_suffix(sampler)
    return _default_beta() if value is None else value


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
    best = min(mean_ranks.values())
    values = sorted(_beta(s) for s, rank in mean_ranks.items() if rank == best)
    names = [f"{v:g}" for v in values]
    named = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    default = _default_beta()
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
    values = {s: _beta(s) for s in {r["sampler"] for r in rows}}
    problems = ordered({r["function"] for r in rows}, PROBLEMS)
    ranked = median_ranks(_finals(rows), list(values), problems)
    seeds = seed_text(sorted({r["seed"] for r in rows}))
    apart = seed_text(sorted({r["seed"] for r in reported}))
    trials = "/".join(str(n) for n in sorted({r["n_trials"] for r in rows}))
    modes = ", ".join(
        _title(*k).lower()
        for k in sorted({(r["mode"], r["workers"]) for r in rows}, key=_setting_order)
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
        _choice(seeds, apart, ranked[1]),
        "",
        *value_table("beta", values, problems, ranked, _default_beta()),
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
