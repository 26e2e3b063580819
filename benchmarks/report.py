"""Tables (Markdown) and plots (PNG) from the JSON-lines results of ``run.py``.

Run:  python benchmarks/report.py   ->  benchmarks/results/summary.md and benchmarks/results/*.png
Every number in summary.md is computed here from the raw files; nothing is typed by hand.
"""

from __future__ import annotations

import json
import pathlib
from collections import defaultdict

import numpy as np
from scipy.stats import mannwhitneyu

RESULTS = pathlib.Path(__file__).resolve().parent / "results"


def load(name: str) -> list[dict]:
    path = RESULTS / name
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def final_regret(records):
    """{function: {sampler: [final regret per seed]}}."""
    table = defaultdict(lambda: defaultdict(list))
    for r in records:
        table[r["function"]][r["sampler"]].append(r["regret"][-1])
    return table


def seconds(records):
    table = defaultdict(list)
    for r in records:
        table[r["sampler"]].append(r["seconds_per_trial"])
    return {s: float(np.median(v)) for s, v in table.items()}


def regret_table(records, title: str) -> list[str]:
    if not records:
        return []
    table = final_regret(records)
    samplers = sorted({r["sampler"] for r in records})
    n_seeds = min(len(v) for row in table.values() for v in row.values())
    lines = [
        f"### {title}",
        "",
        f"Median final regret over seeds (min seeds per cell: {n_seeds}; {records[0]['n_trials']} "
        "trials). Bold = best in row.",
        "",
        "| function | " + " | ".join(samplers) + " |",
        "|---" * (len(samplers) + 1) + "|",
    ]
    for fn in sorted(table):
        meds = {s: float(np.median(table[fn][s])) if table[fn][s] else np.nan for s in samplers}
        best = np.nanmin(list(meds.values()))
        cells = [(f"**{v:.3g}**" if v == best else f"{v:.3g}") for v in meds.values()]
        lines.append(f"| {fn} | " + " | ".join(cells) + " |")
    secs = seconds(records)
    lines += [
        "| s/trial (median) | " + " | ".join(f"{secs.get(s, np.nan):.3f}" for s in samplers) + " |",
        "",
    ]
    return lines


def _commits(rows) -> str:
    """``commit (rows), ...`` of benchmark rows and their dates."""
    counts = defaultdict(int)
    for r in rows:
        counts[r.get("commit", "unrecorded")] += 1
    dates = sorted({r["date"][:10] for r in rows if "date" in r})
    return ", ".join(f"{c} ({n})" for c, n in sorted(counts.items())) + (
        f", {', '.join(dates)}" if dates else ""
    )


