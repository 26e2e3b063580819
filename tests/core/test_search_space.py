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
    X = np.vstack(
        [
            rng.uniform(-0.5, 1.5, (300, space.dim)),
            np.zeros((1, space.dim)),
            np.ones((1, space.dim)),
        ]
    )
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
    [
        lambda: FloatParam(2.0, 1.0),
        lambda: FloatParam(0.0, 1.0, log=True),
        lambda: IntParam(0, 5, log=True),
        lambda: CategoricalParam(()),
        lambda: FloatParam(0.0, math.inf),
    ],
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


# ------------------------------------------------------------------------ column-wise encoding
# A row-wise reference written from the module docstring's formulas, value by value in plain Python.
MIXED = ("a", 1, 1.0, True, None)


def _ref_grid_size(p):
    if isinstance(p, IntParam):
        return (p.high - p.low) // p.step + 1
    return math.floor((p.high - p.low) / p.step + 1e-8) + 1


def _ref_bounds(p):
    if isinstance(p, IntParam) and p.log:
        return math.log(p.low - 0.5), math.log(p.high + 0.5)
    if p.log:
        return math.log(p.low), math.log(p.high)
    if isinstance(p, IntParam) or p.step is not None:  # the grid, padded by half a step
        return p.low - 0.5 * p.step, p.low + (_ref_grid_size(p) - 0.5) * p.step
    return p.low, p.high


def _ref_matches(c, v):
    return (c is v or c == v) and isinstance(c, bool) == isinstance(v, bool)


def _ref_encode(p, v):
    if isinstance(p, CategoricalParam):
        onehot = [0.0] * len(p.choices)
        onehot[next(i for i, c in enumerate(p.choices) if _ref_matches(c, v))] = 1.0
        return onehot
    lo, hi = _ref_bounds(p)
    if lo == hi:
        return [0.5]
    x = math.log(v) if p.log else float(v)
    return [min(max((x - lo) / (hi - lo), 0.0), 1.0)]


def _ref_decode(p, u):
    if isinstance(p, CategoricalParam):
        # NaN counts as the largest, as in numpy
        nan = [i for i, ui in enumerate(u) if math.isnan(ui)]
        return p.choices[nan[0] if nan else u.index(max(u))]
    u = 0.5 if math.isnan(u[0]) else min(max(u[0], 0.0), 1.0)
    lo, hi = _ref_bounds(p)
    raw = math.exp(lo + u * (hi - lo)) if p.log else lo + u * (hi - lo)
    if isinstance(p, IntParam) and p.log:
        return min(max(round(raw), p.low), p.high)
    if isinstance(p, IntParam) or p.step is not None:  # the nearest grid value
        k = min(max(round((raw - p.low) / p.step), 0), _ref_grid_size(p) - 1)
        return p.low + k * p.step if isinstance(p, IntParam) else min(p.low + k * p.step, p.high)
    return min(max(raw, p.low), p.high)


def _random_space(rng):
    """Every kind of parameter, in a random order, with random bounds."""
    low = float(rng.uniform(-5.0, 5.0))
    ilow = int(rng.integers(-20, 20))
    params = {
        "f": FloatParam(low, low + float(rng.uniform(0.1, 10.0))),
        "flog": FloatParam(
            float(10 ** rng.uniform(-6, 0)), float(10 ** rng.uniform(0.5, 6)), log=True
        ),
        "fstep": FloatParam(
            low, low + float(rng.uniform(1.0, 5.0)), step=float(rng.choice([0.1, 0.25, 0.3]))
        ),
        "fsingle": FloatParam(low, low),
        "fsingle_log": FloatParam(2.0, 2.0, log=True),
        "i": IntParam(ilow, ilow + int(rng.integers(1, 50))),
        "ilog": IntParam(int(rng.integers(1, 4)), int(rng.integers(5, 5000)), log=True),
        "istep": IntParam(ilow, ilow + int(rng.integers(5, 40)), step=int(rng.integers(2, 7))),
        "isingle": IntParam(ilow, ilow),
        "isingle_log": IntParam(4, 4, log=True),
        "c": CategoricalParam(MIXED),
        "c_bool": CategoricalParam((False, 0, "0", 2.5)),
        "csingle": CategoricalParam(("only",)),
    }
    order = rng.permutation(list(params))
    return SearchSpace({str(name): params[name] for name in order})


