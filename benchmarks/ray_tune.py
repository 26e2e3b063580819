"""Ray Tune: ``OptunaSearch(sampler=EGPTSSampler())`` against ``OptunaSearch``'s default sampler
(Ray creates ``TPESampler(seed=seed)`` when none is given), 4 trials at a time
(``ConcurrencyLimiter(max_concurrent=4)``) on a real local Ray with 2 CPUs, trials in the order
Ray completes them. Run it alone:

    python -m benchmarks.ray_tune --out benchmarks/results/ray_tune.jsonl

One Ray instance runs every study, one after the other (a study's asks run in this process, its
trials in Ray's actors, 4 at a time on the 2 CPUs).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import zlib
from typing import Any

import numpy as np

from benchmarks import conditional_functions, functions
from benchmarks.harness.results import ResultsFile
from benchmarks.harness.samplers import make_sampler
from benchmarks.harness.tables import markdown_table, provenance_line

PROBLEMS = ("hartmann6", "branin", "nested")  # two continuous, one conditional
SAMPLERS = ("egp-auto", "tpe")  # tpe: OptunaSearch given no sampler (Ray's default)
CELL = ("problem", "sampler", "seed", "n_trials", "max_concurrent")


class Space:
    """The define-by-run space of ``problem`` for ``OptunaSearch(space=...)`` (a class, not a
    closure: Ray pickles the searcher at its checkpoints)."""

    def __init__(self, problem: str) -> None:
        self.problem = problem

    def __call__(self, trial: Any) -> None:
        if self.problem in conditional_functions.PROBLEMS:
            conditional_functions.suggest(trial, conditional_functions.PROBLEMS[self.problem].space)
            return
        bounds = functions.FUNCTIONS[self.problem][0]
        for i, (low, high) in enumerate(bounds):
            trial.suggest_float(f"x{i}", float(low), float(high))


def value(problem: str, config: dict[str, Any]) -> float:
    """The objective at Ray's ``config`` (minimised)."""
    if problem in conditional_functions.PROBLEMS:
        return conditional_functions.PROBLEMS[problem](config)
    bounds, f, _ = functions.FUNCTIONS[problem]
    return float(f(np.array([config[f"x{i}"] for i in range(len(bounds))])))


def optimum(problem: str) -> float:
    if problem in conditional_functions.PROBLEMS:
        return float(conditional_functions.PROBLEMS[problem].optimum or 0.0)
    return float(functions.FUNCTIONS[problem][2])


def trainable(config: dict[str, Any], problem: str) -> dict[str, float]:
    """One trial: the objective after a 0.05-0.25 s "training run" that varies with the point,
    so that trials complete in an order of their own."""
    jitter = zlib.crc32(repr(sorted(config.items())).encode()) % 1000 / 1000
    time.sleep(0.05 + 0.2 * jitter)
    return {"loss": value(problem, config)}


def run_study(problem: str, sampler_name: str, seed: int, n_trials: int, concurrent: int) -> dict:
    """One Tuner run; its best value, regret, trials and seconds."""
    import optuna
    from ray import tune
    from ray.tune.search import ConcurrencyLimiter
    from ray.tune.search.optuna import OptunaSearch

    from optuna_egp._claims import CLAIM_KEY

    sampler = None if sampler_name == "tpe" else make_sampler(sampler_name, seed=seed)
    storage = optuna.storages.InMemoryStorage()
    search = OptunaSearch(
        space=Space(problem),
        metric="loss",
        mode="min",
        sampler=sampler,
        seed=seed if sampler is None else None,  # Ray ignores it beside a sampler, with a warning
        storage=storage,
        study_name="ray",
    )
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        tuner = tune.Tuner(
            tune.with_resources(
                tune.with_parameters(trainable, problem=problem), {"cpu": 2 / concurrent}
            ),
            tune_config=tune.TuneConfig(
                search_alg=ConcurrencyLimiter(search, max_concurrent=concurrent),
                num_samples=n_trials,
                reuse_actors=True,
            ),
            run_config=tune.RunConfig(storage_path=folder, verbose=0),
        )
        results = tuner.fit()
    seconds = time.perf_counter() - start
    trials = optuna.load_study(study_name="ray", storage=storage).get_trials()
    values = [t.value for t in trials if t.value is not None]
    best = min(values)
    by_model = [(t.system_attrs.get(CLAIM_KEY) or {}).get("by") == "model" for t in trials]
    return {
        "best": best,
        "regret": best - optimum(problem),
        "completed": len(values),
        "model_asks": sum(by_model),  # our sampler's suggestions from its model (0 for TPE)
        "errors": len(results.errors),
        "seconds": round(seconds, 1),
    }


