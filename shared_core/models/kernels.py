"""Stationary kernels (RBF, Matérn-3/2, Matérn-5/2; isotropic or ARD) and their spectral densities.

Glossary (shapes in comments):
    n, n2: numbers of points; d: input dimension; D: number of random frequencies.
    log_ls: log lengthscales, ``(1,)`` isotropic or ``(d,)`` ARD.
    log_amp: log signal variance ``s`` (the kernel is ``s * kbar`` with ``kbar(x, x) = 1``).
    r2: squared scaled distance ``sum_j ((x_j - x'_j) / ls_j)^2``.

Every kernel is written as a function of ``r2`` so that gradients with respect to the inputs and to
the log lengthscales share one derivative ``dk/dr2``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

__all__ = [
    "FORMS",
    "KernelSpec",
    "RandomFourierFeatures",
    "default_dictionary",
    "kernel_names",
    "lengthscale_grid_dictionary",
    "parse_kernel",
    "parse_kernels",
    "sample_spectral",
]

FORMS = ("rbf", "matern32", "matern52")
_NU = {"matern32": 1.5, "matern52": 2.5}


@dataclass(frozen=True)
class KernelSpec:
    """One kernel of the dictionary.

    Args:
        form: ``"rbf"``, ``"matern32"`` or ``"matern52"``.
        ard: one lengthscale per input dimension (True) or one shared lengthscale (False).
        lengthscale: a fixed lengthscale (in unit-cube units) instead of one fitted by marginal
            likelihood; used by the paper's lengthscale-grid dictionary.
    """

    form: str = "rbf"
    ard: bool = False
    lengthscale: float | None = None

    def __post_init__(self) -> None:
        if self.form not in FORMS:
            raise ValueError(f"kernel form must be one of {FORMS}, got {self.form!r}")
        if self.lengthscale is not None and not (
            self.lengthscale > 0 and math.isfinite(self.lengthscale)
        ):
            raise ValueError(
                f"fixed lengthscale must be a positive finite number, got {self.lengthscale!r}"
            )

    @property
    def name(self) -> str:
        s = self.form + ("-ard" if self.ard else "")
        return s if self.lengthscale is None else f"{s}(ls={self.lengthscale:g})"

    # ------------------------------------------------------------------------- values
    def k_of_r2(self, r2: np.ndarray) -> np.ndarray:
        """Unit-amplitude kernel ``kbar(r2)``."""
        if self.form == "rbf":
            return np.exp(-0.5 * r2)
        r = np.sqrt(np.maximum(r2, 0.0))
        if self.form == "matern32":
            a = math.sqrt(3.0) * r
            return cast(np.ndarray, (1.0 + a) * np.exp(-a))
        a = math.sqrt(5.0) * r
        return cast(np.ndarray, (1.0 + a + a * a / 3.0) * np.exp(-a))

    def dk_dr2(self, r2: np.ndarray) -> np.ndarray:
        """``d kbar / d r2``; finite at ``r2 = 0`` for every form."""
        return self.k_and_dk_dr2(r2)[1]

    def k_and_dk_dr2(self, r2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`k_of_r2` and ``d kbar / d r2`` together, sharing one square root and exponential
        (the optimiser's gradients need both at every call)."""
        if self.form == "rbf":
            e = np.exp(-0.5 * r2)
            return e, -0.5 * e
        r = np.sqrt(np.maximum(r2, 0.0))
        if self.form == "matern32":
            a = math.sqrt(3.0) * r
            e = np.exp(-a)
            return (1.0 + a) * e, -1.5 * e
        a = math.sqrt(5.0) * r
        e = np.exp(-a)
        return (1.0 + a + a * a / 3.0) * e, -(5.0 / 6.0) * (1.0 + a) * e

    def n_lengthscales(self, d: int) -> int:
        return d if self.ard else 1


def scaled_sqdist(X1: np.ndarray, X2: np.ndarray, ls: np.ndarray) -> np.ndarray:
    """``r2`` between rows of ``X1`` ``(n, d)`` and ``X2``
    ``(n2, d)``, lengthscales ``ls`` ``(1,)|(d,)``."""
    A = X1 / ls  # (n, d)
    B = X2 / ls  # (n2, d)
    r2 = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2.0 * A @ B.T  # (n, n2)
    return cast(np.ndarray, np.maximum(r2, 0.0))


def kernel_matrix(
    spec: KernelSpec, X1: np.ndarray, X2: np.ndarray, ls: np.ndarray, amp: float
) -> np.ndarray:
    """``amp * kbar(X1, X2)`` as an ``(n, n2)`` matrix."""
    return amp * spec.k_of_r2(scaled_sqdist(X1, X2, ls))


def kernel_grad_x(
    spec: KernelSpec, x: np.ndarray, X2: np.ndarray, ls: np.ndarray, amp: float
) -> tuple[np.ndarray, np.ndarray]:
    """Kernel values and their gradient with respect to the first argument.

    Args:
        x: ``(b, d)`` query points; X2: ``(n, d)`` data.
    Returns:
        ``K`` ``(b, n)`` and ``dK/dx`` ``(b, n, d)``.
    """
    r2 = scaled_sqdist(x, X2, ls)  # (b, n)
    k, dk = spec.k_and_dk_dr2(r2)
    K, g = amp * k, amp * dk  # (b, n): the kernel and dk/dr2
    diff = (x[:, None, :] - X2[None, :, :]) / (ls * ls)  # (b, n, d)
    return K, 2.0 * g[:, :, None] * diff


