"""Scale: seconds per suggestion and peak memory with 1 000 to 10 000 completed trials.

Full run (one process at a time, on a quiet machine; about 5 minutes without GPSampler, which takes
ten minutes per ask at 5000 trials):
    python benchmarks/scale.py run --out benchmarks/results/scale.jsonl
    python benchmarks/scale.py run --samplers gp --out benchmarks/results/scale.jsonl
        (GPSampler, long)
    python benchmarks/scale.py summary          (Markdown to stdout)
    python benchmarks/scale.py plot             (benchmarks/results/scale.png)
Smoke test (a minute): python benchmarks/scale.py
run --n 300 --dims 6 --asks 3 --out /tmp/scale_smoke.jsonl

Protocol, one fresh Python process per (sampler, n, d) so that peak memory is the configuration's
own: an in-memory study, ``study.add_trials`` of n completed trials at uniform random points
(``default_rng(n + d)``; trial i tagged ``agent_id = i mod 16`` for the distributed sampler), the
objective Hartmann-6 (d = 6, [0, 1]^6) or Levy (d = 20, [-10, 10]^20); then 4 asks left running
(the first is the cold suggestion: no model yet) and ``--asks`` (20) timed ``ask`` + ``tell`` with
those 4 trials still running (pending points). Every ask is ``study.ask(fixed distributions)``, so
the timed region holds the whole suggestion (Optuna's trial reading and search-space inference
included). One BLAS/torch thread. Peak RSS is ``resource.getrusage(RUSAGE_SELF).ru_maxrss`` of the
process at the end (the study itself included: 10 000 in-memory trials take about 100 MB).

Samplers (``--samplers``): ``egp-ts`` = ``EGPTSSampler(seed=0, acquisition="ts")``, ``dts-ring`` =
``DistributedTSSampler(agent_id=0, graph="ring", n_agents=16, seed=0)`` (conditions on about 3n/16
trials), ``bore++`` and ``bore`` = ``BORESampler(seed=0, variant=...)`` (``max_points=500``: the
classifier is fit on at most 500 trials, the best ones kept; documented cap), ``gp`` =
``optuna.samplers.GPSampler(seed=0)``. GPSampler runs only where its previous size finished and its
asks took at most ``--gp-limit`` seconds (600) each; a configuration whose child process exceeds
``--timeout`` is recorded as timed out.
Targets: warm suggestions under 0.5 s at 10 000 trials (d = 6) for EGPTSSampler and
DistributedTSSampler, under 2 s for BORESampler; peak RSS under 2 GB for every sampler.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    # before numpy (and its BLAS) is imported, here and in the child processes
    os.environ[_var] = "1"

import argparse
import json
import pathlib
import statistics
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(ROOT))
from benchmarks.harness.provenance import commit, utc_now

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


# ------------------------------------------------------------------------------------------- child
def measure(sampler_name: str, n: int, d: int, asks: int) -> dict:
    """Run one configuration in this process and return its row (see the module docstring)."""
    import resource
    import time
    import warnings

    import numpy as np
    import optuna
    from functions import hartmann6, levy
    from optuna.distributions import FloatDistribution
    from optuna.trial import create_trial

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore")
    if sampler_name in ("bore", "bore++", "gp"):
        import torch

        torch.set_num_threads(1)
    low, high, f = (0.0, 1.0, hartmann6) if d == 6 else (-10.0, 10.0, levy)
    dist = {f"x{i}": FloatDistribution(low, high) for i in range(d)}
    X = np.random.default_rng(n + d).uniform(low, high, size=(n, d))
    trials = [
        create_trial(
            params=dict(zip(dist, map(float, x))),
            distributions=dist,
            value=float(f(x)),
            user_attrs={"agent_id": i % AGENTS},
        )
        for i, x in enumerate(X)
    ]
    study = optuna.create_study(sampler=_make(sampler_name))
    study.add_trials(trials)

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
    }


def _make(name: str):
    from optuna.samplers import GPSampler

    from optuna_egp import BORESampler, DistributedTSSampler, EGPTSSampler

    if name == "egp-ts":
        return EGPTSSampler(seed=0, acquisition="ts")
    if name == "dts-ring":
        return DistributedTSSampler(agent_id=0, graph="ring", n_agents=AGENTS, seed=0)
    if name in ("bore", "bore++"):
        return BORESampler(seed=0, variant=name)
    if name == "gp":
        return GPSampler(seed=0)
    raise ValueError(f"unknown sampler {name!r}; known: {SAMPLERS}")


# ------------------------------------------------------------------------------------------ parent
def run(samplers, sizes, dims, asks, out: pathlib.Path, timeout: float, gp_limit: float) -> None:
    base = {"bench": "scale", "commit": commit()}
    for d in dims:
        for name in samplers:
            for n in sizes:
                row = {**base, "date": utc_now(), **_child(name, n, d, asks, timeout)}
                with open(out, "a") as fh:
                    fh.write(json.dumps(row) + "\n")
                print(_line(row), flush=True)
                if name == "gp" and (
                    row.get("timed_out") or max([row["cold_seconds"], *row["seconds"]]) > gp_limit
                ):
                    break  # GPSampler: larger studies only take longer


def _child(name: str, n: int, d: int, asks: int, timeout: float) -> dict:
    code = (
        f"import sys, json; sys.path[:0] = [{str(HERE)!r}, {str(ROOT)!r}]; import scale; "
        f"print(json.dumps(scale.measure({name!r}, {n}, {d}, {asks})))"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=HERE,
            check=True,
        )
    except subprocess.TimeoutExpired:
        return {
            "sampler": name,
            "n": n,
            "d": d,
            "asks": asks,
            "timed_out": True,
            "timeout": timeout,
        }
    except subprocess.CalledProcessError as err:
        raise RuntimeError(f"{name} n={n} d={d} failed:\n{err.stderr}") from None
    return json.loads(done.stdout.strip().splitlines()[-1])


def _line(row: dict) -> str:
    if row.get("timed_out"):
        return f"{row['sampler']} n={row['n']} d={row['d']}: timed out after {row['timeout']:.0f} s"
    return (
        f"{row['sampler']} n={row['n']} d={row['d']}: cold {row['cold_seconds']:.2f} s, warm "
        f"median {statistics.median(row['seconds']):.3f} s, peak RSS {row['peak_rss_mb']:.0f} MB"
    )


# ------------------------------------------------------------------------------------------- report
def load(path: pathlib.Path) -> list[dict]:
    return [json.loads(line) for line in open(path)] if path.exists() else []


def _latest(rows: list[dict]) -> list[dict]:
    latest = {}
    for r in rows:  # the latest row of each configuration
        latest[(r["sampler"], r["n"], r["d"])] = r
    return list(latest.values())


def summarise(rows: list[dict]) -> list[str]:
    rows = _latest(rows)
    if not rows:
        return []
    lines = [
        "### Scale: seconds per suggestion and peak memory with many completed trials",
        "",
        "4 trials running during every timed ask; warm = median of the timed asks; one BLAS/torch "
        "thread; one process per configuration. `benchmarks/scale.py`.",
        "",
        "| d | sampler | trials | cold ask (s) | warm ask (s) | peak RSS (MB) |",
        "|---|---|---|---|---|---|",
    ]
    for r in sorted(rows, key=lambda r: (r["d"], SAMPLERS.index(r["sampler"]), r["n"])):
        if r.get("timed_out"):
            lines.append(
                f"| {r['d']} | {r['sampler']} | {r['n']} | timed out (> {r['timeout']:.0f} s in "
                "all) | | |"
            )
            continue
        lines.append(
            f"| {r['d']} | {r['sampler']} | {r['n']} | {r['cold_seconds']:.2f} | "
            f"{statistics.median(r['seconds']):.3f} | {r['peak_rss_mb']:.0f} |"
        )
    lines += [""] + _checks(rows)
    dates = sorted(r["date"] for r in rows)
    commits = sorted({r["commit"] for r in rows})
    lines += ["", f"Measured {dates[0]} to {dates[-1]} (UTC) at commit {', '.join(commits)}.", ""]
    return lines


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
    rows = _latest(rows)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
    return path


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = ap.add_subparsers(dest="command", required=True)
    rp = sub.add_parser("run")
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
    rp.add_argument("--out", default=str(HERE / "results" / "scale.jsonl"))
    for name in ("summary", "plot"):
        p = sub.add_parser(name)
        p.add_argument("--results", default=str(HERE / "results" / "scale.jsonl"))
    a = ap.parse_args(argv)
    if a.command == "run":
        samplers = [s for s in a.samplers.split(",") if s]
        unknown = set(samplers) - set(SAMPLERS)
        if unknown:
            ap.error(f"unknown samplers {sorted(unknown)}; known: {SAMPLERS}")
        run(
            samplers,
            [int(v) for v in a.n.split(",")],
            [int(v) for v in a.dims.split(",")],
            a.asks,
            pathlib.Path(a.out),
            a.timeout,
            a.gp_limit,
        )
    elif a.command == "summary":
        print("\n".join(summarise(load(pathlib.Path(a.results)))))
    else:
        print(plot(load(pathlib.Path(a.results)), pathlib.Path(a.results).with_suffix(".png")))


if __name__ == "__main__":
    main()
