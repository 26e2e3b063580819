"""SVGD: known moments of a target, frozen particles, box and column handling."""

import numpy as np
import pytest

from shared_core.optim.svgd import _from_logit, _rbf_kernel_terms, svgd

MEANS = np.array([[0.3, 0.3], [0.7, 0.6]])
SD = 0.07


def _mixture_score(X):
    """grad log of an equal mixture of two isotropic
    Gaussians (sd 0.07) well inside the unit box."""
    diff = X[:, None, :] - MEANS[None]  # (b, 2, d)
    logc = -0.5 * np.sum(diff**2, -1) / SD**2  # (b, 2)
    r = np.exp(logc - logc.max(1, keepdims=True))
    r /= r.sum(1, keepdims=True)
    return np.einsum("bk,bkd->bd", r, -diff / SD**2)


@pytest.mark.slow
def test_particles_recover_the_moments_of_a_gaussian_mixture():
    particles = svgd(_mixture_score, np.random.default_rng(0).random((100, 2)))
    left = particles[:, 0] < 0.5
    # 100 particles: each component gets 40-60 of them (SVGD does not move mass between far modes,
    # so the split is that of the uniform start). Means within 0.01 (the Monte Carlo error of ~50
    # draws is 0.07/sqrt(50) = 0.01; SVGD particles are more even than draws) and standard
    # deviations within 15 % (finite-particle SVGD slightly under-disperses).
    assert 0.4 <= left.mean() <= 0.6
    for part, mean in ((particles[left], MEANS[0]), (particles[~left], MEANS[1])):
        np.testing.assert_allclose(part.mean(0), mean, atol=0.01)
        np.testing.assert_allclose(part.std(0), SD, rtol=0.15)


def _gauss_score(X):
    return -(X - 0.3) / 0.1**2


def test_repulsion_is_the_logit_gradient_of_the_box_kernel():
    """``sum_j d/du_j k(x(u_j), x(u_i))`` against central differences (``h`` held at its value)."""
    U = np.random.default_rng(0).normal(size=(5, 3))  # logits of 5 particles
    X = _from_logit(U)
    free = np.array([0, 1])
    K, repulsion = _rbf_kernel_terms(X, free, X * (1 - X))
    sq = np.sum((X[:, None] - X[None]) ** 2, -1)
    h = np.median(sq[~np.eye(5, dtype=bool)]) / np.log(6.0)
    for f, i in enumerate(free):
        fd = np.zeros(3)
        for j in range(5):
            for c in range(3):
                e = np.zeros(3)
                e[c] = 1e-6
                kp = np.exp(-np.sum((_from_logit(U[j] + e) - X[i]) ** 2) / h)
                km = np.exp(-np.sum((_from_logit(U[j] - e) - X[i]) ** 2) / h)
                fd[c] += 0.0 if j == i else (kp - km) / 2e-6  # x_i is held fixed: d/du_j only
        # central differences: ~1e-10
        np.testing.assert_allclose(repulsion[f], fd, rtol=1e-6, atol=1e-9)


def test_frozen_particles_push_free_ones_away():
    start = np.array([[0.31, 0.29]])
    frozen = np.array([[0.3, 0.3]])
    alone = svgd(_gauss_score, start)
    pushed = svgd(_gauss_score, start, frozen=frozen)
    # alone: a single particle goes to the mode (in logit coordinates the uniform prior's Jacobian
    # shifts the mode of N(0.3, 0.1^2) to 0.318); with a frozen particle at the mode it keeps away
    np.testing.assert_allclose(alone, 0.318, atol=0.005)
    assert np.linalg.norm(pushed - frozen) > 2 * np.linalg.norm(alone - frozen)
    assert np.linalg.norm(pushed - frozen) < 0.3  # pushed aside, not out of the target's bulk


def test_many_frozen_particles_spread_new_ones():
    frozen = np.full((3, 2), 0.3) + np.array([[0.0, 0.0], [0.02, 0.0], [0.0, 0.02]])
    free = svgd(
        _gauss_score,
        np.full((2, 2), 0.3) + 1e-3 * np.array([[1.0, -1.0], [-1.0, 1.0]]),
        frozen=frozen,
    )
    all_points = np.vstack([free, frozen])
    d = np.linalg.norm(all_points[:, None] - all_points[None], axis=-1)[np.triu_indices(5, 1)]
    assert d.min() > 0.015  # no free particle collapses onto another particle


def test_particles_stay_in_the_box_and_fixed_columns_stay_fixed():
    def outward(X):  # a target increasing without bound towards x0 = 1
        g = np.zeros_like(X)
        g[:, 0] = 50.0
        return g

    start = np.array([[0.5, 0.0], [0.2, 1.0]])
    out = svgd(outward, start, columns=np.array([0]))
    assert np.all((out >= 0) & (out <= 1))
    assert np.all(out[:, 0] > 0.95)
    np.testing.assert_array_equal(out[:, 1], start[:, 1])  # a one-hot column is returned exactly


def test_a_frozen_particle_of_another_category_repels_less():
    """Fixed (one-hot) columns count in the kernel distance: a frozen particle in another
    category is farther away, so it pushes a free particle less than one in the same category."""

    def score(X):
        g = np.zeros_like(X)
        g[:, 0] = -(X[:, 0] - 0.3) / 0.1**2
        return g

    start = np.array([[0.31, 1.0, 0.0]])
    same = svgd(score, start, frozen=np.array([[0.3, 1.0, 0.0]]), columns=np.array([0]))
    other = svgd(score, start, frozen=np.array([[0.3, 0.0, 1.0]]), columns=np.array([0]))
    assert abs(same[0, 0] - 0.3) > abs(other[0, 0] - 0.3)


@pytest.mark.parametrize("kwargs", [{"steps": -1}, {"step_size": 0.0}, {"decay": 1.0}])
def test_bad_schedule_raises(kwargs):
    with pytest.raises(ValueError, match="step"):
        svgd(_gauss_score, np.zeros((1, 2)) + 0.5, **kwargs)


@pytest.mark.parametrize("n", [1, 2, 3, 6])
def test_median_heuristic_equals_numpy_median_for_few_particles(n):
    X = np.random.default_rng(n).random((n, 3))
    K, _ = _rbf_kernel_terms(X, np.arange(n), np.ones_like(X))
    sq = np.sum((X[:, None] - X[None]) ** 2, axis=-1)
    med = np.median(sq[~np.eye(n, dtype=bool)]) if n > 1 else 1.0
    np.testing.assert_allclose(K, np.exp(-sq / (max(med, 1e-12) / np.log(n + 1.0))), rtol=1e-12)
