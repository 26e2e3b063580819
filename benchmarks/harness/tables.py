"""Markdown tables, the provenance line under each table (which rows, whether ours are current:
``fingerprint``), and the tables of an option's development runs."""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np
from scipy.stats import rankdata

from benchmarks.harness.fingerprint import Config, head_fingerprints
from benchmarks.harness.samplers import is_peer

_BETA = re.compile(r"-beta(\d+(?:\.\d+)?)$")  # the registry's suffix: dec-hbo-mf3-ucb-beta0.5


def fmt(x, digits: int = 3) -> str:
    """``x`` to ``digits`` significant digits; ``–`` for ``None`` or NaN."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{x:.{digits}g}"


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines + [""]


def row_commit(row: dict) -> tuple[str, str, str]:
    """``(how, commit, date)``: "measured at" (the row's own), "recorded with" (the commit that
    added it to its file: ``results.read_rows``) or "unrecorded"."""
    if row.get("commit"):
        return "measured at", row["commit"], (row.get("date") or "")[:10]
    if row.get("recorded"):
        return "recorded with", row["recorded"]["commit"], row["recorded"]["date"]
    return "unrecorded", "", ""


def provenance_line(rows: Sequence[dict]) -> str:
    """``Rows (90): 60 measured at commit `abc1234` (2026-11-26), 30 recorded with commit
    `def5678` (2026-11-25).`` (UTC dates), then :func:`current_line`."""
    dates: dict = defaultdict(list)
    for r in rows:
        how, commit, date = row_commit(r)
        dates[(how, commit)].append(date)
    parts = []
    for (how, commit), ds in sorted(dates.items(), key=lambda kv: (max(kv[1]), kv[0])):
        if how == "unrecorded":
            parts.append(f"{len(ds)} without a recorded commit or date")
            continue
        known = sorted(d for d in ds if d)
        when = (
            "" if not known else known[0] if known[0] == known[-1] else f"{known[0]} to {known[-1]}"
        )
        parts.append(f"{len(ds)} {how} commit `{commit}`" + (f" ({when})" if when else ""))
    return f"Rows ({len(rows)}): {', '.join(parts)}. {current_line(rows)}".strip()


Head = Callable[[list[Config]], Mapping[Config, str]]


def earlier_code(rows: Iterable[dict], head: Head = head_fingerprints) -> list[str]:
    """The commits of our samplers' rows that are not current: without a fingerprint, or with
    another than ``head`` (HEAD's, computed only for rows that carry one) gives its config."""
    ours = [r for r in rows if not is_peer(r.get("sampler", ""))]
    configs = [Config.of_row(r) if r.get("fingerprint") else None for r in ours]
    known = head([c for c in configs if c is not None]) if any(configs) else {}
    out = set()
    for r, config in zip(ours, configs):
        if config is None or known.get(config) != r["fingerprint"]:
            out.add(row_commit(r)[1] or "unrecorded")
    return sorted(out)


def current_line(rows: Iterable[dict], head: Head = head_fingerprints) -> str:
    """The note under a table some of our samplers' rows of which are not current, or ``""``."""
    commits = earlier_code(rows, head)
    if not commits:
        return ""
    which = "commit" if len(commits) == 1 else "commits"
    return (
        "**Not current:** some of our samplers' rows do not carry HEAD's behaviour fingerprint "
        f"of their sampler configuration ({which} "
        + ", ".join(f"`{c}`" for c in commits)
        + "); re-run with `python -m benchmarks.run_all` to update."
    )


def threads_line(rows: Sequence[dict], *, legacy: int | None = None) -> str:
    """``Threads per BLAS/OpenMP pool: 1.`` from the rows' thread settings; ``legacy``: the count
    of rows written before the settings were recorded (else they are left out)."""
    counts = sorted({n for n in map(_threads, rows) if n is not None} | _legacy(rows, legacy))
    if not counts:
        return ""
    return f"Threads per BLAS/OpenMP pool: {', '.join(map(str, counts))}."


def _threads(row: dict) -> int | None:
    threads = row.get("threads")
    if isinstance(threads, dict) and threads.get("OMP_NUM_THREADS"):
        return int(threads["OMP_NUM_THREADS"])
    if isinstance(threads, int):  # older rows: the count alone
        return threads
    return row.get("thread_settings", {}).get("threads")  # older rows of the speed benchmarks


def _legacy(rows: Sequence[dict], legacy: int | None) -> set[int]:
    unrecorded = any(_threads(r) is None for r in rows)
    return {legacy} if unrecorded and legacy is not None else set()


def seed_text(seeds: Sequence[int]) -> str:
    """``10-12`` for consecutive ascending seeds, else ``0, 2, 5``."""
    seeds = list(seeds)
    if len(seeds) > 1 and seeds == list(range(seeds[0], seeds[-1] + 1)):
        return f"{seeds[0]}-{seeds[-1]}"
    return ", ".join(map(str, seeds))


def beta_suffix(sampler: str) -> float | None:
    """The value of a sampler name's ``-beta<x>`` suffix (``dec-hbo-mf3-ucb-beta0.5``: 0.5), or
    None."""
    m = _BETA.search(sampler)
    return float(m.group(1)) if m else None


def median_ranks(
    finals: dict, samplers: Sequence[str], problems: Sequence[str]
) -> tuple[dict[tuple[str, str], str], dict[str, float]]:
    """``(cells, mean_ranks)`` from ``finals`` (``{(problem, sampler): {seed: final regret}}``):
    ``cells[(problem, sampler)]``, the median final regret over the seeds every sampler of the
    problem ran (their number in brackets); ``mean_ranks[sampler]``, the mean over its problems of
    its median's rank (1: the lowest; ties share the mean rank)."""
    cells: dict = {}
    ranks: dict = defaultdict(list)
    for fn in problems:
        ran = [s for s in samplers if (fn, s) in finals]
        seeds = set.intersection(*(set(finals[(fn, s)]) for s in ran)) if ran else set()
        if not seeds:  # no seed that every sampler ran yet: no cells
            continue
        medians = [float(np.median([finals[(fn, s)][k] for k in seeds])) for s in ran]
        for s, median, rank in zip(ran, medians, rankdata(medians)):
            cells[(fn, s)] = f"{fmt(median)} ({len(seeds)})"
            ranks[s].append(float(rank))
    return cells, {s: float(np.mean(r)) for s, r in ranks.items()}


def value_table(
    option: str,
    values: dict[str, float],
    problems: Sequence[str],
    ranked: tuple[dict[tuple[str, str], str], dict[str, float]],
    default: float,
) -> list[str]:
    """The table of an option's development runs: a row per sampler of ``values`` (``{sampler:
    its value}``, ascending, the default marked), its cells of ``ranked`` and its mean rank."""
    cells, ranks = ranked
    body = [
        [
            f"{values[s]:g}" + (" (default)" if values[s] == default else ""),
            *(cells.get((fn, s), "–") for fn in problems),
            fmt(ranks.get(s)),
        ]
        for s in sorted(values, key=values.__getitem__)
    ]
    return markdown_table([f"`{option}`", *problems, "mean rank"], body)
