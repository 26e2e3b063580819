"""Distributed Thompson sampling benchmark: the paper's
experiment, and asynchronous agents through Optuna.

Paper: Zerefa, Ren, Ma, Li, "Distributed Thompson sampling under constrained communication" (2024),
Algorithm 1 and Section D. Code measured:
``shared_core.algorithms.distributed.DistributedTSAlgorithm`` (``reproduce``) and
``optuna_egp.DistributedTSSampler`` (``async``).

Sub-commands (each runs in ONE process; rows with provenance are appended to ``--out``):

    python -m benchmarks.distributed reproduce [--rounds 100 --seeds 10 ...]
        -> results/dts_reproduce.jsonl
    python -m benchmarks.distributed async [--workers 8 --evaluations 150 ...]
        -> results/dts_async8.jsonl (peers' runs: the peer cache, results/peers.jsonl)

The runs: ``distributed_reproduce.run_reproduce`` and ``distributed_async.run_async``; the tables
and plots: ``distributed_report.summarise`` and ``distributed_plots.plot`` (``python -m
benchmarks.report``).
Smoke tests (seconds to a minute; write outside ``results/``):
    python -m benchmarks.distributed reproduce --rounds 5 --seeds 1 --agents 1,3 \
        --topologies none --out /tmp/dts_smoke.jsonl
    python -m benchmarks.distributed async --workers 8 --evaluations 20 --seeds 1 \
        --functions branin --out /tmp/dts_async_smoke.jsonl --cache /tmp/dts_peers.jsonl

reproduce (Section D; no Optuna)
--------------------------------
Synchronous rounds t = 1..T (``--rounds``, default 100, the paper's T). In round t every agent i
suggests one point from the data it holds at the START of the round (Algorithm 1, lines 8-11); then
all points are evaluated, and each agent's point reaches its neighbours (lines 12-15): it is
appended with its agent as ``Observations.source`` and ``DistributedTSAlgorithm.visible`` lets agent
i condition on the rows of N(i) ∪ {i} only. One ``DistributedTSAlgorithm`` per configuration,
``agent_id`` switched agent by agent (it keeps one surrogate per agent); ``--surrogate gp``
(default: one Matérn-5/2 ARD GP, the paper's kernel) or ``egp`` (the EGP-TS ensemble). No pending
points: an agent never sees the other agents' points of the current round.

Initial data D_{1,i}: ``--n-init`` (default 2) uniform random points per agent, from
``default_rng([seed, agent, 0])`` (agent i gets the same points in every configuration of a seed).
``--init private`` (default, Algorithm 1: line 13 broadcasts only the round's evaluation, so D_{1,i}
stays with agent i) or ``neighbours`` (neighbours see them too, as later rows). Each agent draws
from ``default_rng([seed, agent, 1])``.

Functions (minimised, minimum 0; minimising the canonical function = maximising the paper's
negated one): ``ackley2`` = 2-D Ackley on [-5, 5]^2 and ``rosenbrock2`` = 2-D Rosenbrock on
[-2, 2] x [-1, 3]: the domains of the authors' notebook (github.com/sabzer/distributed-bo,
``BO.ipynb``, ``getDomain``); the paper gives none. NB ``rosenbrock2`` of ``functions.py``
(run.py's) is the same function on [-5, 10]^2; every row records its ``bounds``. ``--noise``
(default 0) adds N(0, noise^2) to the observed values (the notebook adds noise of standard
deviation 1 on Ackley); regrets always use the noiseless values.

Noiseless Ackley and the star: Ackley's minimum is a cusp (|x| growth). An agent that exploits
piles its points into that cusp, and a Matérn-5/2 GP fitted by marginal likelihood to a dense
noiseless cluster there can take lengthscales of the order of the ripples (or shorter) and a noise
at its lower bound; most of the domain is then "unexplored" under that GP and nearly every
Thompson draw has its minimum there. Under the log-normal lengthscale prior alone, a star's leaves
received the hub's cluster every round and explored almost every round while the hub exploited,
so the star's average regret was no better than one agent's at 3 to 7 agents. The lengthscale
penalty of ``shared_core.models.gp`` (its ``ls^-2`` term) weakens this: 3 and 5 agents now beat
one agent, but at 7 agents the runs split in two: in some seeds the hub keeps exploring while the
six leaves exploit, in others the leaves keep exploring while the hub exploits (the tables of
docs/benchmarks/distributed.md; per-agent regrets are in the rows). With the notebook's
observation noise (``--noise 1``) the fit treats the cusp as noise, keeps long lengthscales, and
the paper's finding holds. Running ``--functions ackley2 --noise 1 --topologies none`` adds that
setting as a table of its own (the plots show the setting of the last row appended).

Configurations: ``--graphs`` (default ``star``) x ``--agents`` (default ``1,3,5,7``; 1
agent = a single agent whatever the graph), plus the topology comparison ``--topologies`` (default
``complete,star,ring,line,disconnected,shared-egp``; ``none`` skips it) at
``--topology-agents`` (default 8) agents. ``shared-egp`` is the reference "everyone sees
everything": one ``EGPAlgorithm(acquisition="ts")`` (the EGP-TS ensemble, whatever
``--surrogate``) fed all data (every agent's initial points included), asked for M
suggestions per round, each seeing the earlier ones of the round as pending points.

Regret per round (regret = f(x) - f_min >= 0, of the noiseless value), as defined in Section D:
    R_A(t) = mean over agents of the regret of their round-t points   ("instant average regret")
    R_W(t) = max over agents of the regret of their round-t points    ("instant worst regret")
    R_B(t) = min over agents and rounds tau <= t                       ("instant best regret";
             rounds only: the initial points are recorded apart, as ``init_best_regret``)
Row per (function, graph, agents, seed): the three lists, ``regret`` (rounds x agents), the largest
clique and clique cover of the graph (``shared-egp``: M and 1), ``seconds`` (wall) and
``suggest_seconds`` (inside ``suggest``), plus the provenance (``harness/provenance.py``).
Resumable: a run already in ``--out`` with the same function, graph, agents, seed, rounds, n_init,
init, surrogate, noise and commit is skipped (``--force`` runs it again). Seeds ``--first-seed`` ..
``--first-seed + --seeds - 1`` (default 0..9); seeds outermost, so partial results cover every
configuration.

async (Optuna, in-process ask/tell)
-----------------------------------
As ``run.py``'s async mode: ``--workers`` W pending trials at all times, the one to finish next
chosen by ``default_rng(seed + 1000)``, ``--evaluations`` (default 150) evaluations in all, on
``--functions`` from ``functions.py`` (default run.py's suite). A trial's agent is the worker slot
that asked it: the slot freed by a finished trial asks the next one. Samplers (``--samplers``,
names of ``harness/samplers.py``, one per slot from ``make_agents``):
    dts-<graph>[-egp]  W ``DistributedTSSampler(agent_id=slot, graph=<graph>, n_agents=W,
                       seed=1000 seed + slot, running_trial_timeout=None)`` objects on one
                       in-memory study;
                       ``study.sampler`` is set to the slot's sampler before each ask and to the
                       trial's agent's sampler before each tell. ``-egp``: ``surrogate="egp"``.
                       (``running_trial_timeout=None``: running trials asked by another sampler
                       object are never presumed dead in this fast simulation, as a single sampler's
                       own trials never are.)
    egp-ts             one ``EGPTSSampler(seed=seed, acquisition="ts")`` for all slots (run.py's)
    tpe, tpe-cl,       peers (``TPESampler``, with ``constant_liar=True``, ``RandomSampler``): their
    random             rows go to the peer cache (``--cache``), keyed by the cell and their version
Defaults: ``dts-complete,dts-star,dts-ring,egp-ts,tpe``; all with their default ``n_startup_trials``
(10 completed trials). Row per run: ``regret`` (best so far - f_min, in trial order),
``instant_regret``, ``agent`` of each trial, ``ask_seconds`` (``study.ask()`` plus the
``suggest_float`` calls, per ask), ``complete_at_ask`` (completed trials at that ask),
``model_at_ask`` (did the model make the suggestion: ``harness.probes``; peers: at least 10
completed trials; the summary's seconds per suggestion use these asks), ``model_asks`` (their
number), ``seconds`` (wall). Resumable as ``reproduce`` (key: function, sampler, seed, workers,
evaluations, commit; peers: the peer version and ``PROTOCOL`` instead of the commit). Default
``--seeds 5``.

summarise(rows) (``distributed_report``)
----------------------------------------
Markdown (printed at the end of every run; ``benchmarks.report``): for the reproduction, per setting
and function, the median over seeds of the cumulative sums (to T) and the final values of R_A, R_B,
R_W per configuration, and two checks: (a) does the average regret per agent (median sum of R_A)
improve from the 1-agent star (largest clique 1) to 3/5/7 agents (largest clique 2), (b) are 8
disconnected agents no better than 1 agent (ratio of median sums of R_A >= 0.9; each disconnected
agent IS a single agent). For async, per worker count: median final regret per sampler and function,
dts-complete / egp-ts, median seconds per suggestion per sampler, dts-ring / egp-ts, and the targets
(16 agents on a ring: at most half egp-ts's seconds per suggestion; complete graph: regret within
1.2x egp-ts's; dts-complete better than TPE on most functions).

Do not run alongside other timing benchmarks (seconds would suffer, regret not).
"""

