"""EGP-TS, EGP-EI and distributed TS with several objectives: the random scalarisations, the
scalarised Thompson draw and qParEGO's log EI, the reference point, and short runs fed with
``Observations`` directly."""

import math
import pickle

import numpy as np
import pytest
from scipy.optimize import approx_fprime
from scipy.stats import norm

from shared_core import (
    DistributedTSAlgorithm,
    EGPAlgorithm,
    FloatParam,
    KernelSpec,
    Observations,
    SearchSpace,
)
from shared_core.acquisition import (
    ConstrainedThompsonSampling,
    LogProbabilityOfFeasibility,
    ThompsonSampling,
)
from shared_core.acquisition.multi_objective import (
    CHEBYSHEV_AUGMENTATION,
    ChebyshevScalarization,
    HypervolumeScalarization,
    ObjectiveScales,
    SampledHypervolumeImprovement,
    ScalarizedLogExpectedImprovement,
    ScalarizedSample,
    simplex_weights,
    sphere_weights,
)
from shared_core.interface import multi_objective
from shared_core.models.gp import ExactPosterior, GPHyper
from shared_core.pareto import completed_reference_point, hypervolume, hypervolume_improvements

pytestmark = pytest.mark.usefixtures("one_blas_thread")  # tests/core/conftest.py


# small but complete models: one kernel, few features, a small optimiser budget (fast tests)
FAST = dict(kernels=("matern52",), n_features=128, n_raw=128, n_starts=2)
SQUARE = SearchSpace({"a": FloatParam(0.0, 1.0), "b": FloatParam(0.0, 1.0)})


def _bowls(X):
    """Two objectives ``(n, 2)``: squared distances to (0.2, 0.2) and (0.8, 0.8); the Pareto set is
    the segment between them."""
    return np.stack([((X - 0.2) ** 2).sum(1), ((X - 0.8) ** 2).sum(1)], axis=1)


def _posterior(seed, X):
    y = np.random.default_rng(seed).standard_normal(len(X))
    return ExactPosterior(
        KernelSpec("matern52", True), GPHyper(np.array([0.3, 0.5]), 1.0, 1e-3), X, y
    )


# --------------------------------------------------------------------------- scalarisations
def test_weights_are_uniform_on_the_simplex_and_on_the_positive_sphere():
    rng = np.random.default_rng(0)
    simplex = np.array([simplex_weights(3, rng) for _ in range(4000)])
    sphere = np.array([sphere_weights(2, rng) for _ in range(4000)])
    assert np.all(simplex > 0) and np.allclose(simplex.sum(1), 1.0)
    assert np.all(sphere > 0) and np.allclose(np.linalg.norm(sphere, axis=1), 1.0)
    # uniform on the 2-simplex: each weight is Beta(1, 2), P(w < 1/2) = 3/4; on the quarter circle
    # the angle is uniform on [0, pi/2]. Tolerances: 4 standard errors of 4000 draws (~0.03).
    assert np.mean(simplex[:, 0] < 0.5) == pytest.approx(0.75, abs=0.03)
    angles = np.arctan2(sphere[:, 1], sphere[:, 0])
    assert np.mean(angles < np.pi / 8) == pytest.approx(0.25, abs=0.03)


def test_scalarisation_values_and_the_hypervolume_identity():
    U = np.array([[0.2, 0.6], [0.5, 0.1]])
    w = np.array([0.25, 0.75])
    cheb = ChebyshevScalarization(w)(U)
    expected = np.max(U * w, 1) + CHEBYSHEV_AUGMENTATION * (U * w).sum(1)
    np.testing.assert_allclose(cheb, expected)
    np.testing.assert_allclose(HypervolumeScalarization(w)(U), -np.min((1 - U) / w, 1))
    # Golovin & Zhang (2020), Lemma 5: HV(Y) = c_m E_lambda[max_y max(0, min_i (r_i - y_i) /
    # lambda_i)^m], c_2 = pi / 4, with r = 1 on the normalised scale. 20000 draws: the Monte-Carlo
    # error is below 1 % of the volume here, the tolerance 2 %.
    rng = np.random.default_rng(1)
    front = np.array([[0.1, 0.8], [0.3, 0.4], [0.7, 0.2], [0.9, 1.2]])
    weights = np.abs(rng.standard_normal((20000, 2)))
    weights /= np.linalg.norm(weights, axis=1, keepdims=True)  # as sphere_weights
    values = -HypervolumeScalarization(weights[:, None, :])(front[None])  # (20000, 4)
    draws = np.max(np.maximum(values, 0.0), axis=1) ** 2
    assert math.pi / 4 * np.mean(draws) == pytest.approx(hypervolume(front, np.ones(2)), rel=0.02)


