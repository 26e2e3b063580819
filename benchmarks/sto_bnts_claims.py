"""The rows of STO-BNTS's page (``benchmarks.sto_bnts_report``) per setting, and the paper's
claims checked on them: (a) with ``RATIO_WORKERS`` trials pending, STO-BNTS's median regret within
``RATIO_TARGET`` times its sequential median on at least ``RATIO_COUNT`` of the six suite
functions; (b) with ``TPE_WORKERS`` pending, lower than TPE's on most problems; (c) its seconds per
suggestion at trials 90-100 at most ``SECONDS_TARGET``.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from benchmarks.functions import SUITE
from benchmarks.harness.regret import STARTUP_TRIALS, TIE_FRACTION, versus
from benchmarks.harness.samplers import LABELS, ordered
from benchmarks.harness.tables import fmt, markdown_table, threads_line
from benchmarks.problem_report import final_regrets
from benchmarks.sto_bnts import LATE, PROBLEMS

RUN_CELL = ("function", "sampler", "seed", "mode", "workers", "n_trials")
OURS = ("sto-bnts", "sto-bnts-linear", "egp-auto")
PEERS = ("gp", "tpe")
NAMES = {**LABELS, "sto-bnts": "STOBNTSSampler", "sto-bnts-linear": "STOBNTSSampler (linear)"}

PENDING = (4, 8)  # (a)'s columns: trials pending against sequential
RATIO_WORKERS, TPE_WORKERS = 4, 8  # the settings of (a)'s target and of (b)
RATIO_TARGET, RATIO_COUNT = 1.5, 4  # (a): ratio <= 1.5 on at least 4 of the 6 suite functions
SECONDS_TARGET = 2.0  # (c): seconds per suggestion at trials 90-100


def setting_title(mode: str, workers: int) -> str:
    return "Sequential" if mode == "seq" else f"{workers} trials pending"


def settings(rows: list[dict]) -> dict[tuple[str, int], list[dict]]:
    """``{(mode, workers): rows}`` of the settings that have rows, sequential first, then by
    workers; each at its largest number of trials (a short trial run in the same file is left
    out)."""
    out = {}
    for mode, workers in sorted({(r["mode"], r["workers"]) for r in rows}, key=setting_order):
        these = [r for r in rows if r["mode"] == mode and r["workers"] == workers]
        trials = max(r["n_trials"] for r in these)
        out[(mode, workers)] = [r for r in these if r["n_trials"] == trials]
    return out


def setting_order(setting: tuple[str, int]) -> tuple[bool, int]:
    return setting[0] != "seq", setting[1]


def shared_seeds(finals: dict, fn: str, samplers) -> tuple[list[int], list[list[float]]]:
    """The seeds every one of ``samplers`` ran on ``fn``, and each sampler's final regrets on
    them."""
    runs = [finals.get((fn, s), {}) for s in samplers]
    seeds = sorted(set.intersection(*(set(r) for r in runs))) if runs else []
    return seeds, [[r[k] for k in seeds] for r in runs]


def sampler_label(s: str) -> str:
    return NAMES.get(s, s)


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
    seq = final_regrets(by_setting.get(("seq", 1), []))
    body, ratios = [], []
    for fn in SUITE:
        cells = []
        for w in PENDING:
            ours = final_regrets(by_setting.get(("async", w), [])).get((fn, "sto-bnts"), {})
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
    finals = final_regrets(by_setting.get(("async", TPE_WORKERS), []))
    body, outcomes = [], []
    for fn in PROBLEMS:
        seeds, regrets = shared_seeds(finals, fn, ("sto-bnts", "tpe"))
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
            [
                "problem",
                sampler_label("sto-bnts"),
                sampler_label("tpe"),
                "seeds",
                "STO-BNTS's median",
            ],
            body,
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
        [sampler_label(s), *(_seconds_cell(pooled.get((s, k), [])) for k in by_setting)]
        for s in samplers
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
            verdicts.append(f"{setting_title(*k).lower()} {fmt(wall)} s ({word})")
    names = [setting_title(*k) for k in by_setting]
    return [
        "**(c) Seconds per suggestion.** The wall seconds (CPU seconds in brackets) of "
        f"`study.ask()` with its `suggest_*` calls at trials {LATE.start + 1}-{LATE.stop}: each "
        "run's mean, median over the runs (GPSampler's on levy12 and mixed16 only: its suite runs "
        "recorded no per-ask times). STO-BNTS's median over all its runs (target: at most "
        f"{SECONDS_TARGET:g} s): " + "; ".join(verdicts) + ".",
        "",
        *markdown_table(["sampler", *names], overall),
        f"{sampler_label('sto-bnts')} per problem:",
        "",
        *markdown_table(["problem", *names], per_problem),
        threads_line(rows),
        "",
    ]
