"""DEC-HBO's page (``benchmarks.dec_hbo``; what it shows: ``docs/benchmarks/index.md``): the
final regrets beside the paper's Table 1 means, the default against the paper's MF3 means, MF3
against the others, the regret and cumulative
suggestion seconds against trials (the paper's Fig. 1), the development runs behind the
default ``beta_scale`` (``dec_hbo_beta_dev.jsonl``), where a suggestion's seconds go at 20-100
parameters (``benchmarks.dec_hbo_phases``) and which structure it learns
(``benchmarks.dec_hbo_structure``)."""

from __future__ import annotations

import inspect
import json
import pathlib
from collections import defaultdict

import numpy as np

from benchmarks.dec_hbo import BENCH, PAPER_MEANS, PROBLEMS
from benchmarks.harness.cache import PeerCache
from benchmarks.harness.plots import pyplot, regret_plot
from benchmarks.harness.regret import STARTUP_TRIALS
from benchmarks.harness.results import latest, read_rows
from benchmarks.harness.samplers import LABELS, dec_hbo_options, ordered
from benchmarks.harness.tables import (
    fmt,
    markdown_table,
    provenance_line,
    seed_text,
)
from benchmarks.problem_report import development_table, final_regrets
from optuna_egp import DECHBOSampler

RUN_CELL = ("function", "sampler", "seed", "mode", "workers", "n_trials")
PEERS = ("egp-auto", "gp", "tpe", "cmaes")  # egp-auto is ours, in the same file
VARIANTS = ("dec-hbo-mf1-ucb", "dec-hbo-mf2-ucb", "dec-hbo-mf3-ucb")
OURS_FIRST = ("dec-hbo-mf6", "dec-hbo-mf3", *reversed(VARIANTS))  # the default, then MF3
# The target: the default's mean at or below the paper's best mean (MF3's) on these; Shekel-4
# is reported
TARGET_FUNCTIONS = ("hartmann6", "michalewicz10")
LAST_ASKS = 10  # seconds per suggestion: the mean over the last 10 asks of a run
BETA_RESULTS = "dec_hbo_beta_dev.jsonl"  # written by run_all's dec_hbo_beta


def page(results: pathlib.Path, img: pathlib.Path) -> list[str]:
    rows = latest(read_rows(results / f"{BENCH}.jsonl"), RUN_CELL)
    peers = PeerCache(results / "peers.jsonl").rows(bench=BENCH)
    rows += [r for r in latest(peers, RUN_CELL) if r["sampler"] in PEERS]
    beta = _beta_section(latest(read_rows(results / BETA_RESULTS), RUN_CELL), rows)
    if not rows:
        return [
            "No results yet: run `python -m benchmarks.dec_hbo`.",
            "",
            *beta,
            *_phases_section(results),
            *_structure_section(results),
        ]
    limits = _limits(rows)
    lines = [
        f"Final regret after {max(r['n_trials'] for r in rows)} trials (the first "
        f"{STARTUP_TRIALS} random), mean and median over the seeds each method ran (their number "
        "in brackets), beside the mean of the paper's Table 1 (5 runs). "
        + (
            "A run stopped by its wall-time limit counts with the regret it reached (the limits "
            "are listed below). "
            if limits
            else ""
        )
        + f"Seconds per suggestion: the mean wall time of the last {LAST_ASKS} asks of each run "
        "(2-core machine, one thread per run), median over the runs.",
        "",
        *_table(rows),
        *_paper_checks(rows),
        *_findings(rows),
        *limits,
        provenance_line(rows),
        "",
    ]
    img.mkdir(parents=True, exist_ok=True)
    regret_plot(rows, img / "dec_hbo_regret.png", "Regret against trials", yscale="log")
    _time_plot(rows, img / "dec_hbo_time.png")
    return lines + [
        "![Regret against trials](img/dec_hbo_regret.png)",
        "",
        "![Cumulative seconds of suggestions](img/dec_hbo_time.png)",
        "",
        *beta,
        *_phases_section(results),
        *_structure_section(results),
    ]


