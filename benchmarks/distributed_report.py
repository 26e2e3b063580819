"""The tables of the distributed Thompson sampling benchmark (``benchmarks.distributed``): per
setting of the reproduction, the regrets of every configuration and the paper's two checks; per
worker count of the asynchronous runs, final regrets, seconds per suggestion and the targets."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from benchmarks.distributed_async import ASYNC_CELL, BENCH_ASYNC
from benchmarks.distributed_reproduce import (
    BENCH_REPRODUCE,
    REPRODUCE_CELL,
    REPRODUCE_FUNCTIONS,
    SETTING,
    SHARED,
    TOPOLOGIES,
)
from benchmarks.functions import FUNCTIONS
from benchmarks.harness.cache import PeerCache
from benchmarks.harness.regret import STARTUP_TRIALS, TIE_FRACTION, median, tie_floors
from benchmarks.harness.results import latest
from benchmarks.harness.samplers import ordered
from benchmarks.harness.tables import markdown_table, provenance_line

# the samplers' order in the async tables (others after them, sorted)
ASYNC_ORDER = ("dts-complete", "dts-star", "dts-ring", "dts-line", "dts-disconnected", "egp-ts")
ASYNC_ORDER += ("tpe", "tpe-cl", "random")
METRICS = ("R_A", "R_B", "R_W")


def summarise(rows: list[dict]) -> list[str]:
    """Markdown lines for the reproduction rows and the async rows among ``rows`` (the latest
    row of each cell)."""
    rep = latest([r for r in rows if r.get("bench") == BENCH_REPRODUCE], REPRODUCE_CELL)
    asy = latest([r for r in rows if r.get("bench") == BENCH_ASYNC], (*ASYNC_CELL, "sampler"))
    return _summarise_reproduce(rep) + _summarise_async(asy)


def with_peers(rows: list[dict], cache: PeerCache) -> list[dict]:
    """``rows`` of async runs and the cached peer runs of their worker counts and evaluations."""
    groups = {(r["workers"], r["n_evaluations"]) for r in rows if r.get("bench") == BENCH_ASYNC}
    return rows + [
        r
        for w, n in sorted(groups)
        for r in cache.rows(bench=BENCH_ASYNC, workers=w, n_evaluations=n)
    ]


def config_order(graph: str, m: int) -> tuple:
    """Agent count first (the star sweep, then the topology comparison), then the topologies'
    order."""
    return m, TOPOLOGIES.index(graph) if graph in TOPOLOGIES else len(TOPOLOGIES), graph


def _summarise_reproduce(rows: list[dict]) -> list[str]:
    settings = defaultdict(list)
    for r in rows:
        settings[tuple(r[k] for k in SETTING)].append(r)
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
        for function in ordered({r["function"] for r in rs}, REPRODUCE_FUNCTIONS):
            lines += _reproduce_table(function, [r for r in rs if r["function"] == function])
        lines += [provenance_line(rs), ""]
    return lines


def _reproduce_table(function: str, rows: list[dict]) -> list[str]:
    box = " x ".join(f"[{lo:g}, {hi:g}]" for lo, hi in rows[0]["bounds"])
    cells = defaultdict(list)
    for r in rows:
        cells[(r["graph"], r["n_agents"], r["surrogate"])].append(r)
    body = []
    for graph, m, surrogate in sorted(cells, key=lambda c: (config_order(c[0], c[1]), c[2])):
        rs = cells[(graph, m, surrogate)]
        body.append(
            [graph, m, surrogate, rs[0]["largest_clique"], rs[0]["clique_cover"], len(rs)]
            + [f"{median([r['R_sum'][k] for r in rs]):.4g}" for k in METRICS]
            + [f"{median([r[k][-1] for r in rs]):.3g}" for k in METRICS]
            + [f"{median([r['seconds_per_suggestion'] for r in rs]):.3g}"]
        )
    header = ["graph", "agents", "surrogate", "largest clique", "clique cover", "seeds"]
    header += [f"Σ{k}" for k in METRICS] + [f"{k}(T)" for k in METRICS] + ["s/suggestion"]
    lines = [f"#### {function} on {box}", "", *markdown_table(header, body)]
    for surrogate in sorted({s for (_, _, s) in cells}):
        lines += _reproduce_checks(cells, surrogate)
    return lines + [""]


def _reproduce_checks(cells: dict, surrogate: str) -> list[str]:
    """(a) the 1-agent star against 3/5/7 agents; (b) 8 disconnected agents against 1 agent
    (median ΣR_A)."""

    def sums(rs, metric="R_A"):
        return median([r["R_sum"][metric] for r in rs])

    mine = {(g, m): rs for (g, m, s), rs in cells.items() if s == surrogate}
    single = next((rs for (g, m), rs in mine.items() if m == 1 and g != SHARED), None)
    if single is None:
        return []
    base, lines = sums(single), []
    stars = sorted((m, sums(rs)) for (g, m), rs in mine.items() if g == "star" and m > 1)
    if stars:
        better = sum(v < base for _, v in stars)
        verdict = {len(stars): "yes", 0: "no"}.get(better, f"partly ({better}/{len(stars)})")
        ratios = ", ".join(f"{m} agents {v / base:.2f}" for m, v in stars)
        lines.append(
            f"- ({surrogate}) (a) Average regret per agent improves with the largest clique (1 "
            f"agent: clique 1, ΣR_A {base:.4g}; star with more agents: clique 2, ΣR_A relative "
            f"to 1 agent: {ratios}): **{verdict}**."
        )
    for (g, m), rs in mine.items():
        if g == "disconnected" and m > 1:
            ratio, best = sums(rs) / base, sums(rs, "R_B") / sums(single, "R_B")
            lines.append(
                f"- ({surrogate}) (b) {m} disconnected agents no better than 1 agent at equal "
                f"rounds: ΣR_A ratio {ratio:.2f} (>= 0.9 expected: each is a single agent) "
                f"**{'holds' if ratio >= 0.9 else 'does NOT hold'}**; ΣR_B ratio {best:.2f} "
                f"(best of {m} independent agents)."
            )
    return lines


def _summarise_async(rows: list[dict]) -> list[str]:
    groups = defaultdict(list)
    for r in rows:
        groups[(r["workers"], r["n_evaluations"])].append(r)
    return [line for (w, n), rs in sorted(groups.items()) for line in _async_section(w, n, rs)]


def _async_section(workers: int, n_eval: int, rows: list[dict]) -> list[str]:
    samplers = ordered({r["sampler"] for r in rows}, ASYNC_ORDER)
    final = defaultdict(list)
    for r in rows:
        final[(r["function"], r["sampler"])].append(r["regret"][-1])
    floor = tie_floors(rows)  # the *solved* level
    compared = [c for c in ("dts-complete", "dts-complete-egp") if c in samplers]
    body, ratios, floored, beats_tpe = [], {}, {}, {}
    for fn in [fn for fn in FUNCTIONS if any(r["function"] == fn for r in rows)]:
        med = {s: median(final[(fn, s)]) for s in samplers if final[(fn, s)]}
        pairs = []
        for c in compared:
            raw = _ratio(med.get(c), med.get("egp-ts"))
            low = None
            if c in med and "egp-ts" in med and floor[fn] > 0:
                low = _ratio(max(med[c], floor[fn]), max(med["egp-ts"], floor[fn]))
            pairs.append(f"{_fmt(raw)}, {_fmt(low)}")
            if c == "dts-complete" and raw is not None:
                ratios[fn] = raw
            if c == "dts-complete" and low is not None:
                floored[fn] = low
        if "dts-complete" in med and "tpe" in med:
            beats_tpe[fn] = med["dts-complete"] < med["tpe"]
        cells = [f"{med[s]:.3g} ({len(final[(fn, s)])})" if s in med else "-" for s in samplers]
        body.append([fn, *cells, f"{floor[fn]:.2g}", *pairs])
    sec = {s: median([r["model_ask_seconds"] for r in rows if r["sampler"] == s]) for s in samplers}
    speed = _ratio(sec.get("dts-ring"), sec.get("egp-ts"))
    header = ["function", *samplers, "solved level"]
    header += [f"{c} / egp-ts (raw, floored)" for c in compared]
    return [
        f"### Distributed Thompson sampling, {workers} asynchronous agents ({n_eval} evaluations)",
        "",
        "Median final regret (best value - known minimum) over seeds (their number in "
        "brackets); `dts-<graph>`: `DistributedTSSampler`, one agent per worker slot. "
        "Ratios to egp-ts: raw, and with regrets below the function's *solved* level "
        f"({TIE_FRACTION:g} x the median regret after the {STARTUP_TRIALS} random "
        "start-up trials, shown) counted as that level.",
        "",
        *markdown_table(header, body),
        "Seconds per suggestion (median over runs of the mean time of the asks whose "
        f"suggestion came from the model; TPE: once {STARTUP_TRIALS} trials completed). An "
        "agent's start-up counts its neighbourhood's trials, so star and ring agents search "
        "randomly for longer:",
        "",
        *markdown_table(
            [*samplers, "dts-ring / egp-ts"], [[*(f"{sec[s]:.3g}" for s in samplers), _fmt(speed)]]
        ),
        *_async_targets(workers, speed, ratios, floored, beats_tpe),
        "",
        provenance_line(rows),
        "",
    ]


def _async_targets(workers, speed, ratios: dict, floored: dict, beats_tpe: dict) -> list[str]:
    lines = []
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
        within = sum(v <= 1.2 for v in ratios.values())
        within_floored = sum(v <= 1.2 for v in floored.values())
        lines.append(
            f"- Target, complete graph: regret within 1.2x egp-ts's: on {within}/{len(ratios)} "
            f"functions raw (geometric mean ratio {_gmean(ratios.values()):.2f}), "
            f"{within_floored}/{len(floored)} with the solved level: "
            f"**{'met' if within == len(ratios) else 'not met'}** (raw)."
        )
    if beats_tpe:
        wins = sum(beats_tpe.values())
        lines.append(
            f"- Target, dts-complete better than TPE on most functions: {wins}/{len(beats_tpe)}: "
            f"**{'met' if wins > len(beats_tpe) / 2 else 'not met'}**."
        )
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
