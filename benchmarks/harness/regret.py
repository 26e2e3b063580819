"""The rules of the regret comparisons: the rows of the (function, seed) pairs every sampler ran
(``paired``); a final regret below ``TIE_FRACTION`` of the function's median regret after the
``STARTUP_TRIALS`` random trials counts as that (``tie_floors``, ``versus``): both got there tie."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

# the samplers' default n_startup_trials: asks before it are random, not timed in the summaries
STARTUP_TRIALS = 10
# of a function's start-up regret: below it, final regrets tie (both solved it as far as we tell)
TIE_FRACTION = 1e-3


def paired(rows: list[dict]) -> list[dict]:
    """The rows of the (function, seed) pairs that every sampler of ``rows`` ran."""
    samplers = {r["sampler"] for r in rows}
    ran: dict = defaultdict(set)
    for r in rows:
        ran[(r["function"], r["seed"])].add(r["sampler"])
    return [r for r in rows if ran[(r["function"], r["seed"])] == samplers]


def final_regret(rows: list[dict]) -> dict:
    """``{function: {sampler: [final regret per seed]}}`` over the seeds every sampler ran."""
    out: dict = defaultdict(lambda: defaultdict(list))
    for r in sorted(paired(rows), key=lambda r: r["seed"]):
        out[r["function"]][r["sampler"]].append(r["regret"][-1])
    return out


def median(values) -> float:
    return float(np.median(values)) if len(values) else float("nan")


def startup_regret(rows: list[dict]) -> dict[str, float]:
    """``{function: median over rows of the regret after the STARTUP_TRIALS start-up trials}``
    (the runs' random start-up; rows shorter than that left out)."""
    at: dict = defaultdict(list)
    for r in rows:
        if len(r["regret"]) >= STARTUP_TRIALS:
            at[r["function"]].append(r["regret"][STARTUP_TRIALS - 1])
    return {fn: median(v) for fn, v in at.items()}


def tie_floors(rows: list[dict]) -> dict[str, float]:
    """``{function: the regret below which final regrets tie}``: ``TIE_FRACTION`` of its
    start-up regret (0 for a function without one)."""
    startup = startup_regret(rows)
    return {r["function"]: TIE_FRACTION * startup.get(r["function"], 0.0) for r in rows}


def compare(ours: float, peer: float, tolerance: float) -> int:
    """-1 if median ``ours`` is lower than ``peer`` by more than ``tolerance``, 1 if higher by
    more, else 0 (a tie)."""
    if ours < peer - tolerance:
        return -1
    return 1 if ours > peer + tolerance else 0


def versus(ours: float, peer: float, floor: float) -> int:
    """-1 if regret ``ours`` is lower than ``peer``, 1 if higher, 0 if equal or both at most
    ``floor``."""
    return compare(max(ours, floor), max(peer, floor), 0.0)


def wins(rows: list[dict], ours: str, peer: str) -> tuple[int, int, int]:
    """(functions where ``ours`` has the lower median final regret than ``peer``, functions where
    they tie (``versus``; the tie floors from all of ``rows``), functions)."""
    floors = tie_floors(rows)
    table = final_regret([r for r in rows if r["sampler"] in (ours, peer)])
    fns = [fn for fn in table if table[fn].get(ours) and table[fn].get(peer)]
    outcome = [versus(median(table[fn][ours]), median(table[fn][peer]), floors[fn]) for fn in fns]
    return outcome.count(-1), outcome.count(0), len(fns)
