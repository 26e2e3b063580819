"""Benchmark runner: samplers x functions x seeds, sequential or with concurrent workers.

Every finished run is appended as one JSON line to the output file, so a long run can be stopped and
resumed (finished runs are skipped). ``benchmarks/report.py`` turns the files into tables and plots.

Examples:
    python benchmarks/run.py suite --seeds 10 --trials 100 --out benchmarks/results/suite.jsonl
    python benchmarks/run.py suite --mode async --workers 4 --out benchmarks/results/async4.jsonl
    python benchmarks/run.py suite --mode threads --workers 4 \
        --out benchmarks/results/threads4.jsonl
    python benchmarks/run.py ablation --out benchmarks/results/ablation.jsonl
    python benchmarks/run.py overhead --out benchmarks/results/overhead.jsonl
    python benchmarks/run.py ax --seeds 5 --trials 40 --functions branin,hartmann6 \
        --out benchmarks/results/ax.jsonl
    python benchmarks/run.py suite --mode batch --workers 5 --samplers bore,bore++ \
        --functions rosenbrock2,rosenbrock4,rosenbrock6,rosenbrock8 \
        --out benchmarks/results/bore_rosenbrock.jsonl

Modes: ``seq``; ``threads`` (``n_jobs`` workers); ``async`` (ask/tell, ``workers`` pending trials,
completion order random); ``batch`` (synchronous: ask ``workers`` trials, then tell them all).
Parallel modes also record ``pending_spread``: the mean pairwise distance (unit-cube coordinates)
between the points pending at each ask, averaged over the asks with at least two pending points.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core per run; runs go in parallel processes
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import numpy as np
import optuna

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from functions import FUNCTIONS, SUITE
from provenance import commit, utc_now

optuna.logging.set_verbosity(optuna.logging.ERROR)


def make_sampler(name: str, seed: int):
    from optuna_egp import BORESampler, EGPTSSampler
    from shared_core import default_dictionary

    if name.split("-")[0] in ("bore++", "bore"):  # options as suffixes, e.g. bore++-beta0-sharp1
        return BORESampler(seed=seed, **_bore_options(name))
    if name == "egp-ts":
        return EGPTSSampler(seed=seed, acquisition="ts")
    if name == "egp-ei":
        return EGPTSSampler(seed=seed, acquisition="ei")
    if name == "egp-auto":
        return EGPTSSampler(seed=seed, acquisition="auto")
    if name == "egp-ts-nowarp":
        return EGPTSSampler(seed=seed, acquisition="ts", warp_outputs=False)
    if name == "egp-ts-nofant":
        return EGPTSSampler(seed=seed, acquisition="ts", fantasize_pending=False)
    if name.startswith("gp-ts-"):  # single-kernel GP-TS for the Fig. 1 ablation
        spec = {k.name: k for k in default_dictionary()}[name[len("gp-ts-") :]]
        return EGPTSSampler(seed=seed, acquisition="ts", kernels=(spec,))
    if name == "gp":
        import torch

        torch.set_num_threads(1)
        return optuna.samplers.GPSampler(seed=seed)
    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed)
    if name == "cmaes":
        return optuna.samplers.CmaEsSampler(seed=seed)
    if name == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    raise ValueError(f"unknown sampler {name!r}")


def _bore_options(name: str) -> dict:
    """``"bore++-beta0-sharp1"`` -> ``{"variant": "bore++", "beta": 0.0, "sharpness": 1.0}``."""
    variant, *options = name.split("-")
    out = {"variant": variant}
    for option in options:
        m = re.fullmatch(r"(beta|sharp)(\d+(?:\.\d+)?)", option)
        key = {"beta": "beta", "sharp": "sharpness"}.get(m.group(1)) if m else None
        if key is None or key in out:
            raise ValueError(
                f"bad or repeated BORE option {option!r} in {name!r}; known: beta<x>, sharp<x>"
            )
        out[key] = float(m.group(2))
    return out


def _suggest(trial, bounds):
    return np.array([trial.suggest_float(f"x{i}", lo, hi) for i, (lo, hi) in enumerate(bounds)])


def run_one(
    function: str, sampler_name: str, seed: int, n_trials: int, mode: str, workers: int
) -> dict:
    bounds, f, f_min = FUNCTIONS[function]
    study = optuna.create_study(sampler=make_sampler(sampler_name, seed))
    rng = np.random.default_rng(seed + 1000)
    spreads: list[float] = []
    t0 = time.perf_counter()
    if mode == "seq":
        study.optimize(lambda t: f(_suggest(t, bounds)), n_trials=n_trials)
    elif mode == "threads":  # n_jobs workers; objective takes 0.05-0.3 s so evaluations overlap

        def objective(t):
            x = _suggest(t, bounds)
            time.sleep(float(np.random.default_rng(t.number + 7 * seed).uniform(0.05, 0.3)))
            return f(x)

        study.optimize(objective, n_trials=n_trials, n_jobs=workers)
    elif mode == "async":  # ask/tell with `workers` pending trials, completion order random
        pending = []
        for _ in range(min(workers, n_trials)):
            t = study.ask()
            pending.append((t, _suggest(t, bounds)))
        spreads.append(_spread([x for _, x in pending], bounds))
        asked, told = len(pending), 0
        while told < n_trials:
            t, x = pending.pop(int(rng.integers(len(pending))))
            study.tell(t, f(x))
            told += 1
            if asked < n_trials:
                t = study.ask()
                pending.append((t, _suggest(t, bounds)))
                spreads.append(_spread([x for _, x in pending], bounds))
                asked += 1
    elif mode == "batch":  # synchronous batches of `workers` trials
        while len(study.trials) < n_trials:
            batch = [study.ask() for _ in range(min(workers, n_trials - len(study.trials)))]
            xs = [_suggest(t, bounds) for t in batch]
            spreads.append(_spread(xs, bounds))
            for t, x in zip(batch, xs):
                study.tell(t, f(x))
    else:
        raise ValueError(mode)
    wall = time.perf_counter() - t0
    trials = sorted(study.trials, key=lambda t: t.number)
    values = np.array([t.value for t in trials], dtype=float)
    regret = np.minimum.accumulate(values) - f_min
    spread = [s for s in spreads if s == s]  # NaN: fewer than two pending points
    return {
        "function": function,
        "sampler": sampler_name,
        "seed": seed,
        "mode": mode,
        "workers": workers,
        "n_trials": n_trials,
        "regret": regret.tolist(),
        "seconds_per_trial": wall / n_trials,
        "instant_regret": (values - f_min).tolist(),
        "pending_spread": float(np.mean(spread)) if spread else None,
    }


def _spread(xs, bounds) -> float:
    """Mean pairwise distance of points ``xs`` scaled to the unit cube (NaN for fewer than two)."""
    if len(xs) < 2:
        return float("nan")
    U = (np.array(xs) - bounds[:, 0]) / (bounds[:, 1] - bounds[:, 0])
    d = np.linalg.norm(U[:, None] - U[None], axis=-1)
    return float(d[np.triu_indices(len(U), 1)].mean())


AX_METHODS = ["ax-default", "ax-egp-ts", "ax-egp-ei", "ax-egp-auto"]


def run_ax(
    function: str, sampler_name: str, seed: int, n_trials: int, mode: str, workers: int
) -> dict:
    """Ax ``Client`` loop, one trial at a time: Ax's default strategy or ours (``ax-<method>``)."""
    import logging
    import warnings

    warnings.filterwarnings("ignore")
    logging.disable(logging.INFO)  # Ax logs every trial
    import torch
    from ax import Client, RangeParameterConfig

    import ax_egp

    torch.set_num_threads(1)
    bounds, f, f_min = FUNCTIONS[function]
    client = Client(random_seed=seed)
    client.configure_experiment(
        parameters=[
            RangeParameterConfig(
                name=f"x{i}", bounds=(float(lo), float(hi)), parameter_type="float"
            )
            for i, (lo, hi) in enumerate(bounds)
        ]
    )
    client.configure_optimization(objective="-loss")
    if sampler_name == "ax-default":
        client.configure_generation_strategy(initialization_random_seed=seed)
    else:
        client.set_generation_strategy(
            ax_egp.generation_strategy(sampler_name[len("ax-") :], seed=seed)
        )
    values = []
    t0 = time.perf_counter()
    while len(values) < n_trials:
        for index, params in client.get_next_trials(max_trials=1).items():
            values.append(float(f(np.array([params[f"x{i}"] for i in range(len(bounds))]))))
            client.complete_trial(index, raw_data={"loss": values[-1]})
    wall = time.perf_counter() - t0
    regret = np.minimum.accumulate(values) - f_min
    return {
        "function": function,
        "sampler": sampler_name,
        "seed": seed,
        "mode": mode,
        "workers": workers,
        "n_trials": n_trials,
        "regret": regret.tolist(),
        "seconds_per_trial": wall / n_trials,
    }


