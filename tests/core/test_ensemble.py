import json

import numpy as np
import pytest
from scipy.special import logsumexp

from shared_core.models.ensemble import EnsembleGP
from shared_core.models.kernels import default_dictionary, lengthscale_grid_dictionary
from shared_core.models.output_transform import OutputTransform, standardize


def _f(X):
    return np.sin(8 * X[:, 0]) + (X[:, 1] - 0.3) ** 2


def test_refit_weights_are_eq9_and_sum_to_one():
    rng = np.random.default_rng(0)
    X = rng.random((25, 2))
    ens = EnsembleGP()
    ens.fit(X, _f(X), rng)
    log_ml = np.array([m.post.log_marginal_likelihood() for m in ens.members])
    np.testing.assert_allclose(ens.log_w, log_ml - logsumexp(log_ml), atol=1e-12)
    assert ens.weights.sum() == pytest.approx(1.0)


def test_between_refits_posteriors_are_updated_incrementally_in_any_order():
    rng = np.random.default_rng(1)
    X = rng.random((40, 2))
    y = _f(X)
    ens = EnsembleGP()
    ens.fit(X[:30], y[:30], rng)
    refits = ens.n_refits
    perm = np.concatenate([rng.permutation(30), [30, 31]])  # old rows shuffled, 2 new rows
    ens.fit(X[perm], y[perm], rng)
    assert ens.n_refits == refits and ens.n == 32  # 2 new points < 10 % of 30: eq. (13)-(15) path
    # incremental weights == eq. (9) with the same hyperparameters on all data
    log_ml = np.array([m.post.log_marginal_likelihood() for m in ens.members])
    np.testing.assert_allclose(ens.log_w, log_ml - logsumexp(log_ml), atol=1e-8)
    ens.fit(X[:20], y[:20], rng)  # rows disappeared (e.g. another study): refit
    assert ens.n_refits == refits + 1


def test_feature_posterior_above_exact_limit():
    rng = np.random.default_rng(2)
    X = rng.random((60, 2))
    ens = EnsembleGP(exact_limit=50, n_frequencies=64)
    ens.fit(X, _f(X), rng)
    assert type(ens.members[0].post).__name__ == "BayesianLinearRegression"
    mean, var = ens.members[0].post.predict(X[:5])
    np.testing.assert_allclose(mean, ens.y_std(_f(X[:5])), atol=0.3)


def test_lengthscale_grid_dictionary_prefers_plausible_lengthscales():
    rng = np.random.default_rng(3)
    X = rng.random((30, 1))
    ens = EnsembleGP(lengthscale_grid_dictionary())
    ens.fit(X, np.sin(6 * X[:, 0]), rng)
    best = ens.members[int(np.argmax(ens.log_w))].spec.lengthscale
    assert 1e-2 <= best <= 10.0


def test_standardize_handles_huge_and_constant_values():
    assert standardize(np.array([1e300, -1e300, 5e299])) == pytest.approx(
        (1e299 * 5 / 3, standardize(np.array([1.0, -1.0, 0.5]))[1] * 1e300)
    )
    assert standardize(np.array([3.0, 3.0])) == (3.0, 1.0)


def test_output_transform_is_increasing_and_keeps_new_best_values_ordered():
    rng = np.random.default_rng(0)
    X = rng.uniform(-5, 10, (40, 2))
    s = X[:, 0] * 0.5 + X[:, 1]
    y = (X**2).sum(1) + (0.5 * s) ** 2 + (0.5 * s) ** 4  # Zakharov: heavy right tail
    tr = OutputTransform.fit(y)
    assert tr.lam < 1.0  # the heavy tail of bad values is compressed
    grid = np.concatenate([[y.min() - 100.0, y.min() - 1.0], np.sort(y), [10 * y.max()]])
    assert np.all(np.diff(tr(grid)) > 0)  # increasing, also below the fitted minimum
    z = tr(y)
    assert abs(z.mean()) < 1e-9 and abs(z.std() - 1) < 1e-9


def test_output_transform_is_plain_standardisation_without_a_right_tail():
    # left tail: good values are rare
    y = -(np.abs(np.random.default_rng(1).standard_normal(50)) ** 2)
    tr, plain = OutputTransform.fit(y), OutputTransform.fit(y, warp=False)
    assert tr.lam == 1.0
    np.testing.assert_allclose(tr(y), plain(y), atol=1e-12)


def test_output_transform_handles_huge_and_constant_values():
    for y in (np.array([1e300, -1e300, 5e299, 0.0]), np.full(5, 3.0), np.array([1.0, 2.0])):
        z = OutputTransform.fit(y)(y)
        assert np.all(np.isfinite(z))


