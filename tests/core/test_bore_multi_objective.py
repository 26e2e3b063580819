"""BORE / BORE++ with several objectives (MBORE labels): hand-made fronts, ties, constraints, one
objective, and a suggestion with running trials."""

import numpy as np
import pytest

from shared_core import FloatParam, Observations, SearchSpace
from shared_core.algorithms.bore import BOREAlgorithm
from shared_core.algorithms.bore_labels import (
    constrained_labels,
    pareto_labels,
    quantile_labels,
    reference_point_of,
)
from shared_core.interface import multi_objective
from shared_core.pareto import hypervolume

pytestmark = pytest.mark.usefixtures("one_blas_thread")  # tests/core/conftest.py


def _obs(Y, constraints=None, reference_point=None):
    Y = np.asarray(Y, dtype=float)
    X = np.random.default_rng(0).random((len(Y), 2))
    if constraints is None:
        return Observations(X, Y, reference_point=reference_point)
    c = np.asarray(constraints, dtype=float).reshape(len(Y), -1)
    return Observations(
        X, Y, constraints=c, constraint_names=("c",), reference_point=reference_point
    )


# a front of three points (rows 0-2), a second shell (rows 3-4) and two dominated points
FRONT = [[0.0, 4.0], [1.0, 2.0], [3.0, 0.5], [2.0, 4.5], [4.0, 2.5], [4.0, 5.0], [5.0, 5.0]]


def test_non_dominated_points_are_good_and_dominated_ones_not():
    # ceil(3 / 7 * 7) = 3: exactly the front
    np.testing.assert_array_equal(constrained_labels(_obs(FRONT), 3 / 7), [1, 1, 1, 0, 0, 0, 0])
    # 5 good: the front and the whole second shell, never a dominated point before them
    np.testing.assert_array_equal(constrained_labels(_obs(FRONT), 5 / 7), [1, 1, 1, 1, 1, 0, 0])


def test_a_cut_front_keeps_the_points_adding_most_hypervolume_over_the_next_shell():
    r = np.array([6.0, 6.0])
    Y = np.asarray(FRONT)
    # two of the three front points: by HypI, the hypervolume of the second shell plus the point
    hypi = [hypervolume(np.vstack([Y[3:5], y]), r) for y in Y[:3]]
    best_two = np.argsort(hypi)[::-1][:2]
    expected = np.zeros(7)
    expected[best_two] = 1
    assert len(set(np.round(hypi, 9))) == 3  # no tie: the order is HypI's, not the input's
    np.testing.assert_array_equal(pareto_labels(Y, r, 2 / 7), expected)
    # and it matters: the HypI order differs from the first objective's order
    assert set(best_two) != {0, 1}


def test_ties_get_equal_labels():
    # two equal front points and a third one, the front cut by the quantile: equal points add
    # equal hypervolume over the next shell (2, 2) and get equal labels
    Y = np.array([[1.0, 1.0], [1.0, 1.0], [0.0, 3.0], [2.0, 2.0], [3.0, 3.0], [4.0, 4.0]])
    r = np.array([5.0, 5.0])
    np.testing.assert_array_equal(pareto_labels(Y, r, 2 / 6), [1, 1, 0, 0, 0, 0])  # 7 vs 4
    # one good point asked for: the tie is not split, both are good
    np.testing.assert_array_equal(pareto_labels(Y, r, 1 / 6), [1, 1, 0, 0, 0, 0])
    # every point equal: every point good, as for a constant single objective
    np.testing.assert_array_equal(pareto_labels(np.ones((4, 2)), np.full(2, 2.0), 0.25), np.ones(4))


def test_a_constant_objective_leaves_the_other_to_decide():
    y = np.array([3.0, 1.0, 4.0, 1.5, 9.0, 2.6, 5.0, 3.5])
    Y = np.stack([y, np.full(8, 7.0)], axis=1)
    np.testing.assert_array_equal(constrained_labels(_obs(Y), 0.25), quantile_labels(y, 0.25))


def test_nan_rows_are_removed_by_cleaning_before_labels():
    Y = np.asarray(FRONT + [[np.nan, 0.0], [-1.0, np.nan]])
    obs = _obs(Y).cleaned()
    assert len(obs.y) == 7
    np.testing.assert_array_equal(constrained_labels(obs, 3 / 7), [1, 1, 1, 0, 0, 0, 0])


def test_three_objectives():
    rng = np.random.default_rng(1)
    front = rng.dirichlet(np.ones(3), size=6)  # on the simplex: mutually non-dominated
    Y = np.vstack([front, front + 0.5, front + 1.0])  # three shells of 6
    z = constrained_labels(_obs(Y), 6 / 18)
    np.testing.assert_array_equal(z, np.repeat([1.0, 0.0, 0.0], 6))
    # 3 of the front: those adding most hypervolume over the second shell
    r = reference_point_of(_obs(Y))
    hypi = [hypervolume(np.vstack([Y[6:12], y]), r) for y in front]
    z = constrained_labels(_obs(Y), 3 / 18)
    np.testing.assert_array_equal(np.flatnonzero(z), np.sort(np.argsort(hypi)[::-1][:3]))