def sample_spectral(spec: KernelSpec, d: int, D: int, rng: np.random.Generator) -> np.ndarray:
    """Draw ``D`` frequency vectors ``(D, d)`` from the
    spectral density of ``kbar`` with unit lengthscale.

    RBF: ``w ~ N(0, I)``. Matérn-nu: multivariate Student-t with ``2 nu`` degrees of freedom,
    ``w = z / sqrt(g)``, ``z ~ N(0, I)``, ``g ~ Gamma(shape=nu, rate=nu)`` with ONE ``g`` per
    frequency vector. Divide by the lengthscales to get the frequencies of the scaled kernel.
    """
    Z = rng.standard_normal((D, d))
    if spec.form == "rbf":
        return Z
    nu = _NU[spec.form]
    g = rng.gamma(shape=nu, scale=1.0 / nu, size=(D, 1))  # one gamma draw per frequency vector
    return Z / np.sqrt(g)


class RandomFourierFeatures:
    """``phi(x) = [sin(W x), cos(W x)] / sqrt(D)`` for
    a stationary kernel with given lengthscales."""

    def __init__(
        self, spec: KernelSpec, ls: np.ndarray, d: int, n_frequencies: int, rng: np.random.Generator
    ):
        self.W = sample_spectral(spec, d, n_frequencies, rng) / ls  # (D, d)
        self.scale = 1.0 / math.sqrt(n_frequencies)

    @property
    def n_features(self) -> int:
        return 2 * len(self.W)

    def features(self, X: np.ndarray) -> np.ndarray:
        """``(b, F)`` features of ``(b, d)`` points."""
        Z = X @ self.W.T  # (b, D)
        return self.scale * np.hstack([np.sin(Z), np.cos(Z)])

    def features_with_grad(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Features ``(b, F)`` and their input gradients ``(b, F, d)``."""
        Z = X @ self.W.T
        S, C = np.sin(Z), np.cos(Z)
        dS = C[:, :, None] * self.W[None]  # d sin(w.x)/dx = cos(w.x) w
        dC = -S[:, :, None] * self.W[None]
        return self.scale * np.hstack([S, C]), self.scale * np.concatenate([dS, dC], axis=1)


def default_dictionary() -> tuple[KernelSpec, ...]:
    """RBF, RBF-ARD, Matérn-3/2 and Matérn-5/2 (the paper's dictionary of four distinct kernel
    forms, Sec. V), and Matérn-5/2-ARD, which is not the paper's: a rougher kernel with a
    lengthscale per input (its effect on the benchmark suite is within noise: the ablation in
    docs/benchmarks/defaults.md)."""
    return (
        KernelSpec("rbf", ard=False),
        KernelSpec("rbf", ard=True),
        KernelSpec("matern32", ard=False),
        KernelSpec("matern52", ard=False),
        KernelSpec("matern52", ard=True),
    )


def lengthscale_grid_dictionary(exponents: range = range(-4, 7)) -> tuple[KernelSpec, ...]:
    """The paper's second dictionary: RBF kernels with fixed lengthscales ``10**c``, ``c = -4..6``.

    The paper states the grid for inputs in their original units; here inputs live in the unit
    cube, so the extreme members are practically white noise (``1e-4``) and constant (``1e6``),
    which the weights of eq. (9) then rule out.
    """
    return tuple(KernelSpec("rbf", ard=False, lengthscale=10.0**c) for c in exponents)


# ------------------------------------------------------------------------------------ names
def kernel_names() -> list[str]:
    """Every kernel name :func:`parse_kernel` accepts: each form, isotropic or ``"-ard"``."""
    return [form + suffix for form in FORMS for suffix in ("", "-ard")]


def parse_kernel(kernel: KernelSpec | str) -> KernelSpec:
    """A :class:`KernelSpec`, or the one named ``kernel``
    (e.g. ``"matern52-ard"``, JSON-friendly)."""
    if isinstance(kernel, KernelSpec):
        return kernel
    if isinstance(kernel, str):
        form, ard = (kernel[: -len("-ard")], True) if kernel.endswith("-ard") else (kernel, False)
        if form in FORMS:
            return KernelSpec(form, ard=ard)
    raise ValueError(f"kernel must be a KernelSpec or one of {kernel_names()}, got {kernel!r}")


def parse_kernels(kernels: Any) -> tuple[KernelSpec, ...] | None:
    """A kernel dictionary: ``None`` (the default dictionary), ``"grid"`` (the lengthscale grid) or
    a non-empty sequence of :class:`KernelSpec` objects and/or names (see :func:`parse_kernel`)."""
    if kernels is None:
        return None
    if isinstance(kernels, str):
        if kernels == "grid":
            return lengthscale_grid_dictionary()
        raise ValueError(
            f"kernels must be None, 'grid' or a list of KernelSpec or names from {kernel_names()}, "
            f"got {kernels!r}"
        )
    try:
        specs = tuple(kernels)
    except TypeError:
        raise ValueError(
            f"kernels must be None, 'grid' or a list of KernelSpec or names from {kernel_names()}, "
            f"got {kernels!r}"
        ) from None
    if not specs:
        raise ValueError(f"kernels must not be empty, got {kernels!r}")
    try:
        return tuple(parse_kernel(k) for k in specs)
    except ValueError as err:
        raise ValueError(f"kernels: {err} (in {kernels!r})") from None
