"""The quality page (``docs/benchmarks/quality.md``) and the README headline: the suite's regret
tables (sequential, asynchronous workers, ``n_jobs`` threads), the ablation, BORE and BORE++."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from benchmarks.harness.plots import cumulative_regret_plot, regret_plot
from benchmarks.harness.regret import final_regret, paired, tie_floors
from benchmarks.harness.samplers import LABELS
from benchmarks.harness.tables import current_line, markdown_table, provenance_line
from benchmarks.suite_report import (
    EXTERNAL_PEERS,
    TIE_RULE,
    Context,
    bold_medians,
    regret_table,
    sequential_ratios,
    spread_table,
    wins_lines,
)


def parallel_section(ctx: Context, seq: list[dict], name: str, label: str) -> list[str]:
    par = paired(ctx.suite(name, peers=("gp", "tpe")))
    if not par:
        return []
    workers = par[0]["workers"]
    lines = regret_table(par, f"{label}, {workers} workers")
    ratios = sequential_ratios(par, seq)
    if ratios:
        lines += [
            f"Regret with {workers} workers over the sequential regret at equal evaluations "
            "(the seeds of the table that the sequential runs have at the same sampler code; "
            "medians raised to the tie floor):",
            "",
            *ratios,
            "",
        ]
    img = name.replace(".jsonl", ".png")
    regret_plot(par, ctx.img / img, f"{label}, {workers} workers")
    return (
        lines
        + wins_lines(par)
        + spread_table(par)
        + [f"![{label}, {workers} workers](img/{img})", ""]
    )


def bore_section(ctx: Context) -> list[str]:
    """Fig. E.1 of Oliveira, Tiao and Ramos, "Batch Bayesian optimisation via density-ratio
    estimation with guarantees" (NeurIPS 2022): batch BORE vs BORE++ on Rosenbrock."""
    rows = ctx.latest("bore_rosenbrock.jsonl")
    if not rows:
        return []
    curves: dict = defaultdict(lambda: defaultdict(list))
    for r in rows:
        curves[r["function"]][r["sampler"]].append(np.cumsum(r["instant_regret"]))
    fns = sorted(curves, key=lambda f: int(f.replace("rosenbrock", "")))
    samplers = sorted({r["sampler"] for r in rows})
    ratios = {
        "bore++ / bore": ("bore++", "bore"),
        "paper: k=1, beta 3 / beta 0": ("bore++-sharp1", "bore++-beta0-sharp1"),
        "k=10, beta 3 / beta 0": ("bore++", "bore++-beta0"),
    }
    ratios = {k: v for k, v in ratios.items() if set(v) <= set(samplers)}
    body = []
    for fn in fns:
        cells, means = [], {}
        for s in samplers:
            finals = np.array([c[-1] for c in curves[fn][s]])  # (n_seeds,)
            if len(finals) == 0:
                cells.append("–")
                continue
            means[s] = finals.mean()
            half = 1.96 * finals.std(ddof=1) / np.sqrt(len(finals)) if len(finals) > 1 else np.nan
            cells.append(f"{finals.mean():.4g} ± {half:.2g} ({len(finals)})")
        cells += [
            f"{means[a] / means[b]:.2f}" if {a, b} <= means.keys() else "–"
            for a, b in ratios.values()
        ]
        body.append([fn.replace("rosenbrock", ""), *cells])
    cumulative_regret_plot(
        curves, fns, ctx.img / "bore_rosenbrock.png", lambda fn: f"Rosenbrock d={fn[10:]}"
    )
    return [
        "## BORE and BORE++, synchronous batches",
        "",
        'Oliveira, Tiao and Ramos, "Batch Bayesian optimisation via density-ratio estimation '
        'with guarantees" (NeurIPS 2022), Fig. E.1: Rosenbrock on [-5, 10]^d, batches of '
        f"{rows[0]['workers']}, {rows[0]['n_trials']} evaluations (the first 10 random). Final "
        "cumulative regret, mean ± 95 % CI half-width over seeds (seeds in brackets); lower is "
        "better. `-beta<b>` sets beta, `-sharp<k>` the exponent of the SVGD target (default 10; "
        "the paper's is 1).",
        "",
        *markdown_table(["d", *samplers, *ratios], body),
        provenance_line(rows),
        "",
        "![BORE and BORE++ on Rosenbrock](img/bore_rosenbrock.png)",
        "",
    ]


def sharpness_section(ctx: Context) -> list[str]:
    """The paper's SVGD target (sharpness 1) against the default (10), same seeds, 8 workers."""
    sharp = ctx.latest("bore_sharpness_async8.jsonl")
    if not sharp:
        return []
    cells = {(r["function"], r["seed"]) for r in sharp}
    peers = [
        r
        for r in ctx.suite("suite_async8.jsonl", peers=("tpe",))
        if r["sampler"] in ("bore++", "tpe") and (r["function"], r["seed"]) in cells
    ]
    return regret_table(
        peers + sharp, "BORE++ SVGD target sharpness (default 10, paper 1), 8 async workers"
    ) + spread_table(peers + sharp)


