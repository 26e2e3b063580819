"""The distributed Thompson sampling paper's Section D (Zerefa et al. 2024, Algorithm 1): one run
of synchronous rounds with the core algorithm, no Optuna (``python -m benchmarks.distributed
reproduce``; the protocol: docs/benchmarks/index.md)."""

from __future__ import annotations

import time

import numpy as np

from benchmarks.functions import ackley, rosenbrock

BENCH_REPRODUCE = "dts_reproduce"
SHARED = "shared-egp"  # the "everyone sees everything" reference: one EGP-TS fed all data

# The authors' notebook domains (github.com/sabzer/distributed-bo, BO.ipynb); minimised, minimum 0.
REPRODUCE_FUNCTIONS = {
    "ackley2": (np.array([[-5.0, 5.0], [-5.0, 5.0]]), ackley, 0.0),
    "rosenbrock2": (np.array([[-2.0, 2.0], [-1.0, 3.0]]), rosenbrock, 0.0),
}
TOPOLOGIES = ("complete", "star", "ring", "line", "disconnected", SHARED)
SETTING = ("rounds", "n_init", "init", "noise")
# a run's cell: its row is run again at each commit
REPRODUCE_CELL = ("bench", "function", "graph", "n_agents", "seed", *SETTING, "surrogate")


def _space(bounds: np.ndarray):
    from shared_core.search_space import FloatParam, SearchSpace

    return SearchSpace(
        {f"x{i}": FloatParam(float(lo), float(hi)) for i, (lo, hi) in enumerate(bounds)}
    )


def run_reproduce(job: dict) -> dict:
    """One run of Algorithm 1 (or the shared-EGP reference) of the ``job``: a dict of the
    ``REPRODUCE_CELL`` fields."""
    from shared_core.algorithms.distributed import DistributedTSAlgorithm
    from shared_core.algorithms.egp import EGPAlgorithm
    from shared_core.graphs import make_graph
    from shared_core.interface import Observations

    graph, M, seed, surrogate = job["graph"], job["n_agents"], job["seed"], job["surrogate"]
    rounds, n_init, init, noise = (job[k] for k in SETTING)
    bounds, f, f_min = REPRODUCE_FUNCTIONS[job["function"]]
    space, d, width = _space(bounds), len(bounds), bounds[:, 1] - bounds[:, 0]
    noise_rng = np.random.default_rng([seed, M, 2])

    def evaluate(U: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Noiseless values (for regret) and observed values (for the agents) of unit-cube
        points ``U``."""
        values = np.array([f(bounds[:, 0] + u * width) for u in U])
        observed = values + noise * noise_rng.standard_normal(len(values)) if noise else values
        return values, observed

    # D_{1,i}: agent i's own random points, the same in every configuration of this seed.
    init_U = [np.random.default_rng([seed, a, 0]).random((n_init, d)) for a in range(M)]
    init_values, init_y = (
        zip(*(evaluate(U) for U in init_U)) if n_init else ([np.zeros(0)] * M, [np.zeros(0)] * M)
    )
    agent_rngs = [np.random.default_rng([seed, a, 1]) for a in range(M)]
    if graph == SHARED:
        algo, surrogate, clique, cover = EGPAlgorithm(acquisition="ts"), "egp", M, 1
        shared_rng = np.random.default_rng([seed, 10**6])
    else:
        algo = DistributedTSAlgorithm(graph=make_graph(graph, M), agent_id=0, surrogate=surrogate)
        clique, cover = algo.graph.largest_clique_size, algo.graph.clique_cover_number

    # the rounds' data
    rows_U, rows_y, rows_src = np.zeros((0, d)), np.zeros(0), np.zeros(0, dtype=np.int64)
    all_init = (np.vstack(init_U), np.concatenate(init_y), np.repeat(np.arange(M), n_init))

    def observations(agent: int | None) -> Observations:
        if agent is None or init == "neighbours":
            U0, y0, s0 = all_init  # every agent's initial points (visible() filters them)
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
        if graph == SHARED:  # (M, d), each later one sees the earlier as pending
            points = algo.suggest(space, observations(None), M, shared_rng)
        else:
            points = []
            for a in range(M):
                algo.agent_id = a
                points.append(algo.suggest(space, observations(a), 1, agent_rngs[a])[0])
            points = np.array(points)
        suggest_seconds += time.perf_counter() - t0
        values, observed = evaluate(points)
        regret[t] = values - f_min
        rows_U = np.vstack([rows_U, points])
        rows_y = np.concatenate([rows_y, observed])
        rows_src = np.concatenate([rows_src, np.arange(M)])
    seconds = time.perf_counter() - t_start
    curves = {
        "R_A": _rounded(regret.mean(axis=1)),
        "R_B": _rounded(np.minimum.accumulate(regret.min(axis=1))),
        "R_W": _rounded(regret.max(axis=1)),
    }
    return {
        "bench": BENCH_REPRODUCE,
        "function": job["function"],
        "bounds": bounds.tolist(),
        "graph": graph,
        "n_agents": M,
        "seed": seed,
        "rounds": rounds,
        "n_init": n_init,
        "init": init,
        "surrogate": surrogate,
        "config": {"sampler": reproduce_sampler(graph, surrogate)},
        "noise": noise,
        "largest_clique": int(clique),
        "clique_cover": int(cover),
        **curves,
        "R_sum": {k: float(np.sum(v)) for k, v in curves.items()},
        "regret": [_rounded(r) for r in regret],
        "init_best_regret": float(np.min(np.concatenate(init_values)) - f_min) if n_init else None,
        "seconds": seconds,
        "suggest_seconds": suggest_seconds,
        "seconds_per_suggestion": suggest_seconds / (rounds * M),
    }


def reproduce_sampler(graph: str, surrogate: str) -> str:
    """The sampler name whose behaviour a reproduction run's algorithm shares (its fingerprint's
    configuration): ``egp-ts`` for the shared-EGP reference, else ``dts-<graph>[-egp]``."""
    if graph == SHARED:
        return "egp-ts"
    return f"dts-{graph}" + ("-egp" if surrogate == "egp" else "")


def _rounded(a) -> list[float]:
    return [float(f"{v:.6g}") for v in np.asarray(a, dtype=float)]


def reproduce_configs(graphs: list[str], agents: list[int], topologies: list[str], m_top: int):
    """The (graph, agents) sweep of ``graphs`` x ``agents``, then the topology comparison at
    ``m_top`` agents, without repeats (star at 8 may be in both)."""
    configs = [(g, m) for m in agents for g in graphs] + [(g, m_top) for g in topologies]
    return list(dict.fromkeys(configs))