def rerun_section(old, new, title: str, limit: float = 1.5) -> list[str]:
    """Median final regret of each sampler in ``new`` against the same sampler in ``old``
    (same functions, seeds and trials; different code), with the ratio new / old and whether
    it stays within ``limit``."""
    if not new:
        return []

    def run(r):
        return (r["function"], r["sampler"], r["seed"], r["n_trials"])

    old, new = ({run(r): r for r in rows} for rows in (old, new))  # one row per run, the latest
    same = old.keys() & new.keys()  # runs made by both versions
    old, new = [old[k] for k in sorted(same)], [new[k] for k in sorted(same)]
    before, after = final_regret(old), final_regret(new)
    samplers = sorted({r["sampler"] for r in new})
    lines = [
        f"#### {title}",
        "",
        f"The same functions, samplers and seeds run by both versions. New rows: {_commits(new)}; "
        f"old rows: {_commits(old)} (unrecorded: rows written before runs recorded their commit; "
        "see the code versions above). Median final regret over seeds (seeds in brackets), "
        f"ratio new / old; `!` marks a ratio above {limit}; p: one-sided Mann-Whitney U test "
        "that the new final regrets are larger (uncorrected for the number of cells: expect "
        "about one p below 0.1 in 18 by chance).",
        "",
        "| function | " + " | ".join(f"{s} old | {s} new | ratio | p" for s in samplers) + " |",
        "|---" * (4 * len(samplers) + 1) + "|",
    ]
    worse = []
    for fn in sorted(after):
        row = []
        for s in samplers:
            a, b = before[fn].get(s, []), after[fn].get(s, [])
            if not a or not b:
                row += ["–", "–", "–", "–"]
                continue
            ratio = float(np.median(b)) / max(float(np.median(a)), 1e-300)
            flag = "!" if ratio > limit else ""
            if flag:
                worse.append(f"{s} on {fn}")
            p_worse = mannwhitneyu(b, a, alternative="greater").pvalue
            row += [
                f"{np.median(a):.3g} ({len(a)})",
                f"{np.median(b):.3g} ({len(b)})",
                f"{ratio:.2f}{flag}",
                f"{p_worse:.2f}",
            ]
        lines.append(f"| {fn} | " + " | ".join(row) + " |")
    secs_old, secs_new = seconds(old), seconds(new)
    lines += [
        "",
        "Median seconds per trial, old -> new: "
        + "; ".join(f"{s} {secs_old.get(s, np.nan):.3f} -> {secs_new[s]:.3f}" for s in samplers),
        "",
        (f"- worse by more than {limit}x: " + ", ".join(worse))
        if worse
        else f"- no function's median regret is worse by more than {limit}x",
        "",
    ]
    return lines


def wins(records, ours: str, peer: str) -> tuple[int, int]:
    table = final_regret(records)
    fns = [fn for fn in table if table[fn][ours] and table[fn][peer]]
    return sum(np.median(table[fn][ours]) < np.median(table[fn][peer]) for fn in fns), len(fns)


