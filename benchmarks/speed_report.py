"""The tables of ``benchmarks.speed`` for ``benchmarks.report``: the latest row of each cell,
GPSampler's from the peer cache."""

from __future__ import annotations

import numpy as np

from benchmarks.harness.cache import PeerCache
from benchmarks.harness.results import latest, same_setting
from benchmarks.harness.samplers import LABELS
from benchmarks.speed_timing import label as _label
from benchmarks.speed_timing import section

SPEED_FUNCTIONS = {"levy": "Levy", "hartmann6": "Hartmann-6"}


def _speed_samplers(rows) -> list[str]:
    known = [s for s in LABELS if any(r["sampler"] == s for r in rows)]
    return known + sorted({r["sampler"] for r in rows} - set(known))


def _problems(rows) -> list[str]:
    out = [
        f"- problem ({r['sampler']}, d={r.get('d')}, n={r.get('n_complete')}): {p}"
        for r in rows
        for p in r.get("problems", [])
    ]
    return out + [""] if out else []


def _with_peer(ours: list[dict], peers: PeerCache, *cell: str) -> list[dict]:
    """``ours`` and GPSampler's cached rows of the same bench and settings ``cell``."""
    r0 = ours[0]
    gp = peers.rows(samplers=("gp",), bench=r0["bench"], **{f: r0.get(f) for f in cell})
    return ours + gp


def speed_dims_section(records: list[dict], peers: PeerCache) -> list[str]:
    """``speed dims``: seconds per suggestion at d = 20, 50, 100 and the ratios to GPSampler."""
    if not records:
        return []
    ours = latest(
        same_setting(records, ("n_complete", "asks", "function", "bounds", "order")),
        ("d", "sampler"),
    )
    rows = _with_peer(ours, peers, "n_complete", "asks", "function", "seed")
    samplers, dims = _speed_samplers(rows), sorted({r["d"] for r in rows})
    by = {(r["d"], r["sampler"]): r for r in rows}
    ratios = [
        (f"{LABELS[a]} / GPSampler", a)
        for a in ("egp-auto", "bore++")
        if a in samplers and "gp" in samplers
    ]
    body = []
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
        body.append([str(d), *cells])
    r0 = ours[0]
    intro = (
        f"{SPEED_FUNCTIONS.get(r0['function'], r0['function'])} on [{r0['bounds'][0]:g}, "
        f"{r0['bounds'][1]:g}]^d, float parameters, {r0['n_complete']} random completed trials "
        f"added with `add_trials`, then {r0['asks']} consecutive `ask(fixed_distributions)` + "
        "`tell`, refits included: mean seconds per ask+tell (first in brackets). Samplers "
        f"{'interleaved ask by ask' if r0['order'] == 'interleaved' else 'one after the other'} "
        "in one process (GPSampler's rows from the peer cache)."
    )
    header = ["d", *map(_label, samplers), *(t for t, _ in ratios)]
    title = "## Seconds per suggestion by dimension"
    return section(title, header, body, rows, intro=intro, after=_problems(rows))


def speed_many_section(records: list[dict], peers: PeerCache) -> list[str]:
    """``speed many``: large studies with rounds of concurrent asks."""
    if not records:
        return []
    ours = latest(same_setting(records, ("rounds", "batch", "function")), ("n_complete", "sampler"))
    rows = _with_peer(ours, peers, "rounds", "batch", "function", "seed")
    samplers, sizes = _speed_samplers(rows), sorted({r["n_complete"] for r in rows})
    by = {(r["n_complete"], r["sampler"]): r for r in rows}
    r0 = ours[0]
    b = r0["batch"]
    body, checks = [], []
    for n in sizes:
        gp = by.get((n, "gp"))
        for s in samplers:
            r = by.get((n, s))
            if r is None:
                continue
            first = [a[0] for a in r["ask_seconds"]]
            flat = [x for a in r["ask_seconds"] for x in a]
            later = [x for a in r["ask_seconds"] for x in a[1:]]
            body.append(
                [
                    str(n),
                    _label(s),
                    f"{np.median(first):.3f}",
                    f"{np.median(later):.3f}" if later else "–",
                    f"{max(later):.3f}" if later else "–",
                    f"{np.mean(flat):.3f}",
                    f"{max(flat):.3f}",
                    f"{r['mean'] / gp['mean']:.2f}" if gp else "–",
                ]
            )
            if s != "gp" and later:
                checks.append(
                    f"- {n} trials, {LABELS.get(s, s)}: asks 2-{b} of every round under 1 s: "
                    f"{'yes' if max(later) < 1 else 'no'} (max {max(later):.2f} s); every ask "
                    f"under 1 s: {'yes' if max(flat) < 1 else 'no'} (max {max(flat):.2f} s)"
                )
            if s == "bore++" and gp:
                checks.append(
                    f"- {n} trials: BORESampler mean seconds per ask / GPSampler's = "
                    f"{r['mean'] / gp['mean']:.2f} (target: at most 0.20)"
                )
    header = [
        "completed trials",
        "sampler",
        "ask 1 (median)",
        f"asks 2-{b} (median)",
        f"asks 2-{b} (max)",
        "all asks (mean)",
        "all asks (max)",
        "mean / GPSampler",
    ]
    intro = (
        f"{SPEED_FUNCTIONS.get(r0['function'], r0['function'])} (d = {r0['d']}), random completed "
        f"trials added with `add_trials`, then {r0['rounds']} rounds of {b} asks before any tell "
        f"(then {b} tells). Ask 1 of a round refits on the new completions; asks 2-{b} have "
        f"1-{b - 1} running trials. Seconds per ask; medians and maxima over the {r0['rounds']} "
        "rounds (GPSampler's rows from the peer cache)."
    )
    title = "## Seconds per ask with many completed trials and concurrent asks"
    return section(title, header, body, rows, intro=intro, after=[*checks, "", *_problems(rows)])


