"""BORE / BORE++ core: labels, classifiers, gradients, batches and validation."""

import numpy as np
import pytest
from scipy.optimize import approx_fprime

from shared_core import CategoricalParam, FloatParam, IntParam, Observations, SearchSpace
from shared_core.algorithms.bore import BOREAlgorithm, quantile_labels
from shared_core.optim.acquisition_optimizer import matches_any
from shared_core.search_space import LinearConstraint


def test_quantile_labels_count_ties_and_tiny_data():
    y = np.array([5.0, 1.0, 3.0, 2.0, 4.0, 6.0, 7.0, 8.0])
    # ceil(0.25 * 8) = 2
    np.testing.assert_array_equal(quantile_labels(y, 0.25), [0, 1, 0, 1, 0, 0, 0, 0])
    # ties with the threshold are not good (equal values, equal labels) ...
    np.testing.assert_array_equal(
        quantile_labels(np.array([1.0, 2.0, 2.0, 3.0]), 0.5), [1, 0, 0, 0]
    )
    # ... so a plateau of bad values (e.g. failures clipped
    # to the worst value) keeps the few good points
    np.testing.assert_array_equal(
        quantile_labels(np.array([0.2, 0.5] + [1.0] * 10), 0.25), [1, 1] + [0] * 10
    )
    # tau = min
    np.testing.assert_array_equal(
        quantile_labels(np.array([1.0, 1.0, 3.0, 4.0]), 0.25), [1, 1, 0, 0]
    )
    np.testing.assert_array_equal(quantile_labels(np.array([3.0]), 0.25), [1])
    # constant
    np.testing.assert_array_equal(quantile_labels(np.array([2.0, 2.0, 2.0]), 0.25), [1, 1, 1])
    # at least one good
    np.testing.assert_array_equal(quantile_labels(np.array([2.0, 1.0]), 0.25), [0, 1])


