"""Thread oversubscription: seconds per suggestion with 1 and 4 worker processes on few cores, with
and without the samplers' ``max_threads`` limit (what it measures: ``docs/benchmarks/index.md``;
the worker: ``threads_worker``, the table: ``threads_report``). Run it alone:

    python -m benchmarks.threads --out benchmarks/results/threads.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

from benchmarks.harness.provenance import utc_now
from benchmarks.harness.results import RESULTS, ResultsFile
from benchmarks.harness.samplers import LABELS
from benchmarks.harness.workers import start_worker, worker_env
from benchmarks.speed_timing import alternate
from benchmarks.threads_report import median_text, summarise
from benchmarks.threads_worker import D, worker

SAMPLERS = ("egp-auto", "bore++")


def _start(spec: dict, index: int, tmp: pathlib.Path) -> tuple[subprocess.Popen, pathlib.Path]:
    log = tmp / f"worker{index}"
    with open(f"{log}.out", "w") as out, open(f"{log}.err", "w") as err:
        proc = start_worker(
            "threads",
            "worker",
            json.dumps({**spec, "index": index}),
            env=worker_env(threads=None),  # the libraries' default thread counts
            stdout=out,
            stderr=err,
        )
    return proc, log


def _failure(procs, logs, what: str) -> RuntimeError:
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait()
    tails = [
        f"worker {i} (exit {p.returncode}):\n" + pathlib.Path(f"{log}.err").read_text()[-3000:]
        for i, (p, log) in enumerate(zip(procs, logs))
        if p.returncode
    ]
    return RuntimeError(f"{what}\n" + "\n".join(tails))


def run_cell(spec: dict, processes: int, timeout: float) -> list[dict]:
    """Start ``processes`` workers, release them together once all are ready, return their
    records."""
    with tempfile.TemporaryDirectory(prefix="threads_bench_") as name:
        tmp = pathlib.Path(name)
        spec = {**spec, "barrier": str(tmp), "timeout": timeout}
        started = [_start(spec, i, tmp) for i in range(processes)]
        procs, logs = [p for p, _ in started], [log for _, log in started]
        deadline = time.monotonic() + timeout
        while not all((tmp / f"ready.{i}").exists() for i in range(processes)):
            if any(p.poll() is not None for p in procs) or time.monotonic() > deadline:
                raise _failure(
                    procs,
                    logs,
                    f"a worker of {spec['sampler']} exited or timed out before the barrier",
                )
            time.sleep(0.01)
        (tmp / "go.tmp").write_text(repr(time.time()))
        (tmp / "go.tmp").rename(tmp / "go")  # atomic: a worker never reads a half-written file
        for p in procs:
            try:
                p.wait(timeout=max(1.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                raise _failure(procs, logs, f"a worker of {spec['sampler']} timed out") from None
        if any(p.returncode for p in procs):
            raise _failure(procs, logs, f"a worker of {spec['sampler']} failed")
        records = [
            json.loads(pathlib.Path(f"{log}.out").read_text().splitlines()[-1]) for log in logs
        ]
    _add_concurrency(records)
    return records


def _add_concurrency(records: list[dict]) -> None:
    """``concurrent[k]``: workers (itself included) inside their timed asks at the midpoint of
    ask k."""
    spans = [(r["ask_windows"][0][0], r["ask_windows"][-1][1]) for r in records]
    for r in records:
        r["concurrent"] = [
            sum(lo <= (a + b) / 2 <= hi for lo, hi in spans) for a, b in r["ask_windows"]
        ]


def _problems(rec: dict, max_threads) -> list[str]:
    out = []
    if any(c != 1 for c in rec["relative_calls"]):
        out.append(f"sample_relative calls per ask {rec['relative_calls']} (expected 1 each)")
    if any(m != 1 for m in rec["model_asks"]):
        out.append(f"model suggestions per ask {rec['model_asks']} (expected 1 each)")
    inside = rec.get("blas_threads_in_sampler")
    if max_threads is not None and inside is not None and inside > max_threads:
        out.append(f"max_threads={max_threads} but BLAS had {inside} threads inside the sampler")
    if rec["threadpools_after"] != rec["threadpools"]:
        out.append(
            f"thread pools not restored after a suggestion: {rec['threadpools_after']} "
            f"(before {rec['threadpools']})"
        )
    return out


def _row(base: dict, rec: dict, cell, repeat: int, n: int, loadavg) -> dict:
    sampler, max_threads, processes = cell
    return {
        "bench": "threads",
        **base,
        "sampler": sampler,
        "sampler_class": LABELS[sampler],
        "max_threads": max_threads,
        "processes": processes,
        "n_complete": n,
        "repeat": repeat,
        "function": "hartmann6",
        "d": D,
        "loadavg_before": loadavg,
        **{k: v for k, v in rec.items() if k != "thread_env"},
        "problems": _problems(rec, max_threads),
    }


def run(a) -> list[dict]:
    out = ResultsFile(a.out)
    base = {
        "run_id": utc_now(),
        "cpus_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "seed": a.seed,
        "asks": a.asks,
        "repeats": a.repeats,
    }
    n_of = {"egp-auto": a.n_egp, "bore++": a.n_bore}
    cells = [(s, m, p) for s in a.samplers for m in a.max_threads for p in a.processes]
    rows = []
    for repeat, cell in alternate(a.repeats, cells):
        sampler, max_threads, processes = cell
        spec = {"sampler": sampler, "max_threads": max_threads, "n_complete": n_of[sampler]}
        spec |= {"asks": a.asks, "seed": a.seed}
        loadavg = list(os.getloadavg())
        new = []
        for i, rec in enumerate(run_cell(spec, processes, a.timeout)):
            # the worker's thread settings, not this process's
            threads = {**rec["thread_env"], "torch": rec["torch_threads"]}
            row = _row(base, rec, cell, repeat, n_of[sampler], loadavg) | {"process_index": i}
            new.append(out.append(row, extra={"threads": threads}))
        rows += new
        print(_progress(new), flush=True)
    return rows


def _progress(rows: list[dict]) -> str:
    r0 = rows[0]
    cold = [s for r in rows for s, c in zip(r["seconds"], r["cold"]) if c]
    warm = [s for r in rows for s, c in zip(r["seconds"], r["cold"]) if not c]
    problems = sorted({p for r in rows for p in r["problems"]})
    return (
        f"repeat {r0['repeat'] + 1}/{r0['repeats']} {r0['sampler']:8s} "
        f"max_threads={str(r0['max_threads']):4s} processes={r0['processes']} "
        f"n={r0['n_complete']}: cold {median_text(cold)} s, warm {median_text(warm)} s; "
        f"BLAS threads {r0['blas_threads']} (inside the sampler "
        f"{r0['blas_threads_in_sampler']}); concurrent "
        f"{[r['concurrent'] for r in rows]}" + (f"  PROBLEMS: {problems}" if problems else "")
    )


def _max_threads(arg: str) -> list[int | None]:
    return [None if v.strip().lower() == "none" else int(v) for v in arg.split(",") if v.strip()]


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["worker"]:
        worker(json.loads(argv[1]))
        return
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.threads",
        description=__doc__,
        epilog="python -m benchmarks.threads worker SPEC: one worker process (started by a run)",
    )
    p.add_argument("--out", default=str(RESULTS / "threads.jsonl"))
    p.add_argument(
        "--samplers", default=",".join(SAMPLERS), type=lambda s: [x for x in s.split(",") if x]
    )
    p.add_argument("--max-threads", default="none,1", type=_max_threads, help="'none': no limit")
    p.add_argument("--processes", default="1,4", type=lambda s: [int(x) for x in s.split(",")])
    p.add_argument("--n-egp", type=int, default=800, help="completed trials for egp-auto")
    p.add_argument("--n-bore", type=int, default=200, help="completed trials for bore++")
    p.add_argument(
        "--asks", type=int, default=3, help="timed ask+tell per worker (the first is cold)"
    )
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--timeout", type=float, default=1800.0, help="seconds per cell")
    a = p.parse_args(argv)
    unknown = [s for s in a.samplers if s not in SAMPLERS]
    if unknown:
        p.error(f"unknown samplers {unknown}; choose from {', '.join(SAMPLERS)}")
    if a.asks < 1 or a.repeats < 1 or min(a.processes) < 1:
        p.error("--asks, --repeats and --processes must be at least 1")
    rows = run(a)
    print("\n".join(summarise(rows)), flush=True)


if __name__ == "__main__":
    main()