def speed_imports_section(records: list[dict]) -> list[str]:
    """``speed imports``: import cost and the first model-based suggestion in fresh processes."""
    if not records:
        return []
    rows = {r["kind"]: r for r in latest(records, ("kind",))}

    def step(text: str, r: dict, field: str, modules) -> list[str]:
        names = ", ".join(f"`{m}`" for m in modules) or "none"
        return [text, f"{r['median'][field]:.3f} ({r['runs']})", names]

    body = []
    if "optuna" in rows:
        r = rows["optuna"]
        body.append(
            step("`import optuna`", r, "import_optuna", r["modules"]["modules_after_optuna"])
        )
    if "optuna+optuna_egp" in rows:
        r = rows["optuna+optuna_egp"]
        text = "`import optuna_egp` after `import optuna` (extra)"
        body.append(
            step(text, r, "import_optuna_egp_extra", r["modules"]["modules_after_optuna_egp"])
        )
    for kind, r in sorted(rows.items()):
        if not kind.startswith("first:"):
            continue
        s = kind[len("first:") :]
        m, n = r["modules"], r["n_startup_trials"]
        new1 = [x for x in m["modules_after_ask1"] if x not in m["modules_before_first_ask"]]
        new2 = [x for x in m["modules_after_ask2"] if x not in m["modules_after_ask1"]]
        model = all(x.get("ask1_relative_params") == 6 for x in r["raw"])
        text = f"first model-based suggestion, {_label(s)} ({n} completed trials, ask {n + 1}, "
        text += "Hartmann-6)" + (
            "" if model else " (NOT model-based: the model suggested no parameters)"
        )
        body.append(step(text, r, "ask1", new1))
        body.append(step(f"next suggestion, {_label(s)} (ask {n + 2})", r, "ask2", new2))
    intro = (
        f"Median over fresh interpreters (runs in brackets; {_warm_ups(rows.values())}). Heavy "
        "modules: "
        "which of scipy, scipy.stats, scipy.optimize, scipy.linalg, torch, sklearn, pandas are "
        "in `sys.modules` after the step (for a suggestion: the ones it imported)."
    )
    title, header = (
        "## Import cost and first suggestion (fresh processes)",
        ["step", "seconds (median)", "heavy modules"],
    )
    return section(title, header, body, list(rows.values()), intro=intro)


def _warm_ups(rows) -> str:
    counts = sorted({r.get("warm_ups", 1) for r in rows})  # older rows: one warm-up
    return f"warm-up runs discarded first: {', '.join(map(str, counts))}"


def speed_encoding_section(records: list[dict]) -> list[str]:
    """``speed encoding``: encode + decode round trip of a 100-parameter search space."""
    if not records:
        return []
    rows = latest(same_setting(records, ("rows",)), ("api",))
    api_text = {
        "columns": "`encode_columns` + `decode_columns`",
        "rows": "`encode_many` + `[decode(x) for x in X]`",
    }
    body = [
        [
            api_text.get(r["api"], r["api"]),
            f"{r['median'] * 1e3:.1f} ({r['runs']})",
            f"{r['encode_median'] * 1e3:.1f}",
            f"{r['decode_median'] * 1e3:.1f}",
            "yes" if r["roundtrip_ok"] else f"no ({r['roundtrip_mismatches']} values differ)",
        ]
        for r in sorted(rows, key=lambda r: r["api"])
    ]
    r0 = rows[0]
    k = r0["kinds"]
    header = [
        "API",
        "round trip (ms)",
        "encode (ms)",
        "decode (ms)",
        "round trip returns the input",
    ]
    intro = (
        f"Encode + decode of {r0['rows']} rows of a {r0['n_params']}-parameter "
        f"`shared_core.SearchSpace` ({k['float']} float: {k['float_log']} log, {k['float_step']} "
        f"with `step`; {k['int']} int: {k['int_log']} log, {k['int_step']} with `step`; "
        f"{k['categorical']} categorical with 3-5 choices of mixed types; {r0['encoded_dim']} "
        "encoded columns). Median over runs (in brackets) after a warm-up."
    )
    return section("## Search-space encoding", header, body, rows, intro=intro)


def sections(rows_of, peers: PeerCache) -> list[str]:
    """Every speed table; ``rows_of(file name)``: the rows of a results file; ``peers``: the
    peer cache."""
    return (
        speed_dims_section(rows_of("speed_dims.jsonl"), peers)
        + speed_many_section(rows_of("speed_many.jsonl"), peers)
        + speed_imports_section(rows_of("speed_imports.jsonl"))
        + speed_encoding_section(rows_of("speed_encoding.jsonl"))
    )