def _phases_section(results: pathlib.Path) -> list[str]:
    """Where the seconds of a suggestion go at 20-100 parameters (``benchmarks.dec_hbo_phases``)."""
    from benchmarks import dec_hbo_phases

    rows = read_rows(results / "dec_hbo_phases.jsonl")
    if not rows:
        return []
    sampler = rows[-1]["sampler"]  # the last run's: the one the summary shows
    options = ", ".join(
        f"{k}={json.dumps(v) if isinstance(v, str) else v}"
        for k, v in (dec_hbo_options(sampler) or {}).items()
    )
    intro = (
        f"Seconds of one suggestion of `DECHBOSampler({options})` (`{sampler}`) on random trials "
        "of a chain of 3-parameter factors, by "
        "phase: the first (structure chain and hyperparameter fits) and the next, between refits, "
        "and `EGPAlgorithm`'s first and next on the same trials "
        "(`python -m benchmarks.dec_hbo_phases`; phases in its docstring; one thread)."
    )
    return ["## Where the seconds go", "", intro, "", *dec_hbo_phases.summarise(rows), ""]


def _structure_section(results: pathlib.Path) -> list[str]:
    """Which structure the default learns on the problems whose structure is known
    (``benchmarks.dec_hbo_structure``)."""
    from benchmarks import dec_hbo_structure

    rows = read_rows(results / "dec_hbo_structure.jsonl")
    if not rows:
        return []
    intro = (
        "How much of the true additive structure the default's structure samples hold along a "
        "run on the high-dimensional problems whose structure is known "
        "([high-dimensional page](high_dim.md)): the fraction of the truly interacting pairs of "
        "parameters they group together and the fraction of their grouped pairs that do not "
        "interact, each beside what a random partition with the same group sizes scores in "
        "expectation; the mean over the structure samples that suggested the checkpoint's last "
        "trial, median over seeds, with the trials they were learned from (the chain runs on a "
        "schedule). `python -m benchmarks.dec_hbo_structure`: ask/tell in one process from "
        f"{STARTUP_TRIALS} uniform points; the Branin chain's overlapping pairs cannot all share "
        "a group, and groups of six hold at least two false pairs in three there."
    )
    return ["## Which structure it learns", "", intro, "", *dec_hbo_structure.summarise(rows), ""]


def _seconds(rows: list[dict]) -> dict:
    """``{(function, sampler): median over runs of the mean of the last asks' wall seconds}``."""
    out: dict = defaultdict(list)
    for r in rows:
        out[(r["function"], r["sampler"])].append(float(np.mean(r["ask_seconds"][-LAST_ASKS:])))
    return {k: float(np.median(v)) for k, v in out.items()}


def _table(rows: list[dict]) -> list[str]:
    finals, seconds = final_regrets(rows), _seconds(rows)
    samplers = ordered({r["sampler"] for r in rows}, (*OURS_FIRST, *PEERS))
    body = []
    for fn in PROBLEMS:
        for s in samplers:
            regrets = list(finals.get((fn, s), {}).values())
            if not regrets:
                continue
            paper = PAPER_MEANS.get(s, {}).get(fn)
            body.append(
                [
                    fn,
                    LABELS.get(s, s),
                    f"{fmt(float(np.mean(regrets)))} ({len(regrets)})",
                    fmt(float(np.median(regrets))),
                    "" if paper is None else fmt(paper),
                    fmt(seconds[(fn, s)]),
                ]
            )
    header = ["function", "method", "mean (seeds)", "median", "paper's mean", "s/suggestion"]
    return [*markdown_table(header, body), ""]


def _paper_checks(rows: list[dict]) -> list[str]:
    """Each DEC-HBO configuration that is not one of the paper's (the default among them): its
    mean final regret against the paper's MF3 mean, the target on ``TARGET_FUNCTIONS``."""
    finals, paper = final_regrets(rows), PAPER_MEANS["dec-hbo-mf3-ucb"]
    samplers = ordered({r["sampler"] for r in rows}, OURS_FIRST)
    lines = []
    for s in (s for s in samplers if s.startswith("dec-hbo") and s not in VARIANTS):
        parts = []
        for fn in PROBLEMS:
            regrets = list(finals.get((fn, s), {}).values())
            if not regrets:
                continue
            mean = float(np.mean(regrets))
            verdict = ("met" if mean <= paper[fn] else "not met") if fn in TARGET_FUNCTIONS else ""
            parts.append(
                f"{fn} {fmt(mean)} against {fmt(paper[fn])} ({len(regrets)} seeds)"
                + (f": **{verdict}**" if verdict else "")
            )
        if parts:
            lines.append(
                f"- {LABELS.get(s, s)}'s mean against the paper's MF3 mean (target: at or below "
                f"on {' and '.join(TARGET_FUNCTIONS)}): " + "; ".join(parts)
            )
    return [*lines, ""] if lines else []


