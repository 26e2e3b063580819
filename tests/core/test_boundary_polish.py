"""The polish of constrained Thompson suggestions onto the sampled boundary
(``shared_core/optim/boundary_polish.py``)."""

import numpy as np
import pytest

from shared_core import FloatParam, IntParam, SearchSpace
from shared_core.acquisition import ConstrainedThompsonSampling
from shared_core.optim.boundary_polish import polish_on_boundary

SPACE = SearchSpace({"a": FloatParam(0.0, 1.0), "b": FloatParam(0.0, 1.0)})


class _Sum:
    """A function sample ``-(a + b)`` (minimised: a draw of the objective)."""

    def value(self, X):
        return -X.sum(axis=1)

    def value_and_grad(self, X):
        return self.value(X), -np.ones_like(X)


class _Radius:
    """A function sample ``a^2 + b^2`` (a draw of the constraint)."""

    def value(self, X):
        return np.sum(X**2, axis=1)

    def value_and_grad(self, X):
        return self.value(X), 2.0 * X


def test_polish_moves_a_suggestion_onto_the_sampled_boundary():
    # minimise -(a + b) subject to a^2 + b^2 <= 0.5: the minimiser is a = b = 0.5, on the boundary
    rule = ConstrainedThompsonSampling(_Sum(), [_Radius()], [0.5])
    start = np.array([0.3, 0.35])  # inside, where the penalty's L-BFGS-B stops
    x = polish_on_boundary(rule, SPACE, start)
    # SLSQP converges to its tolerance (1e-12 on the objective); 1e-6 leaves room for it
    np.testing.assert_allclose(x, [0.5, 0.5], atol=1e-6)
    assert rule.value(x[None])[0] > rule.value(start[None])[0]  # feasible by the rule, better
    assert _Radius().value(x[None])[0] <= 0.5  # on the feasible side


def test_polish_never_makes_a_suggestion_worse_by_the_rule():
    rng = np.random.default_rng(0)
    # a threshold no point meets (SLSQP cannot succeed), and one most points meet
    for threshold in (-1.0, 1.5):
        rule = ConstrainedThompsonSampling(_Sum(), [_Radius()], [threshold])
        for start in rng.random((10, 2)):
            x = polish_on_boundary(rule, SPACE, start)
            assert rule.value(x[None])[0] >= rule.value(start[None])[0]


class _SumPosterior:
    """A posterior whose mean is ``a + b`` (the constraints' posterior means guard the polish)."""

    def predict(self, X):
        return X.sum(axis=1), np.full(len(X), 0.01)

    def predict_with_grad(self, X):
        return (*self.predict(X), np.ones_like(X), np.zeros_like(X))


def test_polish_stops_where_the_posterior_mean_stops_calling_points_feasible():
    # same threshold 0.5: the draw allows a^2 + b^2 <= 0.5 (a = b = 0.5), the mean only a + b <= 0.5
    rule = ConstrainedThompsonSampling(_Sum(), [_Radius()], [0.5], posteriors=[_SumPosterior()])
    start = np.array([0.2, 0.2])
    x = polish_on_boundary(rule, SPACE, start)
    # SLSQP's tolerance as above; the mean's bound is met from inside
    assert x.sum() == pytest.approx(0.5, abs=1e-6) and x.sum() <= 0.5
    assert rule.value(x[None])[0] > rule.value(start[None])[0]


class _ShiftedSumPosterior(_SumPosterior):
    """A posterior whose mean is ``a + b + 0.05`` (feasible: ``a + b <= 0.55`` at threshold 0.6)."""

    def predict(self, X):
        return X.sum(axis=1) + 0.05, np.full(len(X), 0.01)


def test_a_polished_point_rounded_onto_the_integer_grid_still_meets_the_mean_guard():
    # a is an integer (encoded at 0.1, 0.3, ..., 0.9): SLSQP stops on a + b = 0.55, and rounding a
    # to its grid would cross the mean's bound unless the guard is checked again after it
    space = SearchSpace({"a": IntParam(0, 4), "b": FloatParam(0.0, 1.0)})
    rule = ConstrainedThompsonSampling(
        _Sum(), [_Radius()], [0.6], posteriors=[_ShiftedSumPosterior()]
    )
    for start in ([0.1, 0.2], [0.3, 0.1], [0.1, 0.4]):
        x = polish_on_boundary(rule, space, np.array(start))
        assert x.sum() <= 0.55 + 1e-12
        assert rule.value(x[None])[0] >= rule.value(np.array(start)[None])[0]
