"""Dead-trial benchmark: a trial left RUNNING at the
optimum by a killed worker, with and without the timeout.

Full run (2 samplers x 3 conditions x 5 seeds x 40 trials, sequential, one core):
    python -m benchmarks.dead_trials --out benchmarks/results/dead_trials.jsonl

Smoke test (seconds; write outside ``results/``):
    python -m benchmarks.dead_trials --trials 14 --seeds 1 --sleep 0.01 --out /tmp/dead_smoke.jsonl

Background. A worker killed mid-trial leaves its trial RUNNING in the storage forever. The samplers
treat running trials as pending points (kriging-believer fantasies in ``EGPTSSampler``, observed
points in ``BORESampler``'s BORE++), so a dead trial at the optimum can steer a study away from the
optimum for good. ``running_trial_timeout`` decides when a running trial stops counting:
``"auto"`` (default; once 5 trials completed, older than max(30 s, 10 x 90th percentile of completed
durations), see ``optuna_egp._timeouts.stale_after_seconds``), a number of seconds, or ``None``
(always pending: the behaviour before the option existed).

Problem: Hartmann-6 on [0, 1]^6 (``benchmarks/functions.py``; minimum -3.32237 at ``H6_ARGMIN``),
float parameters x0..x5, minimised. ``study.optimize(objective, n_trials=--trials)`` (default 40),
sequential (``n_jobs=1``); the objective sleeps ``--sleep`` seconds (default 0.3) and returns
hartmann6(x), so completed trials have realistic durations for the "auto" rule.

Conditions (for each sampler and seed):
    clean      no dead trial; ``running_trial_timeout`` left at its default ("auto")
    dead-none  a dead trial at the optimum; ``running_trial_timeout=None`` (old behaviour)
    dead-auto  a dead trial at the optimum; default ``"auto"``
The dead trial is added before the study starts with ``study.add_trial(FrozenTrial(state=RUNNING,
datetime_start=now - --dead-age (default 60 s), datetime_complete=None, params=H6_ARGMIN,
distributions=six FloatDistribution(0, 1)))``: a trial whose worker was killed a minute ago. With
the defaults, "auto" drops it once 5 trials have completed (it is older than the rule's 30 s floor),
before the first model-based suggestion (``n_startup_trials=10``), so ``dead-auto`` should repeat
``clean`` exactly; ``--dead-age`` below 30 s keeps it pending for a while (the floor of the rule).
The storage holds exactly what a killed process leaves behind; ``tests/optuna/test_workers.py``
(``test_a_killed_workers_trial_stops_counting_as_pending``) kills a real worker with SIGKILL on an
SQLite storage and checks the sampler's view of that trial.

Samplers (``--samplers``, default ``egp-auto,bore++``): names of ``harness/samplers.py`` (e.g.
``egp-auto``, ``egp-ts``, ``egp-ei``, ``bore++``, ``bore``), each given ``running_trial_timeout``
of its condition. Seeds ``--first-seed`` .. ``--first-seed + --seeds - 1`` (default 0..4).

Recorded per run (one JSON line appended to ``--out``): ``regret`` after each trial (best value so
far - known minimum), ``final_regret``, ``distance`` of each evaluated point to the minimiser,
``wall_seconds`` of ``study.optimize``, ``sampler_seconds`` (time inside ``sample_relative``),
``model_asks`` (asks whose suggestion came from the model, ``harness.probes``);
``dead_pending``, per ask, whether the sampler's rule still counted the dead trial as pending at
that moment (its age <= ``stale_after_seconds(trials, timeout)``); at the end ``dead_age_seconds``,
``stale_after_seconds`` under the sampler's rule and under "auto", and ``dead_pending_at_end``;
plus the provenance of ``harness/provenance.py``.
Runs are resumable: a run already in ``--out`` for the same sampler, condition, seed, commit,
``--trials``, ``--sleep`` and ``--dead-age`` is skipped (``--force`` runs it again).
``summarise(rows)`` gives the Markdown tables (printed at the end; for ``report.py``).

Runs go one after another in one process (threads pinned by ``benchmarks/__init__``): do not
run alongside other timing benchmarks (``wall_seconds`` would suffer, regret not).
"""

from __future__ import annotations

import argparse
import datetime
import math
import time
from collections import defaultdict

import numpy as np
import optuna
from optuna.distributions import FloatDistribution
from optuna.trial import FrozenTrial, TrialState

from benchmarks.functions import FUNCTIONS, hartmann6
from benchmarks.harness.probes import ModelProbe
from benchmarks.harness.provenance import commit
from benchmarks.harness.results import RESULTS, ResultsFile
from benchmarks.harness.samplers import LABELS, make_sampler, ordered
from benchmarks.harness.tables import provenance_line

