"""Where a result row came from: commit, date, machine, Python and package versions.

:func:`provenance` is what ``results.ResultsFile.append`` adds to every row:

``commit``    short HEAD, ``+dirty`` if files outside ``benchmarks/results/`` differ from it
``date``      UTC, ISO 8601 to the second
``machine``   ``{"cpu_count", "platform", "machine"}``
``python``    the interpreter's version
``versions``  the installed versions of the packages in ``PACKAGES`` (missing ones left out)
``threads``   the thread settings (``threads.thread_settings``)
"""

from __future__ import annotations

import datetime
import functools
import importlib.metadata
import os
import pathlib
import platform
import subprocess

from benchmarks.harness.threads import thread_settings

__all__ = ["PACKAGES", "ROOT", "commit", "machine", "provenance", "utc_now", "versions"]

ROOT = pathlib.Path(__file__).resolve().parents[2]
# Distribution names: ours, and those of the peers and of the numerics under both.
PACKAGES = (
    "egp-samplers",
    "numpy",
    "scipy",
    "optuna",
    "torch",
    "cmaes",
    "ax-platform",
    "botorch",
    "gpytorch",
)


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


@functools.lru_cache(maxsize=1)
def commit() -> str:
    """Short HEAD, ``+dirty`` if tracked or untracked files outside ``benchmarks/results/``
    changed (computed once per process: rows written by one run share it)."""
    head = _git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = _git("status", "--porcelain", "--", ".", ":(exclude)benchmarks/results")
    return head + ("+dirty" if dirty else "")


def utc_now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def machine() -> dict:
    return {
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "machine": platform.machine(),
    }


def versions(packages: tuple[str, ...] = PACKAGES) -> dict[str, str]:
    """``{distribution: version}`` of the installed ones among ``packages``."""
    out = {}
    for name in packages:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            pass
    return out


def provenance() -> dict:
    return {
        "commit": commit(),
        "date": utc_now(),
        "machine": machine(),
        "python": platform.python_version(),
        "versions": versions(),
        "threads": thread_settings(),
    }
