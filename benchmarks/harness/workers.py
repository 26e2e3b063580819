"""Worker processes that run real, module-level functions (lintable and testable).

Two ways, both inheriting the thread pinning of ``benchmarks/__init__``:

- :func:`pool_map`: a process pool with the ``spawn`` start method (a fresh interpreter per
  worker, no state forked from the parent; not daemonic, so a job may start processes of its
  own). ``fn`` must be a module-level function of a ``benchmarks`` module so the children can
  import it; each job is one argument.
- :func:`start_worker` / :func:`run_worker`: ``python -m benchmarks.<module> <args>`` in the
  repository root, for workers that need a process of their own (timing cold starts, killing
  workers, default thread counts). The module gives itself a ``worker`` sub-command whose
  arguments are plain strings (or one JSON string) and which prints its result as one JSON line
  on stdout; :func:`run_worker` returns that line parsed.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

from benchmarks.harness.provenance import ROOT
from benchmarks.harness.threads import THREAD_VARS


def pool_map(fn: Callable[[Any], Any], jobs: Iterable[Any], *, procs: int) -> Iterator[Any]:
    """``fn(job)`` for each job, in completion order; in this process if ``procs <= 1``."""
    jobs = list(jobs)
    if procs <= 1 or len(jobs) <= 1:
        yield from map(fn, jobs)
        return
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(min(procs, len(jobs)), mp_context=spawn) as pool:
        for future in as_completed([pool.submit(fn, job) for job in jobs]):
            yield future.result()


def worker_env(*, threads: int | None = 0, extra: dict | None = None) -> dict:
    """The environment of a worker process: this one's, with the repository root on
    ``PYTHONPATH``; ``threads``: 0 keeps the thread variables, ``None`` removes them (the
    libraries' defaults, kept by ``benchmarks/__init__`` through ``EGP_BENCH_THREADS=default``),
    ``n`` sets them to ``n``."""
    env = dict(os.environ)
    for var in THREAD_VARS:
        if threads is None:
            env.pop(var, None)
        elif threads:
            env[var] = str(threads)
    if threads is None:
        env["EGP_BENCH_THREADS"] = "default"
    elif threads:
        env["EGP_BENCH_THREADS"] = str(threads)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    return {**env, **(extra or {})}


def start_worker(
    module: str, *args: str, env: dict | None = None, **popen: Any
) -> subprocess.Popen:
    """Start ``python -m benchmarks.<module> *args`` in the repository root."""
    return subprocess.Popen(
        [sys.executable, "-m", f"benchmarks.{module}", *args],
        cwd=ROOT,
        env=env or worker_env(),
        **popen,
    )


def run_worker(
    module: str,
    *args: str,
    env: dict | None = None,
    timeout: float | None = None,
    python: str | os.PathLike = sys.executable,
):
    """Run ``python -m benchmarks.<module> *args`` and return its last stdout line as JSON;
    ``python``: the interpreter (another environment's, e.g. the external peers')."""
    done = subprocess.run(
        [os.fspath(python), "-m", f"benchmarks.{module}", *args],
        cwd=ROOT,
        env=env or worker_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode != 0:
        raise RuntimeError(f"worker benchmarks.{module} {' '.join(args)} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])
