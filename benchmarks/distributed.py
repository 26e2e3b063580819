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

The tables and plots are ``summarise`` and ``plot`` (``python -m benchmarks.report``).
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

summarise(rows)
---------------
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
import pathlib
import time
from collections import defaultdict

import numpy as np

from benchmarks.functions import FUNCTIONS, SUITE, ackley, rosenbrock
from benchmarks.harness.asktell import ask_tell
from benchmarks.harness.cache import PeerCache
from benchmarks.harness.plots import pyplot
from benchmarks.harness.probes import ModelProbe
from benchmarks.harness.provenance import commit
from benchmarks.harness.results import RESULTS, ResultsFile, key, latest
from benchmarks.harness.samplers import is_peer, make_agents, ordered
from benchmarks.harness.tables import provenance_line

# The peer cache's protocol version of the async runs: bump it when what a run measures changes
# (the functions, the completion order's random generator).
PROTOCOL = 1
BENCH_REPRODUCE = "dts_reproduce"
BENCH_ASYNC = "dts_async"
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
ASYNC_KEY = ("bench", "function", "sampler", "seed", "workers", "n_evaluations", "commit")
ASYNC_SAMPLERS = "dts-complete,dts-star,dts-ring,egp-ts,tpe"
# the samplers' default n_startup_trials: asks before it are random, not timed in the summary
STARTUP_TRIALS = 10


# ============================================================================= reproduce
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


# ============================================================================= async
def make_async_samplers(name: str, seed: int, workers: int) -> list:
    """The sampler of each worker slot: W distinct agents for ``dts-*`` (which never presume
    another agent's running trials dead here), one shared sampler otherwise."""
    options = {"running_trial_timeout": None} if name.startswith("dts-") else {}
    return make_agents(name, seed=seed, n_agents=workers, **options)


def run_async(
    function: str, sampler_name: str, seed: int, n_evaluations: int, workers: int
) -> dict:
    import optuna

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    bounds, f, f_min = FUNCTIONS[function]
    samplers = make_async_samplers(sampler_name, seed, workers)
    distinct = {id(s): s for s in samplers}  # W agents, or one sampler for every slot
    probes = {i: ModelProbe(s) for i, s in distinct.items()}
    study = optuna.create_study(sampler=samplers[0])
    ask_seconds: list[float] = []
    complete_at_ask: list[int] = []
    # did the ask's suggestion come from the model (not the start-up)?
    model_at_ask: list[bool] = []
    agent_of: dict[int, int] = {}
    told = 0

    def ask(slot: int) -> tuple:
        study.sampler = samplers[slot]  # the free slot's agent asks
        probe = probes[id(samplers[slot])]
        probe.reset()
        t0 = time.perf_counter()
        trial = study.ask()
        x = np.array([trial.suggest_float(f"x{i}", lo, hi) for i, (lo, hi) in enumerate(bounds)])
        ask_seconds.append(time.perf_counter() - t0)
        complete_at_ask.append(told)
        # peers (TPE, random: no core algorithm to probe): once STARTUP_TRIALS trials completed
        model_at_ask.append(
            bool(probe.model_asks) if probe.model_asks is not None else told >= STARTUP_TRIALS
        )
        agent_of[trial.number] = slot
        return trial, x

    def tell(slot: int, asked: tuple) -> None:
        nonlocal told
        study.sampler = samplers[slot]  # after_trial of the agent that ran it
        study.tell(asked[0], f(asked[1]))
        told += 1

    t_start = time.perf_counter()
    # completion order: as run.py's async mode
    ask_tell(n_evaluations, workers, np.random.default_rng(seed + 1000), ask, tell)
    seconds = time.perf_counter() - t_start
    trials = sorted(study.trials, key=lambda t: t.number)
    values = np.array([t.value for t in trials], dtype=float)
    regret = np.minimum.accumulate(values) - f_min
    return {
        "bench": BENCH_ASYNC,
        "function": function,
        "sampler": sampler_name,
        "seed": seed,
        "workers": workers,
        "n_evaluations": n_evaluations,
        "regret": regret.tolist(),
        "instant_regret": (values - f_min).tolist(),
        "agent": [agent_of[t.number] for t in trials],
        "ask_seconds": ask_seconds,
        "complete_at_ask": complete_at_ask,
        "model_at_ask": model_at_ask,
        "model_ask_seconds": model_ask_seconds(ask_seconds, model_at_ask, complete_at_ask),
        "model_asks": sum(model_at_ask),
        "seconds": seconds,
        "seconds_per_trial": seconds / n_evaluations,
    }