from __future__ import annotations

import argparse

import numpy as np

from benchmarks.distributed_async import (
    ASYNC_KEY,
    ASYNC_SAMPLERS,
    BENCH_ASYNC,
    PROTOCOL,
    make_async_samplers,
    run_async,
)
from benchmarks.distributed_report import summarise, with_peers
from benchmarks.distributed_reproduce import (
    BENCH_REPRODUCE,
    REPRODUCE_FUNCTIONS,
    REPRODUCE_KEY,
    SHARED,
    TOPOLOGIES,
    reproduce_configs,
    run_reproduce,
)
from benchmarks.functions import FUNCTIONS, SUITE
from benchmarks.harness.cache import PeerCache
from benchmarks.harness.provenance import commit
from benchmarks.harness.results import RESULTS, ResultsFile, key
from benchmarks.harness.samplers import is_peer


def _names(arg: str, known, what: str) -> list[str]:
    names = [] if arg in ("", "none") else [n for n in arg.split(",") if n]
    bad = [n for n in names if known is not None and n not in known]
    if bad:  # fails now, not after minutes of other runs
        raise SystemExit(f"unknown {what} {', '.join(bad)}; known: {', '.join(known)}")
    return names


def _ints(arg: str) -> list[int]:
    return [int(v) for v in arg.split(",") if v]


