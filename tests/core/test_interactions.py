"""The interaction partition that starts DEC-HBO's structure chain: mixed partials of a full GP's
mean, summed per parameter, and greedy groups."""

import numpy as np
import pytest

from shared_core.models.gp import ExactPosterior, GPHyper
from shared_core.models.interactions import (
    interaction_partition,
    interaction_strengths,
    mean_cross_partials,
)
from shared_core.models.kernels import KernelSpec

SPEC = KernelSpec("matern52", ard=True)


def _posterior(d: int = 3, n: int = 15) -> ExactPosterior:
    rng = np.random.default_rng(0)
    X = rng.random((n, d))
    y = np.sin(3 * X[:, 0] * X[:, 1]) + X[:, 2]
    return ExactPosterior(SPEC, GPHyper(np.array([0.4, 0.7, 1.3])[:d], 1.5, 1e-3), X, y - y.mean())


def test_the_mixed_partials_are_the_means_by_finite_differences():
    post = _posterior()
    P = np.random.default_rng(1).random((4, 3))
    h = 1e-4  # central second differences of an O(1) smooth mean: error ~1e-7

    def mean(x):
        return post.predict(x[None])[0][0]

    want = np.zeros((3, 3))
    for x in P:
        for i, j in ((0, 1), (0, 2), (1, 2)):
            ei, ej = np.eye(3)[i] * h, np.eye(3)[j] * h
            fd = (mean(x + ei + ej) - mean(x + ei - ej) - mean(x - ei + ej) + mean(x - ei - ej)) / (
                4 * h * h
            )
            want[i, j] += abs(fd) / len(P)
    want += want.T
    columns = [np.array([i]) for i in range(3)]
    np.testing.assert_allclose(mean_cross_partials(post, P, columns), want, rtol=1e-4, atol=1e-6)
    with pytest.raises(ValueError, match="Matérn-5/2 ARD"):
        rbf = ExactPosterior(KernelSpec("rbf", ard=True), post.hyper, post.X, post.y)
        mean_cross_partials(rbf, P, columns)


def test_the_partition_joins_the_strongest_pairs_within_the_size():
    strength = np.zeros((6, 6))
    for (i, j), s in {(0, 1): 5.0, (1, 2): 4.0, (2, 3): 3.0, (3, 4): 2.0, (4, 5): 0.0}.items():
        strength[i, j] = strength[j, i] = s
    # (2, 3) would make a group of 4: (3, 4) join instead; (4, 5) has no strength
    assert interaction_partition(strength, 3) == ((0, 1, 2), (3, 4), (5,))
    assert interaction_partition(strength, 1) == tuple((i,) for i in range(6))
    assert interaction_partition(strength, 6) == ((0, 1, 2, 3, 4), (5,))


def test_the_strengths_find_the_interacting_pairs():
    rng = np.random.default_rng(2)
    X = rng.random((60, 4))
    y = np.sin(4 * X[:, 0] * X[:, 1]) + np.cos(3 * X[:, 2]) + X[:, 3]
    y = (y - y.mean()) / y.std()
    strength = interaction_strengths(X, y, [np.array([i]) for i in range(4)], rng)
    assert strength.shape == (4, 4) and np.all(np.diag(strength) == 0.0)
    np.testing.assert_allclose(strength, strength.T)
    assert np.argmax(strength[np.triu_indices(4, 1)]) == 0  # the pair (0, 1)


@pytest.mark.parametrize("seed", [0, 1])
def test_an_additive_categorical_of_many_choices_does_not_break_the_true_pairs(seed):
    """A categorical of 12 choices adds a value of its own (no interaction), besides two
    interacting pairs of floats and a fifth float. Its block is centred (moves among choices) and
    measured by its norm, so its many columns do not make it look interacting: the partition into
    pairs keeps the two true ones. (Summing the block's magnitudes instead broke a true pair at
    both seeds.)"""
    rng = np.random.default_rng(seed)
    n, c = 120, 12
    choice, F = rng.integers(c, size=n), rng.random((n, 5))
    X = np.c_[np.eye(c)[choice], F]  # (n, 17): the categorical's one-hot columns, then the floats
    y = (
        rng.standard_normal(c)[choice]
        + np.sin(4 * F[:, 0] * F[:, 1])
        + np.sin(4 * F[:, 2] * F[:, 3])
    )
    y += np.cos(3 * F[:, 4])
    y = (y - y.mean()) / y.std()
    columns = [np.arange(c)] + [np.array([c + i]) for i in range(5)]  # parameters 0 (cat), 1-5
    groups = interaction_partition(interaction_strengths(X, y, columns, rng), 2)
    assert (1, 2) in groups and (3, 4) in groups, groups