def test_reference_point_given_entries_are_kept_and_the_others_inferred():
    Y = np.asarray(FRONT)
    inferred = reference_point_of(_obs(Y))
    # nadir of the front (3, 4) plus a tenth of its range (3, 3.5)
    np.testing.assert_allclose(inferred, [3.3, 4.35])
    given = reference_point_of(_obs(Y, reference_point=[10.0, np.nan]))
    np.testing.assert_allclose(given, [10.0, 4.35])
    # infeasible rows do not move the inferred point: (5, 0) would widen the front's range
    c = [-1.0] * 7 + [1.0]
    obs = _obs(np.vstack([Y, [[5.0, 0.0]]]), c)
    np.testing.assert_allclose(reference_point_of(obs), inferred)
    # the reference point changes which front points are good: with a point far to the right,
    # (3, 0.5) adds the most; with one just beyond the front, (1, 2) does
    z_far = constrained_labels(_obs(Y, reference_point=[100.0, 6.0]), 1 / 7)
    z_near = constrained_labels(_obs(Y, reference_point=[3.3, 4.35]), 1 / 7)
    np.testing.assert_array_equal(z_far, [0, 0, 1, 0, 0, 0, 0])
    np.testing.assert_array_equal(z_near, [0, 1, 0, 0, 0, 0, 0])


def test_infeasible_points_are_never_good_and_least_violation_while_none_is_feasible():
    # the front's (0, 4) and (1, 2) violate: the front of the feasible rows is (3, 0.5), (2, 4.5)
    c = [1.0, 2.0, -1.0, 0.0, -1.0, -1.0, -1.0]
    z = constrained_labels(_obs(FRONT, c), 0.4)  # ceil(0.4 * 5) = 2 of the 5 feasible rows
    np.testing.assert_array_equal(z, [0, 0, 1, 1, 0, 0, 0])
    c = [3.0, 2.0, 1.0, 0.5, 4.0, 5.0, 6.0]  # none feasible: the least violating
    np.testing.assert_array_equal(constrained_labels(_obs(FRONT, c), 0.25), [0, 0, 1, 1, 0, 0, 0])


def test_one_objective_gives_exactly_quantile_labels():
    rng = np.random.default_rng(0)
    for n in (1, 5, 40):
        y = np.round(rng.normal(size=n), 1)  # rounded: ties
        for gamma in (0.1, 0.25, 0.5):
            for obs in (
                Observations(rng.random((n, 2)), y),
                Observations(rng.random((n, 2)), y[:, None]),
            ):
                np.testing.assert_array_equal(
                    constrained_labels(obs, gamma), quantile_labels(y, gamma)
                )


def test_a_suggestion_with_two_objectives_and_running_trials():
    assert multi_objective(BOREAlgorithm())
    space = SearchSpace({"a": FloatParam(0.0, 1.0), "b": FloatParam(0.0, 1.0)})
    rng = np.random.default_rng(0)
    X = rng.random((12, 2))
    Y = np.stack([X[:, 0], 1.0 - X[:, 0] + (X[:, 1] - 0.5) ** 2], axis=1)
    pending = rng.random((2, 2))
    algorithm = BOREAlgorithm(svgd_steps=50, n_raw=64, n_starts=2)
    out = algorithm.suggest(space, Observations(X, Y, X_pending=pending), 2, rng)
    assert out.shape == (2, 2) and np.all((out >= 0) & (out <= 1))
    # new points: away from the completed and running ones and from each other
    known = np.vstack([X, pending, out[:1]])
    assert np.min(np.linalg.norm(out[:, None] - known[None, : len(known) - 1], axis=2)) > 1e-6
    assert np.linalg.norm(out[0] - out[1]) > 1e-6
    # the labels it was fitted to are the MBORE labels of the completed trials
    np.testing.assert_array_equal(algorithm._labels, constrained_labels(Observations(X, Y), 0.25))


def test_labels_do_not_depend_on_the_scale_of_an_objective():
    r = np.array([6.0, 6.0])
    Y = np.asarray(FRONT)
    expected = pareto_labels(Y, r, 2 / 7)
    # hypervolumes in the raw units would overflow (1e160 squared); per-objective unit scaling
    # keeps the order of the gains, so the labels are the same
    scale = np.array([1e160, 1e160])
    with np.errstate(over="raise"):
        np.testing.assert_array_equal(pareto_labels(Y * scale, r * scale, 2 / 7), expected)


def test_above_three_objectives_a_cut_shell_is_ordered_by_the_volume_each_point_dominates(
    monkeypatch,
):
    import shared_core.algorithms.bore_labels as bore_labels

    def no_hypervolumes(*args):
        raise AssertionError("an exact hypervolume per point above three objectives")

    monkeypatch.setattr(bore_labels, "_hypervolume_gains", no_hypervolumes)
    rng = np.random.default_rng(3)
    Y = rng.random((40, 4))
    Y /= np.linalg.norm(Y, axis=1, keepdims=True)  # every point on the sphere: one shell
    r = np.full(4, 1.1)
    labels = pareto_labels(Y, r, 0.25)
    box = np.prod(r - Y, axis=1)
    assert labels.sum() == 10
    # the good points are the ten largest boxes
    assert set(np.flatnonzero(labels)) == set(np.argsort(box)[::-1][:10])
