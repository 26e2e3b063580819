"""Small torch MLPs in float64 for the algorithms that train neural networks (BORE's classifier).

PyTorch is an optional dependency: this module never imports it at import time, only when a
network is built or evaluated (:func:`require_torch` checks for it up front, with an
installation hint). Networks are seeded from an explicit ``numpy.random.Generator``; torch's
global random state is left alone. Inputs and outputs are float64 numpy arrays; training
(loss, optimiser, mini-batches) is the caller's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

import numpy as np

if TYPE_CHECKING:  # pragma: no cover - annotations only
    import torch

__all__ = ["build_mlp", "forward", "forward_and_input_grad", "require_torch"]


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
