"""Every registered benchmark (``registry.BENCHMARKS``), then the report; resumable (a benchmark
finished at the current commit is recorded in ``<results>/run_all_state.json`` and skipped).

    python -m benchmarks.run_all                 # hours on 2 cores; results in benchmarks/results
    python -m benchmarks.run_all --quick         # tiny settings, in a temporary folder
    python -m benchmarks.run_all --only suite_seq,ax --list
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import pathlib
import shutil
import sys
import tempfile
import time
import traceback

from benchmarks.harness.provenance import ROOT, check_code, commit
from benchmarks.harness.results import RESULTS
from benchmarks.harness.workers import pool_map
from benchmarks.registry import BENCHMARKS, Benchmark

STATE = "run_all_state.json"


def _state(results: pathlib.Path) -> dict:
    path = results / STATE
    return json.loads(path.read_text()) if path.exists() else {}


def run_benchmark(job: tuple[Benchmark, pathlib.Path, bool]) -> tuple[str, float, str]:
    """Run ``(benchmark, results, quick)`` by its module's ``main(argv)`` (the pool's entry
    point): (name, seconds, the error or "")."""
    b, results, quick = job
    t0 = time.perf_counter()
    try:
        importlib.import_module(f"benchmarks.{b.module}").main(b.arguments(results, quick=quick))
        error = ""
    except Exception:  # reported with the others at the end
        error = traceback.format_exc()
    return b.name, time.perf_counter() - t0, error


def chosen(only: str | None) -> list[Benchmark]:
    """The benchmarks named in ``only`` (comma-separated; ``None``: all)."""
    if only is None:
        return list(BENCHMARKS)
    names = [n for n in only.split(",") if n]
    known = [b.name for b in BENCHMARKS]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SystemExit(f"unknown benchmarks {', '.join(unknown)}; known: {', '.join(known)}")
    return [b for b in BENCHMARKS if b.name in names]


def report_targets(results: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path | None]:
    """(docs folder, README or ``None``): the repository's only for the repository's results."""
    if results.resolve() == RESULTS.resolve():
        return ROOT / "docs" / "benchmarks", ROOT / "README.md"
    return results / "docs", None


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.run_all", description=__doc__)
    p.add_argument("--quick", action="store_true", help="tiny settings, a temporary folder")
    p.add_argument("--results", default=None, help=f"default {RESULTS}; kept with --quick")
    p.add_argument("--only", default=None, help="comma-separated benchmark names")
    # a full run measures timings: one benchmark at a time
    p.add_argument("--procs", type=int, default=None, help="at once (default: 2 with --quick, 1)")
    p.add_argument("--force", action="store_true", help="run again benchmarks already finished")
    p.add_argument("--list", action="store_true", help="print the benchmarks and exit")
    p.add_argument("--no-report", action="store_true", help="do not write the report")
    a = p.parse_args(argv)
    benchmarks = chosen(a.only)
    if a.list:
        for b in benchmarks:
            flags = "" if b.quick else f" [no quick mode: {b.why}]"
            print(f"{b.name}: python -m benchmarks.{b.module} {b.full}{flags}")
        return
    check_code()  # before hours of runs, not at the first row
    temporary = a.quick and not a.results
    if a.results:
        results = pathlib.Path(a.results)
    else:
        results = pathlib.Path(tempfile.mkdtemp(prefix="egp-bench-")) if a.quick else RESULTS
    results.mkdir(parents=True, exist_ok=True)
    if a.quick:  # smoke runs are never results of record: no fingerprints (seconds each)
        os.environ["EGP_BENCH_FINGERPRINTS"] = "0"
    try:
        procs = a.procs or (2 if a.quick else 1)
        failed = run(
            benchmarks, results, quick=a.quick, force=a.force, report=not a.no_report, procs=procs
        )
    finally:
        if temporary:
            shutil.rmtree(results, ignore_errors=True)
            print(f"removed {results} (keep the results with --results DIR)", flush=True)
    if failed:
        raise SystemExit(f"failed: {', '.join(failed)}")


def run(
    benchmarks: list[Benchmark],
    results: pathlib.Path,
    *,
    quick: bool,
    force: bool,
    report: bool,
    procs: int = 1,
) -> list[str]:
    """Run ``benchmarks`` not finished at this commit into ``results``, ``procs`` at once, then the
    report if ``report`` and none failed; return the names of those that failed."""
    state, code = _state(results), commit()
    todo = [
        b
        for b in benchmarks
        if (b.quick is not None or not quick) and (force or state.get(b.name) != code)
    ]
    print(f"{len(todo)} benchmarks to run into {results}", flush=True)
    failed = []
    for name, seconds, error in pool_map(
        run_benchmark, [(b, results, quick) for b in todo], procs=procs
    ):
        print(f"{name}: {'FAILED' if error else 'done'} in {seconds:.1f} s", flush=True)
        if error:
            failed.append(name)
            print(error, file=sys.stderr)
        elif not quick and not code.endswith("+dirty"):  # uncommitted changes: never done
            state[name] = code
            (results / STATE).write_text(json.dumps(state, indent=1) + "\n")
    if report and not failed:
        from benchmarks import report as pages

        docs, readme = report_targets(results)
        pages.write(results, docs, readme)
        print(f"report written to {docs}" + (f" and {readme}" if readme else ""), flush=True)
    return failed


if __name__ == "__main__":
    main()
