"""DEC-HBO's synthetic benchmark (Hoang, Hoang, Ouyang & Low, "Decentralized high-dimensional
Bayesian optimization with factor graphs", AAAI 2018, Section 5.1 and Table 1): Hartmann-6,
Shekel-4 and Michalewicz-10, 150 evaluations, sequential.

    python -m benchmarks.dec_hbo --samplers dec-hbo-mf3,egp-auto,gp,tpe,cmaes --seeds 10 \\
        --wall-limit 900 --procs 2 --out benchmarks/results/dec_hbo.jsonl
    python -m benchmarks.dec_hbo --samplers dec-hbo-mf1,dec-hbo-mf2 --seeds 5 --procs 2 \\
        --out benchmarks/results/dec_hbo.jsonl

(``python -m benchmarks.run_all`` runs both, as ``dec_hbo`` and ``dec_hbo_variants``, and as
``dec_hbo_beta`` the development runs of ``beta_scale`` on seeds 10-12.) The reported rows ran two
at a time on a 2-core machine (``--procs 2``), one thread each.

``dec-hbo-mf<k>`` is ``DECHBOSampler(max_factor_size=k)`` with the structure learned from the
data (MF1 is Add-GP-UCB, the paper's baseline); the paper ran 5 seeds of each. Every run starts with
``STARTUP_TRIALS`` random trials (our samplers' start-up; the peers' model asks are counted from
there). ``--wall-limit S`` stops a run that has taken ``S`` seconds (recorded as ``wall_limit``;
the row then has fewer trials, ``stopped_at``), for GPSampler, whose suggestions grow slow. Rows
hold every trial's value, the regret of the best so far (``regret``, the paper's
``min_i f(x_i) - f(x*)``), and the wall and CPU seconds of every ask (the paper's Fig. 1a is their
cumulative sum). Our samplers' rows go to ``--out`` keyed by commit, the peers' to the peer cache;
``benchmarks.report`` writes docs/benchmarks/dec_hbo.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from benchmarks.distributed_async import make_async_samplers
from benchmarks.functions import hartmann6
from benchmarks.harness.asktell import timed_ask_tell, timing_fields
from benchmarks.harness.regret import STARTUP_TRIALS
from benchmarks.harness.samplers import is_peer
from benchmarks.problem_runs import MODES, ProblemBenchmark

# The peer cache's protocol version of this benchmark: bump it when what a run measures changes.
PROTOCOL = 1
BENCH = "dec_hbo"
SAMPLERS = "dec-hbo-mf3,egp-auto,gp,tpe,cmaes"
N_TRIALS = 150
# The paper's Table 1: mean regret after 150 iterations over 5 runs
PAPER_MEANS = {
    "dec-hbo-mf2": {"hartmann6": 1.1436, "shekel4": 7.0538, "michalewicz10": 4.4944},
    "dec-hbo-mf3": {"hartmann6": 0.7904, "shekel4": 1.4295, "michalewicz10": 1.2367},
    "dec-hbo-mf1": {"hartmann6": 1.7898, "shekel4": 3.8338, "michalewicz10": 2.9870},
}


# Shekel-4 with m = 10 terms (Appendix F; minimum -10.536443 near x = 4)
_SHEKEL_BETA = 0.1 * np.array([1, 2, 2, 4, 4, 6, 3, 7, 5, 5])
_SHEKEL_C = np.array(
    [
        [4, 1, 8, 6, 3, 2, 5, 8, 6, 7],
        [4, 1, 8, 6, 7, 9, 3, 1, 2, 3.6],
        [4, 1, 8, 6, 3, 2, 5, 8, 6, 7],
        [4, 1, 8, 6, 7, 9, 3, 1, 2, 3.6],
    ]
)


def shekel4(x: np.ndarray) -> float:
    return float(-np.sum(1.0 / (np.sum((x[:, None] - _SHEKEL_C) ** 2, axis=0) + _SHEKEL_BETA)))


def michalewicz(x: np.ndarray, m: int = 10) -> float:
    i = np.arange(1, len(x) + 1)
    return float(-np.sum(np.sin(x) * np.sin(i * x**2 / np.pi) ** (2 * m)))


@dataclass(frozen=True)
class Problem:
    bounds: np.ndarray  # (d, 2)
    objective: Callable[[np.ndarray], float]
    f_min: float
    n_trials: int = N_TRIALS


# Appendix F's domains and minima (Hartmann-6's as the suite's, benchmarks.functions)
PROBLEMS = {
    "hartmann6": Problem(np.array([[0.0, 1.0]] * 6), hartmann6, -3.32237),
    "shekel4": Problem(np.array([[0.0, 10.0]] * 4), shekel4, -10.536443),
    "michalewicz10": Problem(np.array([[0.0, np.pi]] * 10), michalewicz, -9.66015),
}


def run_job(job: dict) -> dict:
    """One sequential run of ``job["sampler"]`` on a cell (``wall_limit`` optional)."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    if job["mode"] not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {job['mode']!r}")
    problem = PROBLEMS[job["function"]]
    run = timed_ask_tell(
        make_async_samplers(job["sampler"], job["seed"], job["workers"]),
        problem.bounds,
        lambda trial, x: problem.objective(x),
        n_trials=job["n_trials"],
        workers=job["workers"] if job["mode"] == "async" else 1,
        rng=np.random.default_rng(job["seed"] + 1000),
        startup=STARTUP_TRIALS,
        wall_limit=job.get("wall_limit"),
    )
    values = np.array([t.value for t in run.trials if t.value is not None], dtype=float)
    timing = timing_fields(
        run.ask_seconds,
        run.ask_cpu_seconds,
        run.model_at_ask,
        run.seconds,
        ours=not is_peer(job["sampler"]),
    )
    return {
        **job,
        "values": values.tolist(),
        "regret": (np.minimum.accumulate(values) - problem.f_min).tolist(),
        **timing,
        **({"stopped_at": len(values)} if len(values) < job["n_trials"] else {}),
    }


def _describe(row: dict) -> str:
    return f"regret {row['regret'][-1]:.4g} after {len(row['regret'])} trials"


BENCHMARK = ProblemBenchmark(
    bench=BENCH,
    prog="python -m benchmarks.dec_hbo",
    doc=__doc__ or "",
    problems=PROBLEMS,
    samplers=SAMPLERS,
    protocol=PROTOCOL,
    run_job=run_job,
    describe=_describe,
)
main = BENCHMARK.main

if __name__ == "__main__":
    main()