def plot(records, name: str, title: str) -> None:
    if not records:
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fns = sorted({r["function"] for r in records})
    ncol = min(3, len(fns))
    nrow = -(-len(fns) // ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(4.5 * ncol, 3.4 * nrow), squeeze=False)
    for ax in axes.flat[len(fns) :]:
        ax.axis("off")
    for ax, fn in zip(axes.flat, fns):
        curves = defaultdict(list)
        for r in records:
            if r["function"] == fn:
                curves[r["sampler"]].append(r["regret"])
        for s, cs in sorted(curves.items()):
            c = np.array(cs)
            med = np.median(c, axis=0)
            ax.plot(np.arange(1, len(med) + 1), med, label=s)
            ax.fill_between(
                np.arange(1, len(med) + 1),
                np.quantile(c, 0.25, 0),
                np.quantile(c, 0.75, 0),
                alpha=0.15,
            )
        ax.set_yscale("symlog", linthresh=1e-3)
        ax.set_title(fn)
        ax.set_xlabel("trials")
    for row in axes:
        row[0].set_ylabel("median regret (IQR shaded)")
    axes.flat[len(fns) - 1].legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(RESULTS / name, dpi=90)
    plt.close(fig)


def parallel_section(seq, par, workers, label) -> list[str]:
    if not par:
        return []
    lines = regret_table(par, f"{label}: {workers} concurrent workers")
    seeds = {r["seed"] for r in par}
    # same seeds
    seq_t, par_t = (
        final_regret([r for r in seq if r["seed"] in seeds]),
        final_regret(par),
    )
    ratios = []
    # With busy workers "auto" always runs TS, so the default's parallel runs are the egp-ts runs.
    pairs = [
        (s, {"egp-ts-nofant": "egp-ts"}.get(s, s)) for s in sorted({r["sampler"] for r in par})
    ]
    pairs.append(("egp-ts", "egp-auto"))
    for s, base in pairs:
        rs = [
            np.median(par_t[fn][s]) / max(np.median(seq_t[fn][base]), 1e-12)
            for fn in sorted(par_t)
            if par_t[fn][s] and seq_t.get(fn, {}).get(base)
        ]
        if rs:
            ratios.append(
                f"{s} / sequential {base}: median ratio {np.median(rs):.2f} (per function: "
                + ", ".join(f"{v:.2f}" for v in rs)
                + ")"
            )
    if ratios:
        lines += [
            f"Regret with {workers} workers / own sequential regret at equal evaluations (same "
            "seeds):",
            "",
        ]
        lines += [f"- {r}" for r in ratios] + [""]
    for ours in ("egp-auto", "egp-ts", "bore++"):
        for peer in ("gp", "tpe"):
            w, n = wins(par, ours, peer)
            if n:
                lines.append(
                    f"- {ours} better than {peer} ({workers} workers) on {w}/{n} functions"
                )
    return lines + [""]


def spread_table(par, workers) -> list[str]:
    """Mean pairwise distance of concurrently pending points (unit cube), median over seeds."""
    rows = defaultdict(lambda: defaultdict(list))
    for r in par:
        if r.get("pending_spread") is not None:
            rows[r["function"]][r["sampler"]].append(r["pending_spread"])
    if not rows:
        return []
    samplers = sorted({s for row in rows.values() for s in row})
    lines = [
        f"Mean pairwise distance between the {workers} pending points at each ask (unit-cube "
        "coordinates; median over seeds; recorded only by runs made after this metric was "
        "added):",
        "",
        "| function | " + " | ".join(samplers) + " |",
        "|---" * (len(samplers) + 1) + "|",
    ]
    for fn in sorted(rows):
        lines.append(
            f"| {fn} | "
            + " | ".join(
                f"{np.median(rows[fn][s]):.3f} ({len(rows[fn][s])})" if rows[fn][s] else "–"
                for s in samplers
            )
            + " |"
        )
    return lines + ["", "(seeds in brackets)", ""]


def bore_section(
    records,
    title="BORE vs BORE++, synchronous batches (Oliveira et al., NeurIPS 2022, Fig. E.1)",
    png="bore_rosenbrock.png",
) -> list[str]:
    """Fig. E.1 of Oliveira, Tiao, Ramos, "Batch Bayesian optimisation via density-ratio estimation
    with guarantees" (NeurIPS 2022): batch BORE vs batch BORE++ on Rosenbrock, cumulative regret."""
    if not records:
        return []
    by = defaultdict(lambda: defaultdict(list))
    for r in records:
        by[r["function"]][r["sampler"]].append(np.cumsum(r["instant_regret"]))
    fns = sorted(by, key=lambda f: int(f.replace("rosenbrock", "")))
    samplers = sorted({r["sampler"] for r in records})
    # same classifier, default sharpness
    ratios = {
        "bore++ / bore": ("bore++", "bore"),  # our two variants (least squares over network)
        "paper: k=1, beta 3 / beta 0": ("bore++-sharp1", "bore++-beta0-sharp1"),  # Fig. E.1's pair
        "k=10, beta 3 / beta 0": ("bore++", "bore++-beta0"),
    }
    ratios = {k: v for k, v in ratios.items() if set(v) <= set(samplers)}
    lines = [
        f"### {title}",
        "",
        f"Rosenbrock on [-5, 10]^d, batches of {records[0]['workers']}, {records[0]['n_trials']} "
        "evaluations (the first 10 random). Final cumulative regret: mean ± 95 % CI half-width "
        "over seeds (seeds in brackets); lower is better. Names: `-beta<b>` sets beta, "
        "`-sharp<k>` the SVGD target's exponent (default 10; the paper's is 1). The paper's "
        "Fig. E.1 compares beta = 3 with beta = 0 for one classifier.",
        "",
        "| d | " + " | ".join(samplers + list(ratios)) + " |",
        "|---" * (len(samplers) + len(ratios) + 1) + "|",
    ]
    for fn in fns:
        cells, means = [], {}
        for s in samplers:
            finals = np.array([c[-1] for c in by[fn][s]])
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
        lines.append(f"| {fn.replace('rosenbrock', '')} | " + " | ".join(cells) + " |")
    _plot_cumulative(by, fns, png)
    return lines + [""]


def _plot_cumulative(by, fns, name) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(fns), figsize=(4.2 * len(fns), 3.3), squeeze=False)
    for ax, fn in zip(axes[0], fns):
        for s, curves in sorted(by[fn].items()):
            c = np.array(curves)
            mean = c.mean(0)
            half = 1.96 * c.std(0, ddof=1) / np.sqrt(len(c)) if len(c) > 1 else np.zeros_like(mean)
            x = np.arange(1, len(mean) + 1)
            ax.plot(x, mean, label=s)
            ax.fill_between(x, mean - half, mean + half, alpha=0.2)
        ax.set_title(f"Rosenbrock d={fn.replace('rosenbrock', '')}")
        ax.set_xlabel("evaluations")
        ax.set_yscale("log")
    axes[0][0].set_ylabel("cumulative regret (mean, 95% CI)")
    axes[0][-1].legend()
    fig.tight_layout()
    fig.savefig(RESULTS / name, dpi=90)
    plt.close(fig)


