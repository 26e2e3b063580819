"""Observations carry their source: every filtering
step keeps the labels aligned with their rows."""

import numpy as np
import pytest

from shared_core import FloatParam, Observations, SearchSpace
from shared_core.interface import UNKNOWN_SOURCE, OneAtATimeAlgorithm


def _obs():
    X = np.arange(12.0).reshape(6, 2) / 12
    y = np.array([3.0, np.nan, np.inf, -1.0, -np.inf, np.nan])
    return Observations(
        X,
        y,
        X_pending=np.full((2, 2), 0.5),
        source=[10, 11, 12, 13, 14, 15],
        pending_source=[20, 21],
    )


def test_cleaning_drops_nan_rows_clips_infinities_and_keeps_sources_aligned():
    obs = _obs()
    clean = obs.cleaned()
    np.testing.assert_array_equal(clean.source, [10, 12, 13, 14])  # the NaN rows 11 and 15 are gone
    # +inf -> worst, -inf -> best finite
    np.testing.assert_array_equal(clean.y, [3.0, 3.0, -1.0, -1.0])
    np.testing.assert_array_equal(clean.X, obs.X[[0, 2, 3, 4]])
    np.testing.assert_array_equal(clean.pending_source, [20, 21])
    sub = clean.subset(np.array([2, 0]))
    np.testing.assert_array_equal(sub.source, [13, 10])
    np.testing.assert_array_equal(sub.X, obs.X[[3, 0]])


def test_sources_default_to_unknown_and_follow_new_pending_points():
    obs = Observations(np.zeros((3, 2)), np.zeros(3))
    np.testing.assert_array_equal(obs.source, [UNKNOWN_SOURCE] * 3)
    assert obs.X_pending.shape == (0, 2) and obs.pending_source.shape == (0,)
    more = obs.with_pending(np.ones((2, 2)), source=4).with_pending(np.full(2, 0.3))
    np.testing.assert_array_equal(more.pending_source, [4, 4, UNKNOWN_SOURCE])
    np.testing.assert_array_equal(more.X_pending[-1], [0.3, 0.3])


@pytest.mark.parametrize("bad", [[1, 2], [1.5, 2.0, 3.0], ["a", "b", "c"]])
def test_bad_sources_name_the_argument(bad):
    with pytest.raises(ValueError, match="source"):
        Observations(np.zeros((3, 1)), np.zeros(3), source=bad)


class _Recorder(OneAtATimeAlgorithm):
    """Records the observations each hook receives."""

    def __init__(self):
        super().__init__()
        self.prepared, self.seen = None, []

    def _prepare(self, space, obs, rng):
        self.prepared = obs

    def _suggest_one(self, space, obs, context, rng):
        self.seen.append(obs)
        return np.full(space.dim, 0.1 * len(self.seen))


def test_algorithm_hooks_receive_clean_observations_with_their_sources():
    alg = _Recorder()
    space = SearchSpace({"a": FloatParam(0, 1), "b": FloatParam(0, 1)})
    alg.suggest(space, _obs(), 2, np.random.default_rng(0))
    np.testing.assert_array_equal(alg.prepared.source, [10, 12, 13, 14])
    np.testing.assert_array_equal(alg.seen[0].pending_source, [20, 21])
    # the second suggestion sees the first as pending,
    # of unknown source (it has not run anywhere yet)
    np.testing.assert_array_equal(alg.seen[1].pending_source, [20, 21, UNKNOWN_SOURCE])
    np.testing.assert_array_equal(alg.seen[1].X_pending[-1], [0.1, 0.1])


def test_pending_points_must_match_the_columns_of_x():
    with pytest.raises(ValueError, match="X_pending has 4 columns"):
        Observations(np.zeros((3, 2)), np.zeros(3), X_pending=np.zeros((2, 4)))
    # a single 1-D pending point
    one = Observations(np.zeros((0, 3)), np.zeros(0), X_pending=np.full(3, 0.5))
    assert one.X_pending.shape == (1, 3) and one.X.shape == (0, 3)


def _constrained():
    """Five points, two constraints; point 3 has no value for "b" (NaN), point 4 none at all."""
    return Observations(
        np.arange(10.0).reshape(5, 2) / 10,
        np.array([1.0, 0.5, np.nan, 2.0, 3.0]),
        constraints=[[0.0, -1.0], [0.5, 2.0], [-1.0, -1.0], [-0.2, np.nan], [np.nan, np.nan]],
        constraint_names=("a", "b"),
    )


