"""Load and faults: worker processes on one RDB study
with heartbeats, SIGKILLed mid-trial and restarted.

    python -m benchmarks.stress run --url postgresql+psycopg2://egp:egp@127.0.0.1:5432/egp \\
        --samplers egp-auto,bore++,dts-complete --spaces continuous,discrete --repeats 3
    python -m benchmarks.stress orphans --url ...
        (kills every 0.2-0.5 s; counts trials left RUNNING)

One study per (sampler, space, repeat, kills on/off): ``--workers`` (8) processes (the
``worker`` sub-command, :func:`worker`) run ``study.optimize`` on Hartmann-6, continuous or on a
64-point grid (``SPACES``; the objective sleeps 0.2-0.6 s), until ``--trials`` (60) trials
completed (``MaxTrialsCallback``); the storage has ``heartbeat_interval=1`` and
``grace_period=3``. With kills on, every 1-3 s
(``default_rng(repeat)``) a random worker is SIGKILLed and started again with the same agent
id (samplers of ``harness/samplers.py``, seeded with the agent id; ``dts-*`` agents are the
worker slots). Afterwards the parent waits out the grace period and calls
``optuna.storages.fail_stale_trials``; then it records the trial states, how many trials ran at
the same time as another, how many of those pairs had the same point and the smallest distance
between two concurrent trials' points, and the best regret. ``check(...)`` is what the CI test
asserts: every trial COMPLETE or FAIL, none RUNNING, FAIL count at most the number of kills, no
two concurrent trials with the same point, and on the continuous space none closer than 1e-6.
Rows (with provenance) go to ``--out``; a study already there at the current commit (same
sampler, space, repeat, kills on/off, workers and ``--trials``) is skipped, so an interrupted run
resumes (``--force`` runs it again). ``summarise(rows)`` gives the report's table.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import tempfile
import time

from benchmarks.functions import FUNCTIONS, hartmann6
from benchmarks.harness.provenance import commit
from benchmarks.harness.results import RESULTS, ResultsFile, key
from benchmarks.harness.samplers import make_sampler
from benchmarks.harness.tables import provenance_line
from benchmarks.harness.workers import start_worker

HARTMANN6_MIN = FUNCTIONS["hartmann6"][2]
SAMPLERS = ("egp-auto", "bore++", "dts-complete")
# Names in rows written before the sampler registry: ``egp-ts`` was ``EGPTSSampler()`` (its
# default acquisition, "auto"), ``dts`` the complete graph.
OLD_NAMES = {"egp-ts": "egp-auto", "dts": "dts-complete"}
# The objective's search space: "continuous" (Hartmann-6 on [0, 1]^6) or "discrete" (Hartmann-6
# with its first three coordinates on a 4-point grid, the rest fixed at 0.5: 64 points).
SPACES = ("continuous", "discrete")
GRID = 4
HEARTBEAT = {"heartbeat_interval": 1, "grace_period": 3}
# A study of ``run``: with the commit, the key of its row.
RUN_KEY = ("sampler", "space", "repeat", "with_kills", "workers", "target_trials", "commit")


def worker(spec: dict) -> None:
    """One worker process: ``study.optimize`` on the study of ``spec`` until ``spec["trials"]``
    trials completed, as agent ``spec["agent"]`` (its ``spec["start"]``-th start)."""
    import numpy as np
    import optuna
    from optuna.study import MaxTrialsCallback
    from optuna.trial import TrialState

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    storage = optuna.storages.RDBStorage(spec["url"], **HEARTBEAT)
    agent = spec["agent"]
    sampler = make_sampler(spec["sampler"], seed=agent, agent=agent, n_agents=spec["workers"])
    study = optuna.load_study(study_name=spec["study"], storage=storage, sampler=sampler)
    rng = np.random.default_rng(agent + 1000 * spec["start"])

    def objective(trial):
        x = point(trial, spec["space"])
        time.sleep(rng.uniform(*spec["trial_seconds"]))
        return float(hartmann6(x))

    done = MaxTrialsCallback(spec["trials"], states=(TrialState.COMPLETE,))
    study.optimize(objective, callbacks=[done])


def point(trial, space: str):
    """The ``(6,)`` Hartmann-6 input of ``trial`` in ``space`` (see ``SPACES``)."""
    import numpy as np

    if space == "continuous":
        return np.array([trial.suggest_float(f"x{i}", 0.0, 1.0) for i in range(6)])
    grid = [trial.suggest_int(f"x{i}", 0, GRID - 1) for i in range(3)]
    return np.array([g / (GRID - 1) for g in grid] + [0.5, 0.5, 0.5])


def minimum(space: str) -> float:
    """The objective's minimum over ``space``."""
    import itertools

    import numpy as np

    if space == "continuous":
        return HARTMANN6_MIN
    grid = itertools.product(range(GRID), repeat=3)
    return min(
        float(hartmann6(np.array([g / (GRID - 1) for g in p] + [0.5, 0.5, 0.5]))) for p in grid
    )


