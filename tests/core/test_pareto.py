"""Dominance, non-dominated sorting, hypervolume and reference points (shared_core.pareto), and
Observations with several objectives."""

import itertools

import numpy as np
import pytest

from shared_core.interface import Observations
from shared_core.pareto import (
    dominance_ranks,
    hypervolume,
    hypervolume_contributions,
    infer_reference_point,
    non_dominated,
)


def _counted_volume(Y, r):
    """Hypervolume of integer points below an integer reference point, by counting the unit cells
    ``[c, c + 1)`` that some point weakly dominates (exact, independent of the slicing)."""
    lo = Y.min(axis=0).astype(int)
    cells = itertools.product(*(range(a, b) for a, b in zip(lo, r.astype(int))))
    return sum(bool(np.any(np.all(Y <= np.array(c), axis=1))) for c in cells)


@pytest.mark.parametrize("m", [1, 2, 3, 4])
def test_hypervolume_equals_the_counted_cells(m):
    rng = np.random.default_rng(m)
    for n in (1, 3, 9):
        Y = rng.integers(0, 5, size=(n, m)).astype(float)
        r = np.full(m, 5.0)
        assert hypervolume(Y, r) == pytest.approx(_counted_volume(Y, r), abs=1e-9)


def test_points_not_below_the_reference_point_add_nothing():
    r = np.array([2.0, 2.0])
    assert hypervolume(np.array([[2.0, 0.0], [3.0, -1.0]]), r) == 0.0
    assert hypervolume(np.array([[1.0, 1.0], [2.0, 0.0]]), r) == 1.0


def test_non_dominated_and_ranks():
    Y = np.array([[1.0, 3.0], [2.0, 2.0], [2.0, 2.0], [3.0, 3.0], [4.0, 4.0], [1.0, 4.0]])
    assert non_dominated(Y).tolist() == [True, True, True, False, False, False]
    assert dominance_ranks(Y).tolist() == [0, 0, 0, 1, 2, 1]


def test_contributions_are_the_volume_each_point_alone_adds():
    Y = np.array([[0.0, 2.0], [1.0, 1.0], [2.0, 0.0], [1.0, 1.0], [2.0, 2.0]])
    r = np.array([3.0, 3.0])
    # the two equal points each add nothing alone; the dominated one nothing
    np.testing.assert_allclose(hypervolume_contributions(Y, r), [1.0, 0.0, 1.0, 0.0, 0.0])
    Y = Y[[0, 1, 2]]
    np.testing.assert_allclose(hypervolume_contributions(Y, r), [1.0, 1.0, 1.0])


def test_inferred_reference_point_is_the_front_nadir_plus_a_tenth_of_its_range():
    Y = np.array([[1.0, 2.0], [2.0, 1.0], [3.0, 3.0]])  # (3, 3) is dominated
    np.testing.assert_allclose(infer_reference_point(Y), [2.1, 2.1])
    # one point: a tenth of max(|nadir|, 1)
    np.testing.assert_allclose(infer_reference_point(np.array([[5.0, 0.0]])), [5.5, 0.1])


def test_observations_with_several_objectives():
    y = np.array([[1.0, 2.0], [np.nan, 0.0], [np.inf, 3.0], [2.0, 1.0], [3.0, 3.0]])
    obs = Observations(np.zeros((5, 2)), y, reference_point=[np.nan, 4.0])
    assert obs.n_objectives == 2 and obs.Y.shape == (5, 2)
    clean = obs.cleaned()
    # the NaN row is dropped; +inf becomes the worst finite value of its objective
    np.testing.assert_array_equal(clean.Y, [[1.0, 2.0], [3.0, 3.0], [2.0, 1.0], [3.0, 3.0]])
    # the two non-dominated rows first, then the dominated ones
    assert set(clean.best_first()[:2]) == {0, 2}
    # one column is one objective
    single = Observations(np.zeros((2, 1)), np.array([[1.0], [2.0]]))
    assert single.y.shape == (2,) and single.n_objectives == 1
    with pytest.raises(ValueError, match="reference_point"):
        Observations(np.zeros((1, 1)), np.zeros((1, 2)), reference_point=[1.0])


def test_best_first_puts_feasible_fronts_first_then_the_least_violating():
    y = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 0.5], [3.0, 3.0]])
    obs = Observations(
        np.zeros((4, 1)), y, constraints=[[1.0], [-1.0], [0.0], [2.0]], constraint_names=("c",)
    )
    assert obs.best_first().tolist() == [1, 2, 0, 3]
