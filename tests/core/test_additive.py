"""The additive GP (shared_core.models.additive, its fit in additive_fit): objective and its
gradient, per-factor posterior moments (eq. 1 of Hoang et al. 2018), agreement with the ARD GP
for one group, structure scores."""

import math

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.stats import lognorm

from shared_core.models import additive_fit
from shared_core.models.additive import (
    AdditiveHyper,
    AdditivePosterior,
    additive_log_evidence,
    fit_additive,
)
from shared_core.models.gp import (
    _NOISE_PRIOR,
    LENGTHSCALE_PENALTY,
    ExactPosterior,
    GPHyper,
    _ls_prior,
    _neg_log_posterior,
)
from shared_core.models.kernels import FORMS, KernelSpec

GROUPS = (np.array([0, 2]), np.array([1]), np.array([3]))  # a group of non-adjacent columns
HYPER = AdditiveHyper(ls=np.array([0.3, 0.5, 0.4, 0.8]), amps=np.array([0.6, 0.3, 0.2]), noise=1e-3)


def _data(n=14, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 4))
    y = np.sin(5 * X[:, 0]) * np.cos(3 * X[:, 2]) + X[:, 1] ** 2 + 0.3 * X[:, 3]
    return X, (y - y.mean()) / y.std()


def _central_diff(f, x, h=1e-6):
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))])


# ------------------------------------------------------------------------------------ objective
@pytest.mark.parametrize("form", FORMS)
def test_objective_gradient_matches_finite_differences(form):
    X, y = _data()
    spec, theta = KernelSpec(form, ard=True), additive_fit._pack(HYPER)
    _, grad = additive_fit._neg_log_posterior(theta, spec, GROUPS, X, y)
    fd = _central_diff(lambda t: additive_fit._neg_log_posterior(t, spec, GROUPS, X, y)[0], theta)
    # central differences with step 1e-6 on an O(10) objective: error ~1e-6
    np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("form", FORMS)
def test_one_group_objective_is_the_ard_gp_objective_but_the_short_lengthscale_penalty(form):
    """With one group the amp prior's mean is -log(1) = 0, gp.py's: value and gradient agree once
    the short half of gp.py's penalty, ``-c ls^-2``, which the additive model leaves out, is
    added."""
    X, y = _data()
    theta = np.log([0.3, 0.5, 0.4, 0.8, 0.9, 1e-3])
    spec, one = KernelSpec(form, ard=True), (np.arange(4),)
    mine = additive_fit._neg_log_posterior(theta, spec, one, X, y)
    ref = _neg_log_posterior(theta, spec, X, y)
    inv_ls2 = np.exp(-2.0 * theta[:4])
    assert mine[0] + LENGTHSCALE_PENALTY * inv_ls2.sum() == pytest.approx(ref[0], rel=1e-12)
    short_grad = np.concatenate([-2.0 * LENGTHSCALE_PENALTY * inv_ls2, [0.0, 0.0]])
    np.testing.assert_allclose(mine[1] + short_grad, ref[1], rtol=1e-10, atol=1e-12)


def test_priors_are_lognormal_with_the_group_size_as_dimension_and_amps_around_one_over_g():
    """One observation at 0: the likelihood depends on the amps through their sum only, so moving
    variance between groups and changing lengthscales changes the objective by the priors alone:
    log-normal amps with mean -log(G) and sd 1, lengthscales with ``_ls_prior(group size)`` and the
    penalty ``-c ls^2`` (no ``-c ls^-2``: t2 has a lengthscale of 0.1), as densities of the
    values."""
    X, y, spec = np.zeros((1, 4)), np.array([0.7]), KernelSpec("matern52", ard=True)
    t1 = np.log([0.3, 0.5, 0.4, 0.8, 0.3, 0.2, 0.1, 1e-3])
    t2 = np.log([0.9, 0.2, 2.0, 0.1, 0.1, 0.1, 0.4, 1e-3])  # the same sum of amps

    def log_prior(t):
        ls, amps = np.exp(t[:4]), np.exp(t[4:7])
        out = np.sum(lognorm.logpdf(amps, 1.0, scale=1.0 / 3.0))  # exp(-log 3)
        for g in GROUPS:
            mu, sd = _ls_prior(len(g))
            out += np.sum(lognorm.logpdf(ls[g], sd, scale=np.exp(mu)))
        return out - LENGTHSCALE_PENALTY * np.sum(ls**2)

    def obj(t):
        return additive_fit._neg_log_posterior(t, spec, GROUPS, X, y)[0]

    assert obj(t1) - obj(t2) == pytest.approx(log_prior(t2) - log_prior(t1), rel=1e-10)


