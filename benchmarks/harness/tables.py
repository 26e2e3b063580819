"""Markdown tables, and the line under each table saying which rows it shows."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence

__all__ = ["fmt", "markdown_table", "provenance_line", "threads_line"]


def fmt(x, digits: int = 3) -> str:
    """``x`` to ``digits`` significant digits; ``–`` for ``None`` or NaN."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{x:.{digits}g}"


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines + [""]


def provenance_line(rows: Sequence[dict]) -> str:
    """``Rows: commit abc1234 (60), def5678+dirty (12); measured 2026-11-26 (UTC).`` Rows without
    a recorded commit or date are counted as ``unrecorded``."""
    counts = Counter(r.get("commit") or "unrecorded" for r in rows)
    commits = ", ".join(f"`{c}` ({n})" for c, n in sorted(counts.items()))
    dates = sorted({r["date"][:10] for r in rows if r.get("date")})
    when = "" if not dates else dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}"
    undated = sum(1 for r in rows if not r.get("date"))
    out = f"Rows ({len(rows)}) by commit: {commits}"
    if when:
        out += f"; measured {when} (UTC)"
    if undated:
        out += f"; {undated} rows without a recorded date"
    return out + "."


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
