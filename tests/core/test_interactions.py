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
    np.testing.assert_allclose(mean_cross_partials(post, P), want, rtol=1e-4, atol=1e-6)
    with pytest.raises(ValueError, match="Matérn-5/2 ARD"):
        rbf = ExactPosterior(KernelSpec("rbf", ard=True), post.hyper, post.X, post.y)
        mean_cross_partials(rbf, P)


def test_the_partition_joins_the_strongest_pairs_within_the_size():
    strength = np.zeros((6, 6))
    for (i, j), s in {(0, 1): 5.0, (1, 2): 4.0, (2, 3): 3.0, (3, 4): 2.0, (4, 5): 0.0}.items():
        strength[i, j] = strength[j, i] = s
    # (2, 3) would make a group of 4: (3, 4) join instead; (4, 5) has no strength
    assert interaction_partition(strength, 3) == ((0, 1, 2), (3, 4), (5,))
    assert interaction_partition(strength, 1) == tuple((i,) for i in range(6))
    assert interaction_partition(strength, 6) == ((0, 1, 2, 3, 4), (5,))


def test_the_strengths_find_the_interacting_pairs_and_sum_a_parameters_columns():
    """Columns (0, 1) interact, column 2 is additive: the parameter of columns 1 and 2 (one
    parameter of two encoded columns) interacts with the first one only through column 1."""
    rng = np.random.default_rng(2)
    X = rng.random((60, 4))
    y = np.sin(4 * X[:, 0] * X[:, 1]) + np.cos(3 * X[:, 2]) + X[:, 3]
    y = (y - y.mean()) / y.std()
    per_column = interaction_strengths(X, y, [np.array([i]) for i in range(4)], rng)
    assert np.argmax(per_column[np.triu_indices(4, 1)]) == 0  # the pair (0, 1)
    columns = [np.array([0]), np.array([1, 2]), np.array([3])]
    per_param = interaction_strengths(X, y, columns, np.random.default_rng(2))
    assert per_param.shape == (3, 3) and np.all(np.diag(per_param) == 0.0)
    np.testing.assert_allclose(per_param, per_param.T)
    assert per_param[0, 1] > 5 * max(per_param[0, 2], per_param[1, 2])
