"""Scale: seconds per suggestion and peak memory with 1 000 to 10 000 completed trials.

Full run (one process at a time, on a quiet machine; about 5 minutes without GPSampler, which takes
ten minutes per ask at 5000 trials):
    python -m benchmarks.scale run --out benchmarks/results/scale.jsonl
    python -m benchmarks.scale run --samplers gp      (GPSampler, long; rows to the peer cache)
Smoke test (a minute):
    python -m benchmarks.scale run --n 300 --dims 6 --asks 3 --out /tmp/scale_smoke.jsonl
The table and the plot: ``python -m benchmarks.report`` (``docs/benchmarks/speed.md``).

Protocol, one fresh Python process per (sampler, n, d) (``python -m benchmarks.scale worker``) so
that peak memory is the configuration's own: an in-memory study, ``study.add_trials`` of n completed
trials at uniform random points (``default_rng(n + d)``; trial i tagged ``agent_id = i mod 16`` for
the distributed sampler), the objective Hartmann-6 (d = 6, [0, 1]^6) or Levy (d = 20, [-10, 10]^20);
then 4 asks left running (the first is the cold suggestion: no model yet) and ``--asks`` (20) timed
``ask`` + ``tell`` with those 4 trials still running (pending points). Every ask is
``study.ask(fixed distributions)``, so the timed region holds the whole suggestion (Optuna's trial
reading and search-space inference included). One BLAS/torch thread. Peak RSS is
``resource.getrusage(RUSAGE_SELF).ru_maxrss`` of the process at the end (the study itself included:
10 000 in-memory trials take about 100 MB).

Samplers (``--samplers``, names of ``harness.samplers``): ``egp-ts`` = ``EGPTSSampler(seed=0,
acquisition="ts")``, ``dts-ring`` = ``DistributedTSSampler(agent_id=0, graph="ring", n_agents=16,
seed=0)`` (conditions on about 3n/16 trials), ``bore++`` and ``bore`` = ``BORESampler(seed=0,
variant=...)`` (``max_points=500``: the classifier is fit on at most 500 trials, the best ones kept;
documented cap), ``gp`` = ``optuna.samplers.GPSampler(seed=0)`` (a peer: its rows go to the peer
cache, ``--cache``, keyed by the kind of machine too: ``machine_key``). Rows record ``model_asks``:
the asks whose suggestion came from the model (``harness.probes``), not the random start-up.
Our samplers' rows go to ``--out``; a configuration already there at the current commit is
skipped. GPSampler runs only where its previous size finished and its asks took at
most ``--gp-limit`` seconds (600) each; a configuration whose child process exceeds ``--timeout`` is
recorded as timed out.
Targets: warm suggestions under 0.5 s at 10 000 trials (d = 6) for EGPTSSampler and
DistributedTSSampler, under 2 s for BORESampler; peak RSS under 2 GB for every sampler.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import resource
import statistics
import subprocess
import time
import warnings

import numpy as np
import optuna

from benchmarks.functions import hartmann6, levy
from benchmarks.harness.cache import PeerCache, machine_key
from benchmarks.harness.plots import pyplot
from benchmarks.harness.probes import ModelProbe
from benchmarks.harness.provenance import commit
from benchmarks.harness.results import RESULTS, ResultsFile, latest
from benchmarks.harness.samplers import is_peer, make_sampler
from benchmarks.harness.studies import random_study
from benchmarks.harness.tables import markdown_table, provenance_line, threads_line
from benchmarks.harness.workers import run_worker

SAMPLERS = ("egp-ts", "dts-ring", "bore++", "bore", "gp")
# warm, at 10 000 trials, d = 6
TARGET_SECONDS = {
    "egp-ts": 0.5,
    "dts-ring": 0.5,
    "bore++": 2.0,
    "bore": 2.0,
}
TARGET_RSS_MB = 2048
AGENTS = 16
CELL = ("bench", "n", "d", "asks")
CONFIGURATION = ("sampler", "n", "d")  # the report shows the latest row of each
PEER_CELL = (*CELL, "machine_key")  # a peer's seconds hold on the machine that measured them
# The peer cache's protocol version: bump it when what a configuration measures changes.
PROTOCOL = 1


# ------------------------------------------------------------------------------------------ worker
def measure(sampler_name: str, n: int, d: int, asks: int) -> dict:
    """Run one configuration in this process and return its row (see the module docstring)."""
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore")
    low, high, f = (0.0, 1.0, hartmann6) if d == 6 else (-10.0, 10.0, levy)
    sampler = make_sampler(sampler_name, seed=0, agent=0, n_agents=AGENTS)
    probe = ModelProbe(sampler)
    study, dist = random_study(sampler, f, [(low, high)] * d, n, seed=n + d, agents=AGENTS)

    def value(trial) -> float:
        return float(f(np.array([trial.params[k] for k in dist])))

    t0 = time.perf_counter()
    running = [study.ask(dist)]
    cold = time.perf_counter() - t0
    running += [study.ask(dist) for _ in range(3)]
    seconds = []
    for _ in range(asks):
        t0 = time.perf_counter()
        trial = study.ask(dist)
        seconds.append(time.perf_counter() - t0)
        study.tell(trial, value(trial))
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: kilobytes
    return {
        "sampler": sampler_name,
        "n": n,
        "d": d,
        "asks": asks,
        "cold_seconds": cold,
        "seconds": seconds,
        "peak_rss_mb": rss_mb,
        **({"model_asks": probe.model_asks} if probe.model_asks is not None else {}),
    }


# ------------------------------------------------------------------------------------------ parent
def run(a: argparse.Namespace) -> None:
    out, cache = ResultsFile(a.out), PeerCache(a.cache, protocol=PROTOCOL)
    ours, peers = out.done(("sampler", "commit", *CELL)), cache.done()
    here = machine_key()
    cached = {
        (r["sampler"], r["n"], r["d"], r["asks"]): r
        for r in cache.rows(bench="scale", machine_key=here)
    }
    for d in [int(v) for v in a.dims.split(",")]:
        for name in [s for s in a.samplers.split(",") if s]:
            for n in [int(v) for v in a.n.split(",")]:
                cell = {"bench": "scale", "n": n, "d": d, "asks": a.asks}
                if is_peer(name) and cache.key(name, **cell, machine_key=here) in peers:
                    row = cached[(name, n, d, a.asks)]
                elif not is_peer(name) and (name, commit(), *cell.values()) in ours:
                    continue
                else:
                    row = {**cell, **_worker(name, n, d, a.asks, a.timeout)}
                    if is_peer(name):
                        cache.put({**row, "machine_key": here}, PEER_CELL)
                    else:
                        out.append(row)
                    print(_line(row), flush=True)
                if name == "gp" and (
                    row.get("timed_out") or max([row["cold_seconds"], *row["seconds"]]) > a.gp_limit
                ):
                    break  # GPSampler: larger studies only take longer


def _worker(name: str, n: int, d: int, asks: int, timeout: float) -> dict:
    try:
        return run_worker("scale", "worker", name, str(n), str(d), str(asks), timeout=timeout)
    except subprocess.TimeoutExpired:
        return {
            "sampler": name,
            "n": n,
            "d": d,
            "asks": asks,
            "timed_out": True,
            "timeout": timeout,
        }


def _line(row: dict) -> str:
    if row.get("timed_out"):
        return f"{row['sampler']} n={row['n']} d={row['d']}: timed out after {row['timeout']:.0f} s"
    return (
        f"{row['sampler']} n={row['n']} d={row['d']}: cold {row['cold_seconds']:.2f} s, warm "
        f"median {statistics.median(row['seconds']):.3f} s, peak RSS {row['peak_rss_mb']:.0f} MB"
    )


# ------------------------------------------------------------------------------------------- report
def summarise(rows: list[dict]) -> list[str]:
    """Markdown: cold and warm seconds and peak RSS of each configuration, and the targets;
    ``rows``: ours and GPSampler's (from the peer cache)."""
    rows = latest(rows, CONFIGURATION)
    if not rows:
        return []
    body = []
    for r in sorted(rows, key=lambda r: (r["d"], SAMPLERS.index(r["sampler"]), r["n"])):
        if r.get("timed_out"):
            cells = [f"timed out (> {r['timeout']:.0f} s in all)", "", ""]
        else:
            cells = [
                f"{r['cold_seconds']:.2f}",
                f"{statistics.median(r['seconds']):.3f}",
                f"{r['peak_rss_mb']:.0f}",
            ]
        body.append([str(r["d"]), r["sampler"], str(r["n"]), *cells])
    header = ["d", "sampler", "trials", "cold ask (s)", "warm ask (s)", "peak RSS (MB)"]
    return [
        "## Scale: seconds per suggestion and peak memory with many completed trials",
        "",
        "4 trials running during every timed ask; warm = median of the timed asks; one process "
        "per configuration (GPSampler's rows from the peer cache).",
        "",
        *markdown_table(header, body),
        *_checks(rows),
        "",
        f"{provenance_line(rows)} {threads_line(rows, legacy=1)}".strip(),
        "",
    ]