def summarise(rows: list[dict]) -> list[str]:
    """Markdown: per problem, each sampler's median final regret over seeds, and wins."""
    if not rows:
        return []
    header = ["problem", "seeds", "EGPTSSampler (median regret)", "default TPE (median regret)"]
    header += ["EGPTSSampler better on", "its model's suggestions (median)"]
    header += ["median seconds (EGP / TPE)"]
    body, better = [], 0
    for problem in dict.fromkeys(r["problem"] for r in rows):
        cell = {
            s: {r["seed"]: r for r in rows if r["problem"] == problem and r["sampler"] == s}
            for s in SAMPLERS
        }
        seeds = sorted(set(cell["egp-auto"]) & set(cell["tpe"]))
        if not seeds:
            continue
        egp = [cell["egp-auto"][s]["regret"] for s in seeds]
        tpe = [cell["tpe"][s]["regret"] for s in seeds]
        wins = sum(e < t for e, t in zip(egp, tpe))
        median_egp, median_tpe = statistics.median(egp), statistics.median(tpe)
        better += median_egp < median_tpe
        seconds = [
            statistics.median(cell[s][k]["seconds"] for k in seeds) for s in ("egp-auto", "tpe")
        ]
        model = statistics.median(cell["egp-auto"][s]["model_asks"] for s in seeds)
        body.append(
            [problem, str(len(seeds)), f"{median_egp:.4g}", f"{median_tpe:.4g}"]
            + [f"{wins} of {len(seeds)} seeds", f"{model:.0f}"]
            + [f"{seconds[0]:.0f} / {seconds[1]:.0f}"]
        )
    r = rows[-1]
    whole = all(row["completed"] == row["n_trials"] and not row["errors"] for row in rows)
    lines = [
        "### EGPTSSampler against OptunaSearch's default sampler",
        "",
        f"{r['n_trials']} trials, {r['max_concurrent']} at a time (`ConcurrencyLimiter`), on a "
        "local Ray with 2 CPUs; regret: best value minus the minimum. EGPTSSampler has the lower "
        f"median on {better} of {len(body)} problems. "
        + ("Every run completed all its trials without an error. " if whole else "")
        + "Its model's suggestions: trials whose point its model chose (claims `by: model`); "
        "the rest are its random start-up (13: 3 trials are asked before 10 have completed), "
        "random free points where two of the model's points were taken by running trials, and "
        "trials whose parameters were all sampled independently. Seconds: the whole run, Ray's "
        "start of each trial included.",
        "",
        *markdown_table(header, body),
        "",
        provenance_line(rows),
    ]
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--problems", default=",".join(PROBLEMS))
    parser.add_argument("--samplers", default=",".join(SAMPLERS))
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--trials", type=int, default=60)
    parser.add_argument("--concurrent", type=int, default=4)
    a = parser.parse_args(argv)
    import ray

    out = ResultsFile(a.out)
    done = out.done(CELL)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        for seed in range(a.seeds):
            for problem in a.problems.split(","):
                for sampler in a.samplers.split(","):
                    cell = dict(
                        problem=problem,
                        sampler=sampler,
                        seed=seed,
                        n_trials=a.trials,
                        max_concurrent=a.concurrent,
                    )
                    if tuple(cell[f] for f in CELL) in done:
                        continue
                    row = run_study(problem, sampler, seed, a.trials, a.concurrent)
                    out.append({"bench": "ray_tune", **cell, **row})
                    print(problem, sampler, seed, row, flush=True)
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
