"""Small torch networks in float64 for the algorithms that train neural networks: BORE's
classifier (:func:`build_mlp`, with numpy inputs and outputs through :func:`forward` and
:func:`forward_and_input_grad`) and STO-BNTS's :class:`NTKNetwork` (torch tensors in and out, its
parameters one flat vector).

PyTorch is an optional dependency: this module never imports it at import time, only when a
network is built or evaluated (:func:`require_torch` checks for it up front, with an
installation hint). Networks are seeded from an explicit ``numpy.random.Generator``; torch's
global random state is left alone. Training (loss, optimiser, mini-batches) is the caller's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

import numpy as np

if TYPE_CHECKING:  # pragma: no cover - annotations only
    import torch

__all__ = [
    "NTKNetwork",
    "build_mlp",
    "forward",
    "forward_and_input_grad",
    "require_torch",
    "torch_generator",
]


def require_torch(user: str) -> None:
    """Raise ``ImportError("<user> needs PyTorch: python -m pip install torch")``
    if torch is missing."""
    try:
        import torch  # noqa: F401  (imported only to learn whether it is installed)
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(f"{user} needs PyTorch: python -m pip install torch") from err


def build_mlp(sizes: Sequence[int], rng: np.random.Generator) -> torch.nn.Sequential:
    """A float64 ReLU network ``sizes[0] -> sizes[1] -> ... -> sizes[-1]``
    (no activation after the last layer).

    One draw ``rng.integers(2**62)`` seeds a private ``torch.Generator``; from it each layer
    in turn draws its weight ``(fan_out, fan_in)`` then its bias ``(fan_out,)`` uniformly in
    ``[-1/sqrt(fan_in), 1/sqrt(fan_in)]`` (PyTorch's default init). ``nn.Linear``'s own
    initialisation runs on a forked global RNG, so torch's global random state is unchanged.
    """
    import torch

    if len(sizes) < 2:
        raise ValueError(
            f"an MLP needs at least an input and an output size, got sizes={list(sizes)!r}"
        )
    gen = torch.Generator().manual_seed(int(rng.integers(2**62)))
    layers = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        with torch.random.fork_rng(devices=[]):  # nn.Linear's own init must not use the global RNG
            lin = torch.nn.Linear(fan_in, fan_out, dtype=torch.float64)
        bound = 1.0 / math.sqrt(fan_in)  # PyTorch's default uniform init, drawn from our generator
        with torch.no_grad():
            lin.weight.uniform_(-bound, bound, generator=gen)
            lin.bias.uniform_(-bound, bound, generator=gen)
        layers += [lin, torch.nn.ReLU()]
    return torch.nn.Sequential(*layers[:-1])


def forward(net: torch.nn.Module, X: np.ndarray) -> np.ndarray:
    """The outputs at ``X`` ``(b, d)`` float64 without autograd: ``(b,)`` for a network with
    one output (``(b, k)`` for ``k > 1`` outputs)."""
    import torch

    Xt = torch.from_numpy(np.ascontiguousarray(X)).requires_grad_(False)
    with torch.set_grad_enabled(False):
        out = net(Xt).squeeze(-1)  # (b,)
        return cast(np.ndarray, out.detach().numpy())


def forward_and_input_grad(net: torch.nn.Module, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The outputs ``(b,)`` of a one-output network at ``X`` ``(b, d)`` float64 and their
    gradients with respect to the inputs ``(b, d)`` (row ``i`` is the gradient of output
    ``i``: rows do not interact)."""
    import torch

    Xt = torch.from_numpy(np.ascontiguousarray(X)).requires_grad_(True)
    with torch.set_grad_enabled(True):
        out = net(Xt).squeeze(-1)  # (b,)
        (grad,) = torch.autograd.grad(out.sum(), Xt)  # (b, d)
    return out.detach().numpy(), grad.numpy()


def torch_generator(rng: np.random.Generator) -> torch.Generator:
    """A private ``torch.Generator`` seeded by one draw ``rng.integers(2**62)`` (torch's global
    random state is never used)."""
    import torch

    return torch.Generator().manual_seed(int(rng.integers(2**62)))


class NTKNetwork:
    """A float64 fully connected network in the NTK parameterisation (Jacot, Gabriel & Hongler
    2018), its parameters one flat vector ``theta`` ``(P,)`` whose prior is ``N(0, I)``.

    On encoded inputs ``x`` in the unit cube, with ``a_0 = 2x - 1`` ``(d,)``:

        z_l = (sigma_w / sqrt(n_{l-1})) W_l a_{l-1} + bias_std * b_l,   a_l = act(z_l)

    for ``depth`` hidden layers of ``width`` units and a linear readout of one output;
    ``sigma_w`` is ``sqrt(2)`` for ReLU and 1 otherwise. Every ``W_l`` and ``b_l`` entry is a
    standard normal a priori, so the prior covariance of ``theta`` is the identity (``Lambda = I``
    in the regulariser of sample-then-optimize). The object holds only the architecture; every
    function takes ``theta``.

    Args:
        n_inputs: ``d``.
        width: units per hidden layer.
        depth: hidden layers (>= 1).
        activation: ``"erf"``, ``"relu"`` or ``"tanh"``.
        bias_std: the scale of every bias; with inputs centred on the box (``2x - 1``), a small
            value leaves the network's functions near 0 at the box centre.
    """

    ACTIVATIONS = ("erf", "relu", "tanh")

    def __init__(
        self, n_inputs: int, *, width: int, depth: int, activation: str, bias_std: float
    ) -> None:
        if activation not in self.ACTIVATIONS:
            raise ValueError(f"activation must be one of {self.ACTIVATIONS}, got {activation!r}")
        self.sizes = [n_inputs] + [width] * depth + [1]
        self.activation, self.bias_std = activation, bias_std
        self.sigma_w = math.sqrt(2.0) if activation == "relu" else 1.0
        # a (fan_out, fan_in) weight then a (fan_out,) bias per layer
        self.n_params = sum(a * b + b for a, b in zip(self.sizes[:-1], self.sizes[1:]))

    def _act(self, z: torch.Tensor) -> torch.Tensor:
        import torch

        if self.activation == "erf":
            return torch.erf(z)
        return torch.relu(z) if self.activation == "relu" else torch.tanh(z)

    def forward(self, theta: torch.Tensor, X: torch.Tensor) -> torch.Tensor:
        """Outputs ``(b,)`` at encoded points ``X`` ``(b, d)`` for parameters ``theta`` ``(P,)``."""
        a, offset = 2.0 * X - 1.0, 0
        n_layers = len(self.sizes) - 1
        for layer in range(n_layers):
            fan_in, fan_out = self.sizes[layer], self.sizes[layer + 1]
            W = theta[offset : offset + fan_out * fan_in].reshape(fan_out, fan_in)
            offset += fan_out * fan_in
            b = theta[offset : offset + fan_out]
            offset += fan_out
            z = (self.sigma_w / math.sqrt(fan_in)) * (a @ W.T) + self.bias_std * b  # (b, fan_out)
            a = self._act(z) if layer < n_layers - 1 else z
        return a[:, 0]

    def jacobian(self, theta: torch.Tensor, X: torch.Tensor) -> torch.Tensor:
        """The empirical neural-tangent features ``d f(x; theta) / d theta``, ``(b, P)``."""
        import torch

        def one(th: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
            return self.forward(th, x[None])[0]

        return cast(
            "torch.Tensor", torch.func.vmap(torch.func.grad(one), in_dims=(None, 0))(theta, X)
        )

    def linearised(
        self, theta: torch.Tensor, direction: torch.Tensor, X: torch.Tensor
    ) -> torch.Tensor:
        """``J(X) @ direction`` ``(b,)``: the model linear in the parameters on the features
        :meth:`jacobian` at ``theta``, evaluated without forming ``J`` (a forward-mode product,
        differentiable in ``X``)."""
        import torch

        return cast(
            "torch.Tensor",
            torch.func.jvp(lambda th: self.forward(th, X), (theta,), (direction,))[1],
        )
