"""Markdown tables, and the line under each table saying which rows it shows."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence

__all__ = ["fmt", "markdown_table", "provenance_line"]


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
