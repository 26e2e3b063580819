"""Load and faults: worker processes on one RDB study with heartbeats, SIGKILLed mid-trial and
restarted (docs/benchmarks/index.md; ``check`` is what tests/optuna/test_stress.py asserts).

    python -m benchmarks.stress run --url postgresql+psycopg2://egp:egp@127.0.0.1:5432/egp \\
        --samplers egp-auto,bore++,dts-complete --spaces continuous,discrete --repeats 3
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import signal
import statistics
import subprocess
import tempfile
import time

import numpy as np
import optuna
from optuna.study import MaxTrialsCallback
from optuna.trial import TrialState

from benchmarks.functions import FUNCTIONS, hartmann6
from benchmarks.harness.results import RESULTS, ResultsFile
from benchmarks.harness.runner import run_jobs
from benchmarks.harness.samplers import make_sampler
from benchmarks.harness.tables import markdown_table, provenance_line
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
# A study of ``run``: with the sampler and the commit, the key of its row.
CELL = ("space", "repeat", "with_kills", "workers", "target_trials")


def worker(spec: dict) -> None:
    """One worker process: ``study.optimize`` on the study of ``spec`` until ``spec["trials"]``
    trials completed, as agent ``spec["agent"]`` (its ``spec["start"]``-th start)."""
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


def _grid_point(grid) -> np.ndarray:
    return np.array([g / (GRID - 1) for g in grid] + [0.5, 0.5, 0.5])


def point(trial, space: str) -> np.ndarray:
    """The ``(6,)`` Hartmann-6 input of ``trial`` in ``space`` (see ``SPACES``)."""
    if space == "continuous":
        return np.array([trial.suggest_float(f"x{i}", 0.0, 1.0) for i in range(6)])
    return _grid_point([trial.suggest_int(f"x{i}", 0, GRID - 1) for i in range(3)])


def minimum(space: str) -> float:
    """The objective's minimum over ``space``."""
    if space == "continuous":
        return HARTMANN6_MIN
    return min(float(hartmann6(_grid_point(g))) for g in itertools.product(range(GRID), repeat=3))


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
    """Run one study with ``workers`` processes (killing and restarting them if ``kills``);
    return its row."""
    make_sampler(sampler, seed=0, n_agents=workers)  # a bad name fails here, not in the workers
    verbosity = optuna.logging.get_verbosity()  # restored: the caller may be a test session
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    storage = optuna.storages.RDBStorage(url, **HEARTBEAT)
    study = optuna.create_study(study_name=study_name, storage=storage, load_if_exists=True)
    optuna.logging.set_verbosity(verbosity)
    rng = np.random.default_rng(seed)
    starts = [0] * workers
    spec = {"url": url, "study": study_name, "sampler": sampler, "workers": workers}
    spec |= {"trial_seconds": list(trial_seconds), "trials": trials, "space": space}

    def start(agent: int) -> subprocess.Popen:
        args = json.dumps({**spec, "agent": agent, "start": starts[agent]})
        starts[agent] += 1
        log = tempfile.TemporaryFile(mode="w+")  # a file, not a pipe: a full pipe would block
        proc = start_worker("stress", "worker", args, stdout=subprocess.DEVNULL, stderr=log)
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
                f"{sampler}: the workers did not finish {trials} trials in {timeout} s"
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
    return len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))


def _read(log) -> str:
    log.seek(0)
    return log.read()


def describe(trials, best_value: float = HARTMANN6_MIN) -> dict:
    """States, concurrency (pairs of trials that ran at the same time, how many of them had the
    same point, the smallest distance between their points) and best regret of a finished
    study's trials."""
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


