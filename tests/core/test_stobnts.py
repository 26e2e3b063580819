"""STO-BNTS (shared_core.algorithms.stobnts) and its network (NTKNetwork in
shared_core.models.network): the NTK parameterisation, the sample-then-optimize loss and its exact
minimiser, posterior moments of the Linear variant, believed targets, seeding and refusals."""

import pickle
import subprocess
import sys

import numpy as np
import pytest
import scipy.special
from scipy.optimize import approx_fprime, minimize

from shared_core import FloatParam, Observations, SearchSpace
from shared_core.algorithms.stobnts import (
    STOBNTSAlgorithm,
    believed_targets,
    linear_minimiser,
    train_network,
)
from shared_core.models.network import NTKNetwork, torch_generator

torch = pytest.importorskip("torch")


def _net(d=2, width=8, depth=2, activation="erf", bias_std=1.0):
    return NTKNetwork(d, width=width, depth=depth, activation=activation, bias_std=bias_std)


def _tensor(a):
    return torch.from_numpy(np.asarray(a, dtype=np.float64))


@pytest.mark.parametrize(
    ("activation", "act", "sigma_w"),
    [
        ("relu", lambda z: np.maximum(z, 0), np.sqrt(2.0)),
        ("erf", scipy.special.erf, 1.0),
        ("tanh", np.tanh, 1.0),
    ],
)
def test_ntk_network_is_the_ntk_parameterisation_written_out(activation, act, sigma_w):
    """Weights scaled by sigma_w / sqrt(fan_in), biases by bias_std, inputs 2x - 1."""
    net = _net(d=3, width=5, depth=2, activation=activation, bias_std=0.7)
    assert net.n_params == (3 * 5 + 5) + (5 * 5 + 5) + (5 + 1)
    theta = np.random.default_rng(0).standard_normal(net.n_params)
    X = np.random.default_rng(1).random((4, 3))
    W1, b1 = theta[:15].reshape(5, 3), theta[15:20]
    W2, b2 = theta[20:45].reshape(5, 5), theta[45:50]
    w3, b3 = theta[50:55].reshape(1, 5), theta[55:56]
    s = sigma_w
    a1 = act(s / np.sqrt(3) * (2 * X - 1) @ W1.T + 0.7 * b1)
    a2 = act(s / np.sqrt(5) * a1 @ W2.T + 0.7 * b2)
    expected = (s / np.sqrt(5) * a2 @ w3.T + 0.7 * b3)[:, 0]
    np.testing.assert_allclose(
        net.forward(_tensor(theta), _tensor(X)).numpy(), expected, rtol=1e-12
    )


@pytest.mark.slow
def test_jacobian_and_linearised_model_match_finite_differences():
    net = _net(d=2, width=6)
    theta = np.random.default_rng(0).standard_normal(net.n_params)
    direction = np.random.default_rng(1).standard_normal(net.n_params)
    X = np.random.default_rng(2).random((3, 2))
    J = net.jacobian(_tensor(theta), _tensor(X)).numpy()  # (3, P)
    for i in range(3):
        x_i = _tensor(X[i : i + 1])
        row = approx_fprime(theta, lambda th, x=x_i: float(net.forward(_tensor(th), x)[0]), 1e-7)
        np.testing.assert_allclose(J[i], row, atol=1e-5)
    lin = net.linearised(_tensor(theta), _tensor(direction), _tensor(X)).numpy()
    np.testing.assert_allclose(lin, J @ direction, rtol=1e-10)
    # the sampled function of the Linear variant is minimised with these input gradients
    Xt = _tensor(X).requires_grad_(True)
    (grad,) = torch.autograd.grad(net.linearised(_tensor(theta), _tensor(direction), Xt).sum(), Xt)
    fd = approx_fprime(
        X[0],
        lambda x: float(net.linearised(_tensor(theta), _tensor(direction), _tensor(x[None]))[0]),
        1e-7,
    )
    np.testing.assert_allclose(grad[0].numpy(), fd, atol=1e-5)


