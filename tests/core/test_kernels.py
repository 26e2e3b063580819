import numpy as np
import pytest
from scipy.optimize import approx_fprime

from shared_core.models.kernels import (
    KernelSpec,
    RandomFourierFeatures,
    kernel_grad_x,
    kernel_matrix,
)

SPECS = [KernelSpec(f, ard) for f in ("rbf", "matern32", "matern52") for ard in (False, True)]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_input_gradient_matches_finite_differences(spec):
    rng = np.random.default_rng(0)
    X2 = rng.random((5, 3))
    ls = np.array([0.3, 0.5, 0.8]) if spec.ard else np.array([0.4])
    x = rng.random(3)
    _, dK = kernel_grad_x(spec, x[None], X2, ls, 1.7)
    for j in range(5):
        fd = approx_fprime(
            x, lambda z, j=j: kernel_matrix(spec, z[None], X2[j : j + 1], ls, 1.7)[0, 0], 1e-7
        )
        # forward differences with step 1e-7: error ~1e-6 relative to O(1) kernel slopes
        np.testing.assert_allclose(dK[0, j], fd, atol=2e-6)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_kernel_matrix_is_symmetric_psd(spec):
    X = np.random.default_rng(1).random((30, 4))
    ls = np.full(4 if spec.ard else 1, 0.3)
    K = kernel_matrix(spec, X, X, ls, 2.0)
    np.testing.assert_allclose(K, K.T, atol=1e-12)
    assert np.linalg.eigvalsh(K).min() > -1e-8
    np.testing.assert_allclose(np.diag(K), 2.0)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_fused_kernel_is_the_kernel_exactly(spec):
    # the optimiser's gradients take the kernel from the fused form, the tables from k_of_r2:
    # the two must not differ by a single bit (the slope is checked by finite differences)
    r2 = np.concatenate([[0.0, 1e-300], np.random.default_rng(2).random(50) * 9.0])
    np.testing.assert_array_equal(spec.k_and_dk_dr2(r2)[0], spec.k_of_r2(r2))


@pytest.mark.parametrize("form", ["rbf", "matern32", "matern52"])
def test_random_features_approximate_the_kernel(form):
    """phi(x)^T phi(x') -> k(x, x'); with one gamma draw per frequency *vector* (Matérn) in 5-D.

    A per-coordinate gamma draw would give a visibly different kernel in 5-D; with 20000 frequencies
    the Monte-Carlo error of each entry is ~1/sqrt(20000) ~ 0.007, so 0.03 is a 4-sigma bound.
    """
    spec = KernelSpec(form)
    rng = np.random.default_rng(2)
    X = rng.random((20, 5))
    ls = np.array([0.7])
    rff = RandomFourierFeatures(spec, ls, 5, 20000, rng)
    Phi = rff.features(X)
    np.testing.assert_allclose(Phi @ Phi.T, kernel_matrix(spec, X, X, ls, 1.0), atol=0.03)


def test_rff_feature_gradients_match_finite_differences():
    rng = np.random.default_rng(3)
    rff = RandomFourierFeatures(KernelSpec("matern52"), np.array([0.5]), 2, 8, rng)
    x = rng.random(2)
    _, dPhi = rff.features_with_grad(x[None])
    for f in range(rff.n_features):
        fd = approx_fprime(x, lambda z, f=f: rff.features(z[None])[0, f], 1e-7)
        np.testing.assert_allclose(dPhi[0, f], fd, atol=1e-5)


def test_bad_kernel_spec():
    with pytest.raises(ValueError, match="form"):
        KernelSpec("linear")
    with pytest.raises(ValueError, match="lengthscale"):
        KernelSpec("rbf", lengthscale=-1.0)
