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
    UNKNOWN_SOURCE,
    Algorithm,
    MultiAgent,
    ReadsSources,
    SharesModelState,
    check_capabilities,
    multi_objective,
)
from shared_core.registry import algorithm_names, algorithm_options, make_algorithm
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
# the built-in algorithms that do not model several objectives (the adapters refuse such studies
# for them before the first trial)
SINGLE_OBJECTIVE = {"dec-hbo", "sto-bnts", "sto-bnts-linear"}


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
def test_algorithms_of_several_objectives_suggest_valid_batches_away_from_pending_points(method):
    """Every built-in algorithm but those of ``SINGLE_OBJECTIVE`` models several objectives (the
    adapters refuse such studies for the others)."""
    algorithm = _make(method)
    assert multi_objective(algorithm) == (method not in SINGLE_OBJECTIVE)
    if method in SINGLE_OBJECTIVE:
        return
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


def test_the_capabilities_of_the_built_in_algorithms():
    """What the adapters rely on: EGP and distributed TS
    share model states, distributed TS is an agent."""
    capabilities = {
        name: (isinstance(_make(name), SharesModelState), isinstance(_make(name), MultiAgent))
        for name in (
            "egp-ts",
            "egp-ei",
            "egp-auto",
            "bore++",
            "dts",
            "dec-hbo",
            "sto-bnts",
            "sto-bnts-linear",
        )
    }
    assert capabilities == {
        "egp-ts": (True, False),
        "egp-ei": (True, False),
        "egp-auto": (True, False),
        "bore++": (False, False),
        "dts": (True, True),
        "dec-hbo": (False, False),
        "sto-bnts": (False, False),
        "sto-bnts-linear": (False, False),
    }


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
