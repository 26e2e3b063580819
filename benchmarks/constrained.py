"""Constrained optimisation: the best feasible value against trials on the problems of
``benchmarks.constrained_functions``.

    python -m benchmarks.constrained --mode seq --seeds 10 \\
        --out benchmarks/results/constrained_seq.jsonl
    python -m benchmarks.constrained --mode async --workers 4 --seeds 5 \\
        --out benchmarks/results/constrained_async4.jsonl
    python -m benchmarks.constrained --samplers ax-default,ax-egp-auto --functions gramacy \\
        --seeds 5 --out benchmarks/results/constrained_ax.jsonl

``ax-default`` and ``ax-<method>`` (``--mode seq`` only): an Ax ``Client`` with an outcome
constraint ``<name> <= 0`` per constraint, Ax's default generation strategy or ours
(``run.ax_client``).

Each trial reports its constraint values with ``trial.set_constraint(name, value)`` (Optuna 5),
feasible when every value is <= 0; Optuna's ``GPSampler`` and ``TPESampler`` read them from the
trials with their default settings, as ours do. Modes (``benchmarks.run``'s ask/tell loop,
``harness.asktell``): ``seq``, one trial at a time; ``async``, ``--workers`` trials pending,
completing in a random order (``default_rng(seed + 1000)``). ``dts-<graph>`` runs one
``DistributedTSSampler`` agent per worker slot on the graph (``seq``: one agent), as
``benchmarks.distributed``'s async mode; every other sampler is one object for every slot.

Row per run: ``values`` (objective of each trial, in trial order), ``feasible`` (each trial),
``best`` (best feasible value so far, ``None`` until a trial is feasible), ``regret`` (``best``
minus the problem's best feasible value; the tables take ``best`` minus the current ``f_min``),
``n_feasible``, ``feasible_fraction``,
``ask_seconds`` and ``ask_cpu_seconds`` (wall and process CPU seconds of each ``study.ask()``
with its ``suggest_float`` calls: the sampler's work, not the objective's; with one thread per
pool the CPU seconds do not grow when other processes share the cores), ``model_at_ask`` (did the
model suggest: ``harness.probes`` for ours, at least ``STARTUP_TRIALS`` completed trials for
peers), ``seconds_per_suggestion`` and ``cpu_seconds_per_suggestion`` (means over those asks),
``seconds`` (wall) and, for ours, ``model_asks``. ``--wall-limit S`` stops a
run that has taken ``S`` seconds (recorded as ``wall_limit``; the row then has fewer trials,
``stopped_at``). Our samplers' rows go to ``--out``, keyed by commit; the peers' to the peer cache
(``--cache``) under this module's ``PROTOCOL``. Runs already done are skipped.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from benchmarks.constrained_functions import PROBLEMS
from benchmarks.distributed import STARTUP_TRIALS, make_async_samplers
from benchmarks.harness.asktell import timed_ask_tell, timing_fields
from benchmarks.harness.cache import PeerCache
from benchmarks.harness.provenance import commit
from benchmarks.harness.results import RESULTS, ResultsFile, key
from benchmarks.harness.samplers import is_peer
from benchmarks.harness.workers import pool_map
from benchmarks.run import AX_METHODS, ax_client

# The peer cache's protocol version of this benchmark: bump it when what a run measures changes
# (the problems, the modes, what is timed).
PROTOCOL = 1
BENCH = "constrained"
# The fields of a cell: with the sampler (and the commit or the peer version) they key a run.
CELL = ("bench", "function", "seed", "mode", "workers", "n_trials")
SAMPLERS = "egp-auto,bore++,dts-complete,gp,tpe"
MODES = ("seq", "async")


def run_constrained(job: dict) -> dict:
    """One run of ``job["sampler"]`` on a cell (a ``CELL`` dict, ``wall_limit`` optional)."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    problem = PROBLEMS[job["function"]]
    if job["mode"] not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {job['mode']!r}")

    def evaluate(trial, x: np.ndarray) -> float:
        for name, value in zip(problem.constraint_names, problem.constraints(x)):
            trial.set_constraint(name, float(value))
        return problem.objective(x)

    run = timed_ask_tell(
        make_async_samplers(job["sampler"], job["seed"], job["workers"]),
        problem.bounds,
        evaluate,
        n_trials=job["n_trials"],
        workers=job["workers"] if job["mode"] == "async" else 1,
        rng=np.random.default_rng(job["seed"] + 1000),
        startup=STARTUP_TRIALS,
        wall_limit=job.get("wall_limit"),
    )
    trials = [t for t in run.trials if t.value is not None]
    feasible = [all(v <= 0 for v in t.constraints.values()) for t in trials]
    timing = (run.ask_seconds, run.ask_cpu_seconds)
    return _result(job, [t.value for t in trials], feasible, timing, run.model_at_ask, run.seconds)