def run_study(
    url: str,
    study_name: str,
    sampler: str,
    *,
    space: str = "continuous",
    workers: int = 8,
    trials: int = 60,
    kills: bool = True,
    seed: int = 0,
    trial_seconds: tuple[float, float] = (0.2, 0.6),
    kill_every: tuple[float, float] = (1.0, 3.0),
    timeout: float = 600.0,
) -> dict:
    """Run one study with ``workers`` processes (killing
    and restarting them if ``kills``); return its row."""
    import numpy as np
    import optuna

    make_sampler(sampler, seed=0, n_agents=workers)  # a bad name fails here, not in the workers
    verbosity = optuna.logging.get_verbosity()  # restored: the caller may be a test session
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    storage = optuna.storages.RDBStorage(url, **HEARTBEAT)
    study = optuna.create_study(study_name=study_name, storage=storage, load_if_exists=True)
    optuna.logging.set_verbosity(verbosity)
    rng = np.random.default_rng(seed)
    starts = [0] * workers

    def start(agent: int) -> subprocess.Popen:
        spec = {
            "url": url,
            "study": study_name,
            "sampler": sampler,
            "agent": agent,
            "workers": workers,
            "start": starts[agent],
            "trial_seconds": list(trial_seconds),
            "trials": trials,
            "space": space,
        }
        starts[agent] += 1
        # a file, not a pipe: a full pipe would block the worker
        log = tempfile.TemporaryFile(mode="w+")
        proc = start_worker(
            "stress", "worker", json.dumps(spec), stdout=subprocess.DEVNULL, stderr=log, text=True
        )
        proc.log = log
        return proc

    procs = [start(agent) for agent in range(workers)]
    n_kills, deadline = 0, time.monotonic() + timeout
    next_kill = time.monotonic() + rng.uniform(*kill_every)
    while any(p.poll() is None for p in procs):
        if time.monotonic() > deadline:
            for p in procs:
                p.kill()
            raise TimeoutError(
                f"{sampler}: the workers did not finish {trials} trials in {timeout:.0f} s"
            )
        # no kills once done
        if kills and time.monotonic() >= next_kill and _n_complete(study) < trials:
            alive = [i for i, p in enumerate(procs) if p.poll() is None]
            if alive:
                agent = int(rng.choice(alive))
                os.kill(procs[agent].pid, signal.SIGKILL)
                procs[agent].wait()
                n_kills += 1
                procs[agent] = start(agent)  # the same agent again
            next_kill = time.monotonic() + rng.uniform(*kill_every)
        time.sleep(0.05)
    errors = [_read(p.log) for p in procs if p.returncode not in (0, -signal.SIGKILL)]
    if errors:
        raise RuntimeError(f"{sampler}: a worker failed:\n{errors[0][-3000:]}")
    time.sleep(4.5)  # past the grace period: trials of killed workers are stale now
    optuna.storages.fail_stale_trials(study)
    return {
        "sampler": sampler,
        "space": space,
        "workers": workers,
        "kills": n_kills,
        **describe(study.get_trials(deepcopy=False), minimum(space)),
    }


