"""Distributed Thompson sampling: M worker processes, one agent each, on a communication graph.

Run:  python examples/distributed_ts.py [storage URL] [graph] [agents]
      defaults: a Journal file in a temporary folder (removed at the end), "ring", 6 agents.
      e.g.  python examples/distributed_ts.py postgresql://user:password@host/db star 8

Each worker is a separate process with its agent in the environment variable OPTUNA_EGP_AGENT_ID, as
when the same script is launched M times (e.g. by a cluster's job array):
      OPTUNA_EGP_AGENT_ID=$i python worker.py
Every trial records its agent (user attribute ``agent_id``); an agent's model sees the trials of its
neighbours and its own only. At the end the script prints, per agent, how many trials it ran, what
the last one conditioned on (trial system attribute ``egp_samplers:view``) and its best value.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import os
import sys
import tempfile

import optuna
from optuna.storages import JournalStorage
from optuna.storages.journal import JournalFileBackend

from optuna_egp import VIEW_KEY, DistributedTSSampler

TRIALS_PER_AGENT = 12


def objective(trial: optuna.Trial) -> float:
    """2-D Ackley in its usual form, minimised (minimum 0 at the origin)."""
    x, y = trial.suggest_float("x", -5, 5), trial.suggest_float("y", -5, 5)
    return (
        -20 * math.exp(-0.2 * math.sqrt(0.5 * (x * x + y * y)))
        - math.exp(0.5 * (math.cos(2 * math.pi * x) + math.cos(2 * math.pi * y)))
        + 20
        + math.e
    )


def storage(url: str):
    if url.endswith(".log"):
        return JournalStorage(JournalFileBackend(url))
    return url


def worker(url: str, agent: int, graph: str, n_agents: int) -> None:
    os.environ["OPTUNA_EGP_AGENT_ID"] = str(agent)  # what a job array would set
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = DistributedTSSampler(graph=graph, n_agents=n_agents, seed=agent, n_startup_trials=4)
    study = optuna.load_study(study_name="dts", storage=storage(url), sampler=sampler)
    study.optimize(objective, n_trials=TRIALS_PER_AGENT)


def main() -> None:
    optuna.logging.set_verbosity(optuna.logging.WARNING)  # no INFO line per study and trial
    graph = sys.argv[2] if len(sys.argv) > 2 else "ring"
    n_agents = int(sys.argv[3]) if len(sys.argv) > 3 else 6
    if len(sys.argv) > 1:
        run(sys.argv[1], graph, n_agents)
        return
    with tempfile.TemporaryDirectory() as folder:  # the journal file goes with the folder
        run(os.path.join(folder, "dts.log"), graph, n_agents)


def run(url: str, graph: str, n_agents: int) -> None:
    optuna.create_study(study_name="dts", storage=storage(url), load_if_exists=True)
    ctx = mp.get_context("spawn")
    procs = [
        ctx.Process(target=worker, args=(url, agent, graph, n_agents)) for agent in range(n_agents)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join()

    study = optuna.load_study(study_name="dts", storage=storage(url))
    sampler = DistributedTSSampler(agent_id=0, graph=graph, n_agents=n_agents)
    print(
        f"{graph} graph, {n_agents} agents, {len(study.trials)} trials; largest clique "
        f"{sampler.graph.largest_clique_size}, clique cover {sampler.graph.clique_cover_number}"
    )
    for agent in range(n_agents):
        mine = [
            t for t in study.trials if t.user_attrs.get("agent_id") == agent and t.value is not None
        ]
        view = next(
            (t.system_attrs[VIEW_KEY] for t in reversed(mine) if t.system_attrs.get(VIEW_KEY)), None
        )
        seen = view["sources"] if view else "-"
        best = f"{min(t.value for t in mine):.4f}" if mine else "-"
        print(
            f"agent {agent}: neighbourhood {sorted(sampler.graph.neighbourhood(agent))}, "
            f"{len(mine)} trials, last model saw agents {seen}, best {best}"
        )
    print(f"best overall {study.best_value:.4f} at {study.best_params}")


if __name__ == "__main__":
    main()