def run_ax(job: dict) -> dict:
    """One Ax ``Client`` run, one trial at a time (``seq``), with an outcome constraint
    ``<name> <= 0`` per constraint: Ax's default strategy or ``ax-<method>``
    (``run.ax_client``). Model-based asks: those of trials not generated by Sobol or at the
    centre of the search space."""
    problem = PROBLEMS[job["function"]]
    names = problem.constraint_names
    client = ax_client(job["sampler"], problem.bounds, job["seed"], [f"{n} <= 0" for n in names])
    values: list[float] = []
    feasible: list[bool] = []
    timing: tuple[list[float], list[float]] = ([], [])
    t_start = time.perf_counter()
    while len(values) < job["n_trials"]:
        t0, cpu0 = time.perf_counter(), time.process_time()
        index, params = next(iter(client.get_next_trials(max_trials=1).items()))
        timing[0].append(time.perf_counter() - t0)
        timing[1].append(time.process_time() - cpu0)
        x = np.array([params[f"x{i}"] for i in range(len(problem.bounds))])
        c = problem.constraints(x)
        values.append(problem.objective(x))
        feasible.append(bool(np.all(c <= 0)))
        client.complete_trial(
            index, raw_data={"loss": values[-1], **dict(zip(names, map(float, c)))}
        )
    seconds = time.perf_counter() - t_start
    nodes = client.summarize().sort_values("trial_index")["generation_node"]
    model = [node not in ("Sobol", "CenterOfSearchSpace") for node in nodes]
    return _result(job, values, feasible, timing, model, seconds)


def _result(job, values, feasible, timing, model_at_ask, seconds: float) -> dict:
    """The row of a run: ``values`` and ``feasible`` of each trial in trial order, ``timing``:
    (wall, CPU) seconds of each ask, ``model_at_ask``: which asks the model answered."""
    f_min = PROBLEMS[job["function"]].f_min
    values, feasible = np.array(values, dtype=float), np.array(feasible, dtype=bool)  # (n,)
    best = np.minimum.accumulate(np.where(feasible, values, np.inf))
    return {
        **job,
        "values": values.tolist(),
        "feasible": feasible.tolist(),
        "best": [None if b == np.inf else float(b) for b in best],
        "regret": [None if b == np.inf else float(b - f_min) for b in best],
        "n_feasible": int(feasible.sum()),
        "feasible_fraction": float(feasible.mean()) if len(values) else 0.0,
        **timing_fields(*timing, model_at_ask, seconds, ours=not is_peer(job["sampler"])),
        **({"stopped_at": len(values)} if len(values) < job["n_trials"] else {}),
    }


def run_job(job: dict) -> dict:
    """The worker entry point of the pool (module-level, so spawned processes can import it)."""
    return run_ax(job) if job["sampler"] in AX_METHODS else run_constrained(job)


def jobs(a: argparse.Namespace) -> list[dict]:
    """Every run the arguments ask for, seeds outermost (partial results cover every cell)."""
    return [
        {
            "bench": BENCH,
            "function": fn,
            "seed": seed,
            "mode": a.mode,
            "workers": a.workers if a.mode == "async" else 1,
            "n_trials": a.trials or PROBLEMS[fn].n_trials,
            "sampler": s,
            **({"wall_limit": a.wall_limit} if a.wall_limit else {}),
        }
        for seed in range(a.first_seed, a.first_seed + a.seeds)
        for fn in a.functions.split(",")
        for s in a.samplers.split(",")
    ]


def main(argv=None) -> None:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.constrained",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--functions", default=",".join(PROBLEMS))
    p.add_argument("--samplers", default=SAMPLERS, help="comma-separated names (harness.samplers)")
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--first-seed", type=int, default=0, help="seeds: first-seed .. + seeds - 1")
    p.add_argument("--trials", type=int, default=None, help="default: each problem's budget")
    p.add_argument("--mode", choices=MODES, default="seq")
    p.add_argument("--workers", type=int, default=4, help="pending trials in the async mode")
    p.add_argument("--wall-limit", type=float, default=None, help="seconds per run (recorded)")
    p.add_argument("--procs", type=int, default=1, help="runs in parallel processes")
    p.add_argument("--out", required=True, help="JSONL file of our samplers' rows")
    p.add_argument("--cache", default=str(RESULTS / "peers.jsonl"), help="the peer cache")
    a = p.parse_args(argv)
    unknown = [fn for fn in a.functions.split(",") if fn not in PROBLEMS]
    if unknown:
        raise SystemExit(f"unknown problems {unknown}; known: {', '.join(PROBLEMS)}")
    for s in a.samplers.split(","):  # a bad name fails here, not inside a worker process
        if s not in AX_METHODS:
            make_async_samplers(s, 0, 1)
        elif a.mode != "seq":
            raise SystemExit(f"{s}: the Ax runs are sequential (--mode seq)")
    out, cache = ResultsFile(a.out), PeerCache(a.cache, protocol=PROTOCOL)
    ours_key = ("sampler", "commit", *CELL)
    done_ours, done_peers, code = out.done(ours_key), cache.done(), commit()
    todo = [
        job
        for job in jobs(a)
        if (
            cache.key(job["sampler"], **{f: job[f] for f in CELL}) not in done_peers
            if is_peer(job["sampler"])
            else key({**job, "commit": code}, ours_key) not in done_ours
        )
    ]
    print(f"{len(todo)} runs to do: ours to {a.out}, peers to {a.cache}", flush=True)
    for row in pool_map(run_job, todo, procs=a.procs):
        if is_peer(row["sampler"]):
            cache.put(row, CELL)
        else:
            out.append(row)
        best = row["best"][-1]
        print(
            f"{row['function']} {row['sampler']} {row['mode']} seed={row['seed']}: best "
            f"{'none feasible' if best is None else f'{best:.6g}'}, {row['n_feasible']} "
            f"feasible, {row['seconds']:.1f} s, "
            f"{row['cpu_seconds_per_suggestion'] or float('nan'):.3f} CPU s/suggestion",
            flush=True,
        )


if __name__ == "__main__":
    main()
