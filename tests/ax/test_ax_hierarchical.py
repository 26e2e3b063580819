"""Hierarchical Ax search spaces (``dependent_parameters``) with real Ax: candidates hold exactly
their active parameters, observed arms are modelled, JSON storage, every kind of algorithm."""

import logging
import math
import warnings

import pytest

pytest.importorskip("ax")

from ax import ChoiceParameterConfig, Client, RangeParameterConfig

from ax_egp import generation_strategy
from ax_egp._space import AxSpace
from shared_core.conditions import INACTIVE_VALUE

warnings.filterwarnings("ignore", module="ax")
logging.getLogger("ax").setLevel(logging.WARNING)

# model -> lin (lr, pen -> l1 (alpha)) | tree (depth) | mlp (layers -> 3 (width), act -> slope);
# s and t are shared. pen is an unordered nested choice, layers an ordered one, act a fixed
# parameter (one value) with a dependent.
PARAMETERS = [
    ChoiceParameterConfig(
        name="model",
        values=["lin", "tree", "mlp"],
        parameter_type="str",
        is_ordered=False,
        dependent_parameters={"lin": ["lr", "pen"], "tree": ["depth"], "mlp": ["layers", "act"]},
    ),
    RangeParameterConfig(name="lr", bounds=(1e-4, 1.0), parameter_type="float", scaling="log"),
    ChoiceParameterConfig(
        name="pen",
        values=["l1", "l2"],
        parameter_type="str",
        is_ordered=False,
        dependent_parameters={"l1": ["alpha"]},
    ),
    RangeParameterConfig(name="alpha", bounds=(0.0, 1.0), parameter_type="float"),
    RangeParameterConfig(name="depth", bounds=(1, 10), parameter_type="int"),
    ChoiceParameterConfig(
        name="layers",
        values=[1, 2, 3],
        parameter_type="int",
        is_ordered=True,
        dependent_parameters={3: ["width"]},
    ),
    RangeParameterConfig(name="width", bounds=(8, 64), parameter_type="int"),
    ChoiceParameterConfig(
        name="act", values=["relu"], parameter_type="str", dependent_parameters={"relu": ["slope"]}
    ),
    RangeParameterConfig(name="slope", bounds=(0.0, 0.3), parameter_type="float"),
    RangeParameterConfig(name="s", bounds=(0.0, 1.0), parameter_type="float"),
    RangeParameterConfig(name="t", bounds=(0, 3), parameter_type="int"),
]


def _client(method="egp-ts", constraints=("s + t <= 3",), initialization_trials=4, **options):
    client = Client(random_seed=0)
    client.configure_experiment(parameters=PARAMETERS, parameter_constraints=list(constraints))
    client.configure_optimization(objective="-loss")
    client.set_generation_strategy(
        generation_strategy(method, initialization_trials=initialization_trials, seed=0, **options)
    )
    return client


def _active_names(p) -> set[str]:
    """The parameters active under ``p``'s values, from the tree above."""
    names = {"model", "s", "t"}
    if p["model"] == "lin":
        names |= {"lr", "pen"} | ({"alpha"} if p.get("pen") == "l1" else set())
    elif p["model"] == "tree":
        names.add("depth")
    else:
        names |= {"layers", "act", "slope"} | ({"width"} if p.get("layers") == 3 else set())
    return names


def _check_candidate(p) -> None:
    assert set(p) == _active_names(p), p
    assert p["model"] in ("lin", "tree", "mlp") and p["s"] + p["t"] <= 3
    assert type(p["s"]) is float and 0 <= p["s"] <= 1 and type(p["t"]) is int and 0 <= p["t"] <= 3
    if "lr" in p:
        assert type(p["lr"]) is float and 1e-4 <= p["lr"] <= 1 and p["pen"] in ("l1", "l2")
    if "alpha" in p:
        assert type(p["alpha"]) is float and 0 <= p["alpha"] <= 1
    if "depth" in p:
        assert type(p["depth"]) is int and 1 <= p["depth"] <= 10
    if "layers" in p:
        assert p["layers"] in (1, 2, 3) and p["act"] == "relu" and 0 <= p["slope"] <= 0.3
    if "width" in p:
        assert type(p["width"]) is int and 8 <= p["width"] <= 64


def _loss(p) -> float:
    """Best in the lin branch: 0 at lr = 0.01 with l2 (or l1 and alpha = 1), s = 0.2, t = 0."""
    branch = {
        "lin": lambda: (math.log10(p["lr"]) + 2) ** 2 / 4 + 1 - p.get("alpha", 1.0),
        "tree": lambda: 0.5 + 0.05 * abs(p["depth"] - 4),
        "mlp": lambda: 0.8 - 0.1 * p["layers"] + p["slope"] + p.get("width", 0) / 640,
    }[p["model"]]()
    return branch + (p["s"] - 0.2) ** 2 + 0.05 * p["t"]


