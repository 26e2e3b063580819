"""The Ax adapter with real Ax: parameter types,
constraints, batches, pending points, JSON storage."""

import json
import logging
import math
import subprocess
import sys
import warnings

import pytest

pytest.importorskip("ax")

from ax import ChoiceParameterConfig, Client, RangeParameterConfig

import ax_egp
from ax_egp import AlgorithmNode, generation_strategy

warnings.filterwarnings("ignore", module="ax")
logging.getLogger("ax").setLevel(logging.WARNING)

CONSTRAINT = "x + k <= 4.5"
CHOICES = {"c": ["a", "b", "c"], "o": [1, 2, 4, 8], "r": [0.1, 0.5], "b": [True, False]}


def _client(strategy, objective="-loss") -> Client:
    client = Client(random_seed=0)
    client.configure_experiment(
        parameters=[
            RangeParameterConfig(name="x", bounds=(0.0, 2.0), parameter_type="float"),
            RangeParameterConfig(
                name="y", bounds=(1e-3, 100.0), parameter_type="float", scaling="log"
            ),
            RangeParameterConfig(name="k", bounds=(1, 10), parameter_type="int"),
            RangeParameterConfig(name="m", bounds=(1, 1000), parameter_type="int", scaling="log"),
            ChoiceParameterConfig(name="c", values=CHOICES["c"], parameter_type="str"),
            ChoiceParameterConfig(
                name="o", values=CHOICES["o"], parameter_type="int", is_ordered=True
            ),
            ChoiceParameterConfig(
                name="r", values=CHOICES["r"], parameter_type="float", is_ordered=False
            ),
            ChoiceParameterConfig(name="b", values=CHOICES["b"], parameter_type="bool"),
            ChoiceParameterConfig(name="fixed", values=["only"], parameter_type="str"),
        ],
        parameter_constraints=[CONSTRAINT],
    )
    client.configure_optimization(objective=objective)
    client.set_generation_strategy(strategy)
    return client


def _loss(p) -> float:
    return (
        (p["x"] - 1.3) ** 2
        + 0.1 * p["k"]
        + (p["c"] != "b")
        + 0.05 * p["o"]
        + p["r"]
        + p["b"]
        + 0.01 * abs(math.log(p["y"]))
        + 0.001 * p["m"]
    )


def _check_candidate(p) -> None:
    """Bounds, Python types, choices and the constraint, checked independently of Ax."""
    assert set(p) == {"x", "y", "k", "m", "c", "o", "r", "b", "fixed"}
    assert type(p["x"]) is float and 0.0 <= p["x"] <= 2.0
    assert type(p["y"]) is float and 1e-3 <= p["y"] <= 100.0
    assert type(p["k"]) is int and 1 <= p["k"] <= 10
    assert type(p["m"]) is int and 1 <= p["m"] <= 1000
    for name, values in CHOICES.items():
        assert any(p[name] == v and type(p[name]) is type(v) for v in values), (name, p[name])
    assert p["fixed"] == "only"
    assert p["x"] + p["k"] <= 4.5


def _run(client, batches, failed=(), abandoned=()) -> list[dict]:
    seen = []
    for batch in batches:
        trials = client.get_next_trials(max_trials=batch)
        for index, params in trials.items():
            _check_candidate(params)
            seen.append(params)
            if index in failed:
                client.mark_trial_failed(index)
            elif index in abandoned:
                # the Client has no public call for it
                client._experiment.trials[index].mark_abandoned()
            else:
                client.complete_trial(index, raw_data={"loss": _loss(params)})
    return seen


# DEC-HBO with one structure sample and a short chain: the Ax path is what is tested here
# STO-BNTS with a narrow network and a short training
CHEAP = {
    "dec-hbo": {"n_structures": 1, "mcmc_steps": 3},
    "sto-bnts": {"width": 16, "max_steps": 30},
}


@pytest.mark.slow
@pytest.mark.parametrize("method", ["egp-ts", "egp-ei", "bore++", "dec-hbo", "sto-bnts", "bore"])
def test_mixed_space_with_constraint_and_batches(method):
    client = _client(
        generation_strategy(method, initialization_trials=5, seed=0, **CHEAP.get(method, {}))
    )
    failed = {6}
    seen = _run(client, [10, 1, 4, 4, 4, 1, 4, 4], failed=failed, abandoned={7})
    assert len(seen) >= 20
    experiment = client._experiment
    nodes = [t.generator_runs[0]._generation_node_name for t in experiment.trials.values()]
    assert nodes[:5] == ["Sobol"] * 5 and set(nodes[5:]) == {method}
    # No point repeats, except that a failed trial's point may be suggested again: Ax deduplicates
    # against every arm but a failed trial's (Experiment.arms_by_signature_for_deduplication).
    # seen[i] is trial i.
    kept = [json.dumps(p, sort_keys=True) for i, p in enumerate(seen) if i not in failed]
    assert len(set(kept)) == len(kept)
    best, values, _, _ = client.get_best_parameterization()
    assert values["loss"][0] < 1.0  # random search reaches ~1.5 median here; the optimum is 0.25


