"""The algorithm contract (``shared_core.interface``), checked on every registered algorithm.

A new algorithm registered in ``shared_core.registry`` joins these tests with no change here
(methods that need an option are given one in ``REQUIRED_OPTIONS``).
"""

import json

import numpy as np
import pytest

from shared_core import (
    CategoricalParam,
    Condition,
    FloatParam,
    IntParam,
    Observations,
    SearchSpace,
)
from shared_core.interface import (
    DECLARATIONS,
    UNKNOWN_SOURCE,
    Algorithm,
    ModelsConstraints,
    MultiAgent,
    MultiObjective,
    ReadsSources,
    SharesModelState,
    check_capabilities,
    declares,
    multi_objective,
)
from shared_core.registry import (
    algorithm_class,
    algorithm_names,
    algorithm_options,
    make_algorithm,
    methods_declaring,
    register_algorithm,
)
from shared_core.threads import limited_threads

# a topology name needs the number of agents
REQUIRED_OPTIONS = {"dts": {"n_agents": 3, "agent_id": 1}}
# Smaller than the defaults where a method has them,
# to keep the suite fast; the contract is the same.
CHEAP_OPTIONS = {
    "n_features": 64,
    "n_raw": 64,
    "n_starts": 2,
    "svgd_steps": 50,
    "width": 16,
    "max_steps": 30,
}
SPACE = SearchSpace(
    {"x": FloatParam(-1.0, 2.0), "n": IntParam(1, 6), "c": CategoricalParam(("a", "b", "c"))}
)
each_method = pytest.mark.parametrize("method", algorithm_names())
# the methods whose algorithms declare that they model several objectives (the adapters refuse
# such studies for the others before the first trial)
MULTI_OBJECTIVE = methods_declaring(MultiObjective)


def _make(method):
    if method == "bore":
        pytest.importorskip("torch")
    options = algorithm_options(method)
    cheap = {name: value for name, value in CHEAP_OPTIONS.items() if name in options}
    return make_algorithm(method, **cheap, **REQUIRED_OPTIONS.get(method, {}))


def _data(n=8, seed=0):
    rng = np.random.default_rng(seed)
    X = SPACE.sample(rng, n)  # (n, d)
    y = np.array([(v["x"] - 0.5) ** 2 + v["n"] / 6 + (v["c"] != "b") for v in map(SPACE.decode, X)])
    return X, y


def _assert_valid(X, n):
    assert X.shape == (n, SPACE.dim) and X.dtype == np.float64
    # each row is the encoding of a valid point
    np.testing.assert_array_equal(SPACE.round_to_valid(X), X)
    for row in X:
        SPACE.decode(row)


@each_method
def test_every_registered_method_lists_its_options_and_builds_an_algorithm(method):
    assert all(
        p.kind == p.KEYWORD_ONLY or p.default is not p.empty
        for p in algorithm_options(method).values()
    )
    assert isinstance(_make(method), Algorithm)


@pytest.mark.slow
@each_method
def test_suggestions_are_valid_encoded_points_with_or_without_data(method):
    rng = np.random.default_rng(0)
    _assert_valid(
        _make(method).suggest(SPACE, Observations(np.zeros((0, SPACE.dim)), np.zeros(0)), 2, rng), 2
    )
    X, y = _data()
    _assert_valid(_make(method).suggest(SPACE, Observations(X, y), 3, rng), 3)


# a root choice; branch "a" holds a float and a choice whose "u" branch holds a log float,
# branch "b" an int; "s" is always active
CONDITIONAL = SearchSpace(
    {
        "m": CategoricalParam(("a", "b", "c")),
        "xa": FloatParam(0.0, 1.0),
        "ka": CategoricalParam(("u", "v")),
        "xu": FloatParam(1e-3, 1.0, log=True),
        "nb": IntParam(1, 10),
        "s": FloatParam(-1.0, 1.0),
    },
    conditions={
        "xa": Condition("m", ("a",)),
        "ka": Condition("m", ("a",)),
        "xu": Condition("ka", ("u",)),
        "nb": Condition("m", ("b",)),
    },
)