def test_log_evidence_adds_the_constants_that_normalise_the_prior():
    """``additive_log_evidence`` = -objective + the log normaliser of every prior density: the
    log-normal's ``-log(sd) - log(2 pi)/2`` and, for a lengthscale, the log integral of the
    log-normal with the penalty ``-c ls^2`` (computed here independently, in value space); plus
    ``sum(theta)``, which takes the objective's densities of the values to densities of their
    logs."""
    X, y = _data()
    hyper, value = additive_log_evidence(GROUPS, X, y)
    spec = KernelSpec("matern52", ard=True)
    objective = additive_fit._neg_log_posterior(additive_fit._pack(hyper), spec, GROUPS, X, y)[0]
    constant = 0.0
    for g in GROUPS:
        mu, sd = _ls_prior(len(g))

        def density(s, mu=mu, sd=sd):
            return lognorm.pdf(s, sd, scale=np.exp(mu)) * np.exp(-LENGTHSCALE_PENALTY * s**2)

        mass = quad(density, 0, 1)[0] + quad(density, 1, np.inf)[0]
        constant += len(g) * (-math.log(sd) - 0.5 * math.log(2 * math.pi) - math.log(mass))
    constant += 3 * (-0.5 * math.log(2 * math.pi))  # amps: sd 1
    constant += -math.log(_NOISE_PRIOR[1]) - 0.5 * math.log(2 * math.pi)
    jacobian = float(np.sum(additive_fit._pack(hyper)))
    assert value == pytest.approx(-objective + constant + jacobian, rel=1e-8)


def test_the_evidence_at_fixed_hyperparameters_is_the_fitted_score_at_the_fit():
    X, y = _data()
    hyper, value = additive_log_evidence(GROUPS, X, y)
    score = additive_fit.EvidenceAtFixedHyper(X, y, hyper.ls, hyper.noise)
    assert score(GROUPS, hyper.amps) == pytest.approx(value, rel=1e-10)
    # the Gram matrices it keeps are those of the last two partitions scored
    merged = (np.array([0, 2]), np.array([1, 3]))
    assert score(merged, np.array([0.5, 0.5])) != pytest.approx(value, rel=1e-3)
    assert score(GROUPS, hyper.amps) == pytest.approx(value, rel=1e-10)
    assert set(score._unit) == {(0, 2), (1,), (3,), (1, 3)}
    score((np.array([0]), np.array([2]), np.array([1]), np.array([3])), np.full(4, 0.25))
    assert set(score._unit) == {(0,), (2,), (1,), (3,), (0, 2)}  # (1, 3) is two scores old


def test_a_warm_refit_without_the_prior_start_runs_from_the_start_alone(monkeypatch):
    X, y = _data(n=40)
    h = fit_additive(GROUPS, X, y)
    starts = []
    original = additive_fit.minimize
    monkeypatch.setattr(
        additive_fit, "minimize", lambda f, x0, **kw: starts.append(x0) or original(f, x0, **kw)
    )
    additive_log_evidence(GROUPS, X, y, start=h, maxiter=5, from_prior=False)
    assert len(starts) == 1 and np.allclose(starts[0], additive_fit._pack(h))
    additive_log_evidence(GROUPS, X, y, start=h, maxiter=5)
    assert len(starts) == 3  # the start and the prior mode


