"""The suite's rows and its regret tables (``python -m benchmarks.run``), for the quality page and
the README headline (``benchmarks.quality_report``).

``Context`` is where the report reads and writes; ``Context.suite`` gives the latest row of each
cell of a suite file at the setting (mode, workers, trials) of each function's latest row, and the
peers' runs of the suite from the peer cache at the same setting. The tables compare the rows of
the (function, seed) pairs that every sampler of the table ran, with the tie rule of
``harness.regret``.
"""

from __future__ import annotations

import pathlib
from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from benchmarks.harness.cache import PeerCache
from benchmarks.harness.regret import (
    STARTUP_TRIALS,
    TIE_FRACTION,
    final_regret,
    median,
    paired,
    tie_floors,
    versus,
    wins,
)
from benchmarks.harness.results import latest, read_rows, same_setting
from benchmarks.harness.samplers import is_peer
from benchmarks.harness.tables import (
    earlier_code,
    fmt,
    markdown_table,
    provenance_line,
    row_commit,
)

RUN_CELL = ("function", "sampler", "seed", "mode", "workers", "n_trials")
SETTING = ("mode", "workers", "n_trials")
OURS_FIRST = ("egp-auto", "egp-ts", "egp-ei", "egp-ts-nofant", "bore++", "bore")
SUITE_PEERS = ("gp", "tpe", "cmaes", "random", "hebo", "smac")  # hebo, smac: benchmarks.external
SUITE_BENCH = "suite"  # the "bench" of the suite's rows (python -m benchmarks.run suite)


@dataclass
class Context:
    """Where the report reads and writes."""

    results: pathlib.Path
    img: pathlib.Path

    def rows(self, name: str) -> list[dict]:
        return read_rows(self.results / name)

    def suite(self, name: str, peers=SUITE_PEERS) -> list[dict]:
        """The latest row of each cell of ``name`` at the setting (mode, workers, trials) of each
        function's latest row (functions run different numbers of trials), plus the peers' runs
        of the suite (``SUITE_BENCH``: not another benchmark's on functions of the same names) at
        that setting on the same functions."""
        by_function: dict = defaultdict(list)
        for r in self.rows(name):
            by_function[r["function"]].append(r)
        ours = latest(
            [r for rows in by_function.values() for r in same_setting(rows, SETTING)], RUN_CELL
        )
        if not ours:
            return []
        trials = {r["function"]: r["n_trials"] for r in ours}
        cached = PeerCache(self.results / "peers.jsonl").rows(
            samplers=peers, bench=SUITE_BENCH, **{f: ours[-1][f] for f in ("mode", "workers")}
        )
        return ours + [r for r in cached if trials.get(r["function"]) == r["n_trials"]]


# ----------------------------------------------------------------------------- regret
def _order(samplers) -> list[str]:
    first = [s for s in OURS_FIRST if s in samplers]
    return (
        first
        + sorted(set(samplers) - set(first) - set(SUITE_PEERS))
        + [s for s in SUITE_PEERS if s in samplers]
    )


def regret_table(rows: list[dict], title: str) -> list[str]:
    rows = paired(rows)
    if not rows:
        return []
    table, floors = final_regret(rows), tie_floors(rows)
    trials = {r["function"]: r["n_trials"] for r in rows}
    samplers = _order({r["sampler"] for r in rows})
    seeds = {len(v) for cells in table.values() for v in cells.values()}
    body = []
    for fn in sorted(table):
        meds = {s: median(table[fn].get(s, [])) for s in samplers}
        best = np.nanmin(list(meds.values()))
        body.append(
            [fn, str(trials[fn])]
            + [
                f"**{fmt(v)}**" if versus(v, best, floors[fn]) == 0 else fmt(v)
                for v in meds.values()
            ]
        )
    secs = defaultdict(list)
    for r in rows:
        secs[r["sampler"]].append(r["seconds_per_trial"])
    body.append(["s/trial (median)", ""] + [f"{median(secs[s]):.3f}" for s in samplers])
    return [
        f"## {title}",
        "",
        f"Median final regret after the trials of each function over {_span(seeds)} seeds per "
        "function (the seeds all samplers ran); bold: best in row, and those tied with it "
        f"(final regrets below {TIE_FRACTION:g} of the function's median regret after the "
        f"{STARTUP_TRIALS} start-up trials tie).",
        "",
        *markdown_table(["function", "trials", *samplers], body),
        provenance_line(rows),
        "",
    ]


