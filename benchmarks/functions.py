"""Benchmark functions (minimisation) with their known minima.

Each entry: ``(bounds (d, 2), f(x (d,)) -> float, f_min)``.
"""

from __future__ import annotations

import math

import numpy as np


def ackley(x):
    d = len(x)
    return float(
        -20 * np.exp(-0.2 * np.sqrt(np.sum(x**2) / d))
        - np.exp(np.sum(np.cos(2 * np.pi * x)) / d)
        + 20
        + math.e
    )


def zakharov(x):
    i = np.arange(1, len(x) + 1)
    s = np.sum(0.5 * i * x)
    return float(np.sum(x**2) + s**2 + s**4)


def drop_wave(x):
    r2 = float(np.sum(x**2))
    return float(-(1 + math.cos(12 * math.sqrt(r2))) / (0.5 * r2 + 2))


def eggholder(x):
    x1, x2 = x
    return float(
        -(x2 + 47) * math.sin(math.sqrt(abs(x2 + x1 / 2 + 47)))
        - x1 * math.sin(math.sqrt(abs(x1 - (x2 + 47))))
    )


def branin(x):
    x1, x2 = x
    return float(
        (x2 - 5.1 / (4 * math.pi**2) * x1**2 + 5 / math.pi * x1 - 6) ** 2
        + 10 * (1 - 1 / (8 * math.pi)) * math.cos(x1)
        + 10
    )


_H6_A = np.array(
    [
        [10, 3, 17, 3.5, 1.7, 8],
        [0.05, 10, 17, 0.1, 8, 14],
        [3, 3.5, 1.7, 10, 17, 8],
        [17, 8, 0.05, 10, 0.1, 14],
    ]
)
_H6_P = 1e-4 * np.array(
    [
        [1312, 1696, 5569, 124, 8283, 5886],
        [2329, 4135, 8307, 3736, 1004, 9991],
        [2348, 1451, 3522, 2883, 3047, 6650],
        [4047, 8828, 8732, 5743, 1091, 381],
    ]
)
_H6_ALPHA = np.array([1.0, 1.2, 3.0, 3.2])


def hartmann6(x):
    return float(-np.sum(_H6_ALPHA * np.exp(-np.sum(_H6_A * (x - _H6_P) ** 2, axis=1))))


# Shekel-4 with m = 10 terms (Hoang, Hoang, Ouyang and Low, "Decentralized high-dimensional
# Bayesian optimization with factor graphs", AAAI 2018, Appendix F): minimum -10.536443 near
# x = 4; its next-best local minima lie 5.36 and 5.41 above it
_SHEKEL_BETA = 0.1 * np.array([1, 2, 2, 4, 4, 6, 3, 7, 5, 5])
_SHEKEL_C = np.array(
    [
        [4, 1, 8, 6, 3, 2, 5, 8, 6, 7],
        [4, 1, 8, 6, 7, 9, 3, 1, 2, 3.6],
        [4, 1, 8, 6, 3, 2, 5, 8, 6, 7],
        [4, 1, 8, 6, 7, 9, 3, 1, 2, 3.6],
    ]
)


def shekel4(x: np.ndarray) -> float:
    return float(-np.sum(1.0 / (np.sum((x[:, None] - _SHEKEL_C) ** 2, axis=0) + _SHEKEL_BETA)))


def levy(x):
    w = 1 + (x - 1) / 4
    return float(
        np.sin(np.pi * w[0]) ** 2
        + np.sum((w[:-1] - 1) ** 2 * (1 + 10 * np.sin(np.pi * w[:-1] + 1) ** 2))
        + (w[-1] - 1) ** 2 * (1 + np.sin(2 * np.pi * w[-1]) ** 2)
    )


def michalewicz_term(i, x, m: int = 10):
    """Michalewicz's term ``-sin(x) sin(i x^2 / pi)^(2m)`` of parameter ``i`` (1-based),
    elementwise: the function is the sum of its terms, each of one parameter."""
    return -np.sin(x) * np.sin(i * x**2 / np.pi) ** (2 * m)


def michalewicz(x, m: int = 10) -> float:
    """Michalewicz on [0, pi]^d."""
    return float(np.sum(michalewicz_term(np.arange(1, len(x) + 1), x, m)))


def rosenbrock(x):
    return float(np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2))


FUNCTIONS = {
    "ackley5": (np.array([[-32.768, 32.768]] * 5), ackley, 0.0),
    "zakharov2": (np.array([[-5.0, 10.0]] * 2), zakharov, 0.0),
    "dropwave": (np.array([[-5.12, 5.12]] * 2), drop_wave, -1.0),
    "eggholder": (np.array([[-512.0, 512.0]] * 2), eggholder, -959.6407),
    "branin": (np.array([[-5.0, 10.0], [0.0, 15.0]]), branin, 0.397887),
    "hartmann6": (np.array([[0.0, 1.0]] * 6), hartmann6, -3.32237),
    "levy6": (np.array([[-10.0, 10.0]] * 6), levy, 0.0),
    "shekel4": (np.array([[0.0, 10.0]] * 4), shekel4, -10.536443),
    # BORE++ (Oliveira, Tiao, Ramos, NeurIPS 2022),
    # Fig. E.1 (dimensions 2-8; the usual [-5, 10] box)
    **{f"rosenbrock{d}": (np.array([[-5.0, 10.0]] * d), rosenbrock, 0.0) for d in (2, 4, 6, 8)},
}
SUITE = ["ackley5", "zakharov2", "dropwave", "eggholder", "branin", "hartmann6"]