def _random_columns(space, rng, n):
    """Values to encode: valid ones, numbers out of range (clipped), and categorical values that are
    equal to a choice without being one (``1.0`` for ``1``, ``0.0`` for ``0`` but not ``False``)."""
    extra = {"c": [1.0, "a", True, None], "c_bool": [0.0, False, 2.5], "csingle": ["only"]}
    columns = {}
    for name, p in space.params.items():
        if isinstance(p, CategoricalParam):
            pool = list(p.choices) + extra[name]
            columns[name] = [pool[i] for i in rng.integers(len(pool), size=n)]
        elif p.log:
            columns[name] = np.exp(rng.uniform(math.log(p.low) - 1.0, math.log(p.high) + 1.0, n))
        else:
            span = p.high - p.low + 1.0
            values = rng.uniform(p.low - 0.2 * span, p.high + 0.2 * span, n)
            columns[name] = np.round(values).astype(int) if isinstance(p, IntParam) else values
    return columns


@pytest.mark.parametrize("seed", range(4))
def test_encode_columns_matches_the_row_wise_definition(seed):
    rng = np.random.default_rng(seed)
    space = _random_space(rng)
    columns = _random_columns(space, rng, 200)
    X = space.encode_columns(columns)
    expected = [
        np.concatenate([_ref_encode(p, columns[name][i]) for name, p in space.params.items()])
        for i in range(200)
    ]
    assert X.dtype == np.float64 and X.shape == (200, space.dim)
    np.testing.assert_allclose(X, np.array(expected), rtol=0.0, atol=1e-12)
    rows = [{name: columns[name][i] for name in space.params} for i in range(200)]
    np.testing.assert_array_equal(space.encode_many(rows), X)
    np.testing.assert_array_equal(space.encode(rows[7]), X[7])


def _assert_same_value(got, want):
    """Equal with the same type (floats up to rounding error)."""
    assert type(got) is type(want), (got, want)
    if isinstance(want, float):
        assert math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-12), (got, want)
    else:
        assert got == want, (got, want)


@pytest.mark.parametrize("seed", range(4))
def test_decode_columns_matches_the_row_wise_definition(seed):
    rng = np.random.default_rng(seed)
    space = _random_space(rng)
    X = rng.uniform(-0.2, 1.2, (200, space.dim))
    X[rng.random(X.shape) < 0.02] = np.nan
    columns = space.decode_columns(X)
    for name, p in space.params.items():
        values = columns[name]
        if isinstance(p, CategoricalParam):
            assert isinstance(values, list)
        else:
            assert values.dtype == (
                np.int64 if isinstance(p, IntParam) else np.float64
            ) and values.shape == (200,)
        for i, x in enumerate(X):
            want = _ref_decode(p, x[space.columns[name]].tolist())
            got = values[i] if isinstance(values, list) else values[i].item()
            _assert_same_value(got, want)
            assert _valid(p, got), (name, got)
    for i in (0, 5, 199):
        for name, v in space.decode(X[i]).items():
            _assert_same_value(
                v, _ref_decode(space.params[name], X[i, space.columns[name]].tolist())
            )


@pytest.mark.parametrize("seed", range(4))
def test_decode_of_encode_returns_the_values(seed):
    rng = np.random.default_rng(seed)
    space = _random_space(rng)
    values = space.decode_columns(rng.uniform(0.0, 1.0, (300, space.dim)))
    again = space.decode_columns(space.encode_columns(values))
    for name, p in space.params.items():
        if isinstance(p, CategoricalParam):  # a value comes back as the first choice it matches
            assert all(_ref_matches(b, a) for a, b in zip(values[name], again[name])), name
        elif isinstance(p, IntParam):
            np.testing.assert_array_equal(again[name], values[name])
        else:
            np.testing.assert_allclose(again[name], values[name], rtol=1e-12, atol=1e-12)
    row = space.decode(rng.uniform(0.0, 1.0, space.dim))
    assert space.decode(space.encode(row)) == row