def _span(counts) -> str:
    lo, hi = min(counts), max(counts)
    return str(lo) if lo == hi else f"{lo}-{hi}"


def wins_lines(rows: list[dict], ours=("egp-auto", "egp-ts", "bore++"), peers=("gp", "tpe")):
    """How many functions each of ``ours`` wins against each of ``peers``, on the table's seeds."""
    rows, out = paired(rows), []
    for o in ours:
        for p in peers:
            w, t, n = wins(rows, o, p)
            if n:
                out.append(
                    f"- {o} has a lower median than {p} on {w} of {n} functions, ties on {t}"
                )
    return out + [""] if out else []


def spread_table(rows: list[dict]) -> list[str]:
    """Mean pairwise distance of the concurrently pending points (unit cube), median over the
    table's seeds (``paired``)."""
    rows = paired(rows)
    cells: dict = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if r.get("pending_spread") is not None:
            cells[r["function"]][r["sampler"]].append(r["pending_spread"])
    if not cells:
        return []
    samplers = _order({s for c in cells.values() for s in c})
    body = [
        [fn] + [f"{median(c[s]):.3f} ({len(c[s])})" if c[s] else "–" for s in samplers]
        for fn, c in sorted(cells.items())
    ]
    return [
        f"Mean pairwise distance between the {rows[0]['workers']} pending points at each ask "
        "(unit-cube coordinates; median over seeds, seeds in brackets; recorded by the runs "
        "that have it):",
        "",
        *markdown_table(["function", *samplers], body),
    ]


def sequential_ratios(par: list[dict], seq: list[dict]) -> list[str]:
    """Median regret with workers over the sequential median, per function, on the (function,
    seed) pairs of the parallel table (``paired(par)``) that the sequential runs also have at the
    same sampler code (a ratio across a change of defaults would measure the change, not the
    workers; a peer's rows pair whatever their commits). Both medians are raised to the
    function's tie floor first."""
    par = paired(par)
    floors = tie_floors(par)
    seq_rows = {(r["function"], r["seed"], r["sampler"]): r for r in seq}
    out = []
    for s in _order({r["sampler"] for r in par}):
        # egp-ts and its variants against the sequential default (Thompson sampling with trials
        # pending against "auto" alone), the others against themselves.
        base = {"egp-ts-nofant": "egp-auto", "egp-ts": "egp-auto"}.get(s, s)
        both: dict = defaultdict(lambda: ([], []))
        for r in par:
            sequential = seq_rows.get((r["function"], r["seed"], base))
            if r["sampler"] != s or sequential is None:
                continue
            if is_peer(s) or _same_code(r, sequential):
                both[r["function"]][0].append(r["regret"][-1])
                both[r["function"]][1].append(sequential["regret"][-1])
        rs = [
            max(median(p), floors[f], 1e-12) / max(median(q), floors[f], 1e-12)
            for f, (p, q) in sorted(both.items())
        ]
        if rs:
            out.append(
                f"- {s} / sequential {base}: median {np.median(rs):.2f} (per function: "
                + ", ".join(f"{v:.2f}" for v in rs)
                + ")"
            )
    return out


def _same_code(a: dict, b: dict) -> bool:
    """Whether rows ``a`` and ``b`` were measured with the same code: the same commit, or both
    current (each row's fingerprint is HEAD's for its own configuration)."""
    ca, cb = row_commit(a)[1], row_commit(b)[1]
    return bool(ca) and (ca == cb or not earlier_code([a, b]))