def _data(n=20, d=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    return X, np.sum((X - 0.3) ** 2, axis=1)


def _fitted(variant):
    X, y = _data()
    alg = BOREAlgorithm(variant=variant)
    alg.classifier.fit(
        X, quantile_labels(y, 0.25), np.random.default_rng(0), n_observed=len(y), layout=b""
    )
    return alg.classifier


@pytest.mark.parametrize("variant", ["bore++", "bore"])
def test_acquisition_and_score_gradients_match_finite_differences(variant):
    clf = _fitted(variant)
    for x in np.random.default_rng(1).random((3, 2)) * 0.8 + 0.1:
        _, g = clf.acquisition().value_and_grad(x[None])
        fd = approx_fprime(x, lambda v: float(clf.acquisition().value(v[None])[0]), 1e-6)
        # forward differences: ~1e-5 error
        np.testing.assert_allclose(g[0], fd, rtol=1e-3, atol=1e-4)
        # log sigmoid(logit)
        log_a = (
            (lambda v: np.log(clf.acquisition().value(v[None])[0]))
            if variant == "bore++"
            else (lambda v: -np.logaddexp(0.0, -clf.acquisition().value(v[None])[0]))
        )
        np.testing.assert_allclose(
            clf.log_density_grad(x[None])[0], approx_fprime(x, log_a, 1e-6), rtol=1e-3, atol=1e-4
        )


@pytest.mark.parametrize("variant", ["bore++", "bore"])
def test_classifier_prefers_the_good_region(variant):
    clf = _fitted(variant)
    good, bad = (
        clf.acquisition().value(np.array([[0.3, 0.3]])),
        clf.acquisition().value(np.array([[0.95, 0.95]])),
    )
    if variant == "bore++":  # compare pi^ alone: the UCB term may favour unexplored corners
        good, bad = (
            clf.post.predict(np.array([[0.3, 0.3]]))[0],
            clf.post.predict(np.array([[0.95, 0.95]]))[0],
        )
    assert good[0] > bad[0]


def _space():
    return SearchSpace({"a": FloatParam(0.0, 1.0), "b": FloatParam(0.0, 1.0)})


@pytest.mark.slow
def test_sequential_suggestion_is_the_acquisition_argmax_and_batches_spread():
    X, y = _data()
    space = _space()
    alg = BOREAlgorithm()
    x_seq = alg.suggest(space, Observations(X, y), 1, np.random.default_rng(0))[0]
    acq = alg.classifier.acquisition().value
    grid = np.stack(np.meshgrid(np.linspace(0, 1, 41), np.linspace(0, 1, 41)), -1).reshape(-1, 2)
    assert acq(x_seq[None])[0] >= acq(grid).max() - 1e-6  # at least as good as a 41x41 grid
    batch = alg.suggest(
        space, Observations(X, y, X_pending=x_seq[None]), 4, np.random.default_rng(1)
    )
    pts = np.vstack([x_seq[None], batch])
    d = np.linalg.norm(pts[:, None] - pts[None], axis=-1)[np.triu_indices(5, 1)]
    assert d.min() > 0.02  # SVGD companions: no point piles onto another


def test_pending_points_shrink_sigma_but_not_the_mean():
    clf = _fitted("bore++")
    pending = np.array([[0.9, 0.1], [0.5, 0.5]])
    grid = np.random.default_rng(2).random((200, 2))
    mean, var = clf.post.predict(grid)
    mean_p, var_p = clf.given_pending(pending).post.predict(grid)
    # labels hallucinated at pi^: mean unchanged
    np.testing.assert_allclose(mean_p, mean, atol=1e-9)
    assert np.all(var_p <= var + 1e-12)  # more conditioning never adds variance
    at = clf.given_pending(pending).post.predict(pending)[1]
    assert np.all(at < clf.lam)  # one observation with noise lambda leaves at most lambda there
    assert clf.given_pending(np.zeros((0, 2))) is clf
    net = BOREAlgorithm(variant="bore").classifier
    assert net.given_pending(pending) is net  # the network has no sigma to shrink


def test_asynchronous_particle_stays_near_the_pending_aware_maximum():
    X, y = _data()
    space = _space()
    alg = BOREAlgorithm()
    pending = np.array([[0.3, 0.3], [0.25, 0.35]])
    x = alg.suggest(space, Observations(X, y, X_pending=pending), 1, np.random.default_rng(0))[0]
    acq = alg.classifier.given_pending(pending).acquisition().value
    grid = np.stack(np.meshgrid(np.linspace(0, 1, 41), np.linspace(0, 1, 41)), -1).reshape(-1, 2)
    values = acq(grid)
    # the particle starts at the maximiser and SVGD (sharpness 10) only nudges it: it stays in
    # the top 5 % of the grid (measured: top 1.4 %, seeds 0-2), and away from the running trials
    assert acq(x[None])[0] >= np.quantile(values, 0.95)
    assert np.linalg.norm(pending - x, axis=1).min() > 0.02


def test_sharper_target_concentrates_the_batch_on_high_acquisition():
    X, y = _data()
    space = _space()
    means = {}
    for k in (1.0, 30.0):
        alg = BOREAlgorithm(batch_size=8, sharpness=k)
        alg.suggest(space, Observations(X, y), 1, np.random.default_rng(0))
        batch = np.array(alg._queue)  # the 7 particles not handed out yet
        means[k] = alg.classifier.acquisition().value(batch).mean()
    assert means[30.0] > means[1.0]


def test_sharpness_accepts_numpy_numbers():
    assert BOREAlgorithm(sharpness=np.float32(2.5)).sharpness == 2.5
    assert BOREAlgorithm(sharpness=np.int64(3)).sharpness == 3.0


def test_synchronous_batch_is_queued_until_new_data():
    X, y = _data()
    space = _space()
    alg = BOREAlgorithm(batch_size=3)
    rng = np.random.default_rng(0)
    first = alg.suggest(space, Observations(X, y), 1, rng)[0]
    # the other two particles of the joint SVGD run wait for the next asks
    assert len(alg._queue) == 2
    second = alg.suggest(space, Observations(X, y, X_pending=first[None]), 1, rng)[0]
    assert len(alg._queue) == 1 and not np.allclose(first, second)
    # new data: new batch
    alg.suggest(space, Observations(np.vstack([X, first]), np.append(y, 0.5)), 1, rng)
    assert len(alg._queue) == 2


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["bore++", "bore"])
def test_mixed_space_with_constraint_gives_valid_feasible_distinct_points(variant):
    space = SearchSpace(
        {"x": FloatParam(0.0, 2.0), "n": IntParam(1, 8), "c": CategoricalParam(("p", "q", "r"))},
        constraints=[LinearConstraint((("x", 1.0), ("n", 0.25)), 2.0)],  # x + n/4 <= 2
    )
    rng = np.random.default_rng(0)
    X = space.sample(rng, 12)
    y = np.array([space.decode(x)["x"] + (space.decode(x)["c"] == "q") for x in X])
    alg = BOREAlgorithm(variant=variant)
    pending = np.zeros((0, space.dim))
    for _ in range(5):  # one at a time, each seeing the earlier ones as running trials
        x = alg.suggest(space, Observations(X, y, X_pending=pending), 1, rng)[0]
        np.testing.assert_array_equal(x, space.round_to_valid(x[None])[0])
        p = space.decode(x)
        assert p["x"] + p["n"] / 4 <= 2.0 + 1e-9 and p["c"] in ("p", "q", "r")
        pending = np.vstack([pending, x])
    assert len({tuple(r) for r in np.round(np.vstack([X, pending]), 9)}) == len(X) + 5


