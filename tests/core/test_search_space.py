import math

import numpy as np
import pytest

from shared_core.search_space import CategoricalParam, FloatParam, IntParam, SearchSpace

PARAMS = {
    "f": FloatParam(-2.0, 3.0),
    "flog": FloatParam(1e-8, 1e4, log=True),
    "fstep": FloatParam(-10.2, 10.2, step=0.1),
    "i": IntParam(-3, 7),
    "istep": IntParam(0, 10, step=3),  # grid 0, 3, 6, 9 (10 is not on it)
    "ilog": IntParam(1, 1000, log=True),
    "c": CategoricalParam(("a", 1, None, 2.5, True)),
    "single_f": FloatParam(1.5, 1.5),
    "single_i": IntParam(4, 4, log=True),
    "single_c": CategoricalParam(("only",)),
}


def _valid(p, v):
    if isinstance(p, CategoricalParam):
        return any(v is c or (v == c and type(v) is type(c)) for c in p.choices)
    if not (p.low <= v <= p.high):
        return False
    if isinstance(p, IntParam):
        return isinstance(v, int) and (v - p.low) % p.step == 0
    if p.step is not None:
        k = (v - p.low) / p.step
        return abs(k - round(k)) < 1e-8
    return isinstance(v, float)


def test_any_point_decodes_to_valid_values():
    space = SearchSpace(PARAMS)
    rng = np.random.default_rng(0)
    X = np.vstack([rng.uniform(-0.5, 1.5, (300, space.dim)), np.zeros((1, space.dim)), np.ones((1, space.dim))])
    X[0, 0] = np.nan
    for x in X:
        for name, v in space.decode(x).items():
            assert _valid(PARAMS[name], v), (name, v)


def test_roundtrip_of_valid_values():
    space = SearchSpace(PARAMS)
    rng = np.random.default_rng(1)
    for x in space.sample(rng, 64):
        values = space.decode(x)
        again = space.decode(space.encode(values))
        for name in PARAMS:
            if isinstance(values[name], float):
                assert math.isclose(again[name], values[name], rel_tol=1e-9, abs_tol=1e-12)
            else:
                assert again[name] == values[name]


def test_grid_values_own_equal_shares_of_the_unit_interval():
    space = SearchSpace({"i": IntParam(0, 3)})
    u = np.linspace(0.001, 0.999, 1000)
    counts = np.bincount([space.decode(np.array([v]))["i"] for v in u])
    assert counts.tolist() == [250, 250, 250, 250]


def test_categorical_is_one_hot_and_bool_is_not_confused_with_int():
    space = SearchSpace({"c": CategoricalParam((1, True))})
    assert space.encode({"c": True}).tolist() == [0.0, 1.0]
    assert space.encode({"c": 1}).tolist() == [1.0, 0.0]
    with pytest.raises(ValueError, match="not one of the choices"):
        space.encode({"c": "zzz"})


@pytest.mark.parametrize(
    "factory",
    [lambda: FloatParam(2.0, 1.0), lambda: FloatParam(0.0, 1.0, log=True), lambda: IntParam(0, 5, log=True),
     lambda: CategoricalParam(()), lambda: FloatParam(0.0, math.inf)],
)
def test_bad_params_raise_value_error(factory):
    with pytest.raises(ValueError):
        factory()


def test_sample_is_valid_and_seeded():
    space = SearchSpace(PARAMS)
    a = space.sample(np.random.default_rng(3), 10)
    b = space.sample(np.random.default_rng(3), 10)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(space.round_to_valid(a), a)