# ============================================================================= summary
def summarise(rows: list[dict]) -> list[str]:
    """Markdown lines for the reproduction rows and the
    async rows among ``rows`` (latest row per cell)."""
    rep = [r for r in rows if r.get("bench") == BENCH_REPRODUCE]
    asy = [r for r in rows if r.get("bench") == BENCH_ASYNC]
    return (_summarise_reproduce(rep) if rep else []) + (_summarise_async(asy) if asy else [])


def _latest(rows: list[dict], fields) -> list[dict]:
    """The last row of each cell (``fields`` without commit); rows are appended in time order."""
    return latest(rows, [k for k in fields if k != "commit"])


def with_peers(rows: list[dict], cache: PeerCache) -> list[dict]:
    """``rows`` of async runs and the cached peer runs of their worker counts and evaluations."""
    groups = {(r["workers"], r["n_evaluations"]) for r in rows if r.get("bench") == BENCH_ASYNC}
    return rows + [
        r
        for w, n in sorted(groups)
        for r in cache.rows(bench=BENCH_ASYNC, workers=w, n_evaluations=n)
    ]


def _med(values) -> float:
    return float(np.median(values)) if len(values) else float("nan")


def _config_order(graph: str, m: int) -> tuple:
    """Agent count first (the star sweep, then the
    topology comparison), then the topologies' order."""
    return m, TOPOLOGIES.index(graph) if graph in TOPOLOGIES else len(TOPOLOGIES), graph


def _summarise_reproduce(rows: list[dict]) -> list[str]:
    rows = _latest(rows, REPRODUCE_KEY)
    settings = defaultdict(list)
    for r in rows:
        settings[(r["rounds"], r["n_init"], r["init"], r["noise"])].append(r)
    lines = []
    for (rounds, n_init, init, noise), rs in sorted(settings.items()):
        lines += [
            "### Distributed Thompson sampling, synchronous rounds (Zerefa et al. 2024, Sec. D): "
            f"T = {rounds}, {n_init} initial points per agent ({init}), noise {noise:g}",
            "",
            "Regret = f(x) - f_min of each agent's round-t point. ΣR = sum over rounds 1..T (the "
            "paper's R̄), R(T) = value at round T; medians over seeds. R_A: mean over agents, "
            "R_W: worst agent, R_B: best point of any agent so far. `shared-egp`: one EGP-TS "
            "ensemble seeing all data, M suggestions per round (the reference).",
            "",
        ]
        for function in [
            fn for fn in REPRODUCE_FUNCTIONS if any(r["function"] == fn for r in rs)
        ] + sorted({r["function"] for r in rs} - set(REPRODUCE_FUNCTIONS)):
            frs = [r for r in rs if r["function"] == function]
            lines += _reproduce_table(function, frs)
        lines += [provenance_line(rs), ""]
    return lines