# ------------------------------------------------------------------------------------ fitting
def test_log_evidence_prefers_the_true_grouping():
    """``f = sin(4 (x0 + x1)) + cos(5 x2)``: x0 and x1 interact, x2 is alone. The true grouping
    scores higher than splitting the pair, pairing x2 with one of them, or one group of all three
    (the ARD GP): by 51-63 nats over the wrong groupings and 24-30 over one group, measured on
    seeds 0-3; the test asks for 10."""
    rng = np.random.default_rng(0)
    X = rng.random((40, 3))
    y = np.sin(4 * (X[:, 0] + X[:, 1])) + np.cos(5 * X[:, 2]) + 0.01 * rng.standard_normal(40)
    y = (y - y.mean()) / y.std()
    groupings = {
        "true": ([0, 1], [2]),
        "split": ([0], [1], [2]),
        "wrong pair": ([0, 2], [1]),
        "one group": ([0, 1, 2],),
    }
    score = {
        name: additive_log_evidence([np.array(g) for g in groups], X, y)[1]
        for name, groups in groupings.items()
    }
    assert score["true"] > max(v for k, v in score.items() if k != "true") + 10.0, score


@pytest.mark.parametrize("seed", range(4))
def test_with_few_observations_the_true_pairs_score_above_one_factor_per_column(seed):
    """20 points of an additive function of three pairs of columns: the true pairs score above
    six factors of one column each, by 6.2-12.8 nats on seeds 0-3; the test asks for 3. (Scored
    with the prior density of the hyperparameters' values, the six factors scored higher on all
    four seeds: each factor's amplitude brought nats unrelated to the data.)"""
    rng = np.random.default_rng(seed)
    X = rng.random((20, 6))
    Z = X - 0.3
    y = np.sum((Z[:, 0::2] + Z[:, 1::2]) ** 2 + 0.5 * Z[:, 0::2] ** 2, axis=1)
    y = (y - y.mean()) / y.std()
    pairs = additive_log_evidence([np.array([0, 1]), np.array([2, 3]), np.array([4, 5])], X, y)
    singles = additive_log_evidence([np.array([i]) for i in range(6)], X, y)
    assert pairs[1] > singles[1] + 3.0, (pairs[1], singles[1])


def test_fit_recovers_the_factors_and_uses_the_start():
    X, y = _data(n=40)
    h = fit_additive(GROUPS, X, y)
    assert 1e-6 <= h.noise < 0.01  # noiseless data
    # the mostly linear factor of x3 varies slowly: a long lengthscale
    assert h.ls[3] > max(h.ls[0], h.ls[2])
    spec = KernelSpec("matern52", ard=True)

    def objective(hyper):
        return additive_fit._neg_log_posterior(additive_fit._pack(hyper), spec, GROUPS, X, y)[0]

    # one iteration from the prior mode gets nowhere near the optimum; from the optimum it stays
    assert objective(fit_additive(GROUPS, X, y, maxiter=1)) > objective(h) + 1.0
    assert objective(fit_additive(GROUPS, X, y, maxiter=1, start=h)) <= objective(h) + 1e-9


def test_fast_varying_factors_are_not_explained_as_noise():
    """Three 1-D Michalewicz terms ``-sin(x) sin(i x^2 / pi)^20`` (i = 2, 3, 4; valleys 0.08-0.1
    of the range wide), 40 noiseless random points, one group per column: short lengthscales and
    little noise, and each factor's mean is least within 0.05 of its term's minimiser. With gp.py's
    short-lengthscale penalty ``-c ls^-2`` the fit took the noise bound (0.5) and lengthscales of
    0.48-0.67, and the minimisers were off by 0.11, 0.29 and 1.2."""
    rng = np.random.default_rng(0)
    X = rng.random((40, 3))
    x, i = np.pi * X, np.array([2.0, 3.0, 4.0])
    y = -np.sum(np.sin(x) * np.sin(i * x**2 / np.pi) ** 20, axis=1)
    groups = [np.array([j]) for j in range(3)]
    h = fit_additive(groups, X, (y - y.mean()) / y.std())
    assert h.noise < 0.05 and np.all(h.ls < 0.2), h
    post = AdditivePosterior(groups, h, X, (y - y.mean()) / y.std())
    z = np.linspace(0.0, 1.0, 201)[:, None]
    found = [np.pi * z[np.argmin(post.factor_predict(j, z)[0]), 0] for j in range(3)]
    np.testing.assert_allclose(found, [np.pi / 2, 1.2849, 1.9230], atol=0.05)


