"""Conditional search spaces: activity of parameters, the fixed encoding of inactive ones, and the
acquisition optimiser keeping it."""

import numpy as np
import pytest

from shared_core import CategoricalParam, Condition, FloatParam, IntParam, SearchSpace
from shared_core.conditions import INACTIVE, INACTIVE_VALUE
from shared_core.optim.acquisition_optimizer import (
    _categorical_ascent,
    _lbfgs_continuous,
    maximize_acquisition,
)
from shared_core.search_space import LinearConstraint

PARAMS = {
    "m": CategoricalParam(("a", "b")),
    "k": CategoricalParam(("u", "v")),
    "x": FloatParam(0.0, 10.0),
    "n": IntParam(1, 4),
    "s": FloatParam(-1.0, 1.0),
}
# k only under m=a; x only under k=u (nested); n only under m=b; s always
CONDITIONS = {
    "k": Condition("m", ("a",)),
    "x": Condition("k", ("u",)),
    "n": Condition("m", ("b",)),
}
SPACE = SearchSpace(PARAMS, conditions=CONDITIONS)


def test_nested_conditions_decide_which_parameters_are_active():
    X = SPACE.encode_many(
        [
            {"m": "a", "k": "u", "x": 3.0, "n": INACTIVE, "s": 0.0},
            {"m": "a", "k": "v", "x": INACTIVE, "n": INACTIVE, "s": 0.0},
            {"m": "b", "k": INACTIVE, "x": INACTIVE, "n": 2, "s": 0.0},
        ]
    )
    active = SPACE.active(X)
    assert active["k"].tolist() == [True, True, False]
    assert active["x"].tolist() == [True, False, False]  # its parent k is inactive under m=b
    assert active["n"].tolist() == [False, False, True]
    assert active["s"].all()
    assert SPACE.decode_active(X[0]) == {"m": "a", "k": "u", "x": 3.0, "s": 0.0}
    assert SPACE.decode_active(X[2]) == {"m": "b", "n": 2, "s": 0.0}


def test_inactive_parameters_encode_at_a_fixed_value_whatever_they_held():
    given = SPACE.encode_many([{"m": "b", "k": "u", "x": 9.0, "n": 3, "s": 0.5}])[0]
    missing = SPACE.encode_many([{"m": "b", "k": INACTIVE, "x": INACTIVE, "n": 3, "s": 0.5}])[0]
    np.testing.assert_array_equal(given, missing)
    assert given[SPACE.columns["x"]] == [INACTIVE_VALUE]
    np.testing.assert_array_equal(given[SPACE.columns["k"]], [0.0, 0.0])


def test_a_categorical_a_parent_switch_activates_takes_a_valid_choice():
    x = SPACE.encode_many([{"m": "b", "k": INACTIVE, "x": INACTIVE, "n": 3, "s": 0.5}])
    x[0, SPACE.columns["m"]] = [1.0, 0.0]  # switched to m=a: k is active with an all-zero block
    imputed = SPACE.impute_inactive(x)[0]
    np.testing.assert_array_equal(imputed[SPACE.columns["k"]], [1.0, 0.0])  # k=u
    assert SPACE.decode_active(imputed)["x"] == 5.0  # then x is active, at the middle


def test_sampled_and_rounded_points_are_imputed():
    rng = np.random.default_rng(0)
    X = SPACE.sample(rng, 64)
    np.testing.assert_array_equal(SPACE.impute_inactive(X), X)
    assert {SPACE.decode(x)["m"] for x in X} == {"a", "b"}
    rounded = SPACE.round_to_valid(rng.random((16, SPACE.dim)))
    np.testing.assert_array_equal(SPACE.impute_inactive(rounded), rounded)


class _ActiveColumnAcquisition:
    """Largest where x (active under m=a, k=u) is 10 and s is -1; it also rewards the encoded column
    of n, which is inactive there, so an optimiser that moved inactive columns would move it."""

    def __init__(self, space):
        self.cx, self.cn, self.cs = (space.columns[n].start for n in ("x", "n", "s"))

    def value(self, X):
        return -((X[:, self.cx] - 1.0) ** 2) - X[:, self.cs] ** 2 + 0.2 * X[:, self.cn]

    def value_and_grad(self, X):
        grad = np.zeros_like(X)
        grad[:, self.cx] = -2 * (X[:, self.cx] - 1.0)
        grad[:, self.cs] = -2 * X[:, self.cs]
        grad[:, self.cn] = 0.2
        return self.value(X), grad