def external_section(ctx: Context) -> list[str]:
    """Ours against HEBO and SMAC3 (``benchmarks.external``), GPSampler and TPE, on the (function,
    seed) pairs the external peers ran: sequential and with 8 workers."""
    lines = []
    for name, label in (("suite_seq.jsonl", "Sequential"), ("suite_async8.jsonl", "8 workers")):
        rows = paired(ctx.suite(name, peers=("gp", "tpe", *EXTERNAL_PEERS)))
        if {r["sampler"] for r in rows} & set(EXTERNAL_PEERS):
            lines += regret_table(rows, f"{label}: against HEBO and SMAC3")
            lines += wins_lines(rows, ours=("egp-auto", "bore++"), peers=EXTERNAL_PEERS)
    return lines


def quality_page(ctx: Context) -> list[str]:
    seq = ctx.suite("suite_seq.jsonl")
    table = paired(seq)
    lines = regret_table(table, "Sequential suite") + wins_lines(table)
    if table:
        regret_plot(table, ctx.img / "suite_seq.png", "Sequential")
        lines += ["![Sequential suite](img/suite_seq.png)", ""]
    for name, label in (
        ("suite_async4.jsonl", "Asynchronous ask/tell"),
        ("suite_async8.jsonl", "Asynchronous ask/tell"),
        ("suite_threads4.jsonl", "study.optimize(n_jobs)"),
        ("suite_threads8.jsonl", "study.optimize(n_jobs)"),
    ):
        lines += parallel_section(ctx, seq, name, label)
    lines += external_section(ctx)
    abl = paired(ctx.latest("ablation.jsonl"))
    lines += regret_table(abl, "Ablation: EGP-TS against single-kernel GP-TS")
    if abl:
        regret_plot(abl, ctx.img / "ablation.png", "EGP-TS vs single-kernel GP-TS")
        lines += [
            'Lu et al., "Surrogate modeling for Bayesian optimization beyond a single Gaussian '
            'process" (TPAMI 2023), Fig. 1.',
            "",
            "![Ablation](img/ablation.png)",
            "",
        ]
    return lines + bore_section(ctx) + sharpness_section(ctx)


def headline(ctx: Context) -> list[str]:
    """Median final regret of the default EGPTSSampler (``egp-auto``), GPSampler and TPE on the
    suite, sequential and with 4 asynchronous workers, and how many functions EGPTSSampler wins."""
    ours = ("egp-auto", "gp", "tpe")
    cols = [
        (label, paired([r for r in ctx.suite(name, peers=ours[1:]) if r["sampler"] in ours]), ours)
        for label, name in (
            ("sequential", "suite_seq.jsonl"),
            ("4 async workers", "suite_async4.jsonl"),
        )
    ]
    if not cols[0][1]:
        return []
    cols = [c for c in cols if c[1]]
    tables = [final_regret(rows) for _, rows, _ in cols]
    floors = [tie_floors(rows) for _, rows, _ in cols]
    fns = sorted(set.intersection(*(set(t) for t in tables)))
    body, won = [], [0] * len(cols)
    for fn in fns:
        row = [fn]
        for i, ((_, _, samplers), table) in enumerate(zip(cols, tables)):
            cells, best = bold_medians(table[fn], samplers, floors[i][fn])
            won[i] += best[0]
            row += cells
        body.append(row)
    body.append(
        ["EGPTSSampler best or tied on"]
        + [c for i in range(len(cols)) for c in (f"{won[i]} of {len(fns)}", "", "")]
    )
    header = ["function"] + [
        f"{LABELS[s]} ({label})" for label, _, samplers in cols for s in samplers
    ]
    shown = [r for _, rows, _ in cols for r in rows]
    current = (
        ""
        if current_line(shown)
        else " EGPTSSampler's rows are current (the sampler behaves as when they were measured)."
    )
    return [
        "Median final regret (best value found minus the known minimum; lower is better) after "
        f"{_trials_text(shown)}, over the same seeds for every sampler; bold: best of the three "
        f"in each setting, and those tied with it ({TIE_RULE}). "
        "EGPTSSampler is `EGPTSSampler()` with its defaults. "
        "4 async workers: ask/tell in one process with 4 trials pending, completed in any order.",
        "",
        *markdown_table(header, body),
        provenance_line(shown) + current,
        "",
        "More results, how they are measured and how to run them: "
        "[docs/benchmarks](docs/benchmarks/index.md).",
    ]


def _trials_text(rows: list[dict]) -> str:
    """``100 trials`` or, when functions run different numbers, ``50 or 100 trials (per
    function: ...)``."""
    trials = {r["function"]: r["n_trials"] for r in rows}
    counts = sorted(set(trials.values()))
    if len(counts) == 1:
        return f"{counts[0]} trials"
    per = ", ".join(f"{fn} {n}" for fn, n in sorted(trials.items()))
    return f"{' or '.join(map(str, counts))} trials (per function: {per})"
