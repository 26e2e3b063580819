"""Distributed Thompson sampling: the paper's synchronous rounds (``distributed_reproduce``) and
asynchronous agents through Optuna (``distributed_async``); docs/benchmarks/index.md.

    python -m benchmarks.distributed reproduce [--rounds 100 --seeds 10 ...]
        -> results/dts_reproduce.jsonl
    python -m benchmarks.distributed async [--workers 8 --evaluations 150 ...]
        -> results/dts_async<workers>.jsonl, peers to results/peers.jsonl

Do not run alongside other timing benchmarks (seconds would suffer, regret not).
"""

from __future__ import annotations

import argparse

import numpy as np

from benchmarks.distributed_async import (
    ASYNC_CELL,
    ASYNC_SAMPLERS,
    BENCH_ASYNC,
    PROTOCOL,
    make_async_samplers,
    run_async,
)
from benchmarks.distributed_report import summarise, with_peers
from benchmarks.distributed_reproduce import (
    BENCH_REPRODUCE,
    REPRODUCE_CELL,
    REPRODUCE_FUNCTIONS,
    SHARED,
    TOPOLOGIES,
    reproduce_configs,
    run_reproduce,
)
from benchmarks.functions import FUNCTIONS, SUITE
from benchmarks.harness.cache import PeerCache
from benchmarks.harness.results import RESULTS, ResultsFile
from benchmarks.harness.runner import run_jobs


def _names(arg: str, known, what: str) -> list[str]:
    names = [] if arg in ("", "none") else [n for n in arg.split(",") if n]
    bad = [n for n in names if known is not None and n not in known]
    if bad:  # fails now, not after minutes of other runs
        raise SystemExit(f"unknown {what} {', '.join(bad)}; known: {', '.join(known)}")
    return names


def _reproduce(a, out: ResultsFile, seeds) -> None:
    from shared_core.graphs import graph_names

    graphs = _names(a.graphs, graph_names(), "graph")
    topologies = _names(a.topologies, list(graph_names()) + [SHARED], "topology")
    agents = [int(v) for v in a.agents.split(",") if v]
    setting = {"rounds": a.rounds, "n_init": a.n_init, "init": a.init, "noise": a.noise}
    jobs = [  # seeds outermost, so partial results cover every configuration
        {"bench": BENCH_REPRODUCE, "function": fn, "graph": g, "n_agents": m, "seed": s}
        | {"surrogate": "egp" if g == SHARED else a.surrogate, **setting}
        for s in seeds
        for fn in _names(a.functions, REPRODUCE_FUNCTIONS, "function")
        for g, m in reproduce_configs(graphs, agents, topologies, a.topology_agents)
    ]
    run_jobs(jobs, run_reproduce, out=out, cell=REPRODUCE_CELL, describe=_describe_reproduce)
    print("\n".join(summarise(out.rows())))


def _describe_reproduce(row: dict) -> str:
    return (
        f"{row['function']} {row['graph']} x{row['n_agents']} seed={row['seed']}: sum R_A "
        f"{np.sum(row['R_A']):.4g}, R_B(T) {row['R_B'][-1]:.3g}, {row['seconds']:.1f} s"
    )


def _async(a, out: ResultsFile, seeds) -> None:
    functions = _names(a.functions, FUNCTIONS, "function")
    samplers = _names(a.samplers, None, "sampler")
    for s in samplers:  # a bad name fails here
        make_async_samplers(s, 0, a.workers)
    cell = {"bench": BENCH_ASYNC, "workers": a.workers, "n_evaluations": a.evaluations}
    jobs = [
        {**cell, "function": fn, "seed": seed, "sampler": s}
        for seed in seeds
        for fn in functions
        for s in samplers
    ]
    cache = PeerCache(a.cache, protocol=PROTOCOL)
    run_jobs(jobs, run_async, out=out, cell=ASYNC_CELL, cache=cache, describe=_describe_async)
    print("\n".join(summarise(with_peers(out.rows(), cache))))


def _describe_async(row: dict) -> str:
    return (
        f"{row['function']} {row['sampler']} seed={row['seed']}: regret {row['regret'][-1]:.4g}, "
        f"{row['seconds']:.1f} s, mean ask {np.mean(row['ask_seconds']):.3f} s"
    )


def main(argv=None) -> None:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.distributed",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="command", required=True)
    rp = sub.add_parser("reproduce", help="Section D of the paper: synchronous rounds")
    rp.add_argument("--functions", default=",".join(REPRODUCE_FUNCTIONS))
    rp.add_argument("--graphs", default="star", help="graphs of the agent sweep")
    rp.add_argument("--agents", default="1,3,5,7", help="agent counts of the sweep")
    rp.add_argument("--topologies", default=",".join(TOPOLOGIES), help="'none' skips them")
    rp.add_argument("--topology-agents", type=int, default=8)
    rp.add_argument("--rounds", type=int, default=100)
    rp.add_argument("--n-init", type=int, default=2)
    rp.add_argument("--init", choices=["private", "neighbours"], default="private")
    rp.add_argument("--surrogate", choices=["gp", "egp"], default="gp")
    rp.add_argument("--noise", type=float, default=0.0)
    rp.add_argument("--seeds", type=int, default=10)
    rp.add_argument("--first-seed", type=int, default=0)
    rp.add_argument("--out", default=str(RESULTS / "dts_reproduce.jsonl"))
    ap = sub.add_parser("async", help="asynchronous agents through Optuna (in-process ask/tell)")
    ap.add_argument("--functions", default=",".join(SUITE))
    ap.add_argument("--samplers", default=ASYNC_SAMPLERS)
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--evaluations", type=int, default=150)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="default results/dts_async<workers>.jsonl")
    ap.add_argument("--cache", default=str(RESULTS / "peers.jsonl"), help="the peer cache")
    a = p.parse_args(argv)
    out = ResultsFile(a.out or RESULTS / f"dts_async{a.workers}.jsonl")
    seeds = range(a.first_seed, a.first_seed + a.seeds)
    (_reproduce if a.command == "reproduce" else _async)(a, out, seeds)


if __name__ == "__main__":
    main()