def _findings(rows: list[dict]) -> list[str]:
    """MF3 against MF1 and MF2 by mean regret on the seeds both ran (the paper's finding), and
    MF3 against TPE, CMA-ES, GPSampler and EGPTSSampler by median on the seeds both ran."""
    finals = final_regrets(rows)
    lines = []
    for fn in PROBLEMS:
        mf3 = finals.get((fn, "dec-hbo-mf3-ucb"), {})
        parts = []
        for other, stat in [(v, np.mean) for v in VARIANTS[:2]] + [(p, np.median) for p in PEERS]:
            theirs = finals.get((fn, other), {})
            seeds = sorted(set(mf3) & set(theirs))
            if not seeds:
                continue
            ours, peer = (float(stat([d[s] for s in seeds])) for d in (mf3, theirs))
            what = "mean" if stat is np.mean else "median"
            parts.append(
                f"{what} {fmt(ours)} against {LABELS.get(other, other)}'s {fmt(peer)} "
                f"({len(seeds)} seeds)"
            )
        if parts:
            lines.append(f"- {fn}, MF3 on the seeds both ran: " + "; ".join(parts))
    return [*lines, ""] if lines else []


def _limits(rows: list[dict]) -> list[str]:
    stopped: dict = defaultdict(list)
    for r in rows:
        if r.get("stopped_at") is not None:
            stopped[(r["sampler"], r.get("wall_limit"))].append(
                f"{r['function']} {r['stopped_at']}"
            )
    return [
        f"- {LABELS.get(s, s)} stopped by its wall-time limit of {limit:g} s at: "
        + ", ".join(sorted(runs))
        + " trials"
        for (s, limit), runs in sorted(stopped.items())
    ] + ([""] if stopped else [])


def _default_beta_scale() -> float:
    return float(inspect.signature(DECHBOSampler).parameters["beta_scale"].default)


def beta_table(rows: list[dict]) -> list[str]:
    """Per ``beta_scale`` value: the median final regret per function over the seeds every value
    ran and the mean rank of those medians (``problem_report.development_table``)."""
    return development_table(rows, "beta_scale", _default_beta_scale(), PROBLEMS)[0]


def _beta_section(rows: list[dict], reported: list[dict]) -> list[str]:
    """The development runs behind the default ``beta_scale`` (``rows``), on seeds apart from
    those of the ``reported`` rows."""
    if not rows:
        return []
    seeds = seed_text(sorted({r["seed"] for r in rows}))
    apart = sorted({r["seed"] for r in reported})
    trials = "/".join(str(n) for n in sorted({r["n_trials"] for r in rows}))
    return [
        "## The development runs behind the default `beta_scale`",
        "",
        "MF3 with the UCB polish, "
        '`DECHBOSampler(max_factor_size=3, acquisition="ucb", beta_scale=b)` with the structure '
        f"learned from the data, at each value `b`: {trials} trials (the first "
        f"{STARTUP_TRIALS} random), "
        f"seeds {seeds}"
        + (f", apart from the seeds {seed_text(apart)} of the table above" if apart else "")
        + " (`python -m benchmarks.run_all --only dec_hbo_beta`). Cells: the median final regret "
        "over the seeds every value ran (their number in brackets). Mean rank: the mean over the "
        "functions of the rank of the value's median among the values' (1: the lowest).",
        "",
        *beta_table(rows),
        provenance_line(rows),
        "",
    ]


def _time_plot(rows: list[dict], path: pathlib.Path) -> None:
    """Median cumulative seconds of the suggestions against trials, per function (Fig. 1a)."""
    plt = pyplot()
    fig, axes = plt.subplots(1, len(PROBLEMS), figsize=(4.2 * len(PROBLEMS), 3.3), squeeze=False)
    for ax, fn in zip(axes[0], PROBLEMS):
        by_sampler: dict = defaultdict(list)
        for r in rows:
            if r["function"] == fn:
                by_sampler[r["sampler"]].append(np.cumsum(r["ask_seconds"]))
        for s in ordered(by_sampler, (*reversed(VARIANTS), *PEERS)):
            n = min(len(c) for c in by_sampler[s])
            curve = np.median([c[:n] for c in by_sampler[s]], axis=0)
            ax.plot(np.arange(1, n + 1), curve, label=LABELS.get(s, s))
        ax.set_yscale("log")
        ax.set_title(fn)
        ax.set_xlabel("trials")
    axes[0][0].set_ylabel("cumulative seconds (median)")
    # on a panel with curves (a run of some functions only leaves the others empty)
    next((ax for ax in axes[0][::-1] if ax.lines), axes[0][-1]).legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
