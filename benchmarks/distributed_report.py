"""The tables of the distributed Thompson sampling benchmark (``benchmarks.distributed``), for
``benchmarks.report`` and printed at the end of every run: for the reproduction, per setting and
function, the regret sums and final regrets of every configuration and the paper's two checks;
for the asynchronous runs, per worker count, the final regrets, the seconds per suggestion and
the targets (the docstring of ``benchmarks.distributed``, ``summarise(rows)``).
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from benchmarks.distributed_async import ASYNC_KEY, BENCH_ASYNC
from benchmarks.distributed_reproduce import (
    BENCH_REPRODUCE,
    REPRODUCE_FUNCTIONS,
    REPRODUCE_KEY,
    SHARED,
    TOPOLOGIES,
)
from benchmarks.functions import FUNCTIONS
from benchmarks.harness.cache import PeerCache
from benchmarks.harness.regret import STARTUP_TRIALS
from benchmarks.harness.results import latest
from benchmarks.harness.samplers import ordered
from benchmarks.harness.tables import provenance_line

# regret below this fraction of the start-up regret counts as solved (async tables)
SOLVED_FRACTION = 1e-3


# the samplers' order in the async tables and plots (others after them, sorted)
ASYNC_ORDER = (
    "dts-complete",
    "dts-star",
    "dts-ring",
    "dts-line",
    "dts-disconnected",
    "egp-ts",
    "tpe",
    "tpe-cl",
    "random",
)


def summarise(rows: list[dict]) -> list[str]:
    """Markdown lines for the reproduction rows and the
    async rows among ``rows`` (latest row per cell)."""
    rep = [r for r in rows if r.get("bench") == BENCH_REPRODUCE]
    asy = [r for r in rows if r.get("bench") == BENCH_ASYNC]
    return (_summarise_reproduce(rep) if rep else []) + (_summarise_async(asy) if asy else [])


def latest_runs(rows: list[dict], fields) -> list[dict]:
    """The last row of each cell (``fields`` without commit); rows are appended in time order."""
    return latest(rows, [k for k in fields if k != "commit"])


def with_peers(rows: list[dict], cache: PeerCache) -> list[dict]:
    """``rows`` of async runs and the cached peer runs of their worker counts and evaluations."""
    groups = {(r["workers"], r["n_evaluations"]) for r in rows if r.get("bench") == BENCH_ASYNC}
    return rows + [
        r
        for w, n in sorted(groups)
        for r in cache.rows(bench=BENCH_ASYNC, workers=w, n_evaluations=n)
    ]


def _med(values) -> float:
    return float(np.median(values)) if len(values) else float("nan")


def config_order(graph: str, m: int) -> tuple:
    """Agent count first (the star sweep, then the
    topology comparison), then the topologies' order."""
    return m, TOPOLOGIES.index(graph) if graph in TOPOLOGIES else len(TOPOLOGIES), graph


def _summarise_reproduce(rows: list[dict]) -> list[str]:
    rows = latest_runs(rows, REPRODUCE_KEY)
    settings = defaultdict(list)
    for r in rows:
        settings[(r["rounds"], r["n_init"], r["init"], r["noise"])].append(r)
    lines = []
    for (rounds, n_init, init, noise), rs in sorted(settings.items()):
        lines += [
            "### Distributed Thompson sampling, synchronous rounds (Zerefa et al. 2024, Sec. D): "
            f"T = {rounds}, {n_init} initial points per agent ({init}), noise {noise:g}",
            "",
            "Regret = f(x) - f_min of each agent's round-t point. ΣR = sum over rounds 1..T (the "
            "paper's R̄), R(T) = value at round T; medians over seeds. R_A: mean over agents, "
            "R_W: worst agent, R_B: best point of any agent so far. `shared-egp`: one EGP-TS "
            "ensemble seeing all data, M suggestions per round (the reference).",
            "",
        ]
        for function in [
            fn for fn in REPRODUCE_FUNCTIONS if any(r["function"] == fn for r in rs)
        ] + sorted({r["function"] for r in rs} - set(REPRODUCE_FUNCTIONS)):
            frs = [r for r in rs if r["function"] == function]
            lines += _reproduce_table(function, frs)
        lines += [provenance_line(rs), ""]
    return lines