def run_cell(job: dict) -> dict:
    """The row of the study of ``job`` (``url``, ``sampler`` and the ``CELL`` fields)."""
    kind = "kills" if job["with_kills"] else "clean"
    name = f"stress-{job['sampler']}-{job['space']}-{job['repeat']}-{kind}-{time.time_ns()}"
    row = run_study(
        job["url"],
        name,
        job["sampler"],
        space=job["space"],
        workers=job["workers"],
        trials=job["target_trials"],
        kills=job["with_kills"],
        seed=job["repeat"],
    )
    row.update({k: job[k] for k in ("sampler", *CELL)}, problems=check(row))
    return row


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.stress", description=__doc__)
    sub = ap.add_subparsers(dest="command", required=True)
    rp = sub.add_parser("run")
    rp.add_argument("--url", required=True)
    rp.add_argument("--samplers", default=",".join(SAMPLERS))
    rp.add_argument("--repeats", type=int, default=3)
    rp.add_argument("--workers", type=int, default=8)
    rp.add_argument("--trials", type=int, default=60)
    rp.add_argument("--spaces", default=",".join(SPACES))
    rp.add_argument("--out", default=str(RESULTS / "stress.jsonl"))
    sub.add_parser("worker", help="one worker process (started by run)").add_argument("spec")
    a = ap.parse_args(argv)
    if a.command == "worker":
        worker(json.loads(a.spec))
    else:
        run(a)


def run(a: argparse.Namespace) -> None:
    """The ``run`` sub-command: every study not yet in ``a.out`` at the current commit."""
    jobs = [
        {"url": a.url, "sampler": sampler, "space": space, "repeat": repeat, "with_kills": kills}
        | {"workers": a.workers, "target_trials": a.trials}
        for repeat in range(a.repeats)
        for space in a.spaces.split(",")
        for sampler in a.samplers.split(",")
        for kills in (True, False)
    ]
    run_jobs(jobs, run_cell, out=ResultsFile(a.out), cell=CELL, describe=json.dumps)


def summarise(rows: list[dict]) -> list[str]:
    """Markdown: per sampler and space, kills and failed trials, check results and median best
    regret with/without kills (the newest commit's runs of each)."""
    rows = [{**r, "sampler": OLD_NAMES.get(r["sampler"], r["sampler"])} for r in rows]
    if not rows:
        return []
    body, shown = [], []
    samplers = list(SAMPLERS) + sorted({r["sampler"] for r in rows} - set(SAMPLERS))
    for sampler, space in itertools.product(samplers, SPACES):
        rs = [r for r in rows if r["sampler"] == sampler and r.get("space", "continuous") == space]
        if rs:
            newest = max(rs, key=lambda r: r["date"])["commit"]
            shown += [r for r in rs if r["commit"] == newest]  # the newest code's runs of the cell
            body.append(_cells(sampler, space, [r for r in rs if r["commit"] == newest]))
    header = ["sampler", "space", "runs", "kills (total)", "failed trials (total)"]
    header += ["identical concurrent points", "closest concurrent points", "checks"]
    header += ["median best regret, kills / clean", "ratio"]
    return [
        "### Load and faults: 8 workers on PostgreSQL, SIGKILLed and restarted",
        "",
        *markdown_table(header, body),
        f"Target: ratio within 1.5. Runs: kills on and off, {len({r['repeat'] for r in shown})} "
        "repeats each; per row the newest commit's runs. `benchmarks/stress.py`.",
        "",
        provenance_line(shown),
        "",
    ]


def _cells(sampler: str, space: str, rs: list[dict]) -> list:
    killed, clean = [r for r in rs if r["with_kills"]], [r for r in rs if not r["with_kills"]]
    med_k = statistics.median(r["best_regret"] for r in killed) if killed else float("nan")
    med_c = statistics.median(r["best_regret"] for r in clean) if clean else float("nan")
    problems = sum(len(r["problems"]) for r in rs)
    ratio = "both 0" if med_k == med_c == 0 else f"{med_k / med_c:.2f}" if med_c else "inf"
    pairs = sum(r["concurrent_pairs"] for r in rs)
    identical = f"{sum(r.get('identical_concurrent_pairs', 0) for r in rs)} of {pairs} pairs"
    closest = f"{min(r['min_concurrent_distance'] for r in rs):.2g}"
    checks = "all hold" if not problems else f"{problems} problems"
    kills = [sum(r["kills"] for r in killed), sum(r["states"].get("FAIL", 0) for r in killed)]
    regrets = f"{med_k:.3g} / {med_c:.3g}"
    return [sampler, space, len(rs), *kills, identical, closest, checks, regrets, ratio]


if __name__ == "__main__":
    main()