def test_scalarised_draw_and_log_ei_gradients_match_finite_differences():
    rng = np.random.default_rng(0)
    X = rng.random((8, 2))
    f1, f2, c = (_posterior(seed, X) for seed in (1, 2, 3))
    scales = ObjectiveScales(ideal=np.array([-1.0, -0.5]), reference=np.array([1.5, 2.0]))
    acquisitions = []
    for scalarization in (
        ChebyshevScalarization(simplex_weights(2, rng)),
        HypervolumeScalarization(sphere_weights(2, rng)),
    ):
        sample = ScalarizedSample([f1.sample_path(rng), f2.sample_path(rng)], scales, scalarization)
        acquisitions.append(sample)
        for feasibility in (None, LogProbabilityOfFeasibility([c], [0.2])):
            acquisitions.append(
                ScalarizedLogExpectedImprovement(
                    [f1, f2], scales, scalarization, 0.3, rng.standard_normal((64, 2)), feasibility
                )
            )
    for acq in acquisitions:
        for x in rng.random((10, 2)):
            v, g = acq.value_and_grad(x[None])
            assert v[0] == pytest.approx(acq.value(x[None])[0], rel=1e-12)
            fd = approx_fprime(x, lambda z, acq=acq: acq.value(z[None])[0], 1e-7)
            np.testing.assert_allclose(g[0], fd, rtol=1e-3, atol=1e-4)


def test_monte_carlo_log_ei_of_one_weighted_objective_is_the_analytic_ei():
    """With all weight on objective 0 the Chebyshev scalarisation is ``(1 + rho) u_0`` where
    ``u_0 > 0`` (an ideal point far below the values): its MC EI equals the closed form EI of a
    Gaussian (20000 base samples: ~1 % error; tolerance 3 %)."""
    rng = np.random.default_rng(2)
    X = rng.random((6, 2))
    f1, f2 = _posterior(4, X), _posterior(5, X)
    scales = ObjectiveScales(ideal=np.array([-4.0, -1.0]), reference=np.array([1.0, 3.0]))
    scal = ChebyshevScalarization(np.array([1.0, 0.0]))
    Q = rng.random((4, 2))
    mu, var = f1.predict(Q)
    a = (1 + CHEBYSHEV_AUGMENTATION) / scales.span[0]  # s = a (f - ideal_0)
    m, sd = a * (mu - scales.ideal[0]), a * np.sqrt(var)
    best = float(np.median(m))  # EI in the bulk, where 20000 samples resolve it
    z = (best - m) / sd
    ei = sd * (z * norm.cdf(z) + norm.pdf(z))
    acq = ScalarizedLogExpectedImprovement(
        [f1, f2], scales, scal, best, rng.standard_normal((20000, 2))
    )
    np.testing.assert_allclose(np.exp(acq.value(Q)), ei, rtol=0.03)


class _Identity:
    """A function sample ``X[:, j]`` (the "draw" of objective ``j`` is the input itself)."""

    def __init__(self, j):
        self.j = j

    def value(self, X):
        return X[:, self.j]

    def value_and_grad(self, X):
        grad = np.zeros_like(X)
        grad[:, self.j] = 1.0
        return X[:, self.j], grad