def _reproduce_table(function: str, rows: list[dict]) -> list[str]:
    bounds = rows[0]["bounds"]
    box = " x ".join(f"[{lo:g}, {hi:g}]" for lo, hi in bounds)
    cells = defaultdict(list)
    for r in rows:
        cells[(r["graph"], r["n_agents"], r["surrogate"])].append(r)
    lines = [
        f"#### {function} on {box}",
        "",
        "| graph | agents | surrogate | largest clique | clique cover | seeds | ΣR_A | ΣR_B | "
        "ΣR_W | R_A(T) | R_B(T) | R_W(T) | s/suggestion |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    order = sorted(cells, key=lambda c: (config_order(c[0], c[1]), c[2]))
    for (graph, m, surrogate), rs in ((c, cells[c]) for c in order):
        sums = {k: _med([r["R_sum"][k] for r in rs]) for k in ("R_A", "R_B", "R_W")}
        last = {k: _med([r[k][-1] for r in rs]) for k in ("R_A", "R_B", "R_W")}
        lines.append(
            f"| {graph} | {m} | {surrogate} | {rs[0]['largest_clique']} | {rs[0]['clique_cover']} "
            f"| {len(rs)} | {sums['R_A']:.4g} | {sums['R_B']:.4g} | {sums['R_W']:.4g} | "
            f"{last['R_A']:.3g} | {last['R_B']:.3g} | {last['R_W']:.3g} | "
            f"{_med([r['seconds_per_suggestion'] for r in rs]):.3g} |"
        )
    lines.append("")
    for surrogate in sorted({s for (_, _, s) in cells}):
        lines += _reproduce_checks(cells, surrogate)
    return lines + [""]


def _reproduce_checks(cells: dict, surrogate: str) -> list[str]:
    """(a) the 1-agent star against 3/5/7 agents; (b) 8
    disconnected agents against 1 agent (median ΣR_A)."""

    def sum_ra(rs):
        return _med([r["R_sum"]["R_A"] for r in rs])

    single = next(
        (rs for (g, m, s), rs in cells.items() if m == 1 and s == surrogate and g != SHARED), None
    )
    lines = []
    if single is None:
        return lines
    base = sum_ra(single)
    stars = sorted(
        (
            (m, sum_ra(rs))
            for (g, m, s), rs in cells.items()
            if g == "star" and s == surrogate and m > 1
        )
    )
    if stars:
        better = [m for m, v in stars if v < base]
        verdict = (
            "yes"
            if len(better) == len(stars)
            else "no"
            if not better
            else f"partly ({len(better)}/{len(stars)})"
        )
        ratios = ", ".join(f"{m} agents {v / base:.2f}" for m, v in stars)
        lines.append(
            f"- ({surrogate}) (a) Average regret per agent improves with the largest clique (1 "
            f"agent: clique 1, ΣR_A {base:.4g}; star with more agents: clique 2, ΣR_A relative "
            f"to 1 agent: {ratios}): **{verdict}**."
        )
    disc = [
        (m, rs)
        for (g, m, s), rs in cells.items()
        if g == "disconnected" and s == surrogate and m > 1
    ]
    for m, rs in disc:
        ratio = sum_ra(rs) / base
        best = _med([r["R_sum"]["R_B"] for r in rs]) / _med([r["R_sum"]["R_B"] for r in single])
        verdict = "holds" if ratio >= 0.9 else "does NOT hold"
        lines.append(
            f"- ({surrogate}) (b) {m} disconnected agents no better than 1 agent at equal rounds: "
            f"ΣR_A ratio {ratio:.2f} (>= 0.9 expected: each is a single agent) **{verdict}**; "
            f"ΣR_B ratio {best:.2f} (best of {m} independent agents)."
        )
    return lines


def _summarise_async(rows: list[dict]) -> list[str]:
    rows = latest_runs(rows, ASYNC_KEY)
    groups = defaultdict(list)
    for r in rows:
        groups[(r["workers"], r["n_evaluations"])].append(r)
    lines = []
    for (workers, n_eval), rs in sorted(groups.items()):
        samplers = ordered({r["sampler"] for r in rs}, ASYNC_ORDER)
        functions = [fn for fn in FUNCTIONS if any(r["function"] == fn for r in rs)]
        final = defaultdict(list)
        for r in rs:
            final[(r["function"], r["sampler"])].append(r["regret"][-1])
        floor = {
            fn: SOLVED_FRACTION
            * _med(
                [
                    r["regret"][min(STARTUP_TRIALS, len(r["regret"])) - 1]
                    for r in rs
                    if r["function"] == fn
                ]
            )
            for fn in functions
        }
        compared = [c for c in ("dts-complete", "dts-complete-egp") if c in samplers]
        lines += [
            f"### Distributed Thompson sampling, {workers} asynchronous agents ({n_eval} "
            "evaluations)",
            "",
            "Median final regret (best value - known minimum) over seeds (their number in "
            "brackets); `dts-<graph>`: `DistributedTSSampler`, one agent per worker slot. "
            "Ratios to egp-ts: raw, and with regrets below the function's *solved* level "
            f"({SOLVED_FRACTION:g} x the median regret after the {STARTUP_TRIALS} random "
            "start-up trials, shown) counted as that level.",
            "",
            "| function | "
            + " | ".join(
                samplers + ["solved level"] + [f"{c} / egp-ts (raw, floored)" for c in compared]
            )
            + " |",
            "|---|" + "---|" * (len(samplers) + 1 + len(compared)),
        ]
        ratios, floored, beats_tpe = {}, {}, {}
        for fn in functions:
            med = {s: _med(final[(fn, s)]) for s in samplers if final[(fn, s)]}
            cells = [f"{med[s]:.3g} ({len(final[(fn, s)])})" if s in med else "-" for s in samplers]
            pairs = []
            for c in compared:
                raw = _ratio(med.get(c), med.get("egp-ts"))
                low = (
                    _ratio(max(med[c], floor[fn]), max(med["egp-ts"], floor[fn]))
                    if c in med and "egp-ts" in med and floor[fn] > 0
                    else None
                )
                pairs.append(f"{_fmt(raw)}, {_fmt(low)}")
                if c == "dts-complete" and raw is not None:
                    ratios[fn] = raw
                if c == "dts-complete" and low is not None:
                    floored[fn] = low
            if "dts-complete" in med and "tpe" in med:
                beats_tpe[fn] = med["dts-complete"] < med["tpe"]
            lines.append(f"| {fn} | " + " | ".join(cells + [f"{floor[fn]:.2g}"] + pairs) + " |")
        sec = {s: _med([r["model_ask_seconds"] for r in rs if r["sampler"] == s]) for s in samplers}
        lines += [
            "",
            "Seconds per suggestion (median over runs of the mean time of the asks whose "
            f"suggestion came from the model; TPE: once {STARTUP_TRIALS} trials completed). An "
            "agent's start-up counts its neighbourhood's trials, so star and ring agents search "
            "randomly for longer:",
            "",
            "| " + " | ".join(samplers) + " | dts-ring / egp-ts |",
            "|" + "---|" * (len(samplers) + 1),
            "| "
            + " | ".join(f"{sec[s]:.3g}" for s in samplers)
            + f" | {_fmt(_ratio(sec.get('dts-ring'), sec.get('egp-ts')))} |",
            "",
        ]
        speed = _ratio(sec.get("dts-ring"), sec.get("egp-ts"))
        if workers == 16 and speed is not None:
            lines.append(
                "- Target, 16 agents on a ring: seconds per suggestion at most half of egp-ts's: "
                f"ratio {speed:.2f}: **{'met' if speed <= 0.5 else 'not met'}**."
            )
        elif speed is not None:
            lines.append(
                f"- Ring / egp-ts seconds per suggestion at {workers} agents: {speed:.2f} (the "
                "target, <= 0.5, is for 16 agents)."
            )
        if ratios:
            within = [fn for fn, v in ratios.items() if v <= 1.2]
            within_floored = [fn for fn, v in floored.items() if v <= 1.2]
            lines.append(
                "- Target, complete graph: regret within 1.2x egp-ts's: on "
                f"{len(within)}/{len(ratios)} functions raw (geometric mean ratio "
                f"{_gmean(ratios.values()):.2f}), {len(within_floored)}/{len(floored)} with the "
                f"solved level: **{'met' if len(within) == len(ratios) else 'not met'}** (raw)."
            )
        if beats_tpe:
            wins = sum(beats_tpe.values())
            lines.append(
                "- Target, dts-complete better than TPE on most functions: "
                f"{wins}/{len(beats_tpe)}: "
                f"**{'met' if wins > len(beats_tpe) / 2 else 'not met'}**."
            )
        lines += ["", provenance_line(rs), ""]
    return lines


def _ratio(a, b):
    if a is None or b is None or not np.isfinite(a) or not np.isfinite(b) or b <= 0:
        return None
    return a / b


def _fmt(x) -> str:
    return "-" if x is None else f"{x:.2f}"


def _gmean(values) -> float:
    v = np.array([x for x in values if x > 0], dtype=float)
    return float(np.exp(np.mean(np.log(v)))) if len(v) else float("nan")