def _checks(rows: list[dict]) -> list[str]:
    out = []
    for name, limit in TARGET_SECONDS.items():
        cell = [
            r
            for r in rows
            if r["sampler"] == name and r["n"] == 10_000 and r["d"] == 6 and "seconds" in r
        ]
        if cell:
            warm = statistics.median(cell[0]["seconds"])
            out.append(
                f"- Target, {name} warm ask at 10 000 trials (d = 6) under {limit:g} s: {warm:.3f} "
                f"s: **{'met' if warm < limit else 'not met'}**."
            )
    measured = [r for r in rows if "peak_rss_mb" in r and r["sampler"] != "gp"]
    if measured:
        worst = max(measured, key=lambda r: r["peak_rss_mb"])
        out.append(
            f"- Target, peak RSS under {TARGET_RSS_MB} MB for every sampler of this package: "
            f"largest {worst['peak_rss_mb']:.0f} MB ({worst['sampler']}, n = {worst['n']}, d = "
            f"{worst['d']}): **{'met' if worst['peak_rss_mb'] < TARGET_RSS_MB else 'not met'}**."
        )
    gp = [r for r in rows if r["sampler"] == "gp"]
    if gp:
        done = [r for r in gp if "seconds" in r]
        out.append(
            "- Reference, Optuna's GPSampler: "
            + "; ".join(
                f"n = {r['n']}, d = {r['d']}: "
                + (
                    f"timed out (> {r['timeout']:.0f} s)"
                    if r.get("timed_out")
                    else f"warm {statistics.median(r['seconds']):.1f} s, peak RSS "
                    f"{r['peak_rss_mb']:.0f} MB"
                )
                for r in sorted(gp, key=lambda r: (r["d"], r["n"]))
            )
            + (
                " (only sizes whose smaller size finished within the limit are run)."
                if done
                else "."
            )
        )
    return out


