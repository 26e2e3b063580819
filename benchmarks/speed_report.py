"""The tables of ``speed.py``'s results (``speed_dims``, ``speed_many``, ``speed_imports``,
``speed_encoding``), for ``benchmarks.report``: each shows the latest row of each cell."""

from __future__ import annotations

import numpy as np

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
        "## Seconds per suggestion by dimension",
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
        "## Seconds per ask with many completed trials and concurrent asks",
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
        "## Import cost and first suggestion (fresh processes)",
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
        "## Search-space encoding",
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


def sections(rows_of) -> list[str]:
    """Every speed table; ``rows_of(file name)``: the rows of a results file."""
    lines = []
    for name, section in SPEED:
        lines += section(rows_of(f"{name}.jsonl"))
    return lines
