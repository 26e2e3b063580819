"""The suite's rows (``Context``) and its regret tables, for the quality page and the README
headline (``quality_report``); the rules of the comparisons are ``harness.regret``'s."""

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
from benchmarks.harness.tables import earlier_code, fmt, markdown_table, provenance_line, row_commit
from benchmarks.problem_report import span

RUN_CELL = ("function", "sampler", "seed", "mode", "workers", "n_trials")
SETTING = ("mode", "workers", "n_trials")
OURS_FIRST = ("egp-auto", "egp-ts", "egp-ei", "egp-ts-nofant", "bore++", "bore")
SUITE_PEERS = ("gp", "tpe", "cmaes", "random")
# The peers of benchmarks.external, minutes per run: a table of their own, on the pairs they ran
EXTERNAL_PEERS = ("hebo", "smac")
SUITE_BENCH = "suite"  # the "bench" of the suite's rows (python -m benchmarks.run suite)


@dataclass
class Context:
    """Where the report reads and writes."""

    results: pathlib.Path
    img: pathlib.Path

    def rows(self, name: str) -> list[dict]:
        return read_rows(self.results / name)

    def latest(self, name: str) -> list[dict]:
        """The latest row of each cell of ``name`` at the setting of its latest row."""
        return latest(same_setting(self.rows(name), SETTING), RUN_CELL)

    def suite(self, name: str, peers=SUITE_PEERS) -> list[dict]:
        """The latest row of each cell of ``name`` at the setting (mode, workers, trials) of each
        function's latest row (functions run different numbers of trials), plus the peers' runs
        of the suite (``SUITE_BENCH``: not another benchmark's on functions of the same names) at
        that setting on the same functions."""
        ours = latest(per_function_setting(self.rows(name), SETTING), RUN_CELL)
        if not ours:
            return []
        trials = {r["function"]: r["n_trials"] for r in ours}
        cached = PeerCache(self.results / "peers.jsonl").rows(
            samplers=peers, bench=SUITE_BENCH, **{f: ours[-1][f] for f in ("mode", "workers")}
        )
        return ours + [r for r in cached if trials.get(r["function"]) == r["n_trials"]]


def per_function_setting(rows: list[dict], fields=SETTING) -> list[dict]:
    """Per function, the rows at the setting ``fields`` of its latest row (functions run
    different numbers of trials; a file holding runs of two budgets does not mix them)."""
    by_function: dict = defaultdict(list)
    for r in rows:
        by_function[r["function"]].append(r)
    return [r for fn_rows in by_function.values() for r in same_setting(fn_rows, fields)]


def bold_medians(finals: dict, samplers, floor: float) -> tuple[list[str], list[bool]]:
    """The median of ``finals[sampler]`` for each of ``samplers``, bold where best or tied with the
    best (``versus`` with the tie ``floor``); and which are."""
    meds = [median(finals.get(s, [])) for s in samplers]
    lowest = min((m for m in meds if not np.isnan(m)), default=np.nan)
    best = [not np.isnan(m) and versus(m, lowest, floor) == 0 for m in meds]
    return [f"**{fmt(m)}**" if b else fmt(m) for m, b in zip(meds, best)], best


# final regrets below the tie floor tie (harness.regret)
TIE_RULE = (
    f"final regrets below {TIE_FRACTION:g} of the function's median regret after the "
    f"{STARTUP_TRIALS} start-up trials tie"
)


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
        body.append([fn, str(trials[fn]), *bold_medians(table[fn], samplers, floors[fn])[0]])
    secs = defaultdict(list)
    for r in rows:
        secs[r["sampler"]].append(r["seconds_per_trial"])
    body.append(["s/trial (median)", ""] + [f"{median(secs[s]):.3f}" for s in samplers])
    return [
        f"## {title}",
        "",
        f"Median final regret after the trials of each function over {span(sorted(seeds))} seeds "
        f"per function (the seeds all samplers ran); bold: best in row, and those tied with it "
        f"({TIE_RULE}).",
        "",
        *markdown_table(["function", "trials", *samplers], body),
        provenance_line(rows),
        "",
    ]


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
