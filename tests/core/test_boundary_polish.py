"""The polish of constrained Thompson suggestions onto the sampled boundary
(``shared_core/optim/boundary_polish.py``) and the optimiser's warm starts."""

import numpy as np
import pytest

from shared_core import FloatParam, SearchSpace
from shared_core.acquisition import Acquisition, ConstrainedThompsonSampling
from shared_core.optim.acquisition_optimizer import maximize_acquisition
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


class _TwoPeaks(Acquisition):
    """A wide low bump at (0.8, 0.8) and a narrow tall one at (0.2, 0.3): random candidates land on
    the wide one, only a start next to the narrow one reaches it."""

    centres = np.array([[0.8, 0.8], [0.2, 0.3]])
    widths = np.array([0.3, 0.002])
    heights = np.array([1.0, 2.0])

    def value_and_grad(self, X):
        diff = X[:, None, :] - self.centres  # (b, 2, d)
        bumps = self.heights * np.exp(-np.sum(diff**2, axis=2) / (2 * self.widths**2))  # (b, 2)
        grad = -np.einsum("bp,bpd->bd", bumps / self.widths**2, diff)
        return bumps.sum(axis=1), grad

    def value(self, X):
        return self.value_and_grad(X)[0]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_warm_starts_reach_a_narrow_peak_random_candidates_miss(seed):
    budget = dict(n_raw=64, n_starts=4)
    near = np.array([[0.203, 0.296]])  # a known point next to the narrow peak
    cold = maximize_acquisition(_TwoPeaks(), SPACE, np.random.default_rng(seed), **budget)
    assert np.linalg.norm(cold - [0.8, 0.8]) < 0.01  # the wide peak
    warm = maximize_acquisition(
        _TwoPeaks(), SPACE, np.random.default_rng(seed), X_starts=near, **budget
    )
    np.testing.assert_allclose(warm, [0.2, 0.3], atol=1e-4)  # L-BFGS-B's tolerance at the peak