def _reproduce(a, out: ResultsFile, seeds) -> None:
    from shared_core.graphs import graph_names

    functions = _names(a.functions, REPRODUCE_FUNCTIONS, "function")
    graphs = _names(a.graphs, graph_names(), "graph")
    topologies = _names(a.topologies, list(graph_names()) + [SHARED], "topology")
    configs = reproduce_configs(graphs, _ints(a.agents), topologies, a.topology_agents)
    setting = {"rounds": a.rounds, "n_init": a.n_init, "init": a.init, "noise": a.noise}
    jobs = [
        {
            "bench": BENCH_REPRODUCE,
            "function": fn,
            "graph": g,
            "n_agents": m,
            "seed": s,
            "surrogate": "egp" if g == SHARED else a.surrogate,
            "commit": commit(),
            **setting,
        }
        for s in seeds
        for fn in functions
        for g, m in configs
    ]
    done = set() if a.force else out.done(REPRODUCE_KEY)
    todo = [j for j in jobs if key(j, REPRODUCE_KEY) not in done]
    print(f"{len(todo)} runs to do ({len(jobs) - len(todo)} already in {out.path})", flush=True)
    for j in todo:
        row = out.append(
            run_reproduce(
                j["function"],
                j["graph"],
                j["n_agents"],
                j["seed"],
                a.rounds,
                a.n_init,
                a.surrogate,
                a.init,
                a.noise,
            )
        )
        print(
            f"{row['function']} {row['graph']} x{row['n_agents']} seed={row['seed']}: sum R_A "
            f"{np.sum(row['R_A']):.4g}, R_B(T) {row['R_B'][-1]:.3g}, {row['seconds']:.1f} s",
            flush=True,
        )
    print("\n".join(summarise(out.rows())))


