"""A trial left RUNNING at the optimum by a killed worker, with and without the samplers'
``running_trial_timeout`` (docs/benchmarks/index.md). Runs go one after another in one process.

    python -m benchmarks.dead_trials --out benchmarks/results/dead_trials.jsonl
"""

from __future__ import annotations

import argparse
import datetime
import math
import time

import numpy as np
import optuna
from optuna.distributions import FloatDistribution
from optuna.trial import FrozenTrial, TrialState

from benchmarks.functions import FUNCTIONS, hartmann6
from benchmarks.harness.probes import ModelProbe
from benchmarks.harness.results import RESULTS, ResultsFile, latest, same_setting
from benchmarks.harness.runner import run_jobs
from benchmarks.harness.samplers import LABELS, make_sampler, ordered
from benchmarks.harness.tables import markdown_table, provenance_line

BENCH = "dead_trials"
F_MIN = FUNCTIONS["hartmann6"][2]  # -3.32237
# Minimiser of Hartmann-6 (Surjanovic & Bingham, Virtual Library of Simulation Experiments).
H6_ARGMIN = np.array([0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573])
NAMES = [f"x{i}" for i in range(6)]
DEAD_AGE_SECONDS = 60.0  # default --dead-age: the dead trial's worker was killed this long ago
# condition -> (dead trial added?, running_trial_timeout)
CONDITIONS = {"clean": (False, "auto"), "dead-none": (True, None), "dead-auto": (True, "auto")}
SETTING = ("n_trials", "sleep", "dead_age_at_start")
CELL = ("condition", "seed", *SETTING)  # with the sampler and the commit: a run's key


def stale_after(trials: list[FrozenTrial], timeout) -> float:
    """Seconds after which the samplers' ``running_trial_timeout`` rule stops counting a running
    trial as pending (``math.inf``: never). The package has no public API for the rule itself,
    so this is the one place that imports it from its private module."""
    from optuna_egp._timeouts import stale_after_seconds

    return stale_after_seconds(trials, timeout)


def _age(trial: FrozenTrial) -> float:
    """Seconds since ``trial`` started, on the clock Optuna stamps trials with (naive local)."""
    return (datetime.datetime.now() - trial.datetime_start).total_seconds()


def add_dead_trial(study: optuna.Study, age: float) -> FrozenTrial:
    """A RUNNING trial at the minimiser, started ``age`` seconds ago, that will never finish."""
    trial = optuna.trial.create_trial(
        state=TrialState.RUNNING,
        params=dict(zip(NAMES, map(float, H6_ARGMIN))),
        distributions={n: FloatDistribution(0.0, 1.0) for n in NAMES},
    )
    trial.datetime_start = start = datetime.datetime.now() - datetime.timedelta(seconds=age)
    study.add_trial(trial)
    (dead,) = study.get_trials(states=(TrialState.RUNNING,))
    assert dead.datetime_start == start, "add_trial did not keep the start time"
    return dead


def run_one(job: dict) -> dict:
    """One study of the ``job``: its sampler and the ``CELL`` fields."""
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    with_dead, timeout = CONDITIONS[job["condition"]]
    sampler = make_sampler(job["sampler"], seed=job["seed"], running_trial_timeout=timeout)
    study = optuna.create_study(sampler=sampler, direction="minimize")
    dead = add_dead_trial(study, job["dead_age_at_start"]) if with_dead else None
    pending: list[bool] = []  # at each ask: does the rule count the dead trial as pending?

    def on_ask(study: optuna.Study) -> None:
        if dead is not None:
            pending.append(_age(dead) <= stale_after(study.get_trials(deepcopy=False), timeout))

    def objective(trial: optuna.Trial) -> float:
        x = np.array([trial.suggest_float(n, 0.0, 1.0) for n in NAMES])
        time.sleep(job["sleep"])
        return hartmann6(x)

    probe = ModelProbe(sampler, on_ask=on_ask)
    t0 = time.perf_counter()
    study.optimize(objective, n_trials=job["n_trials"], n_jobs=1)
    wall = time.perf_counter() - t0
    row = {
        "bench": BENCH,
        "function": "hartmann6",
        **{k: job[k] for k in ("sampler", "condition", "seed", *SETTING)},
        "running_trial_timeout": timeout,
        "config": {"sampler": job["sampler"], "options": {"running_trial_timeout": timeout}},
        **_trajectory(study),
        "wall_seconds": wall,
        "seconds_per_trial": wall / job["n_trials"],
        "sampler_seconds": sum(probe.relative_seconds),
        **({"model_asks": probe.model_asks} if probe.model_asks is not None else {}),
    }
    if dead is not None:
        trials = study.get_trials(deepcopy=False)
        rule, auto = stale_after(trials, timeout), stale_after(trials, "auto")
        age = _age(dead)
        row.update(
            dead_pending=pending,
            dead_age_seconds=age,
            stale_after_seconds=_finite(rule),
            stale_after_seconds_auto=_finite(auto),
            dead_pending_at_end=age <= rule,
            dead_still_running=study.trials[dead.number].state == TrialState.RUNNING,
        )
    return row


