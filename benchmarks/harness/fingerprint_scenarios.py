"""The fixed scenarios of the behaviour fingerprints (``harness.fingerprint``): seeded Optuna
studies and Ax ``Client`` runs whose suggestions, rounded, a fingerprint hashes. ``config``: a
``fingerprint.Config``."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

N_TRIALS = 13  # the samplers' 10 random start-up trials, then 3 model-based suggestions
# With trials pending, 4 worker slots (distributed TS: 4 agents, whose graphs differ from 4 nodes
# on), and trials enough for the model to answer several asks; distributed TS's agents count only
# their neighbours' trials (a disconnected agent its own) towards the 10 of the start-up.
N_PENDING, N_PENDING_TRIALS, N_PENDING_AGENT_TRIALS = 4, 20, 52
DECIMALS = 3


def _mixed(trial) -> float:
    x = trial.suggest_float("x", -2.0, 2.0)
    lr = trial.suggest_float("lr", 1e-4, 1e-1, log=True)
    n = trial.suggest_int("n", 1, 8)
    act = trial.suggest_categorical("act", ["relu", "tanh", "elu"])
    return (x - 0.7) ** 2 + (math.log10(lr) + 2.5) ** 2 + 0.1 * (n - 3) ** 2 + (act == "tanh")


def _one_float(trial) -> float:
    x = trial.suggest_float("x", -2.0, 2.0)
    return math.sin(3 * x) + 0.3 * x**2


def _two_objectives(trial) -> tuple[float, float]:
    x = trial.suggest_float("x", 0.0, 1.0)
    y = trial.suggest_float("y", 0.0, 1.0)
    return x**2 + y, (x - 1) ** 2 + (1 - y)


def _conditional(trial) -> float:
    kind = trial.suggest_categorical("kind", ["a", "b"])
    x = trial.suggest_float("x", 0.0, 1.0)
    extra = trial.suggest_float(f"extra_{kind}", 0.0, 1.0)
    return (x - 0.3) ** 2 + (extra - 0.6) ** 2 + (0.1 if kind == "a" else 0.0)


def _failing(trial) -> float:
    x = trial.suggest_float("x", 0.0, 1.0)
    y = trial.suggest_float("y", 0.0, 1.0)
    return math.nan if x > 0.6 else (x - 0.5) ** 2 + (y - 0.3) ** 2  # NaN: Optuna fails it


def _many(trial) -> float:
    """Twelve parameters in interacting triples: more than DEC-HBO's largest factor, so its
    structure chain and max-sum over several factors run."""
    x = [trial.suggest_float(f"x{i:02d}", 0.0, 1.0) for i in range(12)]
    return sum((x[i] - 0.3) ** 2 * (1 + x[i + 1]) + (x[i + 2] - 0.6) ** 2 for i in range(0, 12, 3))


def _constrained(trial) -> float:
    value = _mixed(trial)
    trial.set_constraint("x_at_most_half", trial.params["x"] - 0.5)
    return value


def _study(config: Any, n_agents: int, **study_options: Any) -> list:
    """One Optuna study per worker slot on one in-memory storage (``dts-*``: an agent each)."""
    import optuna

    from benchmarks.harness.samplers import make_agents

    samplers = make_agents(config.sampler, seed=0, n_agents=n_agents, **dict(config.options))
    storage = optuna.storages.InMemoryStorage()
    first = optuna.create_study(storage=storage, sampler=samplers[0], **study_options)
    return [first] + [
        optuna.load_study(storage=storage, study_name=first.study_name, sampler=s)
        for s in samplers[1:]
    ]


def _ask_tell(studies: list, objective: Callable, n_running: int, n_trials: int) -> list:
    """``n_trials`` trials, ``n_running`` running (one per worker slot, slot ``k`` asking through
    ``studies[k]``), completing in a seeded random order (``asktell.ask_tell``)."""
    import numpy as np

    from benchmarks.harness.asktell import ask_tell

    def ask(slot: int) -> tuple:
        study = studies[slot % len(studies)]
        trial = study.ask()
        return study, trial, objective(trial)

    def tell(slot: int, asked: tuple) -> None:
        study, trial, value = asked
        study.tell(trial, value)

    ask_tell(n_trials, n_running, np.random.default_rng(0), ask, tell)
    return studies[0].trials


def _optuna_scenario(
    objective, n_running=1, n_agents=1, n_trials=N_TRIALS, **study_options
) -> Callable:
    def run(config: Any) -> list:
        studies = _study(config, n_agents, **study_options)
        trials = _ask_tell(studies, objective, n_running, _trials(config, n_trials))
        return [unit_positions(t.params, t.distributions) for t in trials]

    return run


def _trials(config: Any, n_trials: int) -> int:
    if n_trials == N_PENDING_TRIALS and config.sampler.startswith("dts-"):
        return N_PENDING_AGENT_TRIALS
    return n_trials


def _ax_scenario(batch: int, constrained: bool = False, objectives: int = 1) -> Callable:
    def run(config: Any) -> list:
        from ax import ChoiceParameterConfig, RangeParameterConfig

        from benchmarks.harness.ax import ax_client

        parameters = [
            RangeParameterConfig(name="x", bounds=(-2.0, 2.0), parameter_type="float"),
            RangeParameterConfig(name="k", bounds=(1, 8), parameter_type="int"),
            ChoiceParameterConfig(name="c", values=["a", "b", "c"], parameter_type="str"),
        ]
        names = ("loss", "loss2")[:objectives]
        client = ax_client(
            config.sampler,
            None,
            0,
            ["c0 <= 0"] if constrained else (),
            objectives=names,
            parameters=parameters,
        )
        out = []
        while len(out) < N_TRIALS - 3:  # Ax's 5 Sobol trials, then 5 model-based ones
            for index, p in client.get_next_trials(max_trials=batch).items():
                loss = (p["x"] - 0.7) ** 2 + 0.1 * (p["k"] - 3) ** 2 + (p["c"] != "b")
                data = {"loss": loss, "loss2": (p["x"] + 1) ** 2, "c0": p["x"] - 0.5}
                client.complete_trial(index, raw_data=data)
                out.append({"x": round((p["x"] + 2) / 4, DECIMALS), "k": p["k"], "c": p["c"]})
        return out

    return run


SCENARIOS: dict[str, dict[str, Callable[[Any], list]]] = {
    "optuna": {
        "sequential": _optuna_scenario(_mixed),
        # one dimension: past the data-scarce rules (EI of "auto" below 10 trials per dimension)
        "one-dimension": _optuna_scenario(_one_float),
        "pending": _optuna_scenario(
            _mixed, n_running=N_PENDING, n_agents=N_PENDING, n_trials=N_PENDING_TRIALS
        ),
        "constrained": _optuna_scenario(_constrained),
        "objectives": _optuna_scenario(_two_objectives, directions=["minimize", "minimize"]),
        "conditional": _optuna_scenario(_conditional),
        # 40 % of the box fails, and failed trials do not end the start-up: 24 trials
        "failing": _optuna_scenario(_failing, n_trials=24),
        "many-parameters": _optuna_scenario(_many),  # DEC-HBO's only
    },
    "ax": {
        "sequential": _ax_scenario(batch=1),
        "batches": _ax_scenario(batch=3),
        "constrained": _ax_scenario(batch=1, constrained=True),
        "objectives": _ax_scenario(batch=1, objectives=2),
    },
}


def unit_positions(params: dict, distributions: dict) -> dict:
    """``params`` as positions in the unit cube rounded to ``DECIMALS`` (floats), integers and
    choices as they are."""
    out: dict[str, Any] = {}
    for name in sorted(params):
        value, dist = params[name], distributions[name]
        if hasattr(dist, "choices"):
            out[name] = value if isinstance(value, (str, int, bool)) else repr(value)
        elif type(dist).__name__ == "IntDistribution":
            out[name] = int(value)
        else:
            lo, hi, v = dist.low, dist.high, value
            if dist.log:
                lo, hi, v = math.log(lo), math.log(hi), math.log(v)
            out[name] = round((v - lo) / (hi - lo), DECIMALS) if hi > lo else 0.0
    return out