def _reproduce_table(function: str, rows: list[dict]) -> list[str]:
    bounds = rows[0]["bounds"]
    box = " x ".join(f"[{lo:g}, {hi:g}]" for lo, hi in bounds)
    cells = defaultdict(list)
    for r in rows:
        cells[(r["graph"], r["n_agents"], r["surrogate"])].append(r)
    lines = [
        f"#### {function} on {box}",
        "",
        "| graph | agents | surrogate | largest clique | clique cover | seeds | ΣR_A | ΣR_B | "
        "ΣR_W | R_A(T) | R_B(T) | R_W(T) | s/suggestion |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    order = sorted(cells, key=lambda c: (_config_order(c[0], c[1]), c[2]))
    for (graph, m, surrogate), rs in ((c, cells[c]) for c in order):
        sums = {k: _med([r["R_sum"][k] for r in rs]) for k in ("R_A", "R_B", "R_W")}
        last = {k: _med([r[k][-1] for r in rs]) for k in ("R_A", "R_B", "R_W")}
        lines.append(
            f"| {graph} | {m} | {surrogate} | {rs[0]['largest_clique']} | {rs[0]['clique_cover']} "
            f"| {len(rs)} | {sums['R_A']:.4g} | {sums['R_B']:.4g} | {sums['R_W']:.4g} | "
            f"{last['R_A']:.3g} | {last['R_B']:.3g} | {last['R_W']:.3g} | "
            f"{_med([r['seconds_per_suggestion'] for r in rs]):.3g} |"
        )
    lines.append("")
    for surrogate in sorted({s for (_, _, s) in cells}):
        lines += _reproduce_checks(cells, surrogate)
    return lines + [""]


def _reproduce_checks(cells: dict, surrogate: str) -> list[str]:
    """(a) the 1-agent star against 3/5/7 agents; (b) 8
    disconnected agents against 1 agent (median ΣR_A)."""

    def sum_ra(rs):
        return _med([r["R_sum"]["R_A"] for r in rs])

    single = next(
        (rs for (g, m, s), rs in cells.items() if m == 1 and s == surrogate and g != SHARED), None
    )
    lines = []
    if single is None:
        return lines
    base = sum_ra(single)
    stars = sorted(
        (
            (m, sum_ra(rs))
            for (g, m, s), rs in cells.items()
            if g == "star" and s == surrogate and m > 1
        )
    )
    if stars:
        better = [m for m, v in stars if v < base]
        verdict = (
            "yes"
            if len(better) == len(stars)
            else "no"
            if not better
            else f"partly ({len(better)}/{len(stars)})"
        )
        ratios = ", ".join(f"{m} agents {v / base:.2f}" for m, v in stars)
        lines.append(
            f"- ({surrogate}) (a) Average regret per agent improves with the largest clique (1 "
            f"agent: clique 1, ΣR_A {base:.4g}; star with more agents: clique 2, ΣR_A relative "
            f"to 1 agent: {ratios}): **{verdict}**."
        )
    disc = [
        (m, rs)
        for (g, m, s), rs in cells.items()
        if g == "disconnected" and s == surrogate and m > 1
    ]
    for m, rs in disc:
        ratio = sum_ra(rs) / base
        best = _med([r["R_sum"]["R_B"] for r in rs]) / _med([r["R_sum"]["R_B"] for r in single])
        verdict = "holds" if ratio >= 0.9 else "does NOT hold"
        lines.append(
            f"- ({surrogate}) (b) {m} disconnected agents no better than 1 agent at equal rounds: "
            f"ΣR_A ratio {ratio:.2f} (>= 0.9 expected: each is a single agent) **{verdict}**; "
            f"ΣR_B ratio {best:.2f} (best of {m} independent agents)."
        )
    return lines


def _summarise_async(rows: list[dict]) -> list[str]:
    rows = _latest(rows, ASYNC_KEY)
    groups = defaultdict(list)
    for r in rows:
        groups[(r["workers"], r["n_evaluations"])].append(r)
    lines = []
    for (workers, n_eval), rs in sorted(groups.items()):
        samplers = ordered({r["sampler"] for r in rs}, ASYNC_ORDER)
        functions = [fn for fn in FUNCTIONS if any(r["function"] == fn for r in rs)]
        final = defaultdict(list)
        for r in rs:
            final[(r["function"], r["sampler"])].append(r["regret"][-1])
        floor = {
            fn: SOLVED_FRACTION
            * _med(
                [
                    r["regret"][min(STARTUP_TRIALS, len(r["regret"])) - 1]
                    for r in rs
                    if r["function"] == fn
                ]
            )
            for fn in functions
        }
        compared = [c for c in ("dts-complete", "dts-complete-egp") if c in samplers]
        lines += [
            f"### Distributed Thompson sampling, {workers} asynchronous agents ({n_eval} "
            "evaluations)",
            "",
            "Median final regret (best value - known minimum) over seeds (their number in "
            "brackets); `dts-<graph>`: `DistributedTSSampler`, one agent per worker slot. "
            "Ratios to egp-ts: raw, and with regrets below the function's *solved* level "
            f"({SOLVED_FRACTION:g} x the median regret after the {STARTUP_TRIALS} random "
            "start-up trials, shown) counted as that level.",
            "",
            "| function | "
            + " | ".join(
                samplers + ["solved level"] + [f"{c} / egp-ts (raw, floored)" for c in compared]
            )
            + " |",
            "|---|" + "---|" * (len(samplers) + 1 + len(compared)),
        ]
        ratios, floored, beats_tpe = {}, {}, {}
        for fn in functions:
            med = {s: _med(final[(fn, s)]) for s in samplers if final[(fn, s)]}
            cells = [f"{med[s]:.3g} ({len(final[(fn, s)])})" if s in med else "-" for s in samplers]
            pairs = []
            for c in compared:
                raw = _ratio(med.get(c), med.get("egp-ts"))
                low = (
                    _ratio(max(med[c], floor[fn]), max(med["egp-ts"], floor[fn]))
                    if c in med and "egp-ts" in med and floor[fn] > 0
                    else None
                )
                pairs.append(f"{_fmt(raw)}, {_fmt(low)}")
                if c == "dts-complete" and raw is not None:
                    ratios[fn] = raw
                if c == "dts-complete" and low is not None:
                    floored[fn] = low
            if "dts-complete" in med and "tpe" in med:
                beats_tpe[fn] = med["dts-complete"] < med["tpe"]
            lines.append(f"| {fn} | " + " | ".join(cells + [f"{floor[fn]:.2g}"] + pairs) + " |")
        sec = {s: _med([r["model_ask_seconds"] for r in rs if r["sampler"] == s]) for s in samplers}
        lines += [
            "",
            "Seconds per suggestion (median over runs of the mean time of the asks whose "
            f"suggestion came from the model; TPE: once {STARTUP_TRIALS} trials completed). An "
            "agent's start-up counts its neighbourhood's trials, so star and ring agents search "
            "randomly for longer:",
            "",
            "| " + " | ".join(samplers) + " | dts-ring / egp-ts |",
            "|" + "---|" * (len(samplers) + 1),
            "| "
            + " | ".join(f"{sec[s]:.3g}" for s in samplers)
            + f" | {_fmt(_ratio(sec.get('dts-ring'), sec.get('egp-ts')))} |",
            "",
        ]
        speed = _ratio(sec.get("dts-ring"), sec.get("egp-ts"))
        if workers == 16 and speed is not None:
            lines.append(
                "- Target, 16 agents on a ring: seconds per suggestion at most half of egp-ts's: "
                f"ratio {speed:.2f}: **{'met' if speed <= 0.5 else 'not met'}**."
            )
        elif speed is not None:
            lines.append(
                f"- Ring / egp-ts seconds per suggestion at {workers} agents: {speed:.2f} (the "
                "target, <= 0.5, is for 16 agents)."
            )
        if ratios:
            within = [fn for fn, v in ratios.items() if v <= 1.2]
            within_floored = [fn for fn, v in floored.items() if v <= 1.2]
            lines.append(
                "- Target, complete graph: regret within 1.2x egp-ts's: on "
                f"{len(within)}/{len(ratios)} functions raw (geometric mean ratio "
                f"{_gmean(ratios.values()):.2f}), {len(within_floored)}/{len(floored)} with the "
                f"solved level: **{'met' if len(within) == len(ratios) else 'not met'}** (raw)."
            )
        if beats_tpe:
            wins = sum(beats_tpe.values())
            lines.append(
                "- Target, dts-complete better than TPE on most functions: "
                f"{wins}/{len(beats_tpe)}: "
                f"**{'met' if wins > len(beats_tpe) / 2 else 'not met'}**."
            )
        lines += ["", provenance_line(rs), ""]
    return lines


# regret below this fraction of the start-up regret counts as solved (async tables)
SOLVED_FRACTION = 1e-3


def model_ask_seconds(
    ask_seconds: list[float], model_at_ask: list[bool] | None, complete_at_ask: list[int]
) -> float:
    """Mean seconds of the asks whose suggestion came from the model (without
    ``model_at_ask``: asks made once ``STARTUP_TRIALS`` trials completed, which also counts
    random start-up asks of agents)."""
    modelled = model_at_ask or [c >= STARTUP_TRIALS for c in complete_at_ask]
    s = [t for t, m in zip(ask_seconds, modelled) if m]
    return float(np.mean(s)) if s else float("nan")


# the samplers' order in the async tables and plots (others after them, sorted)
ASYNC_ORDER = (
    "dts-complete",
    "dts-star",
    "dts-ring",
    "dts-line",
    "dts-disconnected",
    "egp-ts",
    "tpe",
    "tpe-cl",
    "random",
)


def _ratio(a, b):
    if a is None or b is None or not np.isfinite(a) or not np.isfinite(b) or b <= 0:
        return None
    return a / b


def _fmt(x) -> str:
    return "-" if x is None else f"{x:.2f}"


def _gmean(values) -> float:
    v = np.array([x for x in values if x > 0], dtype=float)
    return float(np.exp(np.mean(np.log(v)))) if len(v) else float("nan")


# ============================================================================= plots
def plot(
    reproduce_rows: list[dict], async_rows: list[dict], out_dir: pathlib.Path
) -> list[pathlib.Path]:
    """PNGs: R_A/R_B/R_W against rounds for the star sweep and for the topology comparison
    (median over seeds; one row of panels per function; the setting of the last row), and
    async regret curves."""
    plt = pyplot()
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    rows = _latest([r for r in reproduce_rows if r.get("bench") == BENCH_REPRODUCE], REPRODUCE_KEY)
    if rows:
        last = rows[-1]
        setting = ("rounds", "n_init", "init", "noise")
        rows = [r for r in rows if all(r[k] == last[k] for k in setting)]
        star = [r for r in rows if r["graph"] == "star"]
        m_top = max(
            (r["n_agents"] for r in rows if r["graph"] in ("complete", "disconnected", SHARED)),
            default=None,
        )
        # the reference of the comparison
        single = [r for r in rows if r["n_agents"] == 1 and r["graph"] != SHARED]
        topo = [r for r in rows if m_top is not None and r["n_agents"] == m_top] + (
            single if m_top else []
        )
        for name, subset, label in (
            ("star", star, lambda r: f"{r['n_agents']} agent{'s' * (r['n_agents'] > 1)}"),
            (
                "topology",
                topo,
                lambda r: "1 agent" if r["n_agents"] == 1 else f"{r['graph']} x{r['n_agents']}",
            ),
        ):
            if not subset:
                continue
            path = out_dir / f"dts_reproduce_{name}.png"
            _plot_reproduce(
                plt,
                subset,
                label,
                path,
                f"{name} (T={last['rounds']}, {last['n_init']} initial points, {last['init']})",
            )
            written.append(path)
    arows = _latest([r for r in async_rows if r.get("bench") == BENCH_ASYNC], ASYNC_KEY)
    for workers in sorted({r["workers"] for r in arows}):
        path = out_dir / f"dts_async{workers}.png"
        _plot_async(plt, [r for r in arows if r["workers"] == workers], path, workers)
        written.append(path)
    return written


def _plot_reproduce(plt, rows, label, path, title) -> None:
    functions = [fn for fn in REPRODUCE_FUNCTIONS if any(r["function"] == fn for r in rows)]
    fig, axes = plt.subplots(len(functions), 3, figsize=(13, 3.6 * len(functions)), squeeze=False)
    for i, fn in enumerate(functions):
        cells = defaultdict(list)
        for r in rows:
            if r["function"] == fn:
                cells[(_config_order(r["graph"], r["n_agents"]), r["surrogate"], label(r))].append(
                    r
                )
        for j, metric in enumerate(("R_A", "R_W", "R_B")):
            ax = axes[i][j]
            for (_, surrogate, name), rs in sorted(cells.items()):
                curve = np.median(np.array([r[metric] for r in rs]), axis=0)
                suffix = f" [{surrogate}]" if len({s for _, s, _ in cells}) > 1 else ""
                ax.plot(
                    np.arange(1, len(curve) + 1),
                    np.maximum(curve, 1e-8),
                    label=f"{name}{suffix} ({len(rs)})",
                )
            ax.set_yscale("log")
            ax.set_title(f"{fn}: {metric}")
            ax.set_xlabel("round t")
            ax.grid(alpha=0.3)
            if j == 0:
                ax.legend(fontsize=8)
    fig.suptitle(f"Distributed Thompson sampling, {title}; median over seeds")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _plot_async(plt, rows, path, workers) -> None:
    functions = [fn for fn in FUNCTIONS if any(r["function"] == fn for r in rows)]
    cols = min(3, len(functions))
    nrows = -(-len(functions) // cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(4.5 * cols, 3.5 * nrows), squeeze=False)
    for k, fn in enumerate(functions):
        ax = axes[k // cols][k % cols]
        for s in ordered({r["sampler"] for r in rows if r["function"] == fn}, ASYNC_ORDER):
            curves = np.array(
                [r["regret"] for r in rows if r["function"] == fn and r["sampler"] == s]
            )
            curve = np.median(curves, axis=0)
            ax.plot(
                np.arange(1, len(curve) + 1), np.maximum(curve, 1e-8), label=f"{s} ({len(curves)})"
            )
        ax.set_yscale("log")
        ax.set_title(fn)
        ax.set_xlabel("evaluations")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    for k in range(len(functions), nrows * cols):
        axes[k // cols][k % cols].axis("off")
    fig.suptitle(f"{workers} asynchronous agents: median regret")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ============================================================================= main
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
