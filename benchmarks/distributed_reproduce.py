"""The reproduction of the distributed Thompson sampling paper's Section D (``python -m
benchmarks.distributed reproduce``): one run of Algorithm 1, or of the shared-EGP reference, for
a number of synchronous rounds, with the core algorithm and no Optuna. What a run does and what
its row holds: the docstring of ``benchmarks.distributed``.
"""

from __future__ import annotations

import time

import numpy as np

from benchmarks.functions import ackley, rosenbrock

BENCH_REPRODUCE = "dts_reproduce"
SHARED = "shared-egp"  # the "everyone sees everything" reference configuration

# The authors' notebook domains (github.com/sabzer/distributed-bo, BO.ipynb); minimised, minimum 0.
REPRODUCE_FUNCTIONS = {
    "ackley2": (np.array([[-5.0, 5.0], [-5.0, 5.0]]), ackley, 0.0),
    "rosenbrock2": (np.array([[-2.0, 2.0], [-1.0, 3.0]]), rosenbrock, 0.0),
}
TOPOLOGIES = ("complete", "star", "ring", "line", "disconnected", SHARED)
REPRODUCE_KEY = (
    "bench",
    "function",
    "graph",
    "n_agents",
    "seed",
    "rounds",
    "n_init",
    "init",
    "surrogate",
    "noise",
    "commit",
)


def _space(bounds: np.ndarray):
    from shared_core.search_space import FloatParam, SearchSpace

    return SearchSpace(
        {f"x{i}": FloatParam(float(lo), float(hi)) for i, (lo, hi) in enumerate(bounds)}
    )


def run_reproduce(
    function: str,
    graph: str,
    n_agents: int,
    seed: int,
    rounds: int,
    n_init: int = 2,
    surrogate: str = "gp",
    init: str = "private",
    noise: float = 0.0,
) -> dict:
    """One run of Algorithm 1 (or the shared-EGP reference) for ``rounds`` synchronous rounds."""
    from shared_core.algorithms.distributed import DistributedTSAlgorithm
    from shared_core.algorithms.egp import EGPAlgorithm
    from shared_core.graphs import make_graph
    from shared_core.interface import Observations

    bounds, f, f_min = REPRODUCE_FUNCTIONS[function]
    space, d, M = _space(bounds), len(bounds), n_agents
    width = bounds[:, 1] - bounds[:, 0]
    noise_rng = np.random.default_rng([seed, M, 2])

    def evaluate(U: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Noiseless values (for regret) and observed values
        (for the agents) of unit-cube points ``U``."""
        values = np.array([f(bounds[:, 0] + u * width) for u in U])  # (k,)
        observed = values + noise * noise_rng.standard_normal(len(values)) if noise else values
        return values, observed

    # D_{1,i}: agent i's own random points, the same in every configuration of this seed.
    init_U = [np.random.default_rng([seed, a, 0]).random((n_init, d)) for a in range(M)]
    init_values, init_y = (
        zip(*(evaluate(U) for U in init_U)) if n_init else ([np.zeros(0)] * M, [np.zeros(0)] * M)
    )
    agent_rngs = [np.random.default_rng([seed, a, 1]) for a in range(M)]
    if graph == SHARED:
        algo, surrogate_used = EGPAlgorithm(acquisition="ts"), "egp"
        clique, cover = M, 1
        shared_rng = np.random.default_rng([seed, 10**6])
    else:
        algo = DistributedTSAlgorithm(graph=make_graph(graph, M), agent_id=0, surrogate=surrogate)
        surrogate_used = surrogate
        clique, cover = algo.graph.largest_clique_size, algo.graph.clique_cover_number

    # the rounds' data
    rows_U, rows_y, rows_src = (
        np.zeros((0, d)),
        np.zeros(0),
        np.zeros(0, dtype=np.int64),
    )
    all_init = (np.vstack(init_U), np.concatenate(init_y), np.repeat(np.arange(M), n_init))

    def observations(agent: int | None) -> Observations:
        # every agent's initial points (visible() filters them)
        if agent is None or init == "neighbours":
            U0, y0, s0 = all_init
        else:  # Algorithm 1: D_{1,i} is agent i's alone
            U0, y0, s0 = init_U[agent], init_y[agent], np.full(n_init, agent, dtype=np.int64)
        return Observations(
            np.vstack([U0, rows_U]),
            np.concatenate([y0, rows_y]),
            source=np.concatenate([s0, rows_src]),
        )

    regret = np.zeros((rounds, M))
    suggest_seconds = 0.0
    t_start = time.perf_counter()
    for t in range(rounds):
        t0 = time.perf_counter()
        if graph == SHARED:
            # (M, d), each later one sees the earlier
            points = algo.suggest(space, observations(None), M, shared_rng)
        else:
            points = []
            for a in range(M):
                algo.agent_id = a
                points.append(algo.suggest(space, observations(a), 1, agent_rngs[a])[0])
            points = np.array(points)  # (M, d)
        suggest_seconds += time.perf_counter() - t0
        values, observed = evaluate(points)
        regret[t] = values - f_min
        rows_U = np.vstack([rows_U, points])
        rows_y = np.concatenate([rows_y, observed])
        rows_src = np.concatenate([rows_src, np.arange(M)])
    seconds = time.perf_counter() - t_start
    R_A, R_W = regret.mean(axis=1), regret.max(axis=1)
    R_B = np.minimum.accumulate(regret.min(axis=1))
    init_best = float(np.min(np.concatenate(init_values)) - f_min) if n_init else None
    return {
        "bench": BENCH_REPRODUCE,
        "function": function,
        "bounds": bounds.tolist(),
        "graph": graph,
        "n_agents": M,
        "seed": seed,
        "rounds": rounds,
        "n_init": n_init,
        "init": init,
        "surrogate": surrogate_used,
        "config": {"sampler": reproduce_sampler(graph, surrogate_used)},
        "noise": noise,
        "largest_clique": int(clique),
        "clique_cover": int(cover),
        "R_A": _rounded(R_A),
        "R_B": _rounded(R_B),
        "R_W": _rounded(R_W),
        "R_sum": regret_sums({"R_A": _rounded(R_A), "R_B": _rounded(R_B), "R_W": _rounded(R_W)}),
        "regret": [_rounded(r) for r in regret],
        "init_best_regret": init_best,
        "seconds": seconds,
        "suggest_seconds": suggest_seconds,
        "seconds_per_suggestion": suggest_seconds / (rounds * M),
    }


def regret_sums(row: dict) -> dict[str, float]:
    """``{"R_A", "R_B", "R_W"}``: the sums over rounds of a reproduction run's regrets (its
    table's; the curves themselves are drawn only)."""
    return {k: float(np.sum(row[k])) for k in ("R_A", "R_B", "R_W")}


def reproduce_sampler(graph: str, surrogate: str) -> str:
    """The sampler name whose behaviour a reproduction run's algorithm shares (its fingerprint's
    configuration): ``egp-ts`` for the shared-EGP reference, else ``dts-<graph>[-egp]``."""
    if graph == SHARED:
        return "egp-ts"
    return f"dts-{graph}" + ("-egp" if surrogate == "egp" else "")


def _rounded(a) -> list[float]:
    return [float(f"{v:.6g}") for v in np.asarray(a, dtype=float)]


def reproduce_configs(
    graphs: list[str], agents: list[int], topologies: list[str], topology_agents: int
):
    configs = [(g, m) for m in agents for g in graphs] + [(g, topology_agents) for g in topologies]
    return list(dict.fromkeys(configs))  # in order, without repeats (star at 8 may be in both)