BENCH = "dead_trials"
F_MIN = FUNCTIONS["hartmann6"][2]  # -3.32237
# Minimiser of Hartmann-6 (Surjanovic & Bingham, Virtual Library of Simulation Experiments).
H6_ARGMIN = np.array([0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573])
NAMES = [f"x{i}" for i in range(6)]
# default --dead-age: the dead trial's worker was killed this long before the study
DEAD_AGE_SECONDS = 60.0

# condition -> (dead trial added?, running_trial_timeout)
CONDITIONS = {"clean": (False, "auto"), "dead-none": (True, None), "dead-auto": (True, "auto")}
DEFAULT_SAMPLERS = "egp-auto,bore++"
KEY_FIELDS = ("sampler", "condition", "seed", "commit", "n_trials", "sleep", "dead_age_at_start")


# ----------------------------------------------------------------------------- the rule
def stale_after(trials: list[FrozenTrial], timeout) -> float:
    """Seconds after which the samplers' ``running_trial_timeout`` rule stops counting a running
    trial as pending (``math.inf``: never). The package has no public API for the rule itself,
    so this is the one place that imports it from its private module."""
    from optuna_egp._timeouts import stale_after_seconds

    return stale_after_seconds(trials, timeout)


def _age(trial: FrozenTrial) -> float:
    """Seconds since ``trial`` started, on the clock
    Optuna stamps trials with (naive local time)."""
    return (datetime.datetime.now() - trial.datetime_start).total_seconds()


# ----------------------------------------------------------------------------- one run
def add_dead_trial(study: optuna.Study, age: float) -> FrozenTrial:
    """A RUNNING trial at the minimiser, started ``age`` seconds ago, that will never finish."""
    start = datetime.datetime.now() - datetime.timedelta(seconds=age)
    study.add_trial(
        FrozenTrial(
            number=0,
            trial_id=0,
            state=TrialState.RUNNING,
            value=None,
            datetime_start=start,
            datetime_complete=None,
            params=dict(zip(NAMES, map(float, H6_ARGMIN))),
            distributions={n: FloatDistribution(0.0, 1.0) for n in NAMES},
            user_attrs={},
            system_attrs={},
            intermediate_values={},
        )
    )
    (dead,) = study.get_trials(states=(TrialState.RUNNING,))
    assert dead.datetime_start == start, "add_trial did not keep the start time"
    return dead


def make_objective(sleep: float):
    def objective(trial: optuna.Trial) -> float:
        x = np.array([trial.suggest_float(n, 0.0, 1.0) for n in NAMES])
        time.sleep(sleep)
        return hartmann6(x)

    return objective


