"""Regret runs: samplers x functions x seeds, sequential or with workers (``--mode``: seq, threads,
async, batch; docs/benchmarks/index.md says what each measures).

    python -m benchmarks.run suite --mode async --workers 4 --seeds 5 --out /tmp/async4.jsonl
    python -m benchmarks.run ablation --seeds 5 --out /tmp/ablation.jsonl  # EGP-TS vs each kernel
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import optuna

from benchmarks import external, functions, ill_conditioned
from benchmarks.harness.asktell import ask_tell
from benchmarks.harness.cache import PeerCache
from benchmarks.harness.probes import ModelProbe
from benchmarks.harness.results import RESULTS, ResultsFile
from benchmarks.harness.runner import run_jobs
from benchmarks.harness.samplers import is_external, make_sampler
from benchmarks.harness.suite_row import pending_spread, regret_fields

MODES = ("seq", "threads", "async", "batch")
# The peer cache's protocol version: bump it when what a run measures changes (the functions,
# the modes, the completion order's random generator).
PROTOCOL = 1
# The functions the runs know, and the suite (``--functions``' default): the classic test functions
# and the ill-conditioned ones, each with its number of trials (``--trials``' default).
FUNCTIONS = {**functions.FUNCTIONS, **ill_conditioned.FUNCTIONS}
SUITE = [*functions.SUITE, *ill_conditioned.SUITE]
DEFAULT_TRIALS = 100


def default_trials(function: str) -> int:
    return ill_conditioned.N_TRIALS if function in ill_conditioned.FUNCTIONS else DEFAULT_TRIALS


# The fields of a suite cell: with the sampler (and the commit or the peer version) they key a run.
SUITE_CELL = ("function", "seed", "mode", "workers", "n_trials")


def _suggest(trial, bounds):
    return np.array([trial.suggest_float(f"x{i}", lo, hi) for i, (lo, hi) in enumerate(bounds)])


def run_suite(job: dict) -> dict:
    """One run of ``job["sampler"]`` on a cell of the suite (a ``SUITE_CELL`` dict); an external
    peer's (``hebo``, ``smac``) in its own environment (``benchmarks.external``)."""
    if is_external(job["sampler"]):
        return external.run_cell(job)
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    function, seed, mode, workers, n_trials = (job[f] for f in SUITE_CELL)
    bounds, f, f_min = FUNCTIONS[function]
    sampler = make_sampler(job["sampler"], seed=seed, **job.get("options", {}))
    probe = ModelProbe(sampler)
    study = optuna.create_study(sampler=sampler)
    rng = np.random.default_rng(seed + 1000)
    spreads: list[float] = []
    t0 = time.perf_counter()
    if mode == "seq":
        study.optimize(lambda t: f(_suggest(t, bounds)), n_trials=n_trials)
    elif mode == "threads":

        def objective(t):
            x = _suggest(t, bounds)
            time.sleep(float(np.random.default_rng(t.number + 7 * seed).uniform(0.05, 0.3)))
            return f(x)

        study.optimize(objective, n_trials=n_trials, n_jobs=workers)
    elif mode == "async":

        def ask(slot):
            t = study.ask()
            return t, _suggest(t, bounds)

        ask_tell(
            n_trials,
            workers,
            rng,
            ask,
            lambda slot, tx: study.tell(tx[0], f(tx[1])),
            on_pending=lambda txs: spreads.append(pending_spread([x for _, x in txs], bounds)),
        )
    elif mode == "batch":
        while len(study.trials) < n_trials:
            batch = [study.ask() for _ in range(min(workers, n_trials - len(study.trials)))]
            xs = [_suggest(t, bounds) for t in batch]
            spreads.append(pending_spread(xs, bounds))
            for t, x in zip(batch, xs):
                study.tell(t, f(x))
    else:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    wall = time.perf_counter() - t0
    trials = sorted(study.trials, key=lambda t: t.number)
    return {
        **job,
        **regret_fields([t.value for t in trials], f_min, wall, spreads),
        **({"model_asks": probe.model_asks} if probe.model_asks is not None else {}),
    }


def default_samplers(what: str) -> list[str]:
    if what == "ablation":
        from shared_core import default_dictionary

        return ["egp-ts"] + [f"gp-ts-{k.name}" for k in default_dictionary()]
    return ["egp-auto", "egp-ts", "bore++", "gp", "tpe", "cmaes", "random"]


def jobs(a: argparse.Namespace, samplers: list[str]) -> list[dict]:
    """Every run the arguments ask for, seeds outermost (partial results cover every cell)."""
    return [
        {
            "bench": a.what,
            "function": fn,
            "seed": seed,
            "mode": a.mode,
            "workers": a.workers,
            "n_trials": a.trials or default_trials(fn),
            "sampler": s,
        }
        for seed in range(a.first_seed, a.first_seed + a.seeds)
        for fn in a.functions.split(",")
        for s in samplers
    ]


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__)
    p.add_argument("what", choices=["suite", "ablation"])
    p.add_argument("--functions", default=",".join(SUITE))
    p.add_argument("--samplers", default=None, help="comma-separated names (harness.samplers)")
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--first-seed", type=int, default=0)
    p.add_argument("--trials", type=int, default=None, help="default: default_trials(function)")
    p.add_argument("--mode", choices=MODES, default="seq")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--procs", type=int, default=2, help="runs in parallel processes")
    p.add_argument("--out", required=True, help="JSONL file of our samplers' rows")
    p.add_argument("--cache", default=str(RESULTS / "peers.jsonl"), help="the peer cache")
    a = p.parse_args(argv)
    samplers = a.samplers.split(",") if a.samplers else default_samplers(a.what)
    for s in samplers:  # a bad name or mode fails here, not inside a worker process
        if is_external(s):
            external.check(s, a.mode)
        else:
            make_sampler(s, seed=0)
    run_jobs(
        jobs(a, samplers),
        run_suite,
        out=ResultsFile(a.out),
        cell=("bench", *SUITE_CELL),
        cache=PeerCache(a.cache, protocol=PROTOCOL),
        peer_cell=SUITE_CELL,
        procs=a.procs,
        describe=lambda row: (
            f"{row['function']} {row['sampler']} seed={row['seed']} -> {row['regret'][-1]:.4g}"
        ),
    )


if __name__ == "__main__":
    main()