def _problem(n=6, d=1, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    return X, np.sin(6 * X[:, 0]) + 0.1 * rng.standard_normal(n)


def _literal_loss_minimiser(J, targets, theta0, noise_var):
    """The minimiser of the sample-then-optimize loss by a generic optimiser (no closed form)."""
    N = len(targets)

    def loss(theta):
        r = J @ theta - targets
        value = 0.5 * np.mean(r**2) + 0.5 * (noise_var / N) * np.sum((theta - theta0) ** 2)
        grad = J.T @ r / N + (noise_var / N) * (theta - theta0)
        return value, grad

    res = minimize(
        loss,
        theta0,
        jac=True,
        method="L-BFGS-B",
        options={"gtol": 1e-14, "ftol": 1e-16, "maxiter": 10000},
    )
    return res.x


def test_each_linear_draw_is_the_minimiser_of_the_sample_then_optimize_loss():
    """The Linear variant's draw, reproduced from the documented draw order (theta0, the features'
    initialisation, then eps), equals a generic optimiser's minimiser of the loss."""
    X, y = _problem()
    algo = STOBNTSAlgorithm(
        variant="linear", width=3, depth=1, noise_var=0.05, warp_outputs=False, beta=1.0
    )
    net = algo.network(1)
    X_test = np.linspace(0, 1, 7)[:, None]
    pending = np.array([[0.9]])  # a running trial: its believed target joins the data, with noise
    for seed in range(3):
        sample = algo.sample_function(X, y, pending, np.random.default_rng(seed))
        gen = torch_generator(np.random.default_rng(seed))
        theta0 = torch.randn(net.n_params, generator=gen, dtype=torch.float64).numpy()
        theta_features = torch.randn(net.n_params, generator=gen, dtype=torch.float64)
        eps = np.sqrt(0.05) * torch.randn(len(y) + 1, generator=gen, dtype=torch.float64).numpy()
        J = net.jacobian(theta_features, _tensor(np.vstack([X, pending]))).numpy()
        believed = J[-1] @ J[:-1].T @ np.linalg.solve(J[:-1] @ J[:-1].T + 0.05 * np.eye(len(y)), y)
        theta = _literal_loss_minimiser(J, np.append(y, believed) + eps, theta0, 0.05)
        expected = net.jacobian(theta_features, _tensor(X_test)).numpy() @ theta
        np.testing.assert_allclose(sample(_tensor(X_test)).detach().numpy(), expected, atol=1e-6)


def test_each_network_draw_is_trained_from_its_prior_draw_on_noisy_targets():
    """STO-BNTS's draw (beta = 1), reproduced from the documented draw order (theta0, then eps):
    the network trained from theta0 on the targets plus eps."""
    X, y = _problem(n=6, d=2)
    algo = STOBNTSAlgorithm(width=8, max_steps=50, noise_var=0.05, warp_outputs=False, beta=1.0)
    net = algo.network(2)
    sample = algo.sample_function(X, y, np.zeros((0, 2)), np.random.default_rng(4))
    gen = torch_generator(np.random.default_rng(4))
    theta0 = torch.randn(net.n_params, generator=gen, dtype=torch.float64)
    eps = np.sqrt(0.05) * torch.randn(len(y), generator=gen, dtype=torch.float64)
    theta, _ = train_network(net, _tensor(X), _tensor(y) + eps, theta0, 0.05, 50)
    X_test = np.random.default_rng(5).random((5, 2))
    np.testing.assert_allclose(
        sample(_tensor(X_test)).detach().numpy(),
        net.forward(theta, _tensor(X_test)).numpy(),
        rtol=1e-10,
    )


@pytest.mark.parametrize("variant", ["network", "linear"])
def test_beta_scales_the_sample_trained_on_scaled_targets(variant):
    """beta (the paper's beta_t): the sample is beta times the network trained on y / beta, i.e.
    the output and the noise scaled by beta and beta^2; the mean stays, the spread scales."""
    X, y = _problem(n=6, d=2)
    options = {"variant": variant, "width": 8, "max_steps": 30, "warp_outputs": False}
    scaled = STOBNTSAlgorithm(beta=0.5, **options)
    plain = STOBNTSAlgorithm(beta=1.0, **options)
    X_test = _tensor(np.random.default_rng(1).random((4, 2)))
    pending = np.array([[0.9, 0.1]])
    got = scaled.sample_function(X, y, pending, np.random.default_rng(2))(X_test)
    expected = 0.5 * plain.sample_function(X, y / 0.5, pending, np.random.default_rng(2))(X_test)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-9)


