import numpy as np
import pytest
from scipy.optimize import approx_fprime

from shared_core.models.features import BayesianLinearRegression
from shared_core.models.gp import ExactPosterior, GPHyper, _neg_log_posterior, fit_hyperparameters
from shared_core.models.kernels import KernelSpec, RandomFourierFeatures

SPECS = [
    KernelSpec("rbf", True),
    KernelSpec("matern32"),
    KernelSpec("matern52", True),
    KernelSpec("rbf", lengthscale=0.3),
]


def _data(n=12, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    y = np.sin(6 * X[:, 0]) + X[:, 1] ** 2 + 0.05 * rng.standard_normal(n)
    return X, (y - y.mean()) / y.std()


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_marginal_likelihood_gradient(spec):
    X, y = _data()
    n_ls = 0 if spec.lengthscale else (3 if spec.ard else 1)
    theta = np.concatenate([np.log(np.linspace(0.3, 0.6, n_ls)), [0.2, np.log(0.01)]])
    _, g = _neg_log_posterior(theta, spec, X, y)
    fd = approx_fprime(theta, lambda t: _neg_log_posterior(t, spec, X, y)[0], 1e-6)
    # central-difference-free check: forward step 1e-6 on an O(10) objective -> ~1e-4 abs error
    np.testing.assert_allclose(g, fd, rtol=1e-3, atol=5e-4)


def test_fit_recovers_smooth_function_and_is_better_than_start():
    X, y = _data(n=30)
    spec = KernelSpec("matern52", ard=True)
    h = fit_hyperparameters(spec, X, y)
    assert h.ls[2] > h.ls[0]  # the third input is irrelevant -> longer lengthscale
    assert 1e-6 <= h.noise < 0.1


def test_lengthscale_prior_is_lognormal_density_times_the_penalty():
    """The MAP objective's lengthscale prior is ``log LogNormal(ls; mu, sd)`` (GPyTorch's
    convention, not the Gaussian density of ``log ls``) plus ``-c (ls^2 + ls^-2)``
    (``LENGTHSCALE_PENALTY``): differences between two ``theta`` must match scipy's log-normal
    and the penalty, and with no information about the lengthscales the fit returns that prior's
    mode."""
    from scipy.optimize import brentq
    from scipy.stats import lognorm

    from shared_core.models.gp import LENGTHSCALE_PENALTY as c
    from shared_core.models.gp import _ls_prior

    assert c > 0
    # one point at 0: only the prior depends on the lengthscales
    X, y = np.zeros((1, 6)), np.zeros(1)
    spec = KernelSpec("rbf", ard=True)
    mu, sd = _ls_prior(6)
    t1 = np.concatenate([np.log(np.full(6, 0.5)), [0.0, np.log(0.01)]])
    t2 = t1.copy()
    t2[:6] = np.log([0.1, 0.3, 1.0, 3.0, 10.0, 30.0])

    def log_prior(ls):
        return lognorm.logpdf(ls, sd, scale=np.exp(mu)) - c * (ls**2 + ls**-2.0)

    expected = np.sum(log_prior(np.exp(t2[:6])) - log_prior(np.exp(t1[:6])))
    got = _neg_log_posterior(t1, spec, X, y)[0] - _neg_log_posterior(t2, spec, X, y)[0]
    assert got == pytest.approx(expected, rel=1e-10)
    # The mode in log space: d/dt [-(t - mu)^2 / (2 sd^2) - t - c (e^2t + e^-2t)] = 0. Without
    # the penalty it is exp(mu - sd^2) (~0.5 in 6-D), BoTorch's; the penalty moves it to ~0.8.
    mode = brentq(
        lambda t: -(t - mu) / sd**2 - 1 - 2 * c * (np.exp(2 * t) - np.exp(-2 * t)), -5.0, 5.0
    )
    h = fit_hyperparameters(spec, X, y)
    # L-BFGS-B tolerance on a flat-ish optimum
    np.testing.assert_allclose(h.ls, np.exp(mode), rtol=1e-4)


def test_penalty_falls_on_the_lengthscales_only():
    """The penalty's share of the objective, ``value(penalty) - value(0)``, is the same for two
    ``theta`` that differ only in the signal and noise variances, and it leaves their gradient
    entries alone (it would differ if the term were put on ``amp`` or ``noise``)."""
    X, y = _data()
    spec = KernelSpec("matern52", ard=True)
    theta = np.concatenate([np.log([0.3, 0.7, 2.0]), [0.4, np.log(1e-3)]])
    moved = theta + np.array([0.0, 0.0, 0.0, -0.9, 2.0])  # other amp and noise only

    def share(t):
        (v1, g1), (v0, g0) = (_neg_log_posterior(t, spec, X, y, p) for p in (0.5, 0.0))
        return v1 - v0, g1 - g0

    (s1, g1), (s2, _) = share(theta), share(moved)
    assert s1 == pytest.approx(0.5 * np.sum(np.exp(2 * theta[:3]) + np.exp(-2 * theta[:3])))
    assert s2 == pytest.approx(s1)
    assert np.all(g1[3:] == 0.0) and np.all(g1[:3] != 0.0)


def test_penalty_keeps_a_weak_coordinate_relevant():
    """An ill-conditioned quadratic with heavy-tailed values: the weak coordinates' effects are
    tiny next to the spread of bad values. Without the penalty ARD switches four of five off
    (lengthscales 12-23 in the unit cube, measured); with it they are 3.3-4.1 (bound 7, between)."""
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(30, 5))
    weights = 10.0 ** np.linspace(0, 6, 5)  # (5,) the separable ellipsoid's
    y = ((X - 0.4) ** 2 * 100) @ weights
    y = (y - y.mean()) / y.std()
    h = fit_hyperparameters(KernelSpec("matern52", ard=True), X, y)
    assert np.all(h.ls < 7.0), h.ls


def test_pathwise_samples_match_exact_posterior_moments():
    """Sample mean/variance of pathwise draws vs the exact GP on 4 points (small data).

    2000 draws: the standard error of a mean is sd/45 and of a variance ~var*0.032, so the bounds
    below (4 standard errors, plus the RFF prior error of 256 frequencies) never fail by chance
    with the fixed seed. Plain RFF-posterior sampling (BLR on 20 features) is checked to be worse.
    """
    rng = np.random.default_rng(0)
    spec, h = KernelSpec("rbf"), GPHyper(np.array([0.2]), 1.0, 1e-4)
    X = np.array([[0.1], [0.4], [0.45], [0.9]])
    y = np.array([0.5, -1.0, -0.8, 1.2])
    post = ExactPosterior(spec, h, X, y)
    Xq = np.linspace(0, 1, 9)[:, None]
    mean, var = post.predict(Xq)
    post = ExactPosterior(spec, h, X, y, n_frequencies=256)
    draws = np.array([post.sample_path(rng).value(Xq) for _ in range(2000)])
    np.testing.assert_allclose(draws.mean(0), mean, atol=4 * np.sqrt(var.max() / 2000) + 0.02)
    np.testing.assert_allclose(draws.var(0), var, rtol=0.15, atol=0.01)

    blr = BayesianLinearRegression.from_data(
        RandomFourierFeatures(spec, h.ls, 1, 10, rng), h, spec, X, y
    )
    _, blr_var = blr.predict(Xq)
    assert np.abs(blr_var - var).max() > np.abs(draws.var(0) - var).max()