def test_a_failing_cholesky_falls_back_to_the_prior_mode(monkeypatch):
    def fail(*args, **kwargs):
        raise np.linalg.LinAlgError("not positive definite")

    monkeypatch.setattr(additive_fit, "cholesky", fail)
    hyper, value = additive_log_evidence(GROUPS, *_data())
    mu, sd = additive_fit._prior_moments(GROUPS, 4)
    np.testing.assert_allclose(additive_fit._pack(hyper), mu - sd**2)
    assert value == -math.inf


# ------------------------------------------------------------------------------------ posterior
@pytest.mark.parametrize("form", FORMS)
def test_one_group_posterior_is_the_exact_ard_gp(form):
    X, y = _data()
    ls, amp, noise = np.array([0.3, 0.5, 0.4, 0.8]), 0.9, 1e-3
    mine = AdditivePosterior(
        [np.arange(4)], AdditiveHyper(ls, np.array([amp]), noise), X, y, form=form
    )
    ref = ExactPosterior(KernelSpec(form, ard=True), GPHyper(ls, amp, noise), X, y)
    Xq = np.random.default_rng(1).random((6, 4))
    for a, b in zip(mine.predict_with_grad(Xq), ref.predict_with_grad(Xq)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    for a, b in zip(mine.factor_predict(0, Xq), ref.predict(Xq)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    assert mine.log_marginal_likelihood() == pytest.approx(ref.log_marginal_likelihood(), rel=1e-12)
    (mine_c, lp1), (ref_c, lp2) = mine.condition(Xq[:2], y[:2]), ref.condition(Xq[:2], y[:2])
    assert lp1 == pytest.approx(lp2, rel=1e-10)
    np.testing.assert_allclose(mine_c.predict(Xq)[1], ref_c.predict(Xq)[1], rtol=1e-10, atol=1e-12)
    # the same random numbers in the same order: the same draw
    draw, ref_draw = (
        mine.sample_path(np.random.default_rng(5)),
        ref.sample_path(np.random.default_rng(5)),
    )
    np.testing.assert_allclose(draw.value(Xq), ref_draw.value(Xq), rtol=1e-10, atol=1e-12)


def _matern52(A, B, ls, amp):
    r = np.sqrt((((A[:, None, :] - B[None, :, :]) / ls) ** 2).sum(-1))
    return amp * (1 + np.sqrt(5) * r + 5 / 3 * r**2) * np.exp(-np.sqrt(5) * r)


def test_factor_moments_are_those_of_the_joint_gaussian():
    """Brute force on a tiny problem: the latent vector ``u = (f_g(X^g), f_g(Q^g))_g`` has a
    block-diagonal prior (independent factors, the Matérn-5/2 written out here), ``y = sum_g
    f_g(X^g) + eps``; Gaussian conditioning by dense solves gives each factor's posterior at
    ``Q`` and that of their sum. Eq. (1) and :meth:`predict` must agree to round-off; the factor
    means sum to the mean of ``f``."""
    X, y = _data(n=6)
    Q = np.random.default_rng(2).random((4, 4))
    post = AdditivePosterior(GROUPS, HYPER, X, y)
    n, b, G = len(X), len(Q), len(GROUPS)
    blocks = [
        _matern52(np.vstack([X[:, g], Q[:, g]]), np.vstack([X[:, g], Q[:, g]]), HYPER.ls[g], a)
        for g, a in zip(GROUPS, HYPER.amps)
    ]
    Sigma = np.zeros((G * (n + b), G * (n + b)))  # (G (n + b), G (n + b)) prior of u
    for i, block in enumerate(blocks):
        Sigma[i * (n + b) : (i + 1) * (n + b), i * (n + b) : (i + 1) * (n + b)] = block
    H = np.zeros((n, G * (n + b)))  # y = H u + eps
    for i in range(G):
        H[:, i * (n + b) : i * (n + b) + n] = np.eye(n)
    C = H @ Sigma @ H.T + HYPER.noise * np.eye(n)
    mean_u = Sigma @ H.T @ np.linalg.solve(C, y)
    cov_u = Sigma - Sigma @ H.T @ np.linalg.solve(C, H @ Sigma)
    at_q = [np.arange(i * (n + b) + n, (i + 1) * (n + b)) for i in range(G)]  # u's entries at Q
    means = []
    for i, g in enumerate(GROUPS):
        mean, var = post.factor_predict(i, Q[:, g])
        np.testing.assert_allclose(mean, mean_u[at_q[i]], rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(var, np.diag(cov_u)[at_q[i]], rtol=1e-8, atol=1e-10)
        means.append(mean)
    S = np.zeros((G * (n + b), b))  # sums the factors at Q
    for rows in at_q:
        S[rows, np.arange(b)] = 1.0
    mean, var = post.predict(Q)
    np.testing.assert_allclose(mean, S.T @ mean_u, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(var, np.diag(S.T @ cov_u @ S), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(np.sum(means, axis=0), mean, rtol=1e-10, atol=1e-12)


def test_factor_gradients_match_finite_differences():
    post = AdditivePosterior(GROUPS, HYPER, *_data())
    sample = post.sample_path(np.random.default_rng(3))
    rng = np.random.default_rng(4)
    for i, g in enumerate(GROUPS):
        for z in rng.random((2, len(g))):
            mean, var, dmean, dvar = post.factor_predict_with_grad(i, z[None])
            assert [mean[0], var[0]] == pytest.approx(
                [v[0] for v in post.factor_predict(i, z[None])]
            )
            # central differences, step 1e-6, of smooth O(1) functions: error ~1e-8
            for got, k in ((dmean[0], 0), (dvar[0], 1)):
                fd = _central_diff(lambda t, i=i, k=k: post.factor_predict(i, t[None])[k][0], z)
                np.testing.assert_allclose(got, fd, atol=1e-6)
            f, df = sample.factor_value_and_grad(i, z[None])
            assert f[0] == pytest.approx(sample.factor_value(i, z[None])[0], rel=1e-12)
            fd = _central_diff(lambda t, i=i: sample.factor_value(i, t[None])[0], z)
            np.testing.assert_allclose(df[0], fd, atol=1e-6)


def test_all_factors_at_once_are_each_factor_alone():
    """One stacked solve for several factors (the acquisition's batches) gives each factor's own
    moments and gradients; factors may repeat and come in any order."""
    post = AdditivePosterior(GROUPS, HYPER, *_data())
    rng = np.random.default_rng(5)
    factors = [1, 0, 1]
    Zs = [rng.random((7, len(GROUPS[g]))) for g in factors]
    mean, var = post.factors_predict(factors, Zs)  # (3, 7) each
    mean_g, var_g, dmeans, dvars = post.factors_predict_with_grad(factors, Zs)
    for i, (g, Z) in enumerate(zip(factors, Zs)):
        alone = post.factor_predict_with_grad(g, Z)
        # the same arithmetic on columns of one solve: equal up to rounding
        for got, want in zip((mean[i], var[i], mean_g[i], var_g[i]), (*alone[:2], *alone[:2])):
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(dmeans[i], alone[2], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(dvars[i], alone[3], rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="group 0's columns"):
        post.factors_predict([0, 1], [Zs[0], Zs[1]])  # one column for two
    with pytest.raises(ValueError, match="at least one"):
        post.factors_predict([], [])
    listed = AdditivePosterior(GROUPS, AdditiveHyper(HYPER.ls, [0.6, 0.3, 0.2], 1e-3), *_data())
    np.testing.assert_allclose(listed.factors_predict(factors, Zs)[1], var)  # amps as a list


def test_the_batched_gradients_match_each_factor_alone_when_ill_conditioned_and_on_reuse():
    """The optimiser's path multiplies by the explicit inverse: against the triangular solves of
    one factor alone, with many close points and the noise at 1e-6 (condition number ~1e8), at
    points on and off the data, called twice with different batch sizes (its kept data reused),
    then released."""
    rng = np.random.default_rng(7)
    X = np.repeat(rng.random((40, 4)), 3, axis=0) + 1e-4 * rng.standard_normal((120, 4))
    y = np.sin(3 * X).sum(1)
    post = AdditivePosterior(GROUPS, AdditiveHyper(HYPER.ls, HYPER.amps, 1e-6), X, y - y.mean())
    for Z in (X[:5], rng.random((9, 4))):  # on the data (variances near the noise), off it
        factors = [0, 1, 2]
        Zs = [Z[:, g] for g in GROUPS]
        mean, var, dmeans, dvars = post.factors_predict_with_grad(factors, Zs)
        for i, g in enumerate(factors):
            m, v, dm, dv = post.factor_predict_with_grad(g, Zs[i])
            # the two formulas differ by rounding times the condition number: ~1e-8 of amps
            np.testing.assert_allclose(mean[i], m, rtol=1e-7, atol=1e-8)
            np.testing.assert_allclose(var[i], v, rtol=1e-4, atol=1e-8)
            np.testing.assert_allclose(dmeans[i], dm, rtol=1e-6, atol=1e-6)
            np.testing.assert_allclose(dvars[i], dv, rtol=1e-3, atol=1e-5)
    assert post._K_inv is not None and post._stacks
    post.release()
    assert post._K_inv is None and not post._stacks


def test_believing_keeps_factor_means_and_never_raises_factor_variances():
    """GP-BUCB's hallucinated observations: the believed means of f at pending points leave every
    factor's mean as it was and shrink every factor's variance (eq. 1 with the grown data)."""
    post = AdditivePosterior(GROUPS, HYPER, *_data())
    rng = np.random.default_rng(6)
    pending, grid = rng.random((3, 4)), rng.random((50, 4))
    believed = post.believing(pending)
    for i, g in enumerate(GROUPS):
        (mean, var), (mean_b, var_b) = (p.factor_predict(i, grid[:, g]) for p in (post, believed))
        np.testing.assert_allclose(mean_b, mean, atol=1e-9)
        assert np.all(var_b <= var + 1e-12)
        # at the pending points themselves each factor's variance drops
        assert np.all(
            believed.factor_predict(i, pending[:, g])[1] < post.factor_predict(i, pending[:, g])[1]
        )


def test_path_samples_match_each_factors_moments():
    """1000 draws, each factor at 4 points. Fresh random features per draw make the draws' first
    two moments exact, so only Monte-Carlo error remains: the standard error of a mean is sd/32
    and of a variance ~var/22, and 4.5 standard errors bound the differences for the fixed seed.
    The factors' draws sum to the draw of f."""
    post = AdditivePosterior(GROUPS, HYPER, *_data(n=8), n_frequencies=128)
    rng = np.random.default_rng(7)
    Q = rng.random((4, 4))
    draws = []  # (1000, G, 4)
    for _ in range(1000):
        sample = post.sample_path(rng)
        draws.append([sample.factor_value(i, Q[:, g]) for i, g in enumerate(GROUPS)])
    draws = np.array(draws)
    np.testing.assert_allclose(draws.sum(1)[-1], sample.value(Q), rtol=1e-12, atol=1e-12)
    for i, (g, amp) in enumerate(zip(GROUPS, HYPER.amps)):
        mean, var = post.factor_predict(i, Q[:, g])
        np.testing.assert_allclose(draws[:, i].mean(0), mean, atol=4.5 * np.sqrt(var.max() / 1000))
        np.testing.assert_allclose(draws[:, i].var(0), var, rtol=0.2, atol=1e-3 * amp)


# ------------------------------------------------------------------------------------ validation
@pytest.mark.parametrize(
    "groups, match",
    [
        ([[0, 1], [1, 2], [3]], r"groups\[0\] and groups\[1\] share columns \[1\]"),
        ([[0, 1], [3]], r"columns \[2\] are in no group"),
        ([[0, 1, 2, 3], []], r"groups\[1\] = \[\] is not a non-empty"),
        ([[0, 1, 2], [3, 4]], r"groups\[1\] = \[3, 4\] has columns outside range\(4\)"),
        ([[0.0, 1.0], [2, 3]], r"groups\[0\] .* is not a non-empty 1-D array"),
        ([[0, 0, 1], [2, 3]], r"groups\[0\] = \[0, 0, 1\] repeats a column"),
        ([], r"at least one group"),
    ],
)
def test_bad_groups_raise_naming_them(groups, match):
    X, y = _data()
    with pytest.raises(ValueError, match=match):
        AdditivePosterior([np.array(g) for g in groups], HYPER, X, y)
    with pytest.raises(ValueError, match=match):
        fit_additive([np.array(g) for g in groups], X, y)


def test_bad_form_hyper_and_factor_queries_raise():
    X, y = _data()
    with pytest.raises(ValueError, match="'cosine'"):
        AdditivePosterior(GROUPS, HYPER, X, y, form="cosine")
    with pytest.raises(ValueError, match=r"amps of shape \(3,\)"):
        AdditivePosterior(GROUPS, AdditiveHyper(HYPER.ls, np.ones(2), 1e-3), X, y)
    with pytest.raises(ValueError, match="positive and finite"):
        AdditivePosterior(GROUPS, AdditiveHyper(HYPER.ls, HYPER.amps, 0.0), X, y)
    post = AdditivePosterior(GROUPS, HYPER, X, y)
    with pytest.raises(ValueError, match=r"Z must be \(b, 2\)"):
        post.factor_predict(0, np.zeros((3, 4)))
    with pytest.raises(ValueError, match=r"g must be in range\(3\), got 3"):
        post.factor_predict(3, np.zeros((3, 1)))


def test_irrelevant_groups_may_take_less_than_gp_amp_bound():
    """Ten groups share the standardised variance: the nine irrelevant ones go below gp.py's
    lower amp bound (0.05; measured 0.015 each), which the additive fit divides by the number of
    groups."""
    rng = np.random.default_rng(0)
    X = rng.random((40, 10))
    y = np.sin(6 * X[:, 0])
    h = fit_additive([np.array([i]) for i in range(10)], X, (y - y.mean()) / y.std())
    assert h.amps[0] > 0.5 and np.all(h.amps[1:] < 0.04)


def test_the_batched_gradients_without_observations_are_the_priors():
    post = AdditivePosterior(GROUPS, HYPER, np.zeros((0, 4)), np.zeros(0))
    Z = np.random.default_rng(8).random((3, 4))
    mean, var, dmeans, dvars = post.factors_predict_with_grad(
        [0, 2], [Z[:, GROUPS[0]], Z[:, GROUPS[2]]]
    )
    np.testing.assert_array_equal(mean, 0.0)
    np.testing.assert_allclose(var, np.repeat(np.asarray(HYPER.amps)[[0, 2]][:, None], 3, axis=1))
    for grad in (*dmeans, *dvars):
        np.testing.assert_array_equal(grad, 0.0)


def test_batched_gradients_refuse_factors_at_different_points():
    post = AdditivePosterior(GROUPS, HYPER, np.zeros((0, 4)), np.zeros(0))
    Z = np.random.default_rng(9).random((3, 4))
    for predict in (post.factors_predict, post.factors_predict_with_grad):
        with pytest.raises(ValueError, match=r"same points, got batches \[3, 2\]"):
            predict([0, 2], [Z[:, GROUPS[0]], Z[:2, GROUPS[2]]])
