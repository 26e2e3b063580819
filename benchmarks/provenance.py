"""Where a benchmark row came from: the commit
(``+dirty`` if the code differed) and the UTC date."""

from __future__ import annotations

import datetime
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _git(*args: str) -> str:
    try:
        return subprocess.run(
            ["git", "--no-optional-locks", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def commit() -> str:
    """Short HEAD, ``+dirty`` if tracked or untracked
    files outside ``benchmarks/results/`` changed."""
    head = _git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = _git("status", "--porcelain", "--", ".", ":(exclude)benchmarks/results")
    return head + ("+dirty" if dirty else "")


def utc_now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
