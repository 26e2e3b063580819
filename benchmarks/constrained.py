"""Constrained optimisation: the best feasible value against trials on the problems of
``benchmarks.constrained_functions``.

    python -m benchmarks.constrained --mode seq --seeds 10 \\
        --out benchmarks/results/constrained_seq.jsonl
    python -m benchmarks.constrained --mode async --workers 4 --seeds 5 \\
        --out benchmarks/results/constrained_async4.jsonl

Each trial reports its constraint values with ``trial.set_constraint(name, value)`` (Optuna 5),
feasible when every value is <= 0; Optuna's ``GPSampler`` and ``TPESampler`` read them from the
trials with their default settings, as ours do. Modes (``benchmarks.run``'s ask/tell loop,
``run.ask_tell``): ``seq``, one trial at a time; ``async``, ``--workers`` trials pending,
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
import math
import time
from collections import defaultdict

import numpy as np

from benchmarks.constrained_functions import PROBLEMS
from benchmarks.distributed import STARTUP_TRIALS, make_async_samplers
from benchmarks.harness.cache import PeerCache
from benchmarks.harness.probes import ModelProbe
from benchmarks.harness.provenance import SAMPLER_PACKAGES, commit
from benchmarks.harness.results import RESULTS, ResultsFile, key, latest
from benchmarks.harness.samplers import LABELS, is_peer, ordered
from benchmarks.harness.tables import fmt, markdown_table, provenance_line
from benchmarks.harness.workers import pool_map
from benchmarks.run import ask_tell

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
    seed, n_trials, workers = job["seed"], job["n_trials"], job["workers"]
    if job["mode"] not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {job['mode']!r}")
    samplers = make_async_samplers(job["sampler"], seed, workers)
    probes = {id(s): ModelProbe(s) for s in samplers}
    study = optuna.create_study(sampler=samplers[0])
    limit = job.get("wall_limit")
    ask_seconds: list[float] = []
    ask_cpu_seconds: list[float] = []
    model_at_ask: list[bool] = []
    told = 0
    t_start = time.perf_counter()

    def ask(slot: int):
        if limit is not None and time.perf_counter() - t_start > limit:
            return None  # past the wall-time limit: the slot stops
        study.sampler = samplers[slot]
        probe = probes[id(samplers[slot])]
        probe.reset()
        t0, cpu0 = time.perf_counter(), time.process_time()
        trial = study.ask()
        x = np.array(
            [trial.suggest_float(f"x{i}", lo, hi) for i, (lo, hi) in enumerate(problem.bounds)]
        )
        ask_seconds.append(time.perf_counter() - t0)
        ask_cpu_seconds.append(time.process_time() - cpu0)
        model_at_ask.append(
            bool(probe.model_asks) if probe.model_asks is not None else told >= STARTUP_TRIALS
        )
        return trial, x

    def tell(slot: int, asked) -> None:
        nonlocal told
        if asked is None:
            return
        trial, x = asked
        study.sampler = samplers[slot]  # after_trial of the agent that asked it
        for name, value in zip(problem.constraint_names, problem.constraints(x)):
            trial.set_constraint(name, float(value))
        study.tell(trial, problem.objective(x))
        told += 1

    ask_tell(
        n_trials,
        workers if job["mode"] == "async" else 1,
        np.random.default_rng(seed + 1000),
        ask,
        tell,
    )
    seconds = time.perf_counter() - t_start
    trials = sorted(study.trials, key=lambda t: t.number)
    values = np.array([t.value for t in trials], dtype=float)  # (n_done,)
    feasible = np.array([all(v <= 0 for v in t.constraints.values()) for t in trials], bool)
    best = np.minimum.accumulate(np.where(feasible, values, np.inf))
    model = np.array(model_at_ask, bool)
    return {
        **job,
        "values": values.tolist(),
        "feasible": feasible.tolist(),
        "best": [None if b == np.inf else float(b) for b in best],
        "regret": [None if b == np.inf else float(b - problem.f_min) for b in best],
        "n_feasible": int(feasible.sum()),
        "feasible_fraction": float(feasible.mean()) if len(trials) else 0.0,
        "ask_seconds": ask_seconds,
        "ask_cpu_seconds": ask_cpu_seconds,
        "model_at_ask": model.tolist(),
        "seconds_per_suggestion": (
            float(np.mean(np.array(ask_seconds)[model])) if model.any() else None
        ),
        "cpu_seconds_per_suggestion": (
            float(np.mean(np.array(ask_cpu_seconds)[model])) if model.any() else None
        ),
        "seconds": seconds,
        **({"stopped_at": len(trials)} if len(trials) < n_trials else {}),
        **({"model_asks": int(model.sum())} if not is_peer(job["sampler"]) else {}),
    }


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
        make_async_samplers(s, 0, 1)
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
    for row in pool_map(run_constrained, todo, procs=a.procs):
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


# ============================================================================= summary
RUN_CELL = ("function", "sampler", "seed", "mode", "workers", "n_trials")
# What our samplers' rows measure: the sampler code, the problems and this runner with its loop.
CODE = (
    *SAMPLER_PACKAGES,
    "benchmarks/constrained.py",
    "benchmarks/constrained_functions.py",
    "benchmarks/run.py",
)


def shown(ours: list[dict], peers: list[dict]) -> list[dict]:
    """The rows a table shows: the latest of each cell; per problem, those of the setting
    (workers, trials) of its latest row (ours first, else the peers'); of the (problem, seed)
    pairs that every sampler of the problem ran."""
    rows = latest(ours, RUN_CELL) + latest(peers, RUN_CELL)
    setting = {r["function"]: (r["workers"], r["n_trials"]) for r in peers + ours}
    rows = [r for r in rows if (r["workers"], r["n_trials"]) == setting[r["function"]]]
    samplers: dict = defaultdict(set)
    ran: dict = defaultdict(set)
    for r in rows:
        samplers[r["function"]].add(r["sampler"])
        ran[(r["function"], r["seed"])].add(r["sampler"])
    return [r for r in rows if ran[(r["function"], r["seed"])] == samplers[r["function"]]]


def regret(row: dict) -> list[float]:
    """The best feasible value so far minus the problem's (``PROBLEMS``), trial by trial; ``inf``
    before the first feasible trial (a run that found none ranks worst)."""
    f_min = PROBLEMS[row["function"]].f_min
    return [math.inf if b is None else b - f_min for b in row["best"]]


def final_regret(row: dict) -> float:
    return regret(row)[-1]


def quantile(values, q: float) -> float:
    """The ``q`` quantile (linear interpolation) of ``values``, which may hold ``inf``: any
    interpolation towards ``inf`` is ``inf``."""
    v = np.sort(np.asarray(values, dtype=float))
    pos = q * (len(v) - 1)
    lo, hi = math.floor(pos), math.ceil(pos)
    if lo == hi or math.isinf(v[hi]):
        return float(v[hi])
    return float(v[lo] + (v[hi] - v[lo]) * (pos - lo))


def _cells(rows: list[dict]) -> dict:
    """``{problem: {sampler: [rows by seed]}}``."""
    out: dict = defaultdict(lambda: defaultdict(list))
    for r in sorted(rows, key=lambda r: r["seed"]):
        out[r["function"]][r["sampler"]].append(r)
    return out


def _regret(value: float) -> str:
    return "none feasible" if math.isinf(value) else fmt(value)


def _regret_cell(finals: list[float], *, bold: bool) -> str:
    """``median (first quartile – third quartile)``, the median bold if ``bold``."""
    median = _regret(quantile(finals, 0.5))
    quartiles = f"{_regret(quantile(finals, 0.25))} – {_regret(quantile(finals, 0.75))}"
    return f"{f'**{median}**' if bold else median} ({quartiles})"


def summarise(rows: list[dict], title: str) -> list[str]:
    """The tables of one mode: best feasible regret, feasibility, seconds per suggestion, and
    how each of ours compares with the peers."""
    if not rows:
        return []
    cells = _cells(rows)
    samplers = ordered({r["sampler"] for r in rows})
    header = ["problem", "trials", *(LABELS.get(s, s) for s in samplers)]
    regret, feasible, speed = [], [], []
    wall = "seconds_per_suggestion"
    for fn in sorted(cells, key=list(PROBLEMS).index):
        runs = cells[fn]
        n_trials = next(iter(runs.values()))[0]["n_trials"]
        finals = {s: [final_regret(r) for r in runs[s]] for s in samplers if runs.get(s)}
        medians = {s: quantile(v, 0.5) for s, v in finals.items()}
        best = min(medians.values())
        regret.append(
            [fn, n_trials]
            + [
                _regret_cell(finals[s], bold=medians[s] == best < math.inf) if s in finals else "–"
                for s in samplers
            ]
        )
        feasible.append(
            [fn, n_trials]
            + [
                f"{np.median([r['feasible_fraction'] for r in runs[s]]):.2f} "
                f"({sum(r['n_feasible'] == 0 for r in runs[s])} of {len(runs[s])})"
                if runs.get(s)
                else "–"
                for s in samplers
            ]
        )
        speed.append(
            [fn, n_trials]
            + [
                f"{fmt(_median_seconds(runs[s]))} ({fmt(_median_seconds(runs[s], wall))})"
                if runs.get(s)
                else "–"
                for s in samplers
            ]
        )
    seeds = sorted({len(v) for c in cells.values() for v in c.values()})
    workers = rows[0]["workers"]
    pending = f", {workers - 1} other trial{'s' if workers > 2 else ''} pending" * (workers > 1)
    return [
        f"## {title}",
        "",
        f"Best feasible value after the last trial minus the problem's best feasible value "
        f"(regret; lower is better): median over {_span(seeds)} seed{'s' * (seeds[-1] > 1)} per "
        "problem (the seeds every "
        "sampler ran), quartiles in brackets; a run without a feasible trial counts as the worst "
        "(none feasible). Bold: best median.",
        "",
        *markdown_table(header, regret),
        "Fraction of feasible trials (median over runs), and in brackets the runs without any "
        "feasible trial:",
        "",
        *markdown_table(header, feasible),
        "CPU seconds per suggestion, wall seconds in brackets (median over runs of the mean over "
        f"the model's suggestions of `study.ask()` with its `suggest_float` calls{pending}; "
        f"peers: the asks after {STARTUP_TRIALS} completed trials; one thread per pool, other "
        "processes sharing the cores slow the wall seconds only):",
        "",
        *markdown_table(header, speed),
        *comparisons(cells, samplers),
        provenance_line(rows, code=CODE),
        "",
    ]


def _median_seconds(runs: list[dict], field: str = "cpu_seconds_per_suggestion") -> float | None:
    """The median over ``runs`` of ``field`` (CPU or wall seconds per suggestion)."""
    values = [r[field] for r in runs if r.get(field)]
    return float(np.median(values)) if values else None


def _span(counts) -> str:
    return str(counts[0]) if counts[0] == counts[-1] else f"{counts[0]}-{counts[-1]}"


def comparisons(cells: dict, samplers: list[str], peers=("gp", "tpe")) -> list[str]:
    """For each of ours against each peer: the problems where its median final regret is lower;
    against GPSampler also the runs without a feasible trial where GPSampler's run of the same
    seed had one, and the ratio of seconds per suggestion."""
    out = []
    for s in (s for s in samplers if not is_peer(s)):
        for p in (p for p in peers if p in samplers):
            both = [fn for fn in cells if cells[fn].get(s) and cells[fn].get(p)]
            if not both:
                continue
            wins = [
                fn
                for fn in both
                if quantile([final_regret(r) for r in cells[fn][s]], 0.5)
                < quantile([final_regret(r) for r in cells[fn][p]], 0.5)
            ]
            line = (
                f"- {LABELS.get(s, s)} has a lower median than {LABELS.get(p, p)} on "
                f"{len(wins)} of {len(both)} problems"
                + (f" ({', '.join(sorted(wins, key=list(PROBLEMS).index))})" if wins else "")
            )
            if p == "gp":
                missed = sum(
                    r["n_feasible"] == 0 and q["n_feasible"] > 0
                    for fn in both
                    for r, q in zip(cells[fn][s], cells[fn][p])
                )
                ratios = [
                    _median_seconds(cells[fn][s]) / _median_seconds(cells[fn][p])
                    for fn in both
                    if _median_seconds(cells[fn][s]) and _median_seconds(cells[fn][p])
                ]
                line += (
                    f"; runs without a feasible trial where GPSampler's run of the same seed "
                    f"had one: {missed}"
                )
                if ratios:
                    line += "; CPU seconds per suggestion / GPSampler's: " + ", ".join(
                        f"{v:.2f}" for v in ratios
                    )
            out.append(line)
    return out + [""] if out else []


def plot_rows(rows: list[dict]) -> list[dict]:
    """``rows`` with ``regret`` as :func:`regret` gives it, for ``plots.regret_plot``."""
    return [{**r, "regret": regret(r)} for r in rows]