def test_first_large_request_stops_at_the_initialization_budget():
    client = _client(generation_strategy("egp-ts", initialization_trials=5, seed=1))
    assert len(client.get_next_trials(max_trials=10)) == 5


def test_zero_initialization_trials_starts_with_the_algorithm():
    client = _client(generation_strategy("egp-ts", initialization_trials=0, seed=1))
    seen = _run(client, [3, 2])
    assert len(seen) == 5


def test_same_seed_gives_same_trials():
    runs = [
        _run(_client(generation_strategy("egp-ts", initialization_trials=3, seed=7)), [3, 2, 2])
        for _ in range(2)
    ]
    assert runs[0] == runs[1]


@pytest.mark.slow
def test_json_round_trip_continues_the_strategy(tmp_path):
    path = str(tmp_path / "client.json")
    client = _client(
        generation_strategy(
            "egp-ts",
            initialization_trials=4,
            seed=3,
            max_threads=2,
            model_failures=False,
            n_features=128,
        )
    )
    _run(client, [4, 2])
    client.save_to_json_file(path)
    loaded = Client.load_from_json_file(path)
    # the loaded strategy holds a real AlgorithmNode again
    node = loaded._generation_strategy._nodes[1]
    assert isinstance(node, AlgorithmNode)
    assert node.json_kwargs() == {
        "method": "egp-ts",
        "seed": 3,
        "options": {"n_features": 128},
        "name": "egp-ts",
        "max_threads": 2,
        "model_failures": False,
    }
    # The model is rebuilt from the experiment, so two loads of one file continue identically. (The
    # original client may differ slightly: it updated its GPs incrementally, the loaded ones refit.)
    again = Client.load_from_json_file(path)
    assert _run(loaded, [2]) == _run(again, [2])
    nodes = [t.generator_runs[0]._generation_node_name for t in loaded._experiment.trials.values()]
    assert nodes[-2:] == ["egp-ts", "egp-ts"]
    assert len(_run(loaded, [2, 2])) == 4


@pytest.mark.slow
def test_maximisation_direction_is_respected():
    """Maximising ``loss`` must move away from the minimum found when minimising."""
    lo = _client(generation_strategy("egp-ts", initialization_trials=4, seed=0), objective="-loss")
    hi = _client(generation_strategy("egp-ts", initialization_trials=4, seed=0), objective="loss")
    lo_vals = [_loss(p) for p in _run(lo, [4, 2, 2, 2, 2])][4:]
    hi_vals = [_loss(p) for p in _run(hi, [4, 2, 2, 2, 2])][4:]
    assert sum(hi_vals) / len(hi_vals) > sum(lo_vals) / len(lo_vals)


def test_unknown_method_lists_the_valid_ones():
    with pytest.raises(ValueError, match="egp-ts"):
        generation_strategy("nope")
    with pytest.raises(ValueError, match="initialization_trials"):
        generation_strategy("egp-ts", initialization_trials=-1)
    with pytest.raises(ValueError, match="options must be JSON"):
        generation_strategy("egp-ts", kernels=object())
    # the one kernel-name parser, as in the samplers
    with pytest.raises(ValueError, match="rbf-bogus"):
        generation_strategy("egp-ts", kernels=["rbf-bogus"])


def test_numpy_numbers_are_accepted_and_stored_as_json_values():
    import json

    import numpy as np

    gs = generation_strategy(
        "bore++",
        initialization_trials=np.int64(3),
        seed=np.int32(1),
        gamma=np.float32(0.5),
        kernel="matern32-ard",
        max_points=np.int64(100),
    )
    node = gs.nodes_by_name["bore++"]
    assert (
        node.seed == 1
        and json.loads(json.dumps(node.json_kwargs()))["options"]["max_points"] == 100
    )
    assert (
        node.algorithm.classifier.spec.name == "matern32-ard" and node.algorithm.max_points == 100
    )