def _n_complete(study) -> int:
    from optuna.trial import TrialState

    return len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))


def _read(log) -> str:
    log.seek(0)
    return log.read()


def describe(trials, best_value: float = HARTMANN6_MIN) -> dict:
    """States, concurrency (pairs of trials that ran at the same time, how many of them had the same
    point, the smallest distance between their points) and best regret of a finished study's
    trials."""
    import itertools

    import numpy as np
    from optuna.trial import TrialState

    states = {s.name: sum(t.state == s for t in trials) for s in TrialState}
    names = max((sorted(t.params) for t in trials), key=len, default=[])
    with_params = [
        t for t in trials if sorted(t.params) == names and names and t.datetime_start is not None
    ]
    closest, n_pairs, n_identical = float("inf"), 0, 0
    for a, b in itertools.combinations(with_params, 2):
        end_a = a.datetime_complete or a.datetime_start
        end_b = b.datetime_complete or b.datetime_start
        if a.datetime_start < end_b and b.datetime_start < end_a:  # they ran at the same time
            n_pairs += 1
            xa = np.array([a.params[name] for name in names], dtype=float)
            xb = np.array([b.params[name] for name in names], dtype=float)
            closest = min(closest, float(np.linalg.norm(xa - xb)))
            n_identical += bool(np.all(xa == xb))
    values = [t.value for t in trials if t.state == TrialState.COMPLETE]
    return {
        "states": states,
        "n_trials": len(trials),
        "concurrent_pairs": n_pairs,
        "identical_concurrent_pairs": n_identical,
        "min_concurrent_distance": closest,
        "best_regret": (min(values) - best_value) if values else None,
    }


def check(row: dict) -> list[str]:
    """What must hold after a run with kills (empty if all holds)."""
    problems = []
    states = row["states"]
    if states.get("RUNNING", 0) or states.get("WAITING", 0):
        problems.append(f"trials left RUNNING/WAITING: {states}")
    if set(k for k, v in states.items() if v) - {"COMPLETE", "FAIL"}:
        problems.append(f"unexpected states: {states}")
    if states.get("FAIL", 0) > row["kills"]:
        problems.append(f"{states['FAIL']} failed trials but only {row['kills']} kills")
    if row.get("identical_concurrent_pairs"):
        problems.append(
            f"{row['identical_concurrent_pairs']} pairs of concurrent trials had the same point"
        )
    elif (
        row["concurrent_pairs"]
        and row.get("space", "continuous") == "continuous"
        and not row["min_concurrent_distance"] > 1e-6
    ):
        problems.append(f"two concurrent trials {row['min_concurrent_distance']:.2e} apart")
    return problems


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.stress",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = ap.add_subparsers(dest="command", required=True)
    rp = sub.add_parser("run")
    rp.add_argument("--url", required=True)
    rp.add_argument("--samplers", default=",".join(SAMPLERS))
    rp.add_argument("--repeats", type=int, default=3)
    rp.add_argument("--workers", type=int, default=8)
    rp.add_argument("--trials", type=int, default=60)
    rp.add_argument("--spaces", default=",".join(SPACES))
    rp.add_argument("--out", default=str(RESULTS / "stress.jsonl"))
    rp.add_argument("--force", action="store_true", help="run again the studies already in --out")
    op = sub.add_parser(
        "orphans", help="frequent kills, counting trials left RUNNING (no other checks)"
    )
    op.add_argument("--url", required=True)
    op.add_argument("--sampler", default="dts-complete")
    op.add_argument("--runs", type=int, default=4)
    wp = sub.add_parser("worker", help="one worker process (started by run)")
    wp.add_argument("spec", help="JSON")
    a = ap.parse_args(argv)
    if a.command == "worker":
        worker(json.loads(a.spec))
    elif a.command == "run":
        run(a)
    else:  # a kill every 0.2-0.5 s: how many trials does the heartbeat never fail?
        for seed in range(a.runs):
            row = run_study(
                a.url,
                f"orphans-{a.sampler}-{seed}-{time.time_ns()}",
                a.sampler,
                trials=80,
                seed=seed,
                trial_seconds=(0.2, 0.5),
                kill_every=(0.2, 0.5),
            )
            print(json.dumps({"kills": row["kills"], "states": row["states"]}), flush=True)