def ax_section(records) -> list[str]:
    """Ax ``Client`` runs: our strategies against Ax's default (BoTorch) strategy."""
    if not records:
        return []
    lines = regret_table(records, "Ax Client: our generation strategies vs Ax's default")
    table, secs = final_regret(records), seconds(records)
    if "ax-default" not in secs:
        return lines
    for ours in sorted({r["sampler"] for r in records} - {"ax-default"}):
        ratios = [
            np.median(table[fn][ours]) / max(np.median(table[fn]["ax-default"]), 1e-12)
            for fn in sorted(table)
            if table[fn][ours] and table[fn]["ax-default"]
        ]
        lines.append(
            f"- {ours}: regret / ax-default regret per function: "
            + ", ".join(f"{v:.2f}" for v in ratios)
            + f"; ax-default s/trial / {ours} s/trial = {secs['ax-default'] / secs[ours]:.1f}x"
        )
    return lines + [""]


def overhead_section(records) -> list[str]:
    if not records:
        return []
    sizes = sorted({r["n_complete"] for r in records})
    samplers = sorted({r["sampler"] for r in records})
    by = {(r["sampler"], r["n_complete"]): r for r in records}
    lines = [
        "### Seconds per suggestion (Hartmann-6, random completed trials)",
        "",
        "Mean of 5 consecutive suggestions (the first includes a full refit); first one in "
        "brackets.",
        "",
        "| completed trials | " + " | ".join(samplers) + " |",
        "|---" * (len(samplers) + 1) + "|",
    ]
    for n in sizes:
        cells = [
            f"{by[(s, n)]['mean']:.3f} ({by[(s, n)]['first']:.2f})" if (s, n) in by else "–"
            for s in samplers
        ]
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    return lines + [""]


# ----------------------------------------------------------------------------- speed.py results
SPEED_LABELS = {"egp-auto": "EGPTSSampler", "bore++": "BORESampler", "gp": "GPSampler"}
SPEED_FUNCTIONS = {"levy": "Levy", "hartmann6": "Hartmann-6"}


def _latest(records, *fields, same=()) -> dict:
    """{key: row}: the last row (rows are appended in time order) of each cell, among the rows whose
    settings ``same`` equal those of the file's last row."""
    records = [r for r in records if all(r.get(f) == records[-1].get(f) for f in same)]
    return {tuple(r.get(f) for f in fields): r for r in records}


def _provenance(rows) -> str:
    dates = sorted(r["date"] for r in rows)
    when = dates[0] if dates[0] == dates[-1] else f"{dates[0]} to {dates[-1]}"
    commits = ", ".join(sorted({r["commit"] for r in rows}))
    threads = ", ".join(sorted({str(r["thread_settings"]["threads"]) for r in rows}))
    pythons = ", ".join(sorted({r["python"] for r in rows}))
    return (
        f"Measured {when} (UTC) at commit {commits}; Python {pythons}; {threads} thread(s) "
        "(BLAS, OpenMP, torch)."
    )