def overhead(sampler_name: str, n_complete: int, n_suggest: int, seed: int = 0) -> dict:
    """Seconds per suggestion on Hartmann-6 with n_complete random completed trials."""
    bounds, f, _ = FUNCTIONS["hartmann6"]
    rng = np.random.default_rng(seed)
    study = optuna.create_study(sampler=make_sampler(sampler_name, seed))
    dists = {
        f"x{i}": optuna.distributions.FloatDistribution(lo, hi) for i, (lo, hi) in enumerate(bounds)
    }
    X = rng.uniform(bounds[:, 0], bounds[:, 1], (n_complete, len(bounds)))
    study.add_trials(
        [
            optuna.trial.create_trial(
                params={f"x{i}": float(v) for i, v in enumerate(x)}, distributions=dists, value=f(x)
            )
            for x in X
        ]
    )
    times = []
    for _ in range(n_suggest):
        t0 = time.perf_counter()
        trial = study.ask()
        x = _suggest(trial, bounds)
        times.append(time.perf_counter() - t0)
        study.tell(trial, f(x))
    return {
        "sampler": sampler_name,
        "n_complete": n_complete,
        "seconds": times,
        "first": times[0],
        "mean": float(np.mean(times)),
        "median": float(np.median(times)),
    }


def _done(out: pathlib.Path) -> set:
    if not out.exists():
        return set()
    keys = set()
    for line in out.read_text().splitlines():
        r = json.loads(line)
        keys.add(
            tuple(
                r.get(k)
                for k in (
                    "function",
                    "sampler",
                    "seed",
                    "mode",
                    "workers",
                    "n_trials",
                    "n_complete",
                )
            )
        )
    return keys


