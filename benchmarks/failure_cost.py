"""What modelling failed trials costs a suggestion: the same stored trials replayed to
``EGPTSSampler`` with ``model_failures=True`` and ``False``.

    python -m benchmarks.failure_cost --seeds 3

Per problem of ``benchmarks.failure_functions`` with a crash region and seed, one run of
``EGPTSSampler`` (failures modelled, ``N_TRIALS`` trials, the first ``STARTUP_TRIALS`` random) is
stored. Then one sampler per setting, each in a study of its own, is handed the stored trials one
at a time (without the run's model records, with its failure marks) and, once ``STARTUP_TRIALS``
of them have completed, asks after each: a timed suggestion, whose trial is then failed without
our sampler's mark, so it is neither data nor pending. The sampler and its study persist, so its
models are updated between refits and its records written as in a running worker. The settings
take turns going first, in one process, so the ratio of their seconds is measured under the
same load.
"""

from __future__ import annotations

import argparse
import math
import time
import warnings

import numpy as np

from benchmarks.failure_functions import N_TRIALS, PROBLEMS
from benchmarks.harness.regret import STARTUP_TRIALS
from benchmarks.harness.results import RESULTS
from benchmarks.harness.runner import run_and_summarise
from benchmarks.harness.tables import markdown_table, provenance_line

CRASH_PROBLEMS = tuple(name for name, p in PROBLEMS.items() if not p.constraint_names)
CELL = ("function", "seed")
SETTINGS = {"modelled": True, "ignored": False}  # name: model_failures


def _stored_run(problem, seed: int, n_trials: int) -> list:
    """The trials of one run with failures modelled (a failing point returns NaN)."""
    import optuna

    from optuna_egp import EGPTSSampler

    study = optuna.create_study(sampler=EGPTSSampler(seed=seed, n_startup_trials=STARTUP_TRIALS))
    for _ in range(n_trials):
        trial = study.ask()
        x = np.array(
            [trial.suggest_float(f"x{i}", lo, hi) for i, (lo, hi) in enumerate(problem.bounds)]
        )
        study.tell(trial, math.nan if problem.fails(x) else problem.objective(x))
    return study.get_trials(deepcopy=True)


def without_records(trial):
    """``trial`` with only its failure mark among our system attributes (no model records)."""
    import optuna

    from optuna_egp._failures import FAILURE_KEY

    marks = {k: v for k, v in trial.system_attrs.items() if k == FAILURE_KEY}
    return optuna.trial.create_trial(
        state=trial.state,
        value=trial.value,
        params=trial.params,
        distributions=trial.distributions,
        system_attrs=marks,
    )


def run_one(job: dict) -> dict:
    import optuna

    from optuna_egp import EGPTSSampler
    from shared_core.models.constraint_models import FAILED

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.simplefilter("ignore")
    problem = PROBLEMS[job["function"]]
    stored = _stored_run(problem, job["seed"], job.get("n_trials", N_TRIALS))
    trials = [without_records(t) for t in stored]
    studies, seconds = {}, dict.fromkeys(SETTINGS, 0.0)
    for name, on in SETTINGS.items():
        sampler = EGPTSSampler(seed=job["seed"], n_startup_trials=STARTUP_TRIALS, model_failures=on)
        storage = optuna.storages.InMemoryStorage()
        # the second study object fails each timed trial without our sampler's mark, so the
        # replayed worker ignores it (as a dead worker's trial)
        studies[name] = (
            optuna.create_study(storage=storage, sampler=sampler, study_name=name),
            optuna.load_study(storage=storage, study_name=name),
        )
    asks, completed = 0, 0
    for k, stored_trial in enumerate(trials):
        completed += stored_trial.state == optuna.trial.TrialState.COMPLETE
        timed = completed >= STARTUP_TRIALS  # the model's suggestions, not the start-up's
        asks += timed
        for name in list(SETTINGS)[:: 1 if k % 2 else -1]:  # alternating which goes first
            study, other = studies[name]
            study.add_trial(stored_trial)
            if timed:
                start = time.perf_counter()
                trial = study.ask()
                for i, (lo, hi) in enumerate(problem.bounds):
                    trial.suggest_float(f"x{i}", lo, hi)
                seconds[name] += time.perf_counter() - start
                other.tell(trial.number, state=optuna.trial.TrialState.FAIL)
    failure_models = {
        name: FAILED in study.sampler.algorithm.constraint_models.models
        for name, (study, _) in studies.items()
    }
    return {
        "bench": "failure_cost",
        "sampler": "egp-auto",  # EGPTSSampler's defaults: the rows' fingerprint
        **job,
        "asks": asks,
        "n_failed": sum(t.state == optuna.trial.TrialState.FAIL for t in trials),
        "failure_model": failure_models,
        "seconds_per_ask": {name: s / max(asks, 1) for name, s in seconds.items()},
    }


def summarise(rows: list[dict]) -> list[str]:
    """Per problem: milliseconds per ask in each setting and their ratio, medians over seeds."""
    body = []
    for function in CRASH_PROBLEMS:
        # a run without a model-based ask (too many failures) times nothing
        rs = [r for r in rows if r["function"] == function and r["asks"]]
        if not rs:
            continue
        ms = {s: np.median([1000 * r["seconds_per_ask"][s] for r in rs]) for s in SETTINGS}
        ratio = np.median(
            [r["seconds_per_ask"]["modelled"] / r["seconds_per_ask"]["ignored"] for r in rs]
        )
        failed = np.median([r["n_failed"] for r in rs])
        body.append(
            [
                function,
                f"{failed:.0f}",
                f"{ms['modelled']:.1f}",
                f"{ms['ignored']:.1f}",
                f"{ratio:.2f}",
                str(len(rs)),
            ]
        )
    header = ["problem", "failed trials", "ms modelled", "ms ignored", "ratio", "seeds"]
    return [*markdown_table(header, body), "", provenance_line(rows)]


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.failure_cost", description=__doc__)
    p.add_argument("--functions", default=",".join(CRASH_PROBLEMS))
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--out", default=str(RESULTS / "failure_cost.jsonl"))
    a = p.parse_args(argv)
    functions = [name for name in a.functions.split(",") if name]
    if bad := sorted(set(functions) - set(CRASH_PROBLEMS)):
        p.error(f"unknown functions {', '.join(bad)}; known: {', '.join(CRASH_PROBLEMS)}")
    jobs = [
        {"sampler": "egp-auto", "function": f, "seed": seed}
        for seed in range(a.seeds)
        for f in functions
    ]
    run_and_summarise(
        jobs,
        run_one,
        out=a.out,
        cell=CELL,
        describe=lambda r: f"{r['function']} seed={r['seed']}",
        summarise=summarise,
    )


if __name__ == "__main__":
    main()
