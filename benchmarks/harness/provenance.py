"""Where a result row came from: :func:`provenance` (commit, ``+dirty`` if files outside
``benchmarks/results/`` differ; UTC date; machine; Python and package versions; thread settings;
the folder of the imported ``optuna_egp``), added by ``ResultsFile.append``. :func:`check_code`
refuses rows whose measured code is not the checkout's; :func:`recorded` gives rows written before
provenance the commit that added them.
"""

from __future__ import annotations

import datetime
import functools
import importlib.metadata
import importlib.util
import os
import pathlib
import platform
import subprocess

from benchmarks.harness.threads import thread_settings

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


def _git(*args: str, cwd: pathlib.Path = ROOT) -> subprocess.CompletedProcess | None:
    try:
        return subprocess.run(
            ["git", "--no-optional-locks", *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return None


def _git_out(*args: str) -> str:
    done = _git(*args)
    return done.stdout.strip() if done is not None and done.returncode == 0 else ""


@functools.lru_cache(maxsize=1)
def commit() -> str:
    """Short HEAD, ``+dirty`` if tracked or untracked files outside ``benchmarks/results/``
    changed (computed once per process: rows written by one run share it)."""
    head = _git_out("rev-parse", "--short", "HEAD") or "unknown"
    dirty = _git_out("status", "--porcelain", "--", ".", ":(exclude)benchmarks/results")
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


def _code_folder(module: str) -> pathlib.Path | None:
    """The folder of ``module`` as it is (or would be) imported, without importing it."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        return None
    return pathlib.Path(spec.origin).resolve().parent


@functools.lru_cache(maxsize=1)
def check_code() -> str:
    """The folder of the imported ``optuna_egp``; raise ``RuntimeError`` if ``shared_core`` or
    ``optuna_egp`` is imported from outside ``ROOT`` (the checkout whose commit rows record)."""
    for module in ("shared_core", "optuna_egp"):
        folder = _code_folder(module)
        if folder is None or not folder.is_relative_to(ROOT):
            raise RuntimeError(
                f"{module} is imported from {folder}, not from {ROOT}, whose commit the results "
                "would record: run the benchmarks from the root of the checkout that holds the "
                f"code to measure (or install it with pip install -e {ROOT})"
            )
    return str(_code_folder("optuna_egp"))


def provenance() -> dict:
    return {
        "commit": commit(),
        "date": utc_now(),
        "machine": machine(),
        "python": platform.python_version(),
        "versions": versions(),
        "threads": thread_settings(),
        "code": check_code(),
    }


def recorded(path: str | pathlib.Path) -> list[dict | None]:
    """For each line of ``path``: ``{"commit", "date"}`` of the git commit that added the line
    (short hash, UTC date of the commit), or ``None`` if the line is not committed or the file
    is not in a git repository. One ``git blame`` per version of the file."""
    path = pathlib.Path(path).resolve()
    try:
        stat = path.stat()
    except OSError:
        return []
    return _blame(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=64)
def _blame(path: pathlib.Path, mtime_ns: int, size: int) -> list[dict | None]:
    done = _git("blame", "--line-porcelain", "--", path.name, cwd=path.parent)
    if done is None or done.returncode != 0:
        return []
    out: list[dict | None] = []
    sha, when = "", 0
    for line in done.stdout.split("\n"):
        if line.startswith("\t"):  # the line's content ends its entry
            committed = sha.strip("0") != ""
            out.append({"commit": sha[:7], "date": _utc_date(when)} if committed else None)
            sha = ""
        elif not sha:
            sha = line.split(" ", 1)[0]
        elif line.startswith("committer-time "):
            when = int(line.split()[1])
    return out


def _utc_date(seconds: int) -> str:
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).date().isoformat()