@each_method
def test_suggestions_in_a_conditional_space_have_inactive_parameters_at_their_fixed_encoding(
    method,
):
    rng = np.random.default_rng(0)
    X = CONDITIONAL.sample(rng, 12)  # (12, d)
    y = np.array(
        [
            v.get("xa", 0.6) + v.get("nb", 5) / 10 + v["s"] ** 2
            for v in map(CONDITIONAL.decode_active, X)
        ]
    )
    pending = CONDITIONAL.sample(rng, 1)
    batch = _make(method).suggest(CONDITIONAL, Observations(X, y, X_pending=pending), 3, rng)
    assert batch.shape == (3, CONDITIONAL.dim)
    np.testing.assert_array_equal(CONDITIONAL.impute_inactive(batch), batch)
    np.testing.assert_array_equal(CONDITIONAL.round_to_valid(batch), batch)
    points = np.vstack([pending, batch])
    gaps = np.linalg.norm(points[:, None] - points[None], axis=-1)[np.triu_indices(len(points), 1)]
    assert gaps.min() > 1e-9


@pytest.mark.slow
@each_method
def test_the_same_seed_gives_the_same_suggestions(method):
    X, y = _data()
    first = _make(method).suggest(SPACE, Observations(X, y), 2, np.random.default_rng(7))
    again = _make(method).suggest(SPACE, Observations(X, y), 2, np.random.default_rng(7))
    np.testing.assert_array_equal(first, again)


@each_method
def test_nan_and_infinite_values_are_handled(method):
    X, y = _data()
    y[[1, 3, 5]] = [np.nan, np.inf, -np.inf]
    _assert_valid(_make(method).suggest(SPACE, Observations(X, y), 1, np.random.default_rng(0)), 1)


@each_method
def test_a_batch_never_repeats_a_pending_point_or_itself(method):
    X, y = _data(10)
    pending = SPACE.sample(np.random.default_rng(3), 2)  # (2, d)
    batch = _make(method).suggest(
        SPACE, Observations(X, y, X_pending=pending), 3, np.random.default_rng(0)
    )
    points = np.vstack([pending, batch])
    gaps = np.linalg.norm(points[:, None] - points[None], axis=-1)[np.triu_indices(len(points), 1)]
    assert gaps.min() > 1e-9


@each_method
def test_every_registered_algorithm_declares_what_it_models_as_class_attributes(method):
    """``models_constraints`` and ``multi_objective`` (True: models it, False: refuses it) are
    class attributes, which the adapters and the registry read without building the algorithm,
    and the built algorithm keeps them."""
    cls = algorithm_class(method)
    assert cls is not None
    for protocol, (attribute, _) in DECLARATIONS.items():
        assert isinstance(getattr(cls, attribute, None), bool), attribute
        assert declares(_make(method), protocol) == declares(cls, protocol)


@pytest.mark.parametrize("method", MULTI_OBJECTIVE)
def test_algorithms_of_several_objectives_suggest_valid_batches_away_from_pending_points(method):
    algorithm = _make(method)
    assert multi_objective(algorithm)
    X, y = _data(10)
    Y = np.column_stack([y, -y + X[:, 0]])  # two objectives in conflict
    Y[2, 1] = np.nan
    pending = SPACE.sample(np.random.default_rng(3), 1)  # (1, d)
    with limited_threads(1):  # as the samplers run them
        batch = algorithm.suggest(
            SPACE, Observations(X, Y, X_pending=pending), 2, np.random.default_rng(7)
        )
    _assert_valid(batch, 2)
    points = np.vstack([pending, batch])
    gaps = np.linalg.norm(points[:, None] - points[None], axis=-1)[np.triu_indices(len(points), 1)]
    assert gaps.min() > 1e-9


@each_method
def test_declared_capabilities_behave_as_the_contract_says(method):
    algorithm = _make(method)
    X, y = _data()
    algorithm.suggest(SPACE, Observations(X, y), 1, np.random.default_rng(0))
    if isinstance(algorithm, SharesModelState):
        state = algorithm.model_state()
        assert state is not None and json.loads(json.dumps(state)) == state  # JSON values
        fresh = _make(method)
        assert fresh.wants_model_state() and fresh.offer_model_state(state)
        assert not fresh.wants_model_state()  # one state is enough
    if isinstance(algorithm, ReadsSources):
        assert isinstance(algorithm.source_attribute, str) and algorithm.source_attribute
    if isinstance(algorithm, MultiAgent):
        assert algorithm.n_agents >= 1 and 0 <= algorithm.agent_id < algorithm.n_agents
        assert {UNKNOWN_SOURCE, algorithm.agent_id} <= algorithm.known_sources()
        assert isinstance(algorithm.model_source, int)
        assert (
            algorithm.last_view is not None
            and json.loads(json.dumps(algorithm.last_view)) == algorithm.last_view
        )