@pytest.mark.parametrize("m", [2, 3])
def test_hypervolume_improvements_are_the_gains_of_adding_each_point(m):
    rng = np.random.default_rng(m)
    front = rng.dirichlet(np.ones(m), 10)  # on the simplex: none dominates another
    Y = np.vstack([front, front[:3] + 0.1])  # and three dominated points
    Y_new, r = rng.random((60, m)), np.ones(m)
    expected = [hypervolume(np.vstack([Y, y]), r) - hypervolume(Y, r) for y in Y_new]
    assert 0 < np.count_nonzero(expected) < len(Y_new)
    np.testing.assert_allclose(hypervolume_improvements(Y_new, Y, r), expected, atol=1e-12)
    alone = [hypervolume(y[None], r) for y in Y_new]
    np.testing.assert_allclose(hypervolume_improvements(Y_new, Y[:0], r), alone, atol=1e-12)


def test_the_sampled_improvement_rule_ranks_improvements_then_distances_to_the_front():
    scales = ObjectiveScales(ideal=np.zeros(2), reference=np.ones(2))  # u = the draws' values
    sample = ScalarizedSample(
        [_Identity(0), _Identity(1)], scales, HypervolumeScalarization(np.ones(2) / 2**0.5)
    )
    rule = SampledHypervolumeImprovement(sample, np.array([[0.2, 0.6], [0.6, 0.2]]))
    U = np.array([[0.1, 0.1], [0.3, 0.3], [0.5, 0.7], [0.8, 0.8], [0.5, 1.4]])
    # improvements 0.81 - 0.48 and 0.49 - 0.4; (0.5, 0.7) and (0.8, 0.8) must drop 0.1 and 0.2
    # in every objective to leave the dominated region; (0.5, 1.4) is 0.4 beyond the reference
    np.testing.assert_allclose(rule.value(U), [-0.33, -0.09, 0.1, 0.2, 0.4], atol=1e-12)


def test_a_reference_point_below_the_ideal_value_keeps_its_place_at_a_unit_scale():
    # an Ax threshold stricter than every trial so far in objective 0
    scales = ObjectiveScales(ideal=np.zeros(2), reference=np.array([-0.5, 2.0]))
    np.testing.assert_allclose(scales.span, [1.0, 2.0])  # not inflated a thousandfold or more
    np.testing.assert_allclose(scales.reference_unit, [-0.5, 1.0])
    sample = ScalarizedSample(
        [_Identity(0), _Identity(1)],
        scales,
        HypervolumeScalarization(np.ones(2) / 2**0.5, scales.reference_unit),
    )
    rule = SampledHypervolumeImprovement(sample, np.zeros((0, 2)))
    # only a point beyond the threshold in objective 0 improves the hypervolume; the others rank
    # by how far they are from it, at the scale of the data
    values = rule.value(np.array([[-1.0, 0.0], [0.0, 0.0], [1.0, 0.0]]))
    np.testing.assert_allclose(values, [-0.5 * 1.0, 0.5, 1.5], atol=1e-12)
    assert np.all(np.abs(sample.value(np.array([[0.0, 0.0], [1.0, 1.0]]))) < 10.0)


def test_above_two_objectives_exact_improvements_are_computed_for_the_best_candidates_only(
    monkeypatch,
):
    import shared_core.acquisition.multi_objective as mo

    computed = []

    def counted(Y_new, Y, r):
        computed.append(len(Y_new))
        return hypervolume_improvements(Y_new, Y, r)

    monkeypatch.setattr(mo, "hypervolume_improvements", counted)
    scales = ObjectiveScales(ideal=np.zeros(3), reference=np.ones(3))
    sample = ScalarizedSample(
        [_Identity(0), _Identity(1), _Identity(2)],
        scales,
        HypervolumeScalarization(np.ones(3) / 3**0.5),
    )
    rule = SampledHypervolumeImprovement(sample, np.array([[0.5, 0.5, 0.5]]))
    U = np.random.default_rng(0).random((500, 3))
    values = rule.value(U)
    assert computed == [mo.N_EXACT_IMPROVEMENTS]
    # the best by the scalarisation get their exact improvement
    best = np.argsort(sample.scalarization(U))[: mo.N_EXACT_IMPROVEMENTS]
    np.testing.assert_allclose(
        values[best], -hypervolume_improvements(U[best], rule.front, np.ones(3)), atol=1e-12
    )