def test_categorical_only_space_and_constant_values():
    space = SearchSpace({"c": CategoricalParam(("a", "b", "c", "d"))})
    X = space.encode_many([{"c": "a"}, {"c": "b"}])
    alg = BOREAlgorithm()
    out = alg.suggest(space, Observations(X, np.array([1.0, 1.0])), 2, np.random.default_rng(0))
    assert {space.decode(x)["c"] for x in out} == {"c", "d"}  # unevaluated choices first, no repeat


@pytest.mark.slow
def test_same_seed_same_suggestions():
    X, y = _data()
    runs = [
        BOREAlgorithm(variant=v).suggest(
            _space(), Observations(X, y, X_pending=X[:1]), 2, np.random.default_rng(5)
        )
        for v in ("bore", "bore", "bore++", "bore++")
    ]
    np.testing.assert_array_equal(runs[0], runs[1])
    np.testing.assert_array_equal(runs[2], runs[3])


def test_network_leaves_torch_global_random_state_alone():
    import torch

    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    X, y = _data()
    BOREAlgorithm(variant="bore").suggest(_space(), Observations(X, y), 1, np.random.default_rng(0))
    assert torch.equal(torch.rand(3), expected)


@pytest.mark.parametrize("change", ["params", "constraints"])
def test_queued_batch_is_not_reused_in_another_space(change):
    """A synchronous batch drawn for one space is redrawn for another space of the same shape.

    The other space is chosen so that the queued particles pass its feasibility check
    (asserted below): only the queue key, not the check that rejects infeasible queued
    particles, can keep them out.
    """
    X, y = _data()
    first = _space()  # a, b continuous in [0, 1], no constraint
    # same encoded shape, but on grids: a queued (continuous) particle is off-grid
    if change == "params":
        other = SearchSpace({"a": FloatParam(0.0, 1.0, step=0.25), "b": IntParam(0, 4)})
    else:  # same parameters, a constraint that every queued particle satisfies
        other = SearchSpace(
            first.params, constraints=[LinearConstraint((("a", 1.0), ("b", 1.0)), 1.9)]
        )
    alg = BOREAlgorithm(batch_size=4, svgd_steps=100)
    # one SVGD run: 1 handed out, 3 queued
    alg.suggest(first, Observations(X, y), 1, np.random.default_rng(0))
    queued = np.array(alg._queue)
    assert len(queued) == 3 and other.feasible(queued).all()
    # same data, other space
    batch = alg.suggest(other, Observations(X, y), 2, np.random.default_rng(1))
    assert not matches_any(batch, queued).any()  # a reused particle would be returned unchanged
    # valid points of the other space
    np.testing.assert_array_equal(other.round_to_valid(batch), batch)
    assert other.feasible(batch).all()