def test_linear_draws_have_the_bayesian_linear_regression_posterior_moments():
    """Over many draws (prior draw theta0 ~ N(0, I), noise eps ~ N(0, sigma^2 I)), the minimiser's
    predictions have the posterior mean and variance of Bayesian linear regression with prior
    N(0, I) and noise sigma^2 (Matthews et al. 2017). Tolerance: 5 standard errors of 4000 draws
    (means: sd / sqrt(4000); variances: relative sqrt(2 / 4000))."""
    rng = np.random.default_rng(0)
    n, P, noise_var, draws = 5, 4, 0.1, 4000
    Phi, y, phi_test = (
        rng.standard_normal((n, P)),
        rng.standard_normal(n),
        rng.standard_normal((3, P)),
    )
    gen = torch.Generator().manual_seed(0)
    predictions = []
    for _ in range(draws):
        theta0 = torch.randn(P, generator=gen, dtype=torch.float64)
        eps = noise_var**0.5 * torch.randn(n, generator=gen, dtype=torch.float64)
        theta = linear_minimiser(_tensor(Phi), _tensor(y) + eps, theta0, noise_var)
        predictions.append(phi_test @ theta.numpy())
    predictions = np.array(predictions)  # (draws, 3)
    cov = np.linalg.inv(Phi.T @ Phi / noise_var + np.eye(P))  # (P, P)
    mean = phi_test @ cov @ Phi.T @ y / noise_var
    var = np.einsum("ip,pq,iq->i", phi_test, cov, phi_test)
    np.testing.assert_allclose(predictions.mean(0), mean, atol=5 * np.sqrt(var / draws).max())
    np.testing.assert_allclose(predictions.var(0), var, rtol=5 * np.sqrt(2 / draws))


def test_network_training_reaches_a_stationary_point_of_the_loss():
    """The trained parameters zero the gradient of the loss written out here: the regulariser's
    weight sigma^2 / N and its centre theta0 are those of the sample-then-optimize loss."""
    X, y = _problem(n=8, d=2)
    net = _net(d=2, width=4, depth=1)
    gen = torch.Generator().manual_seed(3)
    theta0 = torch.randn(net.n_params, generator=gen, dtype=torch.float64)
    theta, record = train_network(net, _tensor(X), _tensor(y), theta0, 0.05, max_steps=5000)
    assert record["converged"] and record["steps"] < 5000 and record["grad_max"] <= 1e-6
    theta = theta.clone().requires_grad_(True)
    loss = 0.5 * torch.mean((net.forward(theta, _tensor(X)) - _tensor(y)) ** 2) + 0.5 * (
        0.05 / 8
    ) * torch.sum((theta - theta0) ** 2)
    (grad,) = torch.autograd.grad(loss, theta)
    assert float(grad.abs().max()) < 1e-5  # a wrong regulariser weight leaves about 1e-2
    # and the network fits the data better than at its initialisation
    assert float(loss.detach()) < 0.5 * float(
        torch.mean((net.forward(theta0, _tensor(X)) - _tensor(y)) ** 2)
    )


def test_a_training_stopped_by_max_steps_is_recorded_as_not_converged():
    X, y = _problem(n=8, d=2)
    net = _net(d=2, width=16)
    theta0 = torch.randn(
        net.n_params, generator=torch.Generator().manual_seed(0), dtype=torch.float64
    )
    _, record = train_network(net, _tensor(X), _tensor(y), theta0, 0.01, max_steps=3)
    assert record["steps"] == 3 and not record["converged"] and record["grad_max"] > 1e-6


