"""The page of the defaults ablation (``benchmarks.defaults``): per setting, each variant's median
final regret per function beside GPSampler's and TPE's, its wins against GPSampler and its
geometric-mean regret ratio to GPSampler."""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np

from benchmarks.defaults import DEV_FUNCTIONS, VARIANTS
from benchmarks.harness.cache import PeerCache
from benchmarks.harness.regret import STARTUP_TRIALS, TIE_FRACTION, tie_floors
from benchmarks.harness.results import latest, read_rows
from benchmarks.harness.samplers import LABELS
from benchmarks.harness.tables import fmt, markdown_table, provenance_line
from benchmarks.suite_report import per_function_setting

SETTING = ("workers", "n_trials")
PEERS = ("gp", "tpe")
# (title, mode, seeds, functions: None = every function the rows have)
SETTINGS = (
    ("Development set: sequential, seeds 0-4", "seq", range(0, 5), DEV_FUNCTIONS),
    ("Held-out seeds 5-9 and functions, sequential", "seq", range(5, 10), None),
    ("{workers} workers (ask/tell, {workers} pending), seeds 0-4", "async", range(0, 5), None),
)


def _finals(rows: list[dict]) -> dict:
    """``{(name, function): {seed: final regret}}``, ``name`` the variant or the peer."""
    out: dict = defaultdict(dict)
    for r in rows:
        out[(r.get("variant", r["sampler"]), r["function"])][r["seed"]] = r["regret"][-1]
    return out


def ratio_to_peer(ours: list[float], peer: list[float], floor: float) -> float:
    """``median(ours) / median(peer)``, each median at least ``floor`` (both at most ``floor``:
    a tie, 1), and at least 1e-300 (so that the ratio and its log are finite)."""
    low = max(floor, 1e-300)
    return max(float(np.median(ours)), low) / max(float(np.median(peer)), low)


def _geometric_mean(ratios: list[float]) -> str:
    return fmt(math.exp(float(np.mean(np.log(ratios))))) if ratios else ""


def variant_table(
    rows: list[dict], peers: list[dict], functions: list[str], tie: dict
) -> list[str]:
    """Rows: the variants of ``rows`` (in ``VARIANTS`` order), then GPSampler and TPE; cells: the
    median final regret over the seeds GPSampler also ran; then the functions where the median is
    lower than GPSampler's, tied with it (both at most the function's ``tie`` floor) or higher,
    and the geometric means of the ratio to GPSampler's median with and without the floors."""
    finals = _finals(rows + peers)
    names = [v for v in VARIANTS if any((v, f) in finals for f in functions)]
    header = [
        "variant",
        *functions,
        "better / tied / worse than GPSampler",
        "ratio to GPSampler",
        "ratio, no tie floor",
    ]
    body = []
    for name in [*names, *PEERS]:
        cells, counts, floored, raw = [], [0, 0, 0], [], []
        for fn in functions:
            mine, gp = finals.get((name, fn), {}), finals.get(("gp", fn), {})
            seeds = sorted(set(mine) & set(gp)) if gp else sorted(mine)
            if not seeds:
                cells.append("–")
                continue
            ours = [mine[s] for s in seeds]
            cells.append(f"{fmt(float(np.median(ours)))} ({len(seeds)})")
            if gp and name != "gp":
                peer = [gp[s] for s in seeds]
                r = ratio_to_peer(ours, peer, tie.get(fn, 0.0))
                counts[0 if r < 1 else 1 if r == 1 else 2] += 1
                floored.append(r)
                raw.append(ratio_to_peer(ours, peer, 0.0))
        summary = "/".join(map(str, counts)) if floored else ""
        means = [_geometric_mean(floored), _geometric_mean(raw)]
        body.append([LABELS.get(name, f"`{name}`"), *cells, summary, *means])
    return markdown_table(header, body)


def page(results) -> list[str]:
    """The page's lines from ``<results>/defaults.jsonl`` and the peer cache."""
    rows = latest(
        read_rows(results / "defaults.jsonl"),
        ("variant", "function", "seed", "mode", "workers", "n_trials"),
    )
    if not rows:
        return ["No results yet: run `python -m benchmarks.defaults`."]
    trials = ", ".join(
        f"{n} trials on {', '.join(sorted(fns))}"
        for n, fns in sorted(_functions_by_trials(rows).items())
    )
    lines = [
        "Each variant changes one or two settings of `EGPTSSampler()`; every run is a run of the "
        f"suite (`python -m benchmarks.run`): {trials}; the first {STARTUP_TRIALS} random. "
        "Cells: median final regret over the seeds (their number in brackets) that GPSampler also "
        f"ran. A median below {TIE_FRACTION:g} of the function's median regret after the "
        f"{STARTUP_TRIALS} start-up trials ties with GPSampler's if that is below it too (the "
        "suite tables' rule). Ratio: the geometric mean over the functions of the variant's "
        "median over GPSampler's, with those floors (a tie counts as 1) and without them.",
        "",
        *(f"- `{name}`: {v.description}" for name, v in VARIANTS.items()),
        "",
        'Sequentially, `"auto"` runs EI until 10 trials per dimension are complete, so `ei` '
        "runs the same as `default` wherever the budget is at most 10 trials per dimension (the "
        "5-D functions of 50 trials).",
        "",
    ]
    cache = PeerCache(results / "peers.jsonl")
    for title, mode, seeds, functions in SETTINGS:
        mine = [r for r in rows if r["mode"] == mode and r["seed"] in seeds]
        mine = per_function_setting(mine, SETTING)
        if not mine:
            continue
        n_trials = {r["function"]: r["n_trials"] for r in mine}
        fns = sorted(n_trials) if functions is None else [f for f in functions if f in n_trials]
        workers = mine[0]["workers"]
        peers = [
            r
            for r in cache.rows(samplers=PEERS, bench="suite", mode=mode, workers=workers)
            if r["seed"] in seeds and n_trials.get(r["function"]) == r["n_trials"]
        ]
        table = variant_table(mine, peers, fns, tie_floors(mine + peers))
        lines += [f"## {title.format(workers=workers)}", "", *table]
        lines += [provenance_line(mine + peers), ""]
    return lines


def _functions_by_trials(rows: list[dict]) -> dict[int, set[str]]:
    out: dict = defaultdict(set)
    for r in rows:
        out[r["n_trials"]].add(r["function"])
    return out
