"""The rows of STO-BNTS's page (``benchmarks.sto_bnts_report``): its settings (sequential, trials
pending), the final regrets per seed, the seeds that samplers share on a problem, and the
samplers' names in its tables.
"""

from __future__ import annotations

from collections import defaultdict

from benchmarks.harness.samplers import LABELS

RUN_CELL = ("function", "sampler", "seed", "mode", "workers", "n_trials")
OURS = ("sto-bnts", "sto-bnts-linear", "egp-auto")
PEERS = ("gp", "tpe")
NAMES = {**LABELS, "sto-bnts": "STOBNTSSampler", "sto-bnts-linear": "STOBNTSSampler (linear)"}


def setting_title(mode: str, workers: int) -> str:
    return "Sequential" if mode == "seq" else f"{workers} trials pending"


def settings(rows: list[dict]) -> dict[tuple[str, int], list[dict]]:
    """``{(mode, workers): rows}`` of the settings that have rows, sequential first, then by
    workers; each at its largest number of trials (a short trial run in the same file is left
    out)."""
    out = {}
    for mode, workers in sorted({(r["mode"], r["workers"]) for r in rows}, key=setting_order):
        these = [r for r in rows if r["mode"] == mode and r["workers"] == workers]
        trials = max(r["n_trials"] for r in these)
        out[(mode, workers)] = [r for r in these if r["n_trials"] == trials]
    return out


def setting_order(setting: tuple[str, int]) -> tuple[bool, int]:
    return setting[0] != "seq", setting[1]


def final_regrets(rows: list[dict]) -> dict:
    """``{(function, sampler): {seed: final regret}}`` (a run stopped by its wall-time limit: the
    regret it reached)."""
    out: dict = defaultdict(dict)
    for r in rows:
        out[(r["function"], r["sampler"])][r["seed"]] = r["regret"][-1]
    return out


def shared_seeds(finals: dict, fn: str, samplers) -> tuple[list[int], list[list[float]]]:
    """The seeds every one of ``samplers`` ran on ``fn``, and each sampler's final regrets on
    them."""
    runs = [finals.get((fn, s), {}) for s in samplers]
    seeds = sorted(set.intersection(*(set(r) for r in runs))) if runs else []
    return seeds, [[r[k] for k in seeds] for r in runs]


def sampler_label(s: str) -> str:
    return NAMES.get(s, s)
