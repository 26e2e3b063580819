import numpy as np
import pytest
from scipy.optimize import approx_fprime
from scipy.stats import norm

from shared_core.acquisition import LogExpectedImprovement, UpperConfidenceBound, log_h
from shared_core.acquisition.analytic import MixtureLogExpectedImprovement
from shared_core.models.gp import ExactPosterior, GPHyper
from shared_core.models.kernels import KernelSpec


def test_log_h_matches_direct_formula_and_is_continuous():
    z = np.linspace(-4.9, 5, 50)
    direct = np.log(z * norm.cdf(z) + norm.pdf(z))
    np.testing.assert_allclose(log_h(z)[0], direct, rtol=1e-10)
    # the Mills-ratio branch at z < -5 joins the direct one (both accurate to ~1e-12 there)
    lo, hi = log_h(np.array([-5.0 - 1e-9, -5.0]))[0]
    assert lo == pytest.approx(hi, abs=1e-8)
    assert np.all(np.isfinite(log_h(np.array([-1e3, -40.0]))[0]))


def test_log_ei_and_ucb_gradients_match_finite_differences():
    rng = np.random.default_rng(0)
    X = rng.random((8, 2))
    y = rng.standard_normal(8)
    post = ExactPosterior(
        KernelSpec("matern52", True), GPHyper(np.array([0.3, 0.5]), 1.0, 1e-3), X, y
    )
    for acq in (
        LogExpectedImprovement(post, best=float(y.min())),
        UpperConfidenceBound(post, beta=2.0),
    ):
        for x in rng.random((4, 2)):
            v, g = acq.value_and_grad(x[None])
            assert v[0] == pytest.approx(acq.value(x[None])[0], rel=1e-12)
            fd = approx_fprime(x, lambda z, acq=acq: acq.value(z[None])[0], 1e-7)
            np.testing.assert_allclose(g[0], fd, rtol=1e-3, atol=1e-4)


def _posteriors(rng, k):
    """``k`` GPs on the same 8 points of 2-D data, with different lengthscales and values."""
    X = rng.random((8, 2))
    return [
        ExactPosterior(
            KernelSpec("matern52", True),
            GPHyper(np.array([0.2, 0.4]) * (j + 1), 1.0, 1e-3),
            X,
            rng.standard_normal(8),
        )
        for j in range(k)
    ]


def test_mixture_log_ei_is_the_log_of_the_weighted_mean_of_the_eis_with_its_gradient():
    rng = np.random.default_rng(1)
    posts = _posteriors(rng, 3)
    bests, weights = [-0.5, -1.0, 0.2], [2.0, 1.0, 1.0]
    acq = MixtureLogExpectedImprovement(posts, bests, weights)
    X = rng.random((5, 2))
    eis = [np.exp(LogExpectedImprovement(p, b).value(X)) for p, b in zip(posts, bests)]
    expected = np.log(0.5 * eis[0] + 0.25 * eis[1] + 0.25 * eis[2])  # weights normalised
    np.testing.assert_allclose(acq.value(X), expected, rtol=1e-12)
    for x in X:
        v, g = acq.value_and_grad(x[None])
        assert v[0] == pytest.approx(acq.value(x[None])[0], rel=1e-12)
        fd = approx_fprime(x, lambda z: acq.value(z[None])[0], 1e-7)
        np.testing.assert_allclose(g[0], fd, rtol=1e-3, atol=1e-4)
    single = MixtureLogExpectedImprovement(posts[:1], bests[:1], [0.3])
    np.testing.assert_allclose(
        single.value(X), LogExpectedImprovement(posts[0], bests[0]).value(X), rtol=1e-12
    )
    with pytest.raises(ValueError, match="2 bests"):
        MixtureLogExpectedImprovement(posts, bests[:2], weights)
    with pytest.raises(ValueError, match=r"\[1.0, 0.0, 1.0\]"):
        MixtureLogExpectedImprovement(posts, bests, [1.0, 0.0, 1.0])


def test_the_optimiser_keeps_the_given_best_point_as_a_candidate_only_if_asked():
    """An acquisition that is 1 at one point and 0 elsewhere (flat: no gradient to follow): only
    a candidate that is that point finds it; the perturbed copies around it never are."""
    from shared_core import FloatParam, SearchSpace
    from shared_core.acquisition.base import Acquisition
    from shared_core.optim.acquisition_optimizer import maximize_acquisition

    peak = np.array([0.3, 0.6])

    class Spike(Acquisition):
        def value(self, X):
            return np.all(X == peak, axis=1).astype(float)

        def value_and_grad(self, X):
            return self.value(X), np.zeros(X.shape)

    space = SearchSpace({"a": FloatParam(0.0, 1.0), "b": FloatParam(0.0, 1.0)})
    kept = maximize_acquisition(
        Spike(), space, np.random.default_rng(0), X_best=peak[None], n_raw=8, keep_best=True
    )
    np.testing.assert_array_equal(kept, peak)
    lost = maximize_acquisition(
        Spike(), space, np.random.default_rng(0), X_best=peak[None], n_raw=8
    )
    assert not np.array_equal(lost, peak)
