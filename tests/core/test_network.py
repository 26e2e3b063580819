"""Torch MLPs of shared_core.models.network: seeding, shapes, input gradients, lazy torch import."""

import pathlib
import subprocess
import sys

import numpy as np
import pytest
from scipy.optimize import approx_fprime

from shared_core.models.network import build_mlp, forward, forward_and_input_grad

torch = pytest.importorskip("torch")

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_build_mlp_is_seeded_by_the_generator_alone_and_leaves_torch_global_rng_alone():
    torch.manual_seed(7)
    expected = torch.rand(3)
    torch.manual_seed(7)
    rng = np.random.default_rng(0)
    net = build_mlp((3, 8, 8, 1), rng)
    assert torch.equal(torch.rand(3), expected)
    reference = np.random.default_rng(0)
    reference.integers(2**62)
    assert rng.random() == reference.random()  # the network took one draw of the generator
    again = build_mlp((3, 8, 8, 1), np.random.default_rng(0))
    for a, b in zip(net.parameters(), again.parameters()):
        assert a.dtype == torch.float64 and torch.equal(a, b)
    assert [tuple(p.shape) for p in net.parameters()] == [(8, 3), (8,), (8, 8), (8,), (1, 8), (1,)]


def test_forward_shapes_and_input_gradients_match_finite_differences():
    net = build_mlp((2, 16, 1), np.random.default_rng(1))
    X = np.random.default_rng(2).random((5, 2))
    out = forward(net, X)
    values, grad = forward_and_input_grad(net, X)
    assert out.shape == values.shape == (5,) and grad.shape == (5, 2)
    np.testing.assert_array_equal(out, values)
    for x, g in zip(X, grad):
        numeric = approx_fprime(x, lambda v: forward(net, v[None])[0], 1e-7)
        np.testing.assert_allclose(g, numeric, rtol=1e-5, atol=1e-6)
    assert forward(build_mlp((2, 4, 3), np.random.default_rng(0)), X).shape == (5, 3)


def test_build_mlp_needs_two_sizes():
    with pytest.raises(ValueError, match="at least an input and an output size"):
        build_mlp((3,), np.random.default_rng(0))


@pytest.mark.slow
def test_importing_the_module_does_not_import_torch():
    code = "import sys, shared_core.models.network; print('torch' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"