def plot(rows: list[dict], path: pathlib.Path) -> pathlib.Path:
    """Warm seconds per suggestion and peak RSS against the number of trials, per dimension."""
    rows = latest(rows, CONFIGURATION)
    plt = pyplot()
    dims = sorted({r["d"] for r in rows})
    fig, axes = plt.subplots(2, len(dims), figsize=(5.5 * len(dims), 7), squeeze=False)
    for col, d in enumerate(dims):
        for name in SAMPLERS:
            cell = sorted(
                (r for r in rows if r["sampler"] == name and r["d"] == d and "seconds" in r),
                key=lambda r: r["n"],
            )
            if not cell:
                continue
            n = [r["n"] for r in cell]
            axes[0][col].plot(n, [statistics.median(r["seconds"]) for r in cell], "o-", label=name)
            axes[1][col].plot(n, [r["peak_rss_mb"] for r in cell], "o-", label=name)
        axes[0][col].set(
            title=f"d = {d}: warm seconds per suggestion", xlabel="completed trials", yscale="log"
        )
        axes[1][col].set(title=f"d = {d}: peak RSS", xlabel="completed trials", ylabel="MB")
        axes[0][col].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.scale",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = ap.add_subparsers(dest="command", required=True)
    rp = sub.add_parser("run", help="the benchmark")
    rp.add_argument("--samplers", default="egp-ts,dts-ring,bore++,bore")
    rp.add_argument("--n", default="1000,5000,10000")
    rp.add_argument("--dims", default="6,20")
    rp.add_argument("--asks", type=int, default=20)
    rp.add_argument(
        "--timeout", type=float, default=3600.0, help="seconds per configuration (child process)"
    )
    rp.add_argument(
        "--gp-limit", type=float, default=600.0, help="GPSampler: stop growing n past this ask time"
    )
    rp.add_argument("--out", default=str(RESULTS / "scale.jsonl"))
    rp.add_argument("--cache", default=str(RESULTS / "peers.jsonl"), help="the peer cache")
    w = sub.add_parser("worker", help="one configuration in this process (prints one JSON line)")
    w.add_argument("sampler")
    w.add_argument("n", type=int)
    w.add_argument("d", type=int)
    w.add_argument("asks", type=int)
    a = ap.parse_args(argv)
    if a.command == "worker":
        print(json.dumps(measure(a.sampler, a.n, a.d, a.asks)))
        return
    unknown = {s for s in a.samplers.split(",") if s} - set(SAMPLERS)
    if unknown:
        ap.error(f"unknown samplers {sorted(unknown)}; known: {SAMPLERS}")
    run(a)


if __name__ == "__main__":
    main()