def test_yeojohnson_matches_scipy():
    """Our Yeo-Johnson (no scipy.stats at import) against scipy.stats on both signs, and its
    maximum-likelihood lambda against scipy's clipped to [-1, 1] (ours is bounded: 1e-4
    tolerance)."""
    from scipy import stats

    from shared_core.models.output_transform import _yeojohnson_lambda, yeojohnson

    rng = np.random.default_rng(0)
    u = np.concatenate([rng.standard_normal(20), rng.exponential(3.0, 30)])
    for lam in (-1.0, -0.3, 0.0, 0.5, 1.0):
        np.testing.assert_allclose(
            yeojohnson(u, lam), stats.yeojohnson(u, lam), rtol=1e-10, atol=1e-12
        )
    for scale in (0.5, 3.0, 30.0):  # light to heavy right tails
        v = rng.exponential(scale, 60) ** 1.5
        assert _yeojohnson_lambda(v) == pytest.approx(
            np.clip(stats.yeojohnson_normmax(v), -1, 1), abs=1e-3
        )


# ------------------------------------------------------------------------------ shared state
def _fitted(n_fit, n_total, seed=2, **kwargs):
    """An ensemble refitted on the first ``n_fit``
    rows then updated incrementally to ``n_total``."""
    rng = np.random.default_rng(seed)
    X = rng.random((n_total, 2))
    y = _f(X)
    ens = EnsembleGP(**kwargs)
    ens.fit(X[:n_fit], y[:n_fit], rng)
    ens.fit(X, y, rng)
    return ens, X, y


def test_an_offered_state_replaces_the_first_fit_and_gives_the_same_model():
    """State after a refit at 50 and 4 incremental updates: another ensemble offered it fits
    nothing, and its weights (eq. (9) on all 54 rows) equal the fitted ensemble's (eq. (9)
    at 50 times the 4 predictive densities, eq. (13)) up to round-off."""
    ens, X, y = _fitted(50, 54)
    assert ens.n_refits == 1 and ens.state()["n_at_refit"] == 50
    state = json.loads(json.dumps(ens.state()))  # as stored: JSON values only
    other = EnsembleGP()
    other.offer_state(state)
    other.fit(X[::-1], y[::-1], np.random.default_rng(9))  # rows in another order
    assert (other.n_refits, other.n_adopted) == (0, 1)
    np.testing.assert_allclose(other.weights, ens.weights, rtol=1e-6, atol=1e-12)
    Xt = np.random.default_rng(3).random((5, 2))
    for a, b in zip(ens.members, other.members):
        np.testing.assert_allclose(a.post.predict(Xt)[0], b.post.predict(Xt)[0], atol=1e-8)
    assert other.transform == ens.transform
    # the refit schedule continues from the other ensemble's refit: due at 55 for both
    X55, y55 = np.vstack([X, [[0.5, 0.5]]]), np.append(y, _f(np.array([[0.5, 0.5]])))
    other.fit(X55, y55, np.random.default_rng(4))
    assert other.n_refits == 1


@pytest.mark.parametrize(
    "change",
    [
        "kernels",
        "dim",
        "warp",
        "garbage",
        "negative",
        "missing",
        "refit_due",
        "infinite_n",
        "huge_int",
        "tiny_lengthscale",
        "tiny_scale",
        "wrong_fixed_ls",
    ],
)
def test_a_state_that_does_not_match_is_ignored_and_the_ensemble_fits(change):
    ens, X, y = _fitted(50, 54)
    state = json.loads(json.dumps(ens.state()))
    other_kwargs = {}
    if change == "kernels":
        other_kwargs["kernels"] = default_dictionary()[:2]
    elif change == "dim":
        X = np.hstack([X, X[:, :1]])
    elif change == "warp":
        other_kwargs["warp_outputs"] = False
    elif change == "garbage":
        state["hyperparameters"] = "not a list"
    elif change == "negative":
        state["hyperparameters"][0]["noise"] = -1.0
    elif change == "missing":
        del state["transform"]
    elif change == "refit_due":
        state["n_at_refit"] = 20  # 54 rows: a refit is due since 20
    elif change == "infinite_n":
        state["n_at_refit"] = float("inf")
    elif change == "huge_int":
        state["hyperparameters"][0]["amplitude"] = 10**400
    elif change == "tiny_lengthscale":
        # outside the fitter's bounds
        state["hyperparameters"][1]["lengthscales"] = [
            1e-300,
            1e-300,
        ]
    elif change == "tiny_scale":
        state["transform"]["scale"] = 1e-300  # valid-looking, but the weights would be NaN
    elif change == "wrong_fixed_ls":
        other_kwargs["kernels"] = lengthscale_grid_dictionary(range(0, 2))
        grid = EnsembleGP(kernels=lengthscale_grid_dictionary(range(0, 2)))
        grid.fit(X[:50], y[:50], np.random.default_rng(0))
        state = json.loads(json.dumps(grid.state()))
        state["hyperparameters"][0]["lengthscales"] = [2.0]  # the kernel's fixed lengthscale is 1
    other = EnsembleGP(**other_kwargs)
    other.offer_state(state)
    other.fit(X, y, np.random.default_rng(0))  # never raises
    assert (other.n_refits, other.n_adopted) == (1, 0)
    assert np.all(np.isfinite(other.weights))
