"""Scale: seconds per suggestion and peak memory with 1 000 to 10 000 completed trials, one fresh
process per (sampler, n, d) (what it measures: ``docs/benchmarks/index.md``). Run it alone:

    python -m benchmarks.scale run --out benchmarks/results/scale.jsonl
    python -m benchmarks.scale run --samplers gp      (GPSampler, long; rows to the peer cache)
"""

from __future__ import annotations

import argparse
import json
import pathlib
import resource
import statistics
import subprocess
import time

from benchmarks.functions import hartmann6, levy
from benchmarks.harness.cache import machine_key
from benchmarks.harness.plots import pyplot
from benchmarks.harness.probes import ModelProbe
from benchmarks.harness.results import RESULTS, latest
from benchmarks.harness.samplers import is_peer, make_sampler
from benchmarks.harness.studies import random_study
from benchmarks.harness.workers import run_worker
from benchmarks.speed_timing import Store, ints, quiet, section, timed_asks

SAMPLERS = ("egp-ts", "dts-ring", "bore++", "bore", "gp")
# warm, at 10 000 trials, d = 6
TARGET_SECONDS = {"egp-ts": 0.5, "dts-ring": 0.5, "bore++": 2.0, "bore": 2.0}
TARGET_RSS_MB = 2048
AGENTS = 16
CELL = ("bench", "n", "d", "asks")
CONFIGURATION = ("sampler", "n", "d")  # the report shows the latest row of each
PEER_CELL = (*CELL, "machine_key")  # a peer's seconds hold on the machine that measured them
# The peer cache's protocol version: bump it when what a configuration measures changes.
PROTOCOL = 1


def measure(sampler_name: str, n: int, d: int, asks: int) -> dict:
    """Run one configuration in this process and return its row (docs/benchmarks/index.md,
    "Timing benchmarks")."""
    quiet()
    low, high, f = (0.0, 1.0, hartmann6) if d == 6 else (-10.0, 10.0, levy)
    sampler = make_sampler(sampler_name, seed=0, agent=0, n_agents=AGENTS)
    probe = ModelProbe(sampler)
    study, dist = random_study(sampler, f, [(low, high)] * d, n, seed=n + d, agents=AGENTS)
    t0 = time.perf_counter()
    running = [study.ask(dist)]
    cold = time.perf_counter() - t0
    running += [study.ask(dist) for _ in range(3)]
    seconds = timed_asks(study, dist, f, probe, asks)["seconds"]
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


def run(a: argparse.Namespace) -> None:
    store = Store(a.out, a.cache, CELL, peer_cell=PEER_CELL, protocol=PROTOCOL)
    here = machine_key()
    cached = {
        (r["sampler"], r["n"], r["d"], r["asks"]): r
        for r in store.cache.rows(bench="scale", machine_key=here)
    }
    for d in a.dims:
        for name in a.samplers:
            for n in a.n:
                cell = {"bench": "scale", "n": n, "d": d, "asks": a.asks}
                if store.is_done({**cell, "sampler": name, "machine_key": here}):
                    if not is_peer(name):
                        continue
                    row = cached[(name, n, d, a.asks)]
                else:
                    row = {**cell, **worker_row(name, n, d, a.asks, a.timeout)}
                    store.put({**row, "machine_key": here} if is_peer(name) else row)
                    print(name, n, d, {k: v for k, v in row.items() if k != "seconds"}, flush=True)
                if name == "gp" and (
                    row.get("timed_out") or max([row["cold_seconds"], *row["seconds"]]) > a.gp_limit
                ):
                    break  # GPSampler: larger studies only take longer


def worker_row(name: str, n: int, d: int, asks: int, timeout: float) -> dict:
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


def _warm(r: dict) -> float:
    return statistics.median(r["seconds"])


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
            cells = [f"{r['cold_seconds']:.2f}", f"{_warm(r):.3f}", f"{r['peak_rss_mb']:.0f}"]
        body.append([str(r["d"]), r["sampler"], str(r["n"]), *cells])
    header = ["d", "sampler", "trials", "cold ask (s)", "warm ask (s)", "peak RSS (MB)"]
    intro = (
        "4 trials running during every timed ask; warm = median of the timed asks; one process "
        "per configuration (GPSampler's rows from the peer cache)."
    )
    title = "## Scale: seconds per suggestion and peak memory with many completed trials"
    return section(title, header, body, rows, intro=intro, checks=_checks(rows))


def _met(ok: bool) -> str:
    return f"**{'met' if ok else 'not met'}**."


def _checks(rows: list[dict]) -> list[str]:
    out = []
    for name, limit in TARGET_SECONDS.items():
        cell = [r for r in rows if (r["sampler"], r["n"], r["d"]) == (name, 10_000, 6)]
        if cell and "seconds" in cell[0]:
            warm = _warm(cell[0])
            out.append(
                f"- Target, {name} warm ask at 10 000 trials (d = 6) under {limit:g} s: {warm:.3f} "
                f"s: {_met(warm < limit)}"
            )
    measured = [r for r in rows if "peak_rss_mb" in r and r["sampler"] != "gp"]
    if measured:
        worst = max(measured, key=lambda r: r["peak_rss_mb"])
        out.append(
            f"- Target, peak RSS under {TARGET_RSS_MB} MB for every sampler of this package: "
            f"largest {worst['peak_rss_mb']:.0f} MB ({worst['sampler']}, n = {worst['n']}, d = "
            f"{worst['d']}): {_met(worst['peak_rss_mb'] < TARGET_RSS_MB)}"
        )
    gp = sorted((r for r in rows if r["sampler"] == "gp"), key=lambda r: (r["d"], r["n"]))
    if gp:
        runs = "; ".join(f"n = {r['n']}, d = {r['d']}: {_gp_text(r)}" for r in gp)
        ran = any("seconds" in r for r in gp)
        limit = " (only sizes whose smaller size finished within the limit are run)" if ran else ""
        out.append(f"- Reference, Optuna's GPSampler: {runs}{limit}.")
    return out


def _gp_text(r: dict) -> str:
    if r.get("timed_out"):
        return f"timed out (> {r['timeout']:.0f} s)"
    return f"warm {_warm(r):.1f} s, peak RSS {r['peak_rss_mb']:.0f} MB"


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
    ap = argparse.ArgumentParser(prog="python -m benchmarks.scale", description=__doc__)
    sub = ap.add_subparsers(dest="command", required=True)
    rp = sub.add_parser("run", help="the benchmark")
    rp.add_argument(
        "--samplers",
        default="egp-ts,dts-ring,bore++,bore",
        type=lambda s: [x for x in s.split(",") if x],
    )
    rp.add_argument("--n", default="1000,5000,10000", type=ints)
    rp.add_argument("--dims", default="6,20", type=ints)
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
    unknown = set(a.samplers) - set(SAMPLERS)
    if unknown:
        ap.error(f"unknown samplers {sorted(unknown)}; known: {SAMPLERS}")
    run(a)


if __name__ == "__main__":
    main()
