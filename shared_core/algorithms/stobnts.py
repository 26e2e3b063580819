"""STO-BNTS and STO-BNTS-Linear (Dai, Shu, Low & Jaillet, "Sample-then-optimize batch neural
Thompson sampling", NeurIPS 2022): every suggestion trains a network of its own, from its own
random initialisation, with a regularised loss, and returns the minimiser of that network. A batch
of ``B`` suggestions is ``B`` independently trained networks; no posterior covariance is formed.

Per suggestion (Algorithms 1 and 2 of the paper):
    1. targets: the minimised values through EGP-TS's output transform (so the network fits
       standardised values), on at most ``max_points`` completed trials;
    2. running trials and the earlier suggestions of a batch enter as believed targets: the
       posterior mean of the GP whose kernel is the suggestion's own empirical neural tangent kernel
       ``K = J J^T`` (a kriging believer): the sample is then pinned near the mean there and its
       spread shrinks, so the next sample is not minimised at the same point (it may be close);
    3. a prior draw ``theta0 ~ N(0, Lambda)`` (``Lambda = I`` in the NTK parameterisation of
       :class:`~shared_core.models.network.NTKNetwork`) and noise ``eps ~ N(0, sigma^2 I)``, drawn
       fresh for each network from a ``torch.Generator`` seeded by the caller's generator;
    4. training from ``theta0`` on the regularised loss (the sample-then-optimize loss of Matthews
       et al. 2017)

           L(theta) = 1/2 mean_i (f(x_i; theta) - (y_i + eps_i))^2
                      + 1/2 (sigma^2 / N) (theta - theta0)^T Lambda^-1 (theta - theta0);

       * ``variant="network"`` (STO-BNTS, Algorithm 1): ``f`` is the network, trained by full-batch
         L-BFGS for at most ``max_steps`` iterations (a bounded budget: the loss is not convex, and
         at the default budget the training usually stops before its gradient vanishes, an
         early-stopped sample; ``last_training`` records it). At convergence and in the
         linearised (wide) regime its output approximates a draw from a GP posterior; the draw
         is exact only in the infinite-width limit with the randomised-prior construction of He,
         Lakshminarayanan & Teh (2020), which this variant does not add;
       * ``variant="linear"`` (STO-BNTS-Linear, Algorithm 2): ``f(x; theta) = J(x) theta``, linear
         in ``theta`` on the empirical neural-tangent features ``J`` at an independent
         initialisation. Its loss is quadratic, so training to convergence is solved exactly:
         ``theta* = theta0 + J^T (J J^T + sigma^2 I)^-1 (y + eps - J theta0)``, an exact sample of
         the Bayesian linear-regression (empirical-NTK GP) posterior;
    5. the suggestion: the minimiser of the trained function by the shared optimiser (random
       candidates, L-BFGS-B with autograd input gradients; categorical parameters by coordinate
       ascent on the shared encoding), never a running or completed point unless every candidate
       is one.

``beta`` is the paper's ``beta_t`` held constant (its Appendix A): the network ``g`` is trained on
``y / beta`` and the sample is ``beta * g``, which is the network's output and noise scaled by
``beta`` and ``beta^2``: the posterior mean stays, the sample's spread around it is ``beta`` times
as large. ``beta = 1`` is plain Thompson sampling; below 1 a sample strays less from the mean. The
default is 0.5 (why: see [docs/design-decisions.md#sto-bnts-beta][sto-bnts-beta]).

Not supported (refused): several objectives and constraint values. ``multi_objective`` and
``models_constraints`` are False (:mod:`shared_core.capabilities`): the adapters refuse such a
study before its first trial, or at the trial after the first that carries constraint values, and
``suggest`` refuses such observations.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from shared_core.acquisition.analytic import ThompsonSampling
from shared_core.interface import Observations, OneAtATimeAlgorithm
from shared_core.models.network import NTKNetwork, require_torch, torch_generator
from shared_core.models.output_transform import OutputTransform
from shared_core.models.refit import fit_subset
from shared_core.optim.acquisition_optimizer import maximize_acquisition
from shared_core.search_space import SearchSpace
from shared_core.validation import check_bool, check_int, check_real

__all__ = ["STOBNTSAlgorithm", "VARIANTS"]

VARIANTS = ("network", "linear")
# the largest entry of the loss's gradient at which a network's training counts as converged
CONVERGED_GRAD = 1e-6
# torch.Tensor in annotations (torch is imported when an algorithm is built, not with this module)
Tensor = Any


class STOBNTSAlgorithm(OneAtATimeAlgorithm):
    """STO-BNTS behind the :class:`~shared_core.interface.Algorithm` interface (module docstring).

    Args:
        variant: ``"network"`` (STO-BNTS) or ``"linear"`` (STO-BNTS-Linear).
        width: units per hidden layer (the paper's 256 costs several times the default's time).
        depth: hidden layers.
        activation: ``"erf"``, ``"relu"`` or ``"tanh"``.
        beta: the exploration scale (module docstring): the sample's spread around the posterior
            mean, relative to the posterior's.
        bias_std: the prior scale of the biases (inputs are ``2x - 1``, centred on the box: with a
            small value every sampled function is near 0 at the box centre).
        noise_var: ``sigma^2``, the likelihood's noise variance on the standardised scale; it also
            weighs the regulariser.
        max_steps: L-BFGS iterations of one network's training (``"network"``).
        max_points: completed trials a network is trained on (the best fifth of them and a random
            rest when there are more).
        warp_outputs: fit power-warped objective values, as EGP-TS does.
        n_raw: random candidates of the optimiser.
        n_starts: of them, how many start L-BFGS-B.
    """

    models_constraints = False  # refused
    multi_objective = False  # refused

    def __init__(
        self,
        *,
        variant: str = "network",
        width: int = 64,
        depth: int = 2,
        activation: str = "erf",
        beta: float = 0.5,
        bias_std: float = 1.0,
        noise_var: float = 0.01,
        max_steps: int = 200,
        max_points: int = 300,
        warp_outputs: bool = True,
        n_raw: int = 2048,
        n_starts: int = 8,
    ) -> None:
        if variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
        if activation not in NTKNetwork.ACTIVATIONS:
            raise ValueError(
                f"activation must be one of {NTKNetwork.ACTIVATIONS}, got {activation!r}"
            )
        self.variant, self.activation = variant, activation
        self.width = check_int("width", width, minimum=1)
        self.depth = check_int("depth", depth, minimum=1)
        self.beta = check_real("beta", beta, low=0.0, low_open=True)
        self.bias_std = check_real("bias_std", bias_std, low=0.0)
        self.noise_var = check_real("noise_var", noise_var, low=0.0, low_open=True)
        self.max_steps = check_int("max_steps", max_steps, minimum=1)
        self.max_points = check_int("max_points", max_points, minimum=1)
        self.warp_outputs = check_bool("warp_outputs", warp_outputs)
        self.n_raw = check_int("n_raw", n_raw, minimum=1)
        self.n_starts = check_int("n_starts", n_starts, minimum=1)
        # the last network's training (train_network's record; the Linear variant's is exact)
        self.last_training: dict[str, Any] | None = None
        require_torch("STO-BNTS")  # imported now, so that the adapters' thread limits reach it
        super().__init__()

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        require_torch("STO-BNTS")  # an unpickled copy too (a new worker process)

    # ------------------------------------------------------------------------------ data
    def _prepare(
        self, space: SearchSpace, obs: Observations, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray]:
        """The training inputs ``(n, d)`` and standardised targets ``(n,)``."""
        rows = fit_subset(obs.X, obs.y, self.max_points, rng)
        transform = OutputTransform.fit(obs.y[rows], warp=self.warp_outputs)
        return obs.X[rows], transform(obs.y[rows])

    # ------------------------------------------------------------------------ suggestion
    def _suggest_one(
        self,
        space: SearchSpace,
        obs: Observations,
        context: tuple[np.ndarray, np.ndarray],
        rng: np.random.Generator,
    ) -> np.ndarray:
        X, t = context  # (n, d), (n,)
        sample = self.sample_function(X, t, obs.X_pending, rng)
        incumbents = X[np.argsort(t)[: min(5, len(t))]]
        return maximize_acquisition(
            ThompsonSampling(TorchFunctionSample(sample)),
            space,
            rng,
            X_best=incumbents,
            n_raw=self.n_raw,
            n_starts=self.n_starts,
            avoid=obs.X_avoid,
        )

    def network(self, n_inputs: int) -> NTKNetwork:
        """The architecture for ``n_inputs`` encoded columns."""
        return NTKNetwork(
            n_inputs,
            width=self.width,
            depth=self.depth,
            activation=self.activation,
            bias_std=self.bias_std,
        )

    def sample_function(
        self, X: np.ndarray, t: np.ndarray, X_pending: np.ndarray, rng: np.random.Generator
    ) -> Any:
        """One trained network (steps 2-4 of the module docstring) as a function of encoded
        points, ``torch (b, d) -> torch (b,)`` on the standardised scale."""
        import torch

        net = self.network(X.shape[1])
        gen = torch_generator(rng)
        theta0 = torch.randn(net.n_params, generator=gen, dtype=torch.float64)  # (P,) prior draw
        # Algorithm 2's features come from an initialisation of their own
        theta_features = (
            torch.randn(net.n_params, generator=gen, dtype=torch.float64)
            if self.variant == "linear"
            else theta0
        )
        X_all = torch.from_numpy(np.vstack([X, X_pending.reshape(-1, X.shape[1])]))  # (N, d)
        targets = torch.from_numpy(np.asarray(t, dtype=np.float64) / self.beta)  # (n,)
        J = None
        if len(X_pending) or self.variant == "linear":
            J = net.jacobian(theta_features, X_all).detach()  # (N, P)
            targets = torch.cat([targets, believed_targets(J, targets, self.noise_var)])
        eps = self.noise_var**0.5 * torch.randn(len(targets), generator=gen, dtype=torch.float64)
        if self.variant == "linear":
            assert J is not None
            theta = linear_minimiser(J, targets + eps, theta0, self.noise_var)
            self.last_training = {"steps": 0, "converged": True, "grad_max": 0.0}
            return lambda Z: self.beta * net.linearised(theta_features, theta, Z)
        theta, self.last_training = train_network(
            net, X_all, targets + eps, theta0, self.noise_var, self.max_steps
        )
        return lambda Z: self.beta * net.forward(theta, Z)


def believed_targets(J: Tensor, t: Tensor, noise_var: float) -> Tensor:
    """The posterior means ``(p,)`` at the last ``p = N - n`` rows of the features ``J`` ``(N, P)``
    given targets ``t`` ``(n,)`` at the first ``n``, under the GP with kernel ``J J^T`` and noise
    ``noise_var`` (prior mean 0)."""
    import torch

    n = len(t)
    if len(J) == n:
        return t[:0]
    K = J[:n] @ J[:n].T + noise_var * torch.eye(n, dtype=J.dtype)  # (n, n)
    alpha = torch.linalg.solve(K, t)  # (n,)
    return J[n:] @ (J[:n].T @ alpha)  # (p,)


def linear_minimiser(J: Tensor, targets: Tensor, theta0: Tensor, noise_var: float) -> Tensor:
    """The exact minimiser ``(P,)`` of ``1/2 mean((J theta - targets)^2) + 1/2 (noise_var / N)
    ||theta - theta0||^2`` for features ``J`` ``(N, P)``: ``theta0 + J^T (J J^T + noise_var I)^-1
    (targets - J theta0)`` (the dual form: an ``N x N`` solve, ``N`` far below ``P``)."""
    import torch

    K = J @ J.T + noise_var * torch.eye(len(J), dtype=J.dtype)  # (N, N)
    return theta0 + J.T @ torch.linalg.solve(K, targets - J @ theta0)


def train_network(
    net: NTKNetwork,
    X: Tensor,
    targets: Tensor,
    theta0: Tensor,
    noise_var: float,
    max_steps: int,
) -> tuple[Tensor, dict[str, Any]]:
    """``theta`` ``(P,)`` after full-batch L-BFGS from ``theta0`` on the sample-then-optimize loss
    (module docstring, step 4) at ``X`` ``(N, d)``, and the training's record: ``steps`` (L-BFGS
    iterations), ``grad_max`` (the largest entry of the loss's gradient at the end) and
    ``converged`` (``grad_max <= CONVERGED_GRAD``)."""
    import torch

    theta = theta0.clone().requires_grad_(True)
    weight = noise_var / len(X)
    optimiser = torch.optim.LBFGS(
        [theta],
        lr=1.0,
        max_iter=max_steps,
        max_eval=4 * max_steps,  # the line search's evaluations must not end the training early
        tolerance_grad=1e-9,
        tolerance_change=1e-12,
        history_size=20,
        line_search_fn="strong_wolfe",
    )

    def closure() -> Tensor:
        optimiser.zero_grad()
        residual = net.forward(theta, X) - targets  # (N,)
        loss = 0.5 * torch.mean(residual**2) + 0.5 * weight * torch.sum((theta - theta0) ** 2)
        loss.backward()
        return loss

    optimiser.step(closure)
    steps = int(optimiser.state[theta]["n_iter"])
    closure()  # the gradient at the final parameters
    assert theta.grad is not None
    grad_max = float(theta.grad.abs().max())
    return theta.detach(), {
        "steps": steps,
        "converged": grad_max <= CONVERGED_GRAD,
        "grad_max": grad_max,
    }


class TorchFunctionSample:
    """A sampled function ``f`` given as a torch function of encoded points (``(b, d) -> (b,)``),
    behind the surrogate contract's :class:`~shared_core.models.surrogate.FunctionSample` (numpy
    values and input gradients), so that Thompson sampling's acquisition minimises it."""

    def __init__(self, function: Any) -> None:
        self.function = function

    def value(self, X: np.ndarray) -> np.ndarray:
        import torch

        with torch.no_grad():
            out = self.function(torch.from_numpy(np.ascontiguousarray(X, dtype=np.float64)))
        return cast(np.ndarray, out.numpy())

    def value_and_grad(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        import torch

        Xt = torch.from_numpy(np.array(X, dtype=np.float64)).requires_grad_(True)
        out = self.function(Xt)  # (b,)
        (grad,) = torch.autograd.grad(out.sum(), Xt)  # (b, d): rows do not interact
        return out.detach().numpy(), grad.numpy()