def test_registry_builds_bore_with_json_options():
    from shared_core.registry import make_algorithm

    alg = make_algorithm("bore++", kernel="rbf-ard", gamma=0.2, batch_size=2)
    assert alg.classifier.spec.name == "rbf-ard" and alg.gamma == 0.2
    with pytest.raises(ValueError, match="kernel"):
        make_algorithm("bore++", kernel="cosine")
    with pytest.raises(ValueError, match="variant"):
        make_algorithm("bore++", variant="bore")


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"variant": "x"}, "variant"),
        ({"gamma": 0}, "gamma"),
        ({"gamma": 1.5}, "gamma"),
        ({"beta": -0.1}, "beta"),
        ({"lam": 0.0}, "lam"),
        ({"batch_size": 0}, "batch_size"),
        ({"batch_size": True}, "batch_size"),
        ({"svgd_steps": -1}, "svgd_steps"),
        ({"n_raw": 0}, "n_raw"),
        ({"n_starts": 1.5}, "n_starts"),
        ({"kernel": 3}, "kernel"),
        ({"sharpness": 0}, "sharpness"),
        ({"sharpness": float("inf")}, "sharpness"),
        ({"sharpness": True}, "sharpness"),
    ],
)
def test_bad_arguments_name_the_value(kwargs, name):
    with pytest.raises(ValueError, match=name):
        BOREAlgorithm(**kwargs)


def test_classifier_is_reused_while_data_is_unchanged_and_refitted_on_schedule_beyond_max_points():
    X, y = _data(n=30)
    space, rng = _space(), np.random.default_rng(0)
    alg = BOREAlgorithm(max_points=20, svgd_steps=10)
    alg.suggest(space, Observations(X, y), 1, rng)
    post, refits = alg.classifier.post, alg.classifier.n_refits
    # an Ax batch: same data
    alg.suggest(space, Observations(X, y, X_pending=np.full((1, 2), 0.5)), 2, rng)
    assert alg.classifier.post is post and alg.classifier.n_refits == refits
    # 30 -> 39 observations: refits due at 33 (ceil(10 % of 30) = 3 more) and 37 (4 more)
    for _ in range(10):
        x = alg.suggest(space, Observations(X, y), 1, rng)
        X, y = np.vstack([X, x]), np.append(y, np.sum((x - 0.3) ** 2))
    assert alg.classifier.n_refits == refits + 2
    # trained on max_points rows
    assert alg.classifier.n_at_refit == 37 and len(alg.classifier.post.y) == 20


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["bore++", "bore"])
def test_a_changed_search_space_or_study_gets_a_fresh_classifier(variant, monkeypatch):
    """Optuna's intersection space shrinks when a parameter becomes conditional (3 columns,
    then 2); a range can change at the same width; a sampler object can move to another
    study (fewer trials)."""
    import shared_core.models.bore_classifiers as bore

    warm_starts = []  # what each BORE++ hyperparameter fit started from
    fit = bore.fit_hyperparameters
    monkeypatch.setattr(
        bore,
        "fit_hyperparameters",
        lambda *a, **kw: warm_starts.append(kw["warm_start"]) or fit(*a, **kw),
    )
    X, y = _data(n=15, d=3)
    rng = np.random.default_rng(0)
    alg = BOREAlgorithm(variant=variant, svgd_steps=10)
    clf = alg.classifier
    alg.suggest(SearchSpace({k: FloatParam(0.0, 1.0) for k in "abc"}), Observations(X, y), 1, rng)
    # another study
    steps = [
        (_space(), X[:, :2], y),  # fewer columns
        (
            SearchSpace({"a": FloatParam(0.0, 2.0), "b": FloatParam(0.0, 1.0)}),
            X[:, :2],
            y,
        ),  # same width
        (SearchSpace({"a": FloatParam(0.0, 2.0), "b": FloatParam(0.0, 1.0)}), X[:8, :2], y[:8]),
    ]
    for space, X_new, y_new in steps:
        net = getattr(clf, "net", None)
        x = alg.suggest(space, Observations(X_new, y_new), 1, rng)[0]
        assert x.shape == (2,)
        if variant == "bore++":
            assert warm_starts[-1] is None and clf.hyper.ls.shape == (2,)  # refitted from scratch
        else:
            assert clf.net is not net  # a new network, not the last space's or study's weights
    if variant == "bore++":
        assert len(warm_starts) == 4