def run(a: argparse.Namespace) -> None:
    """The ``run`` sub-command: every study not yet in ``a.out`` at the current commit."""
    out = ResultsFile(a.out)
    done = set() if a.force else out.done(RUN_KEY)
    for repeat in range(a.repeats):
        for space in a.spaces.split(","):
            for sampler in a.samplers.split(","):
                for kills in (True, False):
                    cell = {
                        "sampler": sampler,
                        "space": space,
                        "repeat": repeat,
                        "with_kills": kills,
                        "workers": a.workers,
                        "target_trials": a.trials,
                    }
                    if key({**cell, "commit": commit()}, RUN_KEY) in done:
                        continue
                    kind = "kills" if kills else "clean"
                    name = f"stress-{sampler}-{space}-{repeat}-{kind}-{time.time_ns()}"
                    row = run_study(
                        a.url,
                        name,
                        sampler,
                        space=space,
                        workers=a.workers,
                        trials=a.trials,
                        kills=kills,
                        seed=repeat,
                    )
                    row.update(cell, problems=check(row))
                    print(json.dumps(out.append(row)), flush=True)


def summarise(rows: list[dict]) -> list[str]:
    """Markdown: per sampler and space, kills and failed trials, check results and median best
    regret with/without kills (the newest commit's runs of each)."""
    import itertools
    import statistics

    rows = [{**r, "sampler": OLD_NAMES.get(r["sampler"], r["sampler"])} for r in rows]
    if not rows:
        return []
    lines = [
        "### Load and faults: 8 workers on PostgreSQL, SIGKILLed and restarted",
        "",
        "| sampler | space | runs | kills (total) | failed trials (total) | identical concurrent "
        "points | closest concurrent points | checks | median best regret, kills / clean | "
        "ratio |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    shown = []
    samplers = list(SAMPLERS) + sorted({r["sampler"] for r in rows} - set(SAMPLERS))
    for sampler, space in itertools.product(samplers, SPACES):
        rs = [r for r in rows if r["sampler"] == sampler and r.get("space", "continuous") == space]
        if not rs:
            continue
        newest = max(rs, key=lambda r: r["date"])["commit"]
        rs = [r for r in rs if r["commit"] == newest]  # the newest code's runs of this cell
        shown += rs
        killed, clean = [r for r in rs if r["with_kills"]], [r for r in rs if not r["with_kills"]]
        med_k = statistics.median(r["best_regret"] for r in killed) if killed else float("nan")
        med_c = statistics.median(r["best_regret"] for r in clean) if clean else float("nan")
        problems = sum(len(r["problems"]) for r in rs)
        ratio = "both 0" if med_k == med_c == 0 else f"{med_k / med_c:.2f}" if med_c else "inf"
        lines.append(
            f"| {sampler} | {space} | {len(rs)} | {sum(r['kills'] for r in killed)} | "
            f"{sum(r['states'].get('FAIL', 0) for r in killed)} | "
            f"{sum(r.get('identical_concurrent_pairs', 0) for r in rs)} of "
            f"{sum(r['concurrent_pairs'] for r in rs)} pairs | "
            f"{min(r['min_concurrent_distance'] for r in rs):.2g} | "
            f"{'all hold' if not problems else f'{problems} problems'} | {med_k:.3g} / "
            f"{med_c:.3g} | {ratio} |"
        )
    repeats = sorted({r["repeat"] for r in shown})
    lines += [
        "",
        f"Target: ratio within 1.5. Runs: kills on and off, {len(repeats)} repeats each; per row "
        "the newest commit's runs. `benchmarks/stress.py`.",
        "",
        provenance_line(shown),
        "",
    ]
    return lines


if __name__ == "__main__":
    main()