def _trajectory(study: optuna.Study) -> dict:
    """Regret after each completed trial (in trial order) and each point's distance to the
    minimiser."""
    done = sorted(
        study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)), key=lambda t: t.number
    )
    values = np.array([t.value for t in done], dtype=float)
    X = np.array([[t.params[n] for n in NAMES] for t in done])
    regret = np.minimum.accumulate(values) - F_MIN
    return {
        "n_complete": len(done),
        "regret": regret.tolist(),
        "final_regret": float(regret[-1]),
        "distance": np.linalg.norm(X - H6_ARGMIN, axis=1).tolist(),
    }


def _finite(x: float) -> float | None:
    return None if math.isinf(x) else float(x)  # JSON has no infinity: None = never stale


def summarise(rows: list[dict]) -> list[str]:
    """Markdown: a table per sampler, a line per condition, of the latest row of each (sampler,
    condition, seed) with the last row's setting."""
    rows = same_setting([r for r in rows if r.get("bench") == BENCH], SETTING)
    if not rows:
        return []
    cells: dict = {}
    for r in sorted(latest(rows, ("sampler", "condition", "seed")), key=lambda r: r["seed"]):
        cells.setdefault((r["sampler"], r["condition"]), []).append(r)
    age = rows[-1].get("dead_age_at_start", DEAD_AGE_SECONDS)
    lines = [
        f"### Dead trial at the optimum (Hartmann-6, {rows[-1]['n_trials']} trials, objective "
        f"{rows[-1]['sleep']} s)",
        "",
        f"A trial left RUNNING at the minimiser (its worker killed {age:g} s before the study "
        "starts). `clean`: no dead trial; `dead-none`: `running_trial_timeout=None` (it stays "
        'pending, the old behaviour); `dead-auto`: the default `"auto"`. Regret = best value '
        "- known minimum after the last trial. Pending asks: median number of asks at which the "
        "sampler counted the dead trial as pending.",
        "",
    ]
    for sampler in ordered(s for s, _ in cells):
        shown = [(c, cells[(sampler, c)]) for c in CONDITIONS if (sampler, c) in cells]
        header = ["condition", "median final regret", "min-max", "seeds", "pending asks (median)"]
        header += ["pending at end", "s/trial (median)"]
        body = [_condition_cells(condition, rs) for condition, rs in shown]
        lines += [f"#### {LABELS.get(sampler, sampler)} (`{sampler}`)", ""]
        lines += markdown_table(header, body)
        lines += [provenance_line([r for _, rs in shown for r in rs]), ""]
    return lines


def _condition_cells(condition: str, rs: list[dict]) -> list[str]:
    final = [r["final_regret"] for r in rs]
    dead = [r for r in rs if "dead_pending" in r]
    asks, at_end = "-", "-"
    if dead:
        asks = f"{np.median([sum(r['dead_pending']) for r in dead]):.3g} of {rs[0]['n_trials']}"
        at_end = f"{sum(r['dead_pending_at_end'] for r in dead)}/{len(dead)}"
    spread = f"{min(final):.3g}-{max(final):.3g}"
    seconds = f"{np.median([r['seconds_per_trial'] for r in rs]):.3g}"
    return [condition, f"{np.median(final):.3g}", spread, len(rs), asks, at_end, seconds]


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.dead_trials", description=__doc__)
    p.add_argument("--samplers", default="egp-auto,bore++", help="comma-separated")
    p.add_argument("--conditions", default=",".join(CONDITIONS), help="comma-separated")
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--first-seed", type=int, default=0)
    p.add_argument("--trials", type=int, default=40)
    p.add_argument("--sleep", type=float, default=0.3, help="seconds each objective call sleeps")
    p.add_argument("--dead-age", type=float, default=DEAD_AGE_SECONDS, help="seconds before start")
    p.add_argument("--out", default=str(RESULTS / "dead_trials.jsonl"))
    a = p.parse_args(argv)
    samplers = [n for n in a.samplers.split(",") if n]
    conditions = [n for n in a.conditions.split(",") if n]
    for name in samplers:  # a bad name fails now, not after minutes of other runs
        make_sampler(name, seed=0)
    if bad := sorted(set(conditions) - set(CONDITIONS)):
        p.error(f"unknown conditions {', '.join(bad)}; known: {', '.join(CONDITIONS)}")
    setting = {"n_trials": a.trials, "sleep": a.sleep, "dead_age_at_start": a.dead_age}
    jobs = [
        {"sampler": s, "condition": c, "seed": seed, **setting}
        for seed in range(a.first_seed, a.first_seed + a.seeds)  # seeds outermost
        for s in samplers
        for c in conditions
    ]
    out = ResultsFile(a.out)
    run_jobs(jobs, run_one, out=out, cell=CELL, describe=_describe)
    print("\n".join(summarise(out.rows())))


def _describe(row: dict) -> str:
    extra = f", dead pending at {sum(row['dead_pending'])} asks" if "dead_pending" in row else ""
    return (
        f"{row['sampler']} {row['condition']} seed={row['seed']}: regret "
        f"{row['final_regret']:.4g}, {row['wall_seconds']:.1f} s{extra}"
    )


if __name__ == "__main__":
    main()
