"""The surrogate contract (shared_core.models.surrogate.Posterior), checked on every implementation.

A new posterior joins the suite with one line in ``POSTERIORS``: a function of
``(X (n, d), y (n,))`` that returns the posterior conditioned on that data.
"""

import numpy as np
import pytest
from scipy.optimize import approx_fprime

from shared_core.models.additive import AdditiveHyper, AdditivePosterior
from shared_core.models.features import BayesianLinearRegression
from shared_core.models.gp import ExactPosterior, GPHyper
from shared_core.models.kernels import KernelSpec, RandomFourierFeatures
from shared_core.models.surrogate import FunctionSample, Posterior

D = 2
HYPER_ISO = GPHyper(ls=np.array([0.3]), amp=1.3, noise=1e-3)
HYPER_ARD = GPHyper(ls=np.array([0.25, 0.5]), amp=0.8, noise=1e-3)
HYPER_ADDITIVE = AdditiveHyper(ls=np.array([0.25, 0.5]), amps=np.array([0.5, 0.8]), noise=1e-3)


def _blr(spec, hyper):
    # fixed features per posterior
    rff = RandomFourierFeatures(spec, hyper.ls, D, 64, np.random.default_rng(42))
    return lambda X, y: BayesianLinearRegression.from_data(rff, hyper, spec, X, y)


POSTERIORS = {
    "exact-rbf": lambda X, y: ExactPosterior(
        KernelSpec("rbf"), HYPER_ISO, X, y, n_frequencies=1024
    ),
    "exact-matern32": lambda X, y: ExactPosterior(
        KernelSpec("matern32"), HYPER_ISO, X, y, n_frequencies=1024
    ),
    "exact-matern52-ard": lambda X, y: ExactPosterior(
        KernelSpec("matern52", True), HYPER_ARD, X, y, n_frequencies=1024
    ),
    # two one-column factors; fresh features per draw keep the draws' moments exact, and 256
    # frequencies per column leave them close enough to Gaussian for the moment test
    "additive-matern52": lambda X, y: AdditivePosterior(
        [np.array([0]), np.array([1])], HYPER_ADDITIVE, X, y, n_frequencies=256
    ),
    "features-rbf": _blr(KernelSpec("rbf"), HYPER_ISO),
    "features-matern52-ard": _blr(KernelSpec("matern52", True), HYPER_ARD),
}
each_posterior = pytest.mark.parametrize("make", POSTERIORS.values(), ids=POSTERIORS.keys())
# 3000 path draws take several seconds per posterior: the exact GP's isotropic kernels run the same
# pathwise code as its ARD kernel, and every form's random features are checked in test_kernels.py
PATH_SAMPLED = [name for name in POSTERIORS if name not in ("exact-rbf", "exact-matern32")]


def _data(n=15, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, D))
    y = np.sin(5 * X[:, 0]) + X[:, 1] ** 2
    return X, (y - y.mean()) / y.std()


def _queries(n=6, seed=1):
    return np.random.default_rng(seed).random((n, D))


@each_posterior
def test_implements_the_contract(make):
    post = make(*_data())
    assert isinstance(post, Posterior)
    assert isinstance(post.sample_path(np.random.default_rng(0)), FunctionSample)
    mean, var = post.predict(_queries())
    assert mean.shape == var.shape == (6,) and np.all(var > 0)


@each_posterior
def test_gradients_match_finite_differences(make):
    post = make(*_data())
    for x in _queries(3):
        mean, var, dmean, dvar = post.predict_with_grad(x[None])
        np.testing.assert_allclose(
            [mean[0], var[0]], [v[0] for v in post.predict(x[None])], rtol=1e-10, atol=1e-12
        )
        # central-difference error ~1e-7 for these smooth kernels; 1e-4 leaves a wide margin
        np.testing.assert_allclose(
            dmean[0], approx_fprime(x, lambda z: post.predict(z[None])[0][0], 1e-7), atol=1e-4
        )
        np.testing.assert_allclose(
            dvar[0], approx_fprime(x, lambda z: post.predict(z[None])[1][0], 1e-7), atol=1e-4
        )


@each_posterior
def test_incremental_conditioning_equals_batch(make):
    X, y = _data()
    part, full = make(X[:10], y[:10]), make(X, y)
    inc, log_pred = part.condition(X[10:], y[10:])
    for a, b in zip(inc.predict(_queries()), full.predict(_queries())):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)
    # p(y_1..15) = p(y_1..10) p(y_11..15 | y_1..10): the
    # ensemble's weight update (eq. 13) sums to eq. (9)
    assert part.log_marginal_likelihood() + log_pred == pytest.approx(
        full.log_marginal_likelihood(), abs=1e-6
    )
    # unchanged
    assert part.predict(_queries())[0] == pytest.approx(make(X[:10], y[:10]).predict(_queries())[0])


@each_posterior
def test_believing_pending_points_keeps_the_mean_and_never_raises_the_variance(make):
    post = make(*_data())
    pending = np.array([[0.2, 0.7], [0.8, 0.1]])
    grid = np.stack(np.meshgrid(np.linspace(0, 1, 15), np.linspace(0, 1, 15)), -1).reshape(-1, D)
    mean, var = post.predict(grid)
    mean_b, var_b = post.believing(pending).predict(grid)
    np.testing.assert_allclose(mean_b, mean, atol=1e-8)
    assert np.all(var_b <= var + 1e-12)
    before, after = post.predict(pending)[1], post.believing(pending).predict(pending)[1]
    # a fantasy observed with noise variance s2 = 1e-3 leaves v s2 / (v + s2) <= min(v, s2) there
    assert np.all(after < before) and np.all(after <= 1e-3 * (1 + 1e-6))
    assert post.believing(np.zeros((0, D))).predict(grid)[1] == pytest.approx(var)


@pytest.mark.slow
@pytest.mark.parametrize("make", [POSTERIORS[n] for n in PATH_SAMPLED], ids=PATH_SAMPLED)
def test_path_samples_match_the_posterior_moments(make):
    """3000 joint draws at 5 points: the standard error of a mean is sd/55 and of a variance about
    var/39, so 4.5 standard errors plus the random-feature prior error of the exact GP's draws (1024
    frequencies: ~3 % of the prior variance) bound the differences for the fixed seed."""
    post = make(*_data())
    Xq = _queries(5)
    mean, var = post.predict(Xq)
    rng = np.random.default_rng(7)
    draws = np.array([post.sample_path(rng).value(Xq) for _ in range(3000)])  # (3000, 5)
    np.testing.assert_allclose(draws.mean(0), mean, atol=4.5 * np.sqrt(var.max() / 3000) + 0.01)
    np.testing.assert_allclose(draws.var(0), var, rtol=0.15, atol=0.03 * 1.3 * 0.05)


@each_posterior
def test_path_sample_gradients_match_finite_differences(make):
    sample = make(*_data()).sample_path(np.random.default_rng(3))
    for x in _queries(3):
        f, g = sample.value_and_grad(x[None])
        assert f[0] == pytest.approx(sample.value(x[None])[0], rel=1e-10, abs=1e-12)
        np.testing.assert_allclose(
            g[0], approx_fprime(x, lambda z: sample.value(z[None])[0], 1e-7), atol=1e-4
        )