def run_one(
    sampler_name: str,
    condition: str,
    seed: int,
    n_trials: int,
    sleep: float,
    dead_age: float = DEAD_AGE_SECONDS,
) -> dict:
    with_dead, timeout = CONDITIONS[condition]
    sampler = make_sampler(sampler_name, seed=seed, running_trial_timeout=timeout)
    study = optuna.create_study(sampler=sampler, direction="minimize")
    dead = add_dead_trial(study, dead_age) if with_dead else None
    pending: list[bool] = []  # at each ask: does the rule count the dead trial as pending?

    def on_ask(study: optuna.Study) -> None:
        if dead is not None:
            pending.append(_age(dead) <= stale_after(study.get_trials(deepcopy=False), timeout))

    probe = ModelProbe(sampler, on_ask=on_ask)
    t0 = time.perf_counter()
    study.optimize(make_objective(sleep), n_trials=n_trials, n_jobs=1)
    wall = time.perf_counter() - t0
    row = {
        "bench": BENCH,
        "function": "hartmann6",
        "sampler": sampler_name,
        "condition": condition,
        "seed": seed,
        "n_trials": n_trials,
        "sleep": sleep,
        "dead_age_at_start": dead_age,
        "running_trial_timeout": timeout,
        "config": {"sampler": sampler_name, "options": {"running_trial_timeout": timeout}},
        **_trajectory(study),
        "wall_seconds": wall,
        "seconds_per_trial": wall / n_trials,
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
    """Regret after each completed trial (in trial order)
    and each point's distance to the minimiser."""
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


# ----------------------------------------------------------------------------- summary
def summarise(rows: list[dict]) -> list[str]:
    """Markdown: one table per sampler, one line per condition (median final regret,
    min-max, seeds, how long the dead trial counted as pending, seconds per trial), with the
    rows' commits and dates.

    Uses the rows with the same ``n_trials``, ``sleep`` and ``dead_age_at_start`` as the last
    row, and the latest row of each (sampler, condition, seed): rows are appended in time order.
    """
    rows = [r for r in rows if r.get("bench") == BENCH]
    if not rows:
        return []
    last = rows[-1]
    latest = {}
    for r in rows:
        if all(r.get(k) == last.get(k) for k in ("n_trials", "sleep", "dead_age_at_start")):
            latest[(r["sampler"], r["condition"], r["seed"])] = r
    cells = defaultdict(list)
    for (sampler, condition, _), r in sorted(latest.items(), key=lambda kv: kv[0][2]):  # by seed
        cells[(sampler, condition)].append(r)
    lines = _intro(last)
    for sampler in ordered(s for s, _ in cells):
        lines += _sampler_table(
            sampler, [(c, cells[(sampler, c)]) for c in CONDITIONS if (sampler, c) in cells]
        )
    return lines


def _intro(last: dict) -> list[str]:
    age = last.get("dead_age_at_start", DEAD_AGE_SECONDS)
    return [
        f"### Dead trial at the optimum (Hartmann-6, {last['n_trials']} trials, objective "
        f"{last['sleep']} s)",
        "",
        f"A trial left RUNNING at the minimiser (its worker killed {age:g} s before the study "
        "starts). `clean`: no dead trial; `dead-none`: `running_trial_timeout=None` (it stays "
        'pending, the old behaviour); `dead-auto`: the default `"auto"`. Regret = best value '
        "- known minimum after the last trial. Pending asks: median number of asks at which the "
        "sampler counted the dead trial as pending.",
        "",
    ]


def _sampler_table(sampler: str, cells: list[tuple[str, list[dict]]]) -> list[str]:
    label = LABELS.get(sampler, sampler)
    lines = [
        f"#### {label} (`{sampler}`)",
        "",
        "| condition | median final regret | min-max | seeds | pending asks (median) | pending at "
        "end | s/trial (median) |",
        "|---|---|---|---|---|---|---|",
    ]
    for condition, rs in cells:
        final = [r["final_regret"] for r in rs]
        dead = [r for r in rs if "dead_pending" in r]
        asks = (
            f"{np.median([sum(r['dead_pending']) for r in dead]):.3g} of {rs[0]['n_trials']}"
            if dead
            else "-"
        )
        at_end = f"{sum(r['dead_pending_at_end'] for r in dead)}/{len(dead)}" if dead else "-"
        lines.append(
            f"| {condition} | {np.median(final):.3g} | {min(final):.3g}-{max(final):.3g} | "
            f"{len(rs)} | {asks} | {at_end} | "
            f"{np.median([r['seconds_per_trial'] for r in rs]):.3g} |"
        )
    all_rows = [r for _, rs in cells for r in rs]
    return lines + ["", provenance_line(all_rows), ""]


# ----------------------------------------------------------------------------- main
def main(argv=None) -> None:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.dead_trials",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--samplers", default=DEFAULT_SAMPLERS, help=f"comma-separated (default {DEFAULT_SAMPLERS})"
    )
    p.add_argument(
        "--conditions", default=",".join(CONDITIONS), help="comma-separated (default all three)"
    )
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument(
        "--first-seed", type=int, default=0, help="seeds are first-seed .. first-seed + seeds - 1"
    )
    p.add_argument("--trials", type=int, default=40)
    p.add_argument("--sleep", type=float, default=0.3, help="seconds each objective call sleeps")
    p.add_argument(
        "--dead-age",
        type=float,
        default=DEAD_AGE_SECONDS,
        help="seconds between the worker's death and the study's start (default 60)",
    )
    p.add_argument("--out", default=str(RESULTS / "dead_trials.jsonl"))
    p.add_argument("--force", action="store_true", help="run again the runs already in --out")
    a = p.parse_args(argv)
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    samplers = [n for n in a.samplers.split(",") if n]
    conditions = [n for n in a.conditions.split(",") if n]
    for name in samplers:  # a bad name fails now, not after minutes of other runs
        make_sampler(name, seed=0)
    bad = sorted(set(conditions) - set(CONDITIONS))
    if bad:
        p.error(f"unknown conditions {', '.join(bad)}; known: {', '.join(CONDITIONS)}")
    out = ResultsFile(a.out)
    done = set() if a.force else out.done(KEY_FIELDS)
    cell = {
        "commit": commit(),
        "n_trials": a.trials,
        "sleep": a.sleep,
        "dead_age_at_start": a.dead_age,
    }
    jobs = [
        {"sampler": s, "condition": c, "seed": seed, **cell}
        for seed in range(a.first_seed, a.first_seed + a.seeds)  # seeds outermost
        for s in samplers
        for c in conditions
    ]
    todo = [j for j in jobs if tuple(j[f] for f in KEY_FIELDS) not in done]
    print(f"{len(todo)} runs to do ({len(jobs) - len(todo)} already in {out.path})", flush=True)
    for j in todo:
        row = out.append(
            run_one(j["sampler"], j["condition"], j["seed"], a.trials, a.sleep, a.dead_age)
        )
        extra = (
            f", dead pending at {sum(row['dead_pending'])} asks" if "dead_pending" in row else ""
        )
        print(
            f"{j['sampler']} {j['condition']} seed={j['seed']}: regret {row['final_regret']:.4g}, "
            f"{row['wall_seconds']:.1f} s{extra}",
            flush=True,
        )
    print("\n".join(summarise(out.rows())))


if __name__ == "__main__":
    main()