@pytest.mark.slow
def test_importing_other_packages_does_not_import_ax():
    code = (
        "import sys, optuna_egp, shared_core, shared_core.registry; "
        "print(any(m == 'ax' or m.startswith('ax.') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def _small_client(parameters, constraints=(), initialization_trials=2) -> Client:
    client = Client(random_seed=0)
    client.configure_experiment(parameters=parameters, parameter_constraints=list(constraints))
    client.configure_optimization(objective="-loss")
    client.set_generation_strategy(
        generation_strategy("egp-ts", initialization_trials=initialization_trials, seed=0)
    )
    return client


def test_fixed_parameters_and_constraints_on_step_size_parameters():
    """``get_next_trials(fixed_parameters=...)`` is honoured by our node (Ax passes it only to
    ``_gen``), and a constraint on a ``step_size`` range (an ordered float choice in Ax) holds."""
    client = _small_client(
        [
            RangeParameterConfig(
                name="x", bounds=(0.0, 1.0), parameter_type="float", step_size=0.25
            ),
            RangeParameterConfig(name="y", bounds=(0.0, 1.0), parameter_type="float"),
        ],
        constraints=["x + y <= 1"],
    )
    for fixed in (None, None, {"x": 0.75}, {"x": 0.75}):
        for index, p in client.get_next_trials(max_trials=2, fixed_parameters=fixed).items():
            assert p["x"] in (0.0, 0.25, 0.5, 0.75, 1.0) and p["x"] + p["y"] <= 1
            assert fixed is None or p["x"] == 0.75
            client.complete_trial(index, raw_data={"loss": (p["x"] - 0.3) ** 2 + p["y"]})
    nodes = {t.generator_runs[0]._generation_node_name for t in client._experiment.trials.values()}
    assert "egp-ts" in nodes


@pytest.mark.slow
def test_batches_in_a_small_discrete_space_hold_distinct_arms():
    """36 possible arms: Ax only de-duplicates against
    existing arms, so the node must keep a batch distinct."""
    client = _small_client(
        [
            ChoiceParameterConfig(
                name="a", values=[0, 1, 2, 3], parameter_type="int", is_ordered=False
            ),
            ChoiceParameterConfig(name="b", values=["x", "y", "z"], parameter_type="str"),
            RangeParameterConfig(name="k", bounds=(1, 3), parameter_type="int"),
        ],
        initialization_trials=3,
    )
    for _ in range(5):
        trials = client.get_next_trials(max_trials=4)
        assert len({json.dumps(p, sort_keys=True) for p in trials.values()}) == len(trials)
        for index, p in trials.items():
            client.complete_trial(
                index, raw_data={"loss": (p["a"] - 2) ** 2 + (p["b"] != "y") + abs(p["k"] - 2)}
            )


def test_importing_ax_egp_without_ax_says_what_to_install():
    code = "import sys; sys.modules['ax'] = None; import ax_egp"  # as if Ax were not installed
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode != 0 and "ax_egp needs Ax" in out.stderr and ".[ax]" in out.stderr


def test_every_package_has_the_distribution_version():
    from importlib.metadata import version

    import optuna_egp
    import shared_core

    assert (
        shared_core.__version__
        == optuna_egp.__version__
        == ax_egp.__version__
        == version("egp-samplers")
    )


@pytest.mark.slow
def test_dts_agents_are_trial_indices_modulo_the_number_of_agents_and_see_their_neighbourhood(
    tmp_path,
):
    client = _client(
        generation_strategy("dts", initialization_trials=4, seed=0, graph="line", n_agents=3)
    )
    _run(client, [4, 1, 2])  # Sobol 0-3; trial 4 (agent 1); trials 5, 6 (agents 2, 0) in one call
    node = client._generation_strategy._nodes[1]
    assert set(node.algorithm._models) == {0, 1, 2}
    # trial 6 is agent 0 of the line 0-1-2: it sees completed trials of agents 0 and 1 (0, 3
    # and 1, 4), not trial 2 (agent 2), nor trial 5 of the same call (agent 2)
    assert node.algorithm.last_view == {
        "agent": 0,
        "sources": [0, 1],
        "n_observed": 4,
        "n_pending": 0,
    }
    path = str(tmp_path / "client.json")
    client.save_to_json_file(path)
    loaded = Client.load_from_json_file(path)
    _run(loaded, [2])
    reloaded_node = loaded._generation_strategy._nodes[1]
    assert reloaded_node.algorithm.agent_id == (len(loaded._experiment.trials) - 1) % 3