def _job(args):
    kind, kw = args
    if kind == "overhead":
        return overhead(**kw)
    return run_ax(**kw) if kw["sampler_name"] in AX_METHODS else run_one(**kw)


def main(argv=None):
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("what", choices=["suite", "ablation", "overhead", "ax"])
    p.add_argument("--functions", default=",".join(SUITE))
    p.add_argument("--samplers", default=None)
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument(
        "--first-seed", type=int, default=0, help="seeds are first-seed .. first-seed + seeds - 1"
    )
    p.add_argument("--trials", type=int, default=100)
    p.add_argument("--mode", choices=["seq", "threads", "async", "batch"], default="seq")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--sizes", default="100,1000,5000")
    p.add_argument("--procs", type=int, default=2)
    p.add_argument("--out", required=True)
    a = p.parse_args(argv)
    out = pathlib.Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = _done(out)
    jobs = []
    if a.what == "overhead":
        samplers = (a.samplers or "egp-ts,egp-ei,gp").split(",")
        for n in map(int, a.sizes.split(",")):
            for s in samplers:
                if s == "gp" and n > 1000:
                    continue  # GPSampler is measured up to 1000 trials (its cost grows as n^3)
                if (None, s, None, None, None, None, n) not in done:
                    jobs.append(("overhead", {"sampler_name": s, "n_complete": n, "n_suggest": 5}))
    else:
        if a.what == "ax":
            default = AX_METHODS
        elif a.what == "ablation":
            from shared_core import default_dictionary

            default = ["egp-ts"] + [f"gp-ts-{k.name}" for k in default_dictionary()]
        else:
            default = ["egp-auto", "egp-ts", "egp-ei", "gp", "tpe", "cmaes", "random"]
        samplers = a.samplers.split(",") if a.samplers else default
        if a.what != "ax":
            for s in samplers:  # a bad name fails here, not inside a worker process
                make_sampler(s, 0)
        # seeds outermost: partial results cover every cell
        for seed in range(a.first_seed, a.first_seed + a.seeds):
            for fn in a.functions.split(","):
                for s in samplers:
                    key = (fn, s, seed, a.mode, a.workers, a.trials, None)
                    if key not in done:
                        jobs.append(
                            (
                                "run",
                                {
                                    "function": fn,
                                    "sampler_name": s,
                                    "seed": seed,
                                    "n_trials": a.trials,
                                    "mode": a.mode,
                                    "workers": a.workers,
                                },
                            )
                        )
    print(f"{len(jobs)} runs to do, {len(done)} already in {out}", flush=True)
    import multiprocessing as mp

    code = commit()  # once, before this run appends anything
    with mp.get_context("spawn").Pool(a.procs) as pool:
        for rec in pool.imap_unordered(_job, jobs):
            rec.update(commit=code, date=utc_now())
            with out.open("a") as fh:
                fh.write(json.dumps(rec) + "\n")
            tag = rec.get("function", "overhead")
            last = rec["regret"][-1] if "regret" in rec else rec["mean"]
            print(f"{tag} {rec['sampler']} seed={rec.get('seed')} -> {last:.4g}", flush=True)


if __name__ == "__main__":
    main()