def _run(client, batches) -> list[dict]:
    seen = []
    for batch in batches:
        for index, p in client.get_next_trials(max_trials=batch).items():
            _check_candidate(p)
            seen.append(p)
            client.complete_trial(index, raw_data={"loss": _loss(p)})
    return seen


def _node_names(client) -> list[str]:
    return [t.generator_runs[0]._generation_node_name for t in client._experiment.trials.values()]


@pytest.mark.slow
def test_batches_hold_exactly_the_active_parameters_and_the_model_sees_every_arm():
    client = _client()
    seen = _run(client, [4, 3, 3, 3, 3])
    assert _node_names(client) == ["Sobol"] * 4 + ["egp-ts"] * (len(seen) - 4)
    # every completed arm is an observation, whichever parameters it lacks
    node = client._generation_strategy._nodes[1]
    assert len(node._space_and_observations()[1].X) == len(seen) - 3  # the last batch is new
    # the model finds the best branch (lin), which random points pick in 1 of 3 trials (7 or more
    # of 10: probability 0.02)
    assert sum(p["model"] == "lin" for p in seen[4:]) >= 7, seen[4:]


@pytest.mark.slow
@pytest.mark.parametrize("method, options", [("bore++", {}), ("dts", {"n_agents": 2})])
def test_every_kind_of_algorithm_generates_valid_points(method, options):
    client = _client(method, initialization_trials=3, **options)
    seen = _run(client, [3, 3, 2])
    assert _node_names(client)[3:] == [method] * (len(seen) - 3)


@pytest.mark.slow
def test_json_round_trip_continues_in_the_hierarchical_space(tmp_path):
    path = str(tmp_path / "client.json")
    client = _client(initialization_trials=3)
    _run(client, [3, 2])
    client.save_to_json_file(path)
    loaded, again = Client.load_from_json_file(path), Client.load_from_json_file(path)
    assert loaded._experiment.search_space.is_hierarchical
    assert _run(loaded, [3]) == _run(again, [3])  # checks every candidate, too
    assert _node_names(loaded)[-3:] == ["egp-ts"] * 3


def test_a_choice_held_by_fixed_parameters_leaves_only_its_branch():
    # no Sobol trials: Ax's Sobol exhausts its rejection sampling on fixed_parameters here
    client = _client(initialization_trials=0)
    for _ in range(2):
        trials = client.get_next_trials(max_trials=2, fixed_parameters={"model": "mlp"})
        for index, p in trials.items():
            _check_candidate(p)
            assert p["model"] == "mlp"
            client.complete_trial(index, raw_data={"loss": _loss(p)})
    assert _node_names(client) == ["egp-ts"] * 4
    # the parameters of the other branches are not modelled
    space = AxSpace(client._experiment.search_space, fixed={"model": "mlp"})
    assert set(space.core.params) == {"layers", "width", "slope", "s", "t"}


def test_arms_encode_missing_parameters_as_inactive_and_drop_incomplete_ones():
    space = AxSpace(_client()._experiment.search_space)
    tree = {"model": "tree", "depth": 3, "s": 0.5, "t": 1}
    X, kept = space.encode_kept(
        [
            tree,
            {**tree, "lr": 0.1},  # a value of an inactive parameter is ignored
            {"model": "lin", "s": 0.5, "t": 1},  # lr and pen are active: dropped
        ]
    )
    assert kept.tolist() == [0, 1]
    assert (X[0] == X[1]).all() and X[0, space.core.columns["lr"]] == [INACTIVE_VALUE]
    assert space.decode(X[0]) == tree


def test_a_constraint_on_a_conditional_parameter_is_refused_before_any_trial():
    client = _client(constraints=["alpha + s <= 1"])
    with pytest.raises(ValueError, match="'alpha', a parameter that is active only"):
        client.get_next_trials(max_trials=1)
    assert len(client._experiment.trials) == 0


def test_generated_points_are_valid_for_ax():
    """Ax's own membership check agrees: the node checks every candidate with it, and a full
    parameterization (with an inactive parameter) would not pass."""
    space = AxSpace(_client()._experiment.search_space)
    point = {"model": "tree", "depth": 3, "s": 0.5, "t": 1}
    space.check(point)
    with pytest.raises(RuntimeError, match="not in the search space"):
        space.check({**point, "lr": 0.1})