def test_feasibility_is_optunas_rule_every_value_a_point_has_is_at_most_zero():
    obs = _constrained()
    # a value of exactly 0 is feasible; a missing value does not make a point infeasible
    np.testing.assert_array_equal(obs.feasible, [True, False, True, True, True])
    np.testing.assert_array_equal(obs.violation, [0.0, 2.5, 0.0, 0.0, 0.0])
    assert Observations(np.zeros((2, 1)), np.zeros(2)).feasible.tolist() == [True, True]


def test_best_first_ranks_feasible_points_by_value_then_infeasible_ones_by_violation():
    obs = Observations(
        np.zeros((5, 1)),
        np.array([5.0, 1.0, 0.0, 3.0, -9.0]),
        constraints=[[-1.0], [0.0], [2.0], [-0.5], [0.5]],
        constraint_names=("c",),
    )
    # feasible 1 (y=1), 3 (y=3), 0 (y=5); then infeasible 4 (violation 0.5), 2 (violation 2)
    assert obs.best_first().tolist() == [1, 3, 0, 4, 2]


def test_constraint_values_follow_their_rows_and_infinities_keep_their_sign():
    obs = Observations(
        np.arange(8.0).reshape(4, 2),
        np.array([1.0, np.nan, 2.0, 3.0]),
        constraints=[[np.inf, -np.inf], [1.0, 1.0], [-2.0, -3.0], [np.nan, -1.0]],
        constraint_names=("a", "b"),
    ).cleaned()
    # the NaN-valued row 1 is gone; "a": +inf -> 2 (largest finite magnitude: its largest
    # finite value, -2, is feasible); "b": -inf -> -3 (the smallest finite value)
    np.testing.assert_array_equal(obs.constraints, [[2.0, -3.0], [-2.0, -3.0], [np.nan, -1.0]])
    np.testing.assert_array_equal(obs.subset(np.array([2, 0])).constraints[:, 1], [-1.0, -3.0])
    assert obs.with_pending(np.zeros((1, 2))).constraint_names == ("a", "b")


@pytest.mark.parametrize(
    "constraints, names, match",
    [
        (np.zeros((3, 1)), (), r"shape \(3, 0\)"),
        (np.zeros((2, 1)), ("a",), r"shape \(3, 1\)"),
        (None, ("a",), "without constraints"),
        (np.zeros((3, 2)), ("a", "a"), "distinct"),
    ],
)
def test_bad_constraint_values_are_refused_naming_the_argument(constraints, names, match):
    with pytest.raises(ValueError, match=match):
        Observations(np.zeros((3, 1)), np.zeros(3), constraints=constraints, constraint_names=names)


def test_repeatable_points_are_left_out_of_the_points_not_to_repeat():
    X = np.array([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5]])
    obs = Observations(X=X, y=np.array([1.0, 2.0, 3.0]), repeatable=np.array([False, True, False]))
    np.testing.assert_array_equal(obs.X_seen, X[[0, 2]])
    np.testing.assert_array_equal(obs.subset(np.array([1, 2])).repeatable, [True, False])
    assert Observations(X=X, y=np.zeros(3)).X_seen.shape == (3, 2)  # by default none repeatable
    with pytest.raises(ValueError, match="repeatable has 2 flags"):
        Observations(X=X, y=np.zeros(3), repeatable=np.array([True, False]))


def test_a_pending_point_at_a_repeatable_point_is_not_avoided():
    X = np.array([[0.0, 1.0], [1.0, 0.0]])
    pending = np.array([[1.0, 0.0], [0.5, 0.5]])
    obs = Observations(X=X, y=np.zeros(2), X_pending=pending, repeatable=np.array([False, True]))
    np.testing.assert_array_equal(obs.X_avoid, [[0.5, 0.5], [0.0, 1.0]])
    plain = Observations(X=X, y=np.zeros(2), X_pending=pending)
    assert len(plain.X_avoid) == 4  # without flags: every pending and evaluated point


def test_repeatable_rows_at_one_point_keep_only_their_best():
    # rows 0, 2 and 3 are one repeatable point (a branch not modelled yet): the model is to value
    # it at its best configuration (row 2), not the average of all three; row 4 is another point
    X = np.array([[1.0, 0.5], [0.0, 0.2], [1.0, 0.5], [1.0, 0.5], [0.0, 0.5]])
    y = np.array([2.0, 1.0, 0.1, 3.0, 0.7])
    repeatable = np.array([True, False, True, True, True])
    kept = Observations(X=X, y=y, repeatable=repeatable).best_of_repeats()
    np.testing.assert_array_equal(kept.y, [1.0, 0.1, 0.7])
    np.testing.assert_array_equal(kept.repeatable, [False, True, True])
    plain = Observations(X=X, y=y)  # without flags, equal rows are all kept
    assert plain.best_of_repeats() is plain