def _speed_samplers(rows) -> list[str]:
    known = [s for s in SPEED_LABELS if any(r["sampler"] == s for r in rows)]
    return known + sorted({r["sampler"] for r in rows} - set(known))


def _label(s: str) -> str:
    return f"{SPEED_LABELS[s]} (`{s}`)" if s in SPEED_LABELS else f"`{s}`"


def _problems(rows) -> list[str]:
    out = [
        f"- problem ({r['sampler']}, d={r.get('d')}, n={r.get('n_complete')}): {p}"
        for r in rows
        for p in r.get("problems", [])
    ]
    return out + [""] if out else []


def speed_dims_section(records) -> list[str]:
    """``speed.py dims``: seconds per suggestion at d = 20, 50, 100 and the ratios to GPSampler."""
    if not records:
        return []
    rows = list(
        _latest(
            records, "d", "sampler", same=("n_complete", "asks", "function", "bounds", "order")
        ).values()
    )
    samplers, dims = _speed_samplers(rows), sorted({r["d"] for r in rows})
    by = {(r["d"], r["sampler"]): r for r in rows}
    ratios = [
        (f"{SPEED_LABELS[a]} / GPSampler", a)
        for a in ("egp-auto", "bore++")
        if a in samplers and "gp" in samplers
    ]
    r0 = rows[0]
    lines = [
        "### Seconds per suggestion by dimension",
        "",
        f"{SPEED_FUNCTIONS.get(r0['function'], r0['function'])} on [{r0['bounds'][0]:g}, "
        f"{r0['bounds'][1]:g}]^d, float parameters, {r0['n_complete']} random completed trials "
        f"added with `add_trials`, then {r0['asks']} consecutive `ask(fixed_distributions)` + "
        "`tell`, refits included: mean seconds per ask+tell (first in brackets). Samplers "
        f"{'interleaved ask by ask' if r0['order'] == 'interleaved' else 'one after the other'} "
        "in one process. " + _provenance(rows),
        "",
        "| d | "
        + " | ".join(_label(s) for s in samplers)
        + "".join(f" | {t}" for t, _ in ratios)
        + " |",
        "|---" * (len(samplers) + len(ratios) + 1) + "|",
    ]
    for d in dims:
        cells = [
            f"{by[(d, s)]['mean']:.3f} ({by[(d, s)]['first']:.2f})" if (d, s) in by else "–"
            for s in samplers
        ]
        cells += [
            f"{by[(d, a)]['mean'] / by[(d, 'gp')]['mean']:.2f}"
            if {(d, a), (d, "gp")} <= by.keys()
            else "–"
            for _, a in ratios
        ]
        lines.append(f"| {d} | " + " | ".join(cells) + " |")
    return lines + [""] + _problems(rows)