def _async(a, out: ResultsFile, seeds) -> None:
    functions = _names(a.functions, FUNCTIONS, "function")
    samplers = _names(a.samplers, None, "sampler")
    for s in samplers:  # a bad name fails here
        make_async_samplers(s, 0, a.workers)
    cache = PeerCache(a.cache, protocol=PROTOCOL)
    done = set() if a.force else out.done(ASYNC_KEY) | cache.done()
    n = 0
    for seed in seeds:
        for fn in functions:
            for s in samplers:
                cell = {
                    "bench": BENCH_ASYNC,
                    "function": fn,
                    "seed": seed,
                    "workers": a.workers,
                    "n_evaluations": a.evaluations,
                }
                if is_peer(s):
                    if cache.key(s, **cell) in done:
                        continue
                    row = cache.put(run_async(fn, s, seed, a.evaluations, a.workers), tuple(cell))
                else:
                    if key({**cell, "sampler": s, "commit": commit()}, ASYNC_KEY) in done:
                        continue
                    row = out.append(run_async(fn, s, seed, a.evaluations, a.workers))
                n += 1
                print(
                    f"{fn} {s} seed={seed}: regret {row['regret'][-1]:.4g}, "
                    f"{row['seconds']:.1f} s, mean ask {np.mean(row['ask_seconds']):.3f} s",
                    flush=True,
                )
    print(f"{n} runs done into {out.path} and {cache.file.path}", flush=True)
    print("\n".join(summarise(with_peers(out.rows(), cache))))


def main(argv=None) -> None:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.distributed",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="command", required=True)

    rp = sub.add_parser(
        "reproduce", help="Section D of the paper with the core algorithm (synchronous rounds)"
    )
    rp.add_argument("--functions", default=",".join(REPRODUCE_FUNCTIONS))
    rp.add_argument("--graphs", default="star", help="graphs of the agent sweep (default star)")
    rp.add_argument(
        "--agents", default="1,3,5,7", help="agent counts of the sweep (default 1,3,5,7)"
    )
    rp.add_argument(
        "--topologies",
        default=",".join(TOPOLOGIES),
        help=f"topology comparison (default {','.join(TOPOLOGIES)}; 'none' skips it)",
    )
    rp.add_argument("--topology-agents", type=int, default=8)
    rp.add_argument("--rounds", type=int, default=100)
    rp.add_argument("--n-init", type=int, default=2)
    rp.add_argument("--init", choices=["private", "neighbours"], default="private")
    rp.add_argument("--surrogate", choices=["gp", "egp"], default="gp")
    rp.add_argument("--noise", type=float, default=0.0)
    rp.add_argument("--seeds", type=int, default=10)
    rp.add_argument("--first-seed", type=int, default=0)
    rp.add_argument("--out", default=str(RESULTS / "dts_reproduce.jsonl"))
    rp.add_argument("--force", action="store_true", help="run again the runs already in --out")

    ap = sub.add_parser("async", help="asynchronous agents through Optuna (in-process ask/tell)")
    ap.add_argument("--functions", default=",".join(SUITE))
    ap.add_argument("--samplers", default=ASYNC_SAMPLERS)
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--evaluations", type=int, default=150)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="default results/dts_async<workers>.jsonl")
    ap.add_argument("--cache", default=str(RESULTS / "peers.jsonl"), help="the peer cache")
    ap.add_argument("--force", action="store_true")
    a = p.parse_args(argv)

    out = ResultsFile(a.out or RESULTS / f"dts_async{a.workers}.jsonl")
    seeds = range(a.first_seed, a.first_seed + a.seeds)
    (_reproduce if a.command == "reproduce" else _async)(a, out, seeds)


if __name__ == "__main__":
    main()