REFUSED = [
    (method, protocol)
    for protocol in DECLARATIONS
    for method in algorithm_names()
    if method not in methods_declaring(protocol)
]


@pytest.mark.parametrize("method, protocol", REFUSED, ids=[f"{m}-{p.__name__}" for m, p in REFUSED])
def test_an_algorithm_refuses_what_it_does_not_declare_it_models(method, protocol):
    """Observations with constraint values, or with several objectives, are a ``ValueError`` of
    ``suggest`` for an algorithm that does not declare it models them, naming the algorithm and
    the registered methods that do."""
    X, y = _data()
    obs = (
        Observations(X, y, constraints=X[:, :1] - 0.5, constraint_names=("c",))
        if protocol is ModelsConstraints
        else Observations(X, np.column_stack([y, -y]))
    )
    algorithm = _make(method)
    with pytest.raises(ValueError) as raised:
        algorithm.suggest(SPACE, obs, 1, np.random.default_rng(0))
    message = str(raised.value)
    _, what = DECLARATIONS[protocol]
    assert message.startswith(f"{type(algorithm).__name__} does not model {what}: "), message
    assert all(repr(other) in message for other in methods_declaring(protocol)), message


def test_registering_a_method_name_twice_is_refused(monkeypatch):
    from shared_core import registry

    monkeypatch.setattr(registry, "_FACTORIES", dict(registry._FACTORIES))  # restored afterwards
    register_algorithm("toy-suggests", _Suggests)
    with pytest.raises(ValueError, match="'toy-suggests' is registered already"):
        register_algorithm("toy-suggests", _Suggests)
    with pytest.raises(ValueError, match="'egp-ts' is registered already"):
        register_algorithm("egp-ts", _Suggests)
    assert registry._FACTORIES["egp-ts"] is not _Suggests


class _Suggests:
    def suggest(self, space, obs, n_suggestions, rng):
        return space.sample(rng, n_suggestions)


class _HalfAnAgent(_Suggests):
    """Names its sources but lacks the rest of MultiAgent (agent_id, n_agents, ...)."""

    source_attribute = "agent_id"

    def known_sources(self):
        return frozenset({0, -1})


class _RecordsOnly(_Suggests):
    """Has a model state to record but cannot adopt one."""

    def model_state(self):
        return {"weights": [1.0]}


class _Delegating(_Suggests):
    """Every SharesModelState member through __getattr__, which isinstance does not see on 3.12+."""

    def __getattr__(self, name):
        if name in ("model_state", "wants_model_state", "offer_model_state"):
            return lambda *args: None
        raise AttributeError(name)


@pytest.mark.parametrize(
    "algorithm, message",
    [
        (_HalfAnAgent(), r"\['known_sources'\] of the MultiAgent capability .* not \['agent_id'"),
        (_RecordsOnly(), r"\['model_state'\] of the SharesModelState capability .* not \['wants"),
    ],
    ids=["half-an-agent", "records-only"],
)
def test_an_algorithm_with_part_of_a_capability_is_refused_by_both_adapters(algorithm, message):
    """A partial capability would be ignored without a word (e.g. an agent learning from every
    agent's trials): the adapters refuse it, naming what is missing."""
    from optuna_egp import CoreSampler

    with pytest.raises(ValueError, match=message):
        CoreSampler(algorithm)
    check_capabilities(_Suggests())  # no capability at all is fine
    with pytest.raises(ValueError, match="implement all of its members, or none"):
        check_capabilities(algorithm)


def test_capabilities_seen_only_through_getattr_are_refused_where_isinstance_misses_them():
    if isinstance(_Delegating(), SharesModelState):  # Python 3.10 and 3.11 see them
        check_capabilities(_Delegating())
    else:
        with pytest.raises(ValueError, match="not as class members"):
            check_capabilities(_Delegating())
