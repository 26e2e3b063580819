"""The page of the defaults ablation (``benchmarks.defaults``), for ``benchmarks.report``: per
setting (development set, held-out seeds, 4 workers), each variant's median final regret per
function beside GPSampler's and TPE's on the same seeds, how many functions it wins against
GPSampler and its geometric-mean regret ratio to GPSampler."""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np

from benchmarks.defaults import DEV_FUNCTIONS, VARIANTS
from benchmarks.harness.cache import PeerCache
from benchmarks.harness.provenance import SAMPLER_CODE
from benchmarks.harness.results import latest, read_rows
from benchmarks.harness.samplers import LABELS
from benchmarks.harness.tables import fmt, markdown_table, provenance_line

__all__ = ["SETTINGS", "page", "ratio_to_peer"]

CODE = (*SAMPLER_CODE, "benchmarks/defaults.py")
PEERS = ("gp", "tpe")
# (title, mode, seeds, functions: None = every function the rows have)
SETTINGS = (
    ("Development set: sequential, seeds 0-4", "seq", range(0, 5), DEV_FUNCTIONS),
    ("Held-out seeds 5-9 and functions, sequential", "seq", range(5, 10), None),
    ("4 workers (ask/tell, 4 pending), seeds 0-4", "async", range(0, 5), None),
)


def _finals(rows: list[dict]) -> dict:
    """``{(name, function): {seed: final regret}}``, ``name`` the variant or the peer."""
    out: dict = defaultdict(dict)
    for r in rows:
        out[(r.get("variant", r["sampler"]), r["function"])][r["seed"]] = r["regret"][-1]
    return out


def ratio_to_peer(ours: list[float], peer: list[float], floor: float) -> float:
    """``median(ours) / median(peer)``, each median at least ``floor`` (ties count as 1)."""
    return max(float(np.median(ours)), floor) / max(float(np.median(peer)), floor)


def _table(rows: list[dict], peers: list[dict], functions: list[str], tie: dict) -> list[str]:
    finals = _finals(rows + peers)
    names = [v for v in VARIANTS if any((v, f) in finals for f in functions)]
    header = ["variant", *functions, "better / tied / worse than GPSampler", "ratio to GPSampler"]
    body = []
    for name in [*names, *PEERS]:
        cells, counts, logs = [], [0, 0, 0], []
        for fn in functions:
            mine, gp = finals.get((name, fn), {}), finals.get(("gp", fn), {})
            seeds = sorted(set(mine) & set(gp)) if gp else sorted(mine)
            if not seeds:
                cells.append("–")
                continue
            cells.append(f"{fmt(float(np.median([mine[s] for s in seeds])))} ({len(seeds)})")
            if gp:
                ours, peer = [mine[s] for s in seeds], [gp[s] for s in seeds]
                r = ratio_to_peer(ours, peer, tie.get(fn, 0.0))
                counts[0 if r < 1 else 1 if r == 1 else 2] += 1
                logs.append(math.log(r))
        summary = "/".join(map(str, counts)) if name != "gp" else ""
        ratio = fmt(math.exp(float(np.mean(logs)))) if logs and name != "gp" else ""
        body.append([LABELS.get(name, f"`{name}`"), *cells, summary, ratio])
    return markdown_table(header, body)


def page(results) -> list[str]:
    """The page's lines from ``<results>/defaults.jsonl`` and the peer cache."""
    from benchmarks.report import tie_floors

    rows = latest(
        read_rows(results / "defaults.jsonl"), ("variant", "function", "seed", "mode", "workers")
    )
    if not rows:
        return ["No results yet: run `python -m benchmarks.defaults`."]
    lines = [
        "Each variant changes one or two settings of `EGPTSSampler()`; every run is the suite's "
        "(`python -m benchmarks.run`): 50 trials on the ill-conditioned functions, 100 on the "
        "others, 10 random start-up trials. Cells: median final regret over the seeds (their "
        "number in brackets) that GPSampler also ran. A final regret below "
        "0.001 of the function's start-up regret ties (as in the suite tables). Ratio: the "
        "geometric mean over the functions of the variant's median over GPSampler's.",
        "",
        *(f"- `{name}`: {v.description}" for name, v in VARIANTS.items()),
        "",
    ]
    cache = PeerCache(results / "peers.jsonl")
    for title, mode, seeds, functions in SETTINGS:
        mine = [r for r in rows if r["mode"] == mode and r["seed"] in seeds]
        if not mine:
            continue
        trials = {r["function"]: r["n_trials"] for r in mine}
        fns = sorted(trials) if functions is None else [f for f in functions if f in trials]
        workers = mine[0]["workers"]
        peers = [
            r
            for r in cache.rows(samplers=PEERS, bench="suite", mode=mode, workers=workers)
            if r["seed"] in seeds and trials.get(r["function"]) == r["n_trials"]
        ]
        lines += [f"## {title}", "", *_table(mine, peers, fns, tie_floors(mine + peers))]
        lines += [provenance_line(mine + peers, code=CODE), ""]
    return lines