def test_believed_targets_are_the_posterior_mean_of_the_empirical_ntk_gp():
    rng = np.random.default_rng(0)
    J, t = rng.standard_normal((7, 5)), rng.standard_normal(4)  # 4 observed rows, 3 pending
    K = J @ J.T
    expected = K[4:, :4] @ np.linalg.solve(K[:4, :4] + 0.1 * np.eye(4), t)
    np.testing.assert_allclose(
        believed_targets(_tensor(J), _tensor(t), 0.1).numpy(), expected, rtol=1e-10
    )
    assert believed_targets(_tensor(J[:4]), _tensor(t), 0.1).shape == (0,)


SPACE = SearchSpace({"x": FloatParam(-2.0, 2.0), "z": FloatParam(0.0, 1.0)})


def _obs(n=12, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 2))
    return Observations(X, (X[:, 0] - 0.3) ** 2 + (X[:, 1] - 0.6) ** 2)


@pytest.mark.parametrize("variant", ["network", "linear"])
def test_suggestions_are_seeded_by_the_generator_alone_and_leave_torch_global_rng_alone(variant):
    torch.manual_seed(7)
    expected = torch.rand(3)
    torch.manual_seed(7)
    algo = STOBNTSAlgorithm(variant=variant, width=16, max_steps=30, n_raw=64, n_starts=2)
    first = algo.suggest(SPACE, _obs(), 2, np.random.default_rng(5))
    assert torch.equal(torch.rand(3), expected)
    again = STOBNTSAlgorithm(variant=variant, width=16, max_steps=30, n_raw=64, n_starts=2)
    np.testing.assert_array_equal(again.suggest(SPACE, _obs(), 2, np.random.default_rng(5)), first)
    assert not np.array_equal(algo.suggest(SPACE, _obs(), 2, np.random.default_rng(6)), first)


def test_the_suggestion_is_the_minimiser_of_the_trained_sample(monkeypatch):
    """The optimiser is handed -f of the sample: on a sampled function whose minimum is known, the
    suggestion is at that minimum."""
    algo = STOBNTSAlgorithm(n_raw=256, n_starts=4)
    target = torch.tensor([0.8, 0.2], dtype=torch.float64)
    monkeypatch.setattr(
        algo, "sample_function", lambda *args: lambda Z: torch.sum((Z - target) ** 2, dim=1)
    )
    x = algo.suggest(SPACE, _obs(), 1, np.random.default_rng(0))[0]
    np.testing.assert_allclose(x, target.numpy(), atol=1e-4)


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "seeds", "ratio"), [("linear", 40, 0.2), ("network", 20, 0.5)])
def test_running_trials_pin_the_sample_near_its_believed_value(variant, seeds, ratio):
    """With a running trial at x_p, each draw at x_p stays near its believed target (the posterior
    mean under the draw's own features, reproduced from the documented draw order): within the
    noise (sd 0.01) for the Linear variant, near it for the (early-stopped) network; without it the
    draws scatter with the posterior's spread."""
    X, y = _problem(n=6, d=4)
    x_p = np.array([[0.95, 0.05, 0.95, 0.05]])  # away from the data
    algo = STOBNTSAlgorithm(variant=variant, width=16, noise_var=1e-4, warp_outputs=False, beta=1.0)
    net = algo.network(4)
    with_pending, without = [], []
    for seed in range(seeds):
        gen = torch_generator(np.random.default_rng(seed))
        theta_features = torch.randn(net.n_params, generator=gen, dtype=torch.float64)  # theta0
        if variant == "linear":  # Algorithm 2's features: an initialisation of their own
            theta_features = torch.randn(net.n_params, generator=gen, dtype=torch.float64)
        J = net.jacobian(theta_features, _tensor(np.vstack([X, x_p])))
        believed = float(believed_targets(J, _tensor(y), 1e-4)[0])
        for pending, out in ((x_p, with_pending), (np.zeros((0, 4)), without)):
            sample = algo.sample_function(X, y, pending, np.random.default_rng(seed))
            out.append(float(sample(_tensor(x_p))[0]) - believed)
    spread = np.sqrt(np.mean(np.square(with_pending))), np.sqrt(np.mean(np.square(without)))
    assert spread[0] < ratio * spread[1], spread