def speed_many_section(records) -> list[str]:
    """``speed.py many``: large studies with rounds of concurrent asks."""
    if not records:
        return []
    rows = list(
        _latest(records, "n_complete", "sampler", same=("rounds", "batch", "function")).values()
    )
    samplers, sizes = _speed_samplers(rows), sorted({r["n_complete"] for r in rows})
    by = {(r["n_complete"], r["sampler"]): r for r in rows}
    r0 = rows[0]
    b = r0["batch"]
    lines = [
        "### Seconds per ask with many completed trials and concurrent asks",
        "",
        f"{SPEED_FUNCTIONS.get(r0['function'], r0['function'])} (d = {r0['d']}), random completed "
        f"trials added with `add_trials`, then {r0['rounds']} rounds of {b} asks before any tell "
        f"(then {b} tells). Ask 1 of a round refits on the new completions; asks 2-{b} have "
        f"1-{b - 1} running trials. Seconds per ask; medians and maxima over the {r0['rounds']} "
        "rounds. " + _provenance(rows),
        "",
        f"| completed trials | sampler | ask 1 (median) | asks 2-{b} (median) | asks 2-{b} (max) | "
        "all asks (mean) | all asks (max) | mean / GPSampler |",
        "|---" * 8 + "|",
    ]
    checks = []
    for n in sizes:
        gp = by.get((n, "gp"))
        for s in samplers:
            r = by.get((n, s))
            if r is None:
                continue
            first = [a[0] for a in r["ask_seconds"]]
            flat = [x for a in r["ask_seconds"] for x in a]
            later = [x for a in r["ask_seconds"] for x in a[1:]]
            ratio = f"{r['mean'] / gp['mean']:.2f}" if gp else "–"
            lines.append(
                f"| {n} | {_label(s)} | {np.median(first):.3f} | "
                + (f"{np.median(later):.3f} | {max(later):.3f}" if later else "– | –")
                + f" | {np.mean(flat):.3f} | {max(flat):.3f} | {ratio} |"
            )
            if s != "gp" and later:
                checks.append(
                    f"- {n} trials, {SPEED_LABELS.get(s, s)}: asks 2-{b} of every round under 1 s: "
                    f"{'yes' if max(later) < 1 else 'no'} (max {max(later):.2f} s); every ask "
                    f"under 1 s: {'yes' if max(flat) < 1 else 'no'} (max {max(flat):.2f} s)"
                )
            if s == "bore++" and gp:
                checks.append(
                    f"- {n} trials: BORESampler mean seconds per ask / GPSampler's = "
                    f"{r['mean'] / gp['mean']:.2f} (target: at most 0.20)"
                )
    return lines + [""] + checks + [""] + _problems(rows)


def speed_imports_section(records) -> list[str]:
    """``speed.py imports``: import cost and the first model-based suggestion in fresh processes."""
    if not records:
        return []
    rows = _latest(records, "kind")
    lines = [
        "### Import cost and first suggestion (fresh processes)",
        "",
        "Median over fresh interpreters (runs in brackets; one discarded warm-up). Heavy modules: "
        "which of scipy, scipy.stats, scipy.optimize, scipy.linalg, torch, sklearn, pandas are "
        "in `sys.modules` after the step (for a suggestion: the ones it imported). "
        + _provenance(list(rows.values())),
        "",
        "| step | seconds (median) | heavy modules |",
        "|---|---|---|",
    ]

    def mods(ms):
        return ", ".join(f"`{m}`" for m in ms) or "none"

    if ("optuna",) in rows:
        r = rows[("optuna",)]
        lines.append(
            f"| `import optuna` | {r['median']['import_optuna']:.3f} ({r['runs']}) | "
            f"{mods(r['modules']['modules_after_optuna'])} |"
        )
    if ("optuna+optuna_egp",) in rows:
        r = rows[("optuna+optuna_egp",)]
        lines.append(
            f"| `import optuna_egp` after `import optuna` (extra) | "
            f"{r['median']['import_optuna_egp_extra']:.3f} ({r['runs']}) | "
            f"{mods(r['modules']['modules_after_optuna_egp'])} |"
        )
    for (kind,), r in sorted(rows.items()):
        if not kind.startswith("first:"):
            continue
        s = kind[len("first:") :]
        m, n = r["modules"], r["n_startup_trials"]
        new1 = [x for x in m["modules_after_ask1"] if x not in m["modules_before_first_ask"]]
        new2 = [x for x in m["modules_after_ask2"] if x not in m["modules_after_ask1"]]
        # else: not from the model
        model = all(x.get("ask1_relative_params") == 6 for x in r["raw"])
        lines.append(
            f"| first model-based suggestion, {_label(s)} ({n} completed trials, ask {n + 1}, "
            "Hartmann-6)"
            + ("" if model else " (NOT model-based: sample_relative returned too few parameters)")
            + " | "
            f"{r['median']['ask1']:.3f} ({r['runs']}) | {mods(new1)} |"
        )
        lines.append(
            f"| next suggestion, {_label(s)} (ask {n + 2}) | {r['median']['ask2']:.3f} "
            f"({r['runs']}) | {mods(new2)} |"
        )
    return lines + [""]


