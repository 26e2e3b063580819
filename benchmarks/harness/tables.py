"""Markdown tables, and the lines under each table saying which rows it shows and whether our
samplers' rows were measured at the current code."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence

from benchmarks.harness.provenance import SAMPLER_PACKAGES, same_code
from benchmarks.harness.samplers import is_peer

__all__ = [
    "current_line",
    "earlier_code",
    "fmt",
    "markdown_table",
    "provenance_line",
    "row_commit",
    "threads_line",
]


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
    """``(how, commit, date)``: ``("measured at", ...)`` from the row's own provenance,
    ``("recorded with", ...)`` from the commit that added it to its file (``results.read_rows``),
    else ``("unrecorded", "", "")``."""
    if row.get("commit"):
        return "measured at", row["commit"], (row.get("date") or "")[:10]
    if row.get("recorded"):
        return "recorded with", row["recorded"]["commit"], row["recorded"]["date"]
    return "unrecorded", "", ""


def provenance_line(rows: Sequence[dict], *, code: tuple[str, ...] = SAMPLER_PACKAGES) -> str:
    """``Rows (90): 60 measured at commit `abc1234` (2026-11-26), 30 recorded with commit
    `def5678` (2026-11-25).`` Dates are UTC; "recorded with": rows without their own commit, named
    by the commit that added them to their file. Followed by :func:`current_line` (``code``: the
    paths whose changes change what the rows measure) when our samplers' rows are not current."""
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
    return f"Rows ({len(rows)}): {', '.join(parts)}. {current_line(rows, code)}".strip()


def earlier_code(
    rows: Iterable[dict],
    paths: tuple[str, ...] = SAMPLER_PACKAGES,
    same: Callable[[str, tuple[str, ...]], bool] = same_code,
) -> list[str]:
    """The commits of our samplers' rows (peers left out) whose ``paths`` differ from HEAD's
    (``same(commit, paths)`` false; unrecorded rows count as differing)."""
    out = set()
    for r in rows:
        if is_peer(r.get("sampler", "")):
            continue
        _, commit, _ = row_commit(r)
        if not commit or not same(commit, paths):
            out.add(commit or "unrecorded")
    return sorted(out)


def current_line(
    rows: Iterable[dict],
    paths: tuple[str, ...] = SAMPLER_PACKAGES,
    same: Callable[[str, tuple[str, ...]], bool] = same_code,
) -> str:
    """The note under a table whose rows of our samplers were measured at sampler code other
    than HEAD's; ``""`` if all are current."""
    commits = earlier_code(rows, paths, same)
    if not commits:
        return ""
    return (
        "**Not current:** our samplers' rows were measured at an earlier version of the sampler "
        f"code ({'commit' if len(commits) == 1 else 'commits'} "
        + ", ".join(f"`{c}`" for c in commits)
        + "); re-run with `python -m benchmarks.run_all` to update."
    )


def threads_line(rows: Sequence[dict], *, legacy: int | None = None) -> str:
    """``Threads per BLAS/OpenMP pool: 1.`` from the rows' thread settings (``provenance``);
    ``legacy``: the count of rows written before the settings were recorded (the count their
    script set), else they are left out."""
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
