"""Failed points (``Observations.X_failed``): kept off by every algorithm, learned as a failure
model by EGP-TS/EI (an outcome of its constraint models) and as never good by BORE."""

import numpy as np
import pytest

from shared_core import BOREAlgorithm, EGPAlgorithm, FloatParam, Observations, SearchSpace
from shared_core.models.constraint_models import FAILED

pytestmark = pytest.mark.usefixtures("one_blas_thread")  # tests/core/conftest.py

SQUARE = SearchSpace({"x": FloatParam(0.0, 1.0), "y": FloatParam(0.0, 1.0)})
FAST = dict(kernels=("matern52",), n_features=128, n_raw=128, n_starts=2)


def _fails(X):
    """The failure region: x > 0.7, away from the objective's minimum at (0.3, 0.3). Nothing is
    learned there while failed points are not data, so exploration keeps returning to it."""
    return X[:, 0] > 0.7


def _run(algorithm, model_failures: bool, seed: int, n: int = 16) -> int:
    """``n`` sequential suggestions after 10 random points; the number that failed."""
    rng = np.random.default_rng(seed)
    X0 = SQUARE.sample(rng, 10)
    done, failed = X0[~_fails(X0)], X0[_fails(X0)]
    n_failed = 0
    for _ in range(n):
        obs = Observations(
            done,
            ((done - 0.3) ** 2).sum(axis=1),
            X_failed=failed if model_failures else np.zeros((0, 2)),
        )
        x = algorithm.suggest(SQUARE, obs, 1, rng)[0]
        if _fails(x[None])[0]:
            n_failed += 1
            failed = np.vstack([failed, x])
        else:
            done = np.vstack([done, x])
    return n_failed


def test_failed_points_are_checked_kept_and_avoided():
    X, y = np.random.default_rng(0).random((3, 2)), np.arange(3.0)
    obs = Observations(X, y, X_failed=np.array([0.5, 0.5]))  # one point
    assert obs.n_failed == 1 and obs.models_feasibility
    assert obs.cleaned().n_failed == obs.subset(np.array([0])).n_failed == 1
    np.testing.assert_array_equal(obs.X_avoid[-1], [0.5, 0.5])
    with pytest.raises(ValueError, match=r"X_failed must have shape \(f, 2\)"):
        Observations(X, y, X_failed=np.zeros((2, 3)))
    assert not Observations(X, y).models_feasibility
    # a failure at a repeatable point (a rare branch's) is one of its many configurations: the
    # point stays open, as for a running trial there
    repeatable = np.array([True, False, False])
    obs = Observations(X, y, repeatable=repeatable, X_failed=X[:1])
    assert not any(np.allclose(row, X[0]) for row in obs.X_avoid)


def test_egp_fits_a_failure_model_on_the_failed_and_completed_points():
    rng = np.random.default_rng(1)
    X = SQUARE.sample(rng, 12)
    obs = Observations(X[~_fails(X)], X[~_fails(X)].sum(axis=1), X_failed=X[_fails(X)])
    alg = EGPAlgorithm(**FAST)
    alg.suggest(SQUARE, obs, 1, rng)
    assert alg.constraint_models.active == (FAILED,)
    model = alg.constraint_models.models[FAILED]
    assert model.n == len(X) and not model.warp_outputs  # labels are not warped
    np.testing.assert_array_equal(np.sort(model._y_raw), np.sort(np.where(_fails(X), 1.0, -1.0)))


# EGP-EI (its uncertainty draws it to the region it learns nothing of) and BORE++; over seeds
# 0-2, 9 and 0 failures with the failed points as data against 29 and 12 without
@pytest.mark.slow
@pytest.mark.parametrize(
    "make",
    [lambda: EGPAlgorithm(acquisition="ei", **FAST), lambda: BOREAlgorithm(n_raw=128, n_starts=2)],
    ids=["egp-ei", "bore++"],
)
def test_learning_from_failed_points_fails_less(make):
    with_failures = sum(_run(make(), True, seed) for seed in range(3))
    without = sum(_run(make(), False, seed) for seed in range(3))
    assert with_failures <= without / 2