def speed_encoding_section(records) -> list[str]:
    """``speed.py encoding``: encode + decode round trip of a 100-parameter search space."""
    if not records:
        return []
    rows = list(_latest(records, "api", same=("rows",)).values())
    api_text = {
        "columns": "`encode_columns` + `decode_columns`",
        "rows": "`encode_many` + `[decode(x) for x in X]`",
    }
    r0 = rows[0]
    k = r0["kinds"]
    lines = [
        "### Search-space encoding",
        "",
        f"Encode + decode of {r0['rows']} rows of a {r0['n_params']}-parameter "
        f"`shared_core.SearchSpace` ({k['float']} float: {k['float_log']} log, {k['float_step']} "
        f"with `step`; {k['int']} int: {k['int_log']} log, {k['int_step']} with `step`; "
        f"{k['categorical']} categorical with 3-5 choices of mixed types; {r0['encoded_dim']} "
        "encoded columns). Median over runs (in brackets) after a warm-up. " + _provenance(rows),
        "",
        "| API | round trip (ms) | encode (ms) | decode (ms) | round trip returns the input |",
        "|---" * 5 + "|",
    ]
    for r in sorted(rows, key=lambda r: r["api"]):
        ok = "yes" if r["roundtrip_ok"] else f"no ({r['roundtrip_mismatches']} values differ)"
        lines.append(
            f"| {api_text.get(r['api'], r['api'])} | {r['median'] * 1e3:.1f} ({r['runs']}) | "
            f"{r['encode_median'] * 1e3:.1f} | {r['decode_median'] * 1e3:.1f} | {ok} |"
        )
    return lines + [""]


SPEED = (
    ("speed_dims", speed_dims_section),
    ("speed_many", speed_many_section),
    ("speed_imports", speed_imports_section),
    ("speed_encoding", speed_encoding_section),
)


def speed_sections() -> list[str]:
    """Each speed table for the current code, then (from
    ``*_before.jsonl``) the same run on the previous code."""
    lines = []
    for name, section in SPEED:
        lines += section(load(f"{name}.jsonl"))
        before = section(load(f"{name}_before.jsonl"))
        if before:
            before[0] += " — previous code, same script"
            lines += before
    return lines


WORKERS = (  # (script, results, heading if the script's summarise writes none)
    ("threads.py", "threads.jsonl", None),  # threads.summarise writes its own heading
    ("dead_trials.py", "dead_trials.jsonl", None),  # so does dead_trials.summarise
    ("cold_start.py", "cold_start.jsonl", "### Cold starts: a new worker's first suggestion"),
    ("distributed.py", "dts_reproduce.jsonl", None),  # distributed TS: the paper's experiment
    ("distributed.py", "dts_async8.jsonl", None),  # 8 and 16 asynchronous agents through Optuna
    ("distributed.py", "dts_async16.jsonl", None),
    ("dts_speed.py", "dts_speed.jsonl", None),
    ("scale.py", "scale.jsonl", None),  # 1 000 to 10 000 completed trials
    ("stress.py", "stress.jsonl", None),  # 8 workers on PostgreSQL, SIGKILLed
)
# The tables of docs/running_at_scale.md.
AT_SCALE = ("threads.jsonl", "dead_trials.jsonl", "cold_start.jsonl", "scale.jsonl", "stress.jsonl")


def workers_sections(only: tuple[str, ...] | None = None) -> list[str]:
    """Many workers per machine: thread oversubscription, dead trials, cold starts, distributed
    TS, scale, load and faults (each script's own summary); ``only``: these results files."""
    import importlib.util

    lines = []
    for script, results, title in WORKERS:
        if only is not None and results not in only:
            continue
        rows = load(results)
        if not rows:
            continue
        spec = importlib.util.spec_from_file_location(script[:-3], RESULTS.parent / script)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        lines += ([title, ""] if title else []) + module.summarise(rows) + [""]
    return lines