def test_each_draw_depends_on_the_generator():
    """Two generators give two different prior draws (theta0, eps), not only other candidates."""
    X, y = _problem(n=6, d=2)
    X_test = _tensor(np.random.default_rng(1).random((4, 2)))
    for variant in ("network", "linear"):
        algo = STOBNTSAlgorithm(variant=variant, width=8, max_steps=20)
        draws = [
            algo.sample_function(X, y, np.zeros((0, 2)), np.random.default_rng(s))(X_test)
            for s in (0, 1)
        ]
        assert not torch.allclose(draws[0], draws[1], atol=1e-3), variant


@pytest.mark.parametrize("warp", [True, False])
def test_targets_are_the_output_transform_of_the_subset_trained_on(warp):
    from shared_core.models.output_transform import OutputTransform

    obs = _obs(n=30)
    y = np.exp(3 * obs.y)  # skewed: the warp changes it
    algo = STOBNTSAlgorithm(max_points=12, warp_outputs=warp)
    X, t = algo._prepare(SPACE, Observations(obs.X, y), np.random.default_rng(0))
    rows = [int(np.flatnonzero((obs.X == x).all(axis=1))[0]) for x in X]
    assert len(rows) == 12
    expected = OutputTransform.fit(y[rows], warp=warp)(y[rows])
    np.testing.assert_allclose(t, expected, rtol=1e-12)
    if warp:
        plain = OutputTransform.fit(y[rows], warp=False)(y[rows])
        assert not np.allclose(t, plain, atol=1e-3)


def test_constraint_values_are_refused_and_training_is_recorded():
    algo = STOBNTSAlgorithm(width=8, max_steps=5, n_raw=32, n_starts=1)
    obs = _obs()
    constrained = Observations(obs.X, obs.y, constraints=np.zeros((12, 1)), constraint_names=("c",))
    with pytest.raises(ValueError, match=r"STOBNTSAlgorithm does not model constraints: .*\['c'\]"):
        algo.suggest(SPACE, constrained, 1, np.random.default_rng(0))
    assert not algo.multi_objective and not algo.models_constraints
    algo.suggest(SPACE, obs, 1, np.random.default_rng(0))
    assert algo.last_training is not None
    assert algo.last_training["steps"] == 5 and not algo.last_training["converged"]


def test_many_trials_train_on_at_most_max_points(monkeypatch):
    seen = []
    algo = STOBNTSAlgorithm(variant="linear", width=8, max_points=20, n_raw=32, n_starts=1)
    original = algo.sample_function
    monkeypatch.setattr(
        algo, "sample_function", lambda X, *a: seen.append(len(X)) or original(X, *a)
    )
    algo.suggest(SPACE, _obs(n=50), 1, np.random.default_rng(0))
    assert seen == [20]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"variant": "deep"}, "variant must be one of"),
        ({"activation": "sigmoid"}, "activation must be one of"),
        ({"width": 0}, "width"),
        ({"noise_var": 0.0}, "noise_var"),
    ],
)
def test_bad_options_are_value_errors_naming_them(options, message):
    with pytest.raises(ValueError, match=message):
        STOBNTSAlgorithm(**options)


@pytest.mark.slow
def test_building_an_algorithm_imports_torch_so_thread_limits_reach_it():
    """The module alone does not import torch; building the algorithm does (so that the adapters'
    thread limit, which caps torch only if it is imported when the block starts, reaches it)."""
    code = (
        "import sys; from shared_core.algorithms.stobnts import STOBNTSAlgorithm; "
        "before = 'torch' in sys.modules; STOBNTSAlgorithm(); print(before, 'torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False True"


@pytest.mark.slow
def test_an_unpickled_algorithm_imports_torch_so_thread_limits_reach_it():
    """The adapters' thread limit caps torch only if torch is imported when the block starts: an
    algorithm unpickled in a new process (a new worker) imports it at once."""
    blob = pickle.dumps(STOBNTSAlgorithm())
    code = f"import pickle, sys; algorithm = pickle.loads({blob!r}); print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"
