"""Linear constraints: feasibility on decoded values, constrained sampling and optimisation."""

import numpy as np
import pytest

from shared_core.acquisition import Acquisition
from shared_core.optim.acquisition_optimizer import maximize_acquisition
from shared_core.search_space import (
    CategoricalParam,
    FloatParam,
    IntParam,
    LinearConstraint,
    SearchSpace,
)


def _space() -> SearchSpace:
    return SearchSpace(
        {
            "x1": FloatParam(0.0, 2.0),
            "n": IntParam(0, 3),
            "c": CategoricalParam(("a", "b")),
            "x2": FloatParam(0.0, 2.0),
        },
        constraints=[
            LinearConstraint((("x1", 1.0), ("x2", 1.0)), 2.5),
            LinearConstraint((("n", 1.0), ("x1", -1.0)), 1.0),
        ],
    )


def _satisfied(values: dict) -> bool:
    return values["x1"] + values["x2"] <= 2.5 and values["n"] - values["x1"] <= 1.0


def test_feasible_matches_decoded_values():
    space = _space()
    X = space._sample_box(np.random.default_rng(0), 500, low_discrepancy=False)
    expected = [_satisfied(space.decode(x)) for x in X]
    assert space.feasible(X).tolist() == expected
    assert 0 < sum(expected) < len(expected)  # both cases are exercised


def test_sample_returns_only_feasible_points():
    space = _space()
    X = space.sample(np.random.default_rng(1), 300)
    assert X.shape == (300, space.dim)
    assert all(_satisfied(space.decode(x)) for x in X)


def test_infeasible_constraints_raise_a_clear_error():
    space = SearchSpace(
        {"x": FloatParam(0.0, 1.0)}, constraints=[LinearConstraint((("x", 1.0),), -1.0)]
    )
    with pytest.raises(ValueError, match="constraints"):
        space.sample(np.random.default_rng(0), 4)


def test_constraint_on_unknown_or_categorical_parameter_is_rejected():
    with pytest.raises(ValueError, match="'c'"):
        SearchSpace(
            {"c": CategoricalParam(("a", "b"))}, constraints=[LinearConstraint((("c", 1.0),), 1.0)]
        )
    with pytest.raises(ValueError, match="'zz'"):
        SearchSpace(
            {"x": FloatParam(0.0, 1.0)}, constraints=[LinearConstraint((("zz", 1.0),), 1.0)]
        )


class _Linear(Acquisition):
    """``X @ w``."""

    def __init__(self, w):
        self.w = w

    def value(self, X):
        return X @ self.w

    def value_and_grad(self, X):
        return X @ self.w, np.tile(self.w, (len(X), 1))


def test_optimiser_finds_the_constrained_optimum_on_the_boundary():
    """Maximise x1 + x2 subject to x1 + x2 <= 2.5: the unconstrained optimum (4) is
    infeasible, so the optimiser must end on the boundary (within the bisection resolution,
    2 * 2**-30 per unit)."""
    space = SearchSpace(
        {"x1": FloatParam(0.0, 2.0), "x2": FloatParam(0.0, 2.0)},
        constraints=[LinearConstraint((("x1", 1.0), ("x2", 1.0)), 2.5)],
    )

    acq = _Linear(np.full(2, 2.0))  # x1 + x2 in decoded units
    for seed in range(5):
        x = maximize_acquisition(acq, space, np.random.default_rng(seed))
        v = space.decode(x)
        assert v["x1"] + v["x2"] <= 2.5
        assert v["x1"] + v["x2"] > 2.5 - 1e-6


def test_optimiser_respects_constraints_with_integers_and_categoricals():
    space = _space()

    w = np.zeros(space.dim)  # pushes every numeric column up, prefers choice "b"
    w[[0, 1, 4]] = 1.0
    w[3] = 0.5
    acq = _Linear(w)

    for seed in range(5):
        v = space.decode(maximize_acquisition(acq, space, np.random.default_rng(seed)))
        assert _satisfied(v) and v["c"] == "b"