def test_the_reference_point_given_entries_kept_the_others_inferred_from_feasible_rows():
    Y = np.array([[0.0, 4.0], [1.0, 1.0], [4.0, 0.0], [-5.0, -5.0]])
    feasible = np.array([True, True, True, False])
    # nadir (4, 4) + 0.1 x range (4, 4) of the feasible front
    np.testing.assert_allclose(completed_reference_point(Y, None, feasible), [4.4, 4.4])
    np.testing.assert_allclose(
        completed_reference_point(Y, np.array([9.0, np.nan]), feasible), [9.0, 4.4]
    )
    # nothing feasible: every row
    # nothing feasible: every row; (-5, -5) dominates the rest, a front of one point: its nadir
    # plus 0.1 x max(|nadir|, 1)
    np.testing.assert_allclose(completed_reference_point(Y, None, ~np.ones(4, bool)), [-4.5, -4.5])


def test_the_scalarisation_uses_the_reference_point_mapped_through_each_objective_transform():
    rng = np.random.default_rng(0)
    X = SQUARE.sample(rng, 12)
    Y = _bowls(X) * [1.0, 100.0]  # different scales
    algorithm = EGPAlgorithm(**FAST)
    obs = Observations(X, Y, reference_point=np.array([0.9, np.nan]))
    algorithm.suggest(SQUARE, obs, 1, rng)
    acq = algorithm._multi_objective_acquisition(SQUARE, obs.cleaned(), rng)[0]
    assert isinstance(acq, ThompsonSampling)
    sample = acq.sample.sample  # the rule's scalarised draw
    ensembles = algorithm._objective_ensembles(2)
    r = completed_reference_point(Y, obs.reference_point)
    assert r[0] == 0.9
    expected = [ensembles[i].y_std(r[i : i + 1])[0] for i in range(2)]
    np.testing.assert_allclose(sample.scales.reference, expected)
    np.testing.assert_allclose(
        sample.scales.ideal, [ensembles[i].y_std(Y[:, i]).min() for i in range(2)]
    )


# --------------------------------------------------------------------------- algorithms
def _front_hypervolume(X):
    return hypervolume(_bowls(X), np.array([1.0, 1.0]))


@pytest.mark.parametrize("acquisition", ["ts", "ei"])
def test_suggestions_improve_the_hypervolume_over_random_points(acquisition):
    """6 random points then 6 suggestions, against 12 random points. The suggestions must beat
    them by 0.01 (about 1.5 % of the attainable hypervolume, so that ties and luck do not pass)."""
    rng = np.random.default_rng(0)
    algorithm = EGPAlgorithm(acquisition=acquisition, **FAST)
    X = SQUARE.sample(rng, 6, low_discrepancy=False)
    random_X = np.vstack([X, SQUARE.sample(rng, 6, low_discrepancy=False)])
    for _ in range(6):
        X = np.vstack([X, algorithm.suggest(SQUARE, Observations(X, _bowls(X)), 1, rng)])
    assert _front_hypervolume(X) > _front_hypervolume(random_X) + 0.01


def test_pending_points_are_believed_by_every_objective():
    """Each objective's draw comes from its member conditioned on the pending point (kriging
    believer): the variance there shrinks to less than half the unconditioned one (it stays at
    the noise level: about a sixth here); the believed point joins the front whose hypervolume
    the suggestion improves."""
    rng = np.random.default_rng(3)
    X = SQUARE.sample(rng, 10)
    pending = np.array([[0.55, 0.45]])
    algorithm = EGPAlgorithm(**FAST)
    obs = Observations(X, _bowls(X), X_pending=pending)
    algorithm.suggest(SQUARE, obs, 1, rng)
    acq = algorithm._multi_objective_acquisition(SQUARE, obs.cleaned(), rng)[0]
    rule = acq.sample
    assert len(rule.front) == 11  # 10 observed points and the believed pending one
    for sample, ensemble in zip(rule.sample.samples, algorithm._objective_ensembles(2)):
        before = ensemble.members[0].post.predict(pending)[1][0]  # one kernel: one member
        assert sample.post.predict(pending)[1][0] < 0.5 * before