def test_the_optimiser_moves_only_active_columns_and_returns_an_imputed_point():
    x = maximize_acquisition(
        _ActiveColumnAcquisition(SPACE), SPACE, np.random.default_rng(1), n_raw=64, n_starts=2
    )
    np.testing.assert_array_equal(SPACE.impute_inactive(x[None])[0], x)
    # the best: m=a, k=u, x=10 (0.1 with n's fixed 0.5); under m=b at most -0.25 + 0.2 * 0.875
    assert SPACE.decode_active(x) == pytest.approx(
        {"m": "a", "k": "u", "x": 10.0, "s": -1.0}, abs=0.05
    )


def test_lbfgs_keeps_inactive_columns_at_their_fixed_encoding():
    start = SPACE.encode_many([{"m": "a", "k": "u", "x": 2.0, "n": INACTIVE, "s": 0.5}])
    out = _lbfgs_continuous(_ActiveColumnAcquisition(SPACE), SPACE, start, maxiter=50)[0]
    assert out[SPACE.columns["x"]] == pytest.approx([1.0], abs=1e-4)  # the active ones move
    assert out[SPACE.columns["n"]] == [INACTIVE_VALUE]


INT_PARENT = SearchSpace(
    {"n": IntParam(1, 3), "x": FloatParam(0.0, 1.0)}, conditions={"x": Condition("n", (3,))}
)


def test_lbfgs_never_moves_an_int_parent():
    """Moving n would change whether x is active, which L-BFGS-B's fixed mask cannot follow."""
    acquisition = _Linear(INT_PARENT, {"n": -1.0, "x": 1.0})  # prefers small n, large x
    start = INT_PARENT.encode_many([{"n": 3, "x": 0.2}])
    out = _lbfgs_continuous(acquisition, INT_PARENT, start, maxiter=50)[0]
    assert out[INT_PARENT.columns["n"]] == start[0, INT_PARENT.columns["n"]]
    assert out[INT_PARENT.columns["x"]] == pytest.approx([1.0])


class _Linear:
    """``sum_name weight * encoded column``."""

    def __init__(self, space, weights):
        self.w = np.zeros(space.dim)
        for name, weight in weights.items():
            self.w[space.columns[name]] = weight

    def value(self, X):
        return X @ self.w

    def value_and_grad(self, X):
        return X @ self.w, np.broadcast_to(self.w, X.shape).copy()


def test_categorical_ascent_visits_a_parent_before_its_children():
    """From m=b, switching to m=a activates k: its best choice (v) is then chosen too, although
    k comes before m in the space."""
    space = SearchSpace(
        {"k": CategoricalParam(("u", "v")), "m": CategoricalParam(("a", "b"))},
        conditions={"k": Condition("m", ("a",))},
    )
    acquisition = _Linear(space, {"m": 0.0})
    acquisition.w[space.columns["m"].start] = 1.0  # m=a
    acquisition.w[space.columns["k"].start + 1] = 2.0  # k=v
    start = space.encode_many([{"k": INACTIVE, "m": "b"}])
    out = _categorical_ascent(acquisition, space, start)
    assert space.decode_active(out[0]) == {"m": "a", "k": "v"}


@pytest.mark.parametrize(
    "conditions, constraints, message",
    [
        ({"x": Condition("s", (0.0,))}, (), "not a categorical or int"),
        ({"x": Condition("m", ("z",))}, (), "not a choice"),
        ({"q": Condition("m", ("a",))}, (), "not a parameter"),
        ({"k": Condition("m", ("a",)), "m": Condition("k", ("u",))}, (), "cycle"),
        ({"x": Condition("m", ("a",))}, (LinearConstraint((("x", 1.0),), 5.0),), "conditional"),
    ],
)
def test_bad_conditions_are_refused_naming_them(conditions, constraints, message):
    with pytest.raises(ValueError, match=message):
        SearchSpace(PARAMS, constraints, conditions=conditions)


def test_a_missing_value_of_a_parameter_without_a_condition_encodes_at_the_fixed_value():
    x = SPACE.encode_many([{"m": "b", "k": INACTIVE, "x": INACTIVE, "n": 3, "s": INACTIVE}])[0]
    assert x[SPACE.columns["s"]] == [INACTIVE_VALUE]