def test_mixed_type_choices_follow_the_matching_rule():
    space = SearchSpace({"c": CategoricalParam(MIXED)})
    X = space.encode_columns({"c": ["a", 1, 1.0, True, None, np.int64(1)]})
    # 1.0 == 1 comes first; True only matches True
    assert np.argmax(X, axis=1).tolist() == [
        0,
        1,
        1,
        3,
        4,
        1,
    ]
    assert space.decode_columns(np.eye(5))["c"] == list(MIXED)
    assert space.decode_columns(np.eye(5))["c"][2] is MIXED[2]
    # 1.0 encodes as 1
    assert np.argmax(space.round_to_valid(np.eye(5)), axis=1).tolist() == [
        0,
        1,
        1,
        3,
        4,
    ]
    bools = SearchSpace({"b": CategoricalParam((0, True, False))})
    assert np.argmax(bools.encode_columns({"b": np.array([True, False])}), axis=1).tolist() == [
        1,
        2,
    ]


def test_encode_columns_errors():
    space = SearchSpace({"x": FloatParam(1.0, 10.0, log=True), "c": CategoricalParam((1, True))})
    with pytest.raises(KeyError, match="'c' missing from the columns"):
        space.encode_columns({"x": [2.0]})
    with pytest.raises(ValueError, match="not one of the choices"):
        space.encode_columns({"x": [2.0, 3.0], "c": [True, "zzz"]})
    with pytest.raises(ValueError, match="not one of the choices"):
        space.encode_columns({"x": [2.0], "c": [[1]]})  # unhashable
    with pytest.raises(ValueError, match="2 values, expected 1"):
        space.encode_columns({"x": [2.0], "c": [1, 1]})
    with pytest.raises(ValueError, match="> 0"):
        space.encode_columns({"x": [2.0, -1.0], "c": [1, 1]})
    with pytest.raises(KeyError, match=r"parameter 'c' missing from \{'x': 3.0\}"):
        space.encode_many([{"x": 2.0, "c": 1}, {"x": 3.0}])
    assert SearchSpace({}).encode_columns({}, n_rows=3).shape == (3, 0)


@pytest.mark.parametrize("seed", range(3))
def test_round_to_valid_snaps_to_the_encodings_of_the_decoded_values(seed):
    rng = np.random.default_rng(seed)
    space = _random_space(rng)
    X = rng.uniform(-0.1, 1.1, (100, space.dim))
    snapped = space.round_to_valid(X)
    np.testing.assert_array_equal(snapped, space.encode_columns(space.decode_columns(X)))
    for x, s in zip(X[:20], snapped[:20]):
        want = [
            _ref_encode(p, _ref_decode(p, x[space.columns[n]].tolist()))
            for n, p in space.params.items()
        ]
        np.testing.assert_allclose(s, np.concatenate(want), rtol=0.0, atol=1e-12)
    np.testing.assert_array_equal(space.round_to_valid(snapped), snapped)


# ------------------------------------------------------------------------ low-discrepancy sampling
def _primes(k):
    out = []
    candidate = 2
    while len(out) < k:
        if all(candidate % p for p in out):
            out.append(candidate)
        candidate += 1
    return out


@pytest.mark.parametrize("dim, factor", [(2, 0.1), (6, 0.25), (20, 0.8)])
def test_sample_has_lower_discrepancy_than_uniform_random_points(dim, factor):
    qmc = pytest.importorskip("scipy.stats").qmc
    space = SearchSpace({f"x{j}": FloatParam(0.0, 1.0) for j in range(dim)})
    for seed in range(3):
        points = space.sample(np.random.default_rng(seed), 512)
        uniform = np.random.default_rng(seed).random((512, dim))
        assert qmc.discrepancy(points) < factor * qmc.discrepancy(uniform), seed


def test_sample_is_stratified_in_every_one_of_many_dimensions():
    """Column j of a Halton sample puts n/b points
    (rounded) in each of the b cells of its base b."""
    n, dim = 512, 120
    space = SearchSpace({f"x{j}": FloatParam(0.0, 1.0) for j in range(dim)})
    U = space.sample(np.random.default_rng(0), n)
    assert U.shape == (n, dim) and U.min() >= 0.0 and U.max() <= 1.0
    for j, base in enumerate(_primes(dim)):
        counts = np.bincount(np.minimum((U[:, j] * base).astype(int), base - 1), minlength=base)
        assert counts.min() >= n // base and counts.max() <= -(-n // base), (j, base)
    assert not np.array_equal(U, space.sample(np.random.default_rng(1), n))