def test_a_batch_of_several_objectives_stays_apart():
    rng = np.random.default_rng(4)
    X = SQUARE.sample(rng, 10)
    pending = np.array([[0.5, 0.5]])
    batch = EGPAlgorithm(**FAST).suggest(
        SQUARE, Observations(X, _bowls(X), X_pending=pending), 3, rng
    )
    points = np.vstack([pending, batch])
    gaps = np.linalg.norm(points[:, None] - points[None], axis=-1)[np.triu_indices(4, 1)]
    assert gaps.min() > 0.02  # the fantasies' shrunken variance keeps draws apart, not a hair


def test_constraints_and_several_objectives_choose_feasible_points():
    """Feasible: ``a >= 0.7``, which leaves a sixth of the Pareto set. Of 6 suggestions after 8
    random points, at least 4 are feasible (random points: 30 %)."""
    rng = np.random.default_rng(5)
    X = SQUARE.sample(rng, 8, low_discrepancy=False)
    algorithm = EGPAlgorithm(**FAST)
    for _ in range(6):
        obs = Observations(X, _bowls(X), constraints=0.7 - X[:, :1], constraint_names=("a",))
        X = np.vstack([X, algorithm.suggest(SQUARE, obs, 1, rng)])
    assert np.sum(X[8:, 0] >= 0.7) >= 4
    # SCBO's rule ranks the sampled hypervolume improvement; its merit follows the scalarised draw
    acq, smooth, _ = algorithm._multi_objective_acquisition(SQUARE, obs.cleaned(), rng)
    assert isinstance(acq, ConstrainedThompsonSampling)
    assert isinstance(acq.objective, SampledHypervolumeImprovement)
    assert isinstance(smooth.objective, ScalarizedSample) and smooth.constraints == acq.constraints


@pytest.mark.parametrize("acquisition", ["ts", "ei"])
def test_bad_objective_values_and_three_objectives_give_valid_suggestions(acquisition):
    rng = np.random.default_rng(6)
    X = SQUARE.sample(rng, 9)
    Y = np.column_stack([_bowls(X), X[:, 0]])  # three objectives
    Y[1, 0], Y[2, 1], Y[3, 2] = np.nan, np.inf, -np.inf
    constant = _bowls(X)
    constant[:, 1] = 3.0  # one objective constant
    for values in (Y, constant):
        x = EGPAlgorithm(acquisition=acquisition, **FAST).suggest(
            SQUARE, Observations(X, values), 1, rng
        )
        assert x.shape == (1, 2) and np.all(np.isfinite(x)) and np.all((0 <= x) & (x <= 1))


def test_distributed_ts_agents_model_every_objective_of_their_neighbourhood():
    rng = np.random.default_rng(7)
    source = np.repeat(np.arange(3), 4)
    X = SQUARE.sample(rng, len(source))
    algorithm = DistributedTSAlgorithm(graph="line", n_agents=3, agent_id=0, n_features=128)
    assert multi_objective(algorithm)
    x = algorithm.suggest(SQUARE, Observations(X, _bowls(X), source=source), 1, rng)
    assert x.shape == (1, 2)
    model = algorithm._models[0]
    # agent 0 on a line sees agents 0 and 1: 8 rows, in both objectives' ensembles
    assert model.model.n == 8 and model.objective_models.models[1].n == 8


def test_pickled_algorithms_continue_with_two_objectives():
    """A fitted EGP and distributed-TS algorithm, pickled, go on modelling both objectives."""
    rng = np.random.default_rng(0)
    X = SQUARE.sample(rng, 10)
    for algorithm in (
        EGPAlgorithm(kernels=("matern52",), n_features=64),
        DistributedTSAlgorithm(n_agents=2, n_features=64),
    ):
        algorithm.suggest(SQUARE, Observations(X[:8], _bowls(X[:8])), 1, rng)
        restored = pickle.loads(pickle.dumps(algorithm))
        assert multi_objective(restored)
        x = restored.suggest(SQUARE, Observations(X, _bowls(X)), 1, rng)
        assert x.shape == (1, 2) and np.all((0 <= x) & (x <= 1))
