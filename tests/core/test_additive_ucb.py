"""DEC-HBO's acquisition (shared_core.acquisition.additive_ucb): the additive UCB of eq. (2),
averaged over structure samples (eq. 5), its gradient, and Lemma 4's ``beta_t``."""

import math

import numpy as np
import pytest

from shared_core.acquisition.additive_ucb import AdditiveUCB, UCBTerm, paper_beta
from shared_core.models.additive import AdditiveHyper, AdditivePosterior

# two structure samples of 3 columns: {0, 2}, {1} and {0}, {1, 2}
SAMPLES = (
    (np.array([0, 2]), np.array([1])),
    (np.array([0]), np.array([1, 2])),
)
SQRT_BETA = 1.7


def _acquisition() -> tuple[AdditiveUCB, list[AdditivePosterior]]:
    rng = np.random.default_rng(0)
    X = rng.random((12, 3))
    y = np.sin(4 * X[:, 0]) * X[:, 2] + X[:, 1] ** 2
    y = (y - y.mean()) / y.std()
    hyper = AdditiveHyper(ls=np.array([0.3, 0.5, 0.4]), amps=np.array([0.7, 0.3]), noise=1e-3)
    posteriors = [AdditivePosterior(groups, hyper, X, y) for groups in SAMPLES]
    terms = [
        UCBTerm(posterior, g, groups[g], weight=1.0 / len(SAMPLES))
        for posterior, groups in zip(posteriors, SAMPLES)
        for g in range(len(groups))
    ]
    return AdditiveUCB(terms, SQRT_BETA), posteriors


def test_value_is_the_average_over_samples_of_per_factor_means_and_standard_deviations():
    """Eq. (2) and (5): ``(1/k) sum_s sum_g (-mu_g + beta^1/2 sigma_g)``, from each factor's own
    moments; a sum of the factors' standard deviations, which exceeds the standard deviation of
    their sum (the posterior of ``f``) wherever the factors are uncertain."""
    acq, posteriors = _acquisition()
    Z = np.random.default_rng(1).random((5, 3))
    expected = np.zeros(5)
    for posterior, groups in zip(posteriors, SAMPLES):
        for g, columns in enumerate(groups):
            mean, var = posterior.factor_predict(g, Z[:, columns])
            expected += (-mean + SQRT_BETA * np.sqrt(var)) / len(SAMPLES)
    np.testing.assert_allclose(acq.value(Z), expected, rtol=1e-12)
    of_the_sum = np.zeros(5)
    for posterior in posteriors:
        mean, var = posterior.predict(Z)
        of_the_sum += (-mean + SQRT_BETA * np.sqrt(var)) / len(SAMPLES)
    assert np.all(acq.value(Z) > of_the_sum + 1e-6)


def test_gradient_matches_finite_differences():
    acq, _ = _acquisition()
    Z = np.random.default_rng(2).random((4, 3))
    value, grad = acq.value_and_grad(Z)
    np.testing.assert_allclose(value, acq.value(Z), rtol=1e-12)
    h = 1e-6
    fd = np.stack(
        [(acq.value(Z + h * e) - acq.value(Z - h * e)) / (2 * h) for e in np.eye(3)], axis=1
    )
    # central differences with step 1e-6 on O(1) values: error ~1e-7
    np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-6)


def test_paper_beta_is_lemma_4():
    """``beta_t = 2 log(|D_t| |U| pi^2 t^2 / (6 delta))``, here with ``|D_t| = 20^3``, ``|U| =
    4``, ``t = 7``, ``delta = 0.1``, written out."""
    expected = 2.0 * math.log(20**3 * 4 * math.pi**2 * 7**2 / (6 * 0.1))
    assert paper_beta(3 * math.log(20), 4, 7, 0.1) == pytest.approx(expected, rel=1e-12)