def _update_block(path: pathlib.Path, name: str, lines: list[str], heading: str) -> None:
    """Replace the generated block ``name`` of the Markdown file ``path`` with ``lines``
    (their ``###`` headings become ``heading``)."""
    start, end = (
        f"<!-- {name}:start (generated by benchmarks/report.py) -->",
        f"<!-- {name}:end -->",
    )
    text = path.read_text()
    if start in text and end in text:
        head, rest = text.split(start, 1)
        path.write_text(
            head
            + start
            + "\n"
            + "\n".join(lines).replace("### ", heading + " ")
            + "\n"
            + end
            + rest.split(end, 1)[1]
        )


def main() -> None:
    seq = load("suite_seq.jsonl")
    out = [
        "# Benchmark results",
        "",
        "Generated by `python benchmarks/report.py` from `benchmarks/results/*.jsonl`.",
        "",
    ]
    out += regret_table(seq, "Sequential suite")
    for ours in ("egp-auto", "egp-ts", "egp-ei", "egp-ts-nowarp", "bore++"):
        for peer in ("tpe", "gp"):
            w, n = wins(seq, ours, peer)
            if n:
                out.append(f"- {ours} better than {peer} (sequential) on {w}/{n} functions")
    out.append("")
    out += rerun_section(
        seq + load("suite_seq_prev_extra.jsonl"),
        load("suite_seq_core_v2.jsonl"),
        "Sequential suite re-run after the core rewrite (surrogate "
        "contract, column-wise encoding, scrambled Halton candidates, BORE refit schedule)",
    )
    plot(seq, "suite_seq.png", "Sequential")
    for name, workers, label in [
        ("suite_async4.jsonl", 4, "Async ask/tell"),
        ("suite_async8.jsonl", 8, "Async ask/tell"),
        ("suite_threads4.jsonl", 4, "n_jobs threads"),
        ("suite_threads8.jsonl", 8, "n_jobs threads"),
    ]:
        par = load(name)
        out += parallel_section(seq, par, workers, label)
        out += spread_table(par, workers)
        plot(par, name.replace(".jsonl", ".png"), f"{label}, {workers} workers")
    rosen = load("bore_rosenbrock.jsonl")
    out += bore_section(rosen)
    sharp8 = load("bore_sharpness_async8.jsonl")
    if sharp8:  # the paper's SVGD target (sharpness 1) against the default (10), same seeds
        cells = {(r["function"], r["seed"]) for r in sharp8}
        peers = [
            r
            for r in load("suite_async8.jsonl")
            if r["sampler"] in ("bore++", "tpe") and (r["function"], r["seed"]) in cells
        ]
        out += regret_table(
            peers + sharp8,
            "BORE++ SVGD target sharpness (default 10, paper 1), 8 async workers (same seeds)",
        )
        out += spread_table(peers + sharp8, 8)
    abl = load("ablation.jsonl")
    out += regret_table(abl, "Ablation (paper Fig. 1): EGP-TS vs single-kernel GP-TS")
    plot(abl, "ablation.png", "EGP-TS vs single-kernel GP-TS")
    out += overhead_section(load("overhead.jsonl"))
    out += speed_sections()
    out += workers_sections()
    ax_records = load("ax.jsonl")
    out += ax_section(ax_records)
    plot(ax_records, "ax.png", "Ax Client, sequential")
    (RESULTS / "summary.md").write_text("\n".join(out) + "\n")
    root = RESULTS.parent.parent
    _update_block(root / "README.md", "bench", out[4:], "####")
    _update_block(
        root / "docs" / "running_at_scale.md", "scale", workers_sections(only=AT_SCALE), "###"
    )
    print("\n".join(out))


if __name__ == "__main__":
    main()
