"""Acquisition functions of one posterior (the surrogate contract), or of a mixture of them (log
EI), with analytic gradients.

Each is an :class:`~shared_core.acquisition.base.Acquisition` to be *maximised*.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

import numpy as np
from scipy.special import erfcx, logsumexp, ndtr

from shared_core.acquisition.base import Acquisition
from shared_core.models.surrogate import FunctionSample, Posterior

__all__ = [
    "LogExpectedImprovement",
    "MixtureLogExpectedImprovement",
    "ThompsonSampling",
    "UpperConfidenceBound",
    "log_h",
]

_SQRT_HALF_PI = math.sqrt(math.pi / 2.0)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


class ThompsonSampling(Acquisition):
    """TS for minimisation (Lu et al. 2023, eq. 12):
    maximise ``-f~(x)`` for a posterior draw ``f~``."""

    def __init__(self, sample: FunctionSample) -> None:
        self.sample = sample

    def value(self, X: np.ndarray) -> np.ndarray:
        return -self.sample.value(X)

    def value_and_grad(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        f, g = self.sample.value_and_grad(X)
        return -f, -g


class LogExpectedImprovement(Acquisition):
    """log EI of improving on ``best`` (minimisation)
    under a posterior's latent mean and variance."""

    def __init__(self, posterior: Posterior, best: float) -> None:
        self.posterior, self.best = posterior, float(best)

    def value(self, X: np.ndarray) -> np.ndarray:
        mean, var = self.posterior.predict(X)
        sd = np.sqrt(var)
        # log EI = log sd + log h(z)
        return cast(np.ndarray, np.log(sd) + log_h((self.best - mean) / sd)[0])

    def value_and_grad(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        mean, var, dmean, dvar = self.posterior.predict_with_grad(X)
        sd = np.sqrt(var)
        z = (self.best - mean) / sd
        lh, dlh = log_h(z)
        dsd = dvar / (2.0 * sd[:, None])
        # d/dmean = dlh * (-1/sd); d/dsd = 1/sd + dlh * (-z/sd)
        grad = (-dlh / sd)[:, None] * dmean + (1.0 / sd - dlh * z / sd)[:, None] * dsd
        return np.log(sd) + lh, grad


class MixtureLogExpectedImprovement(Acquisition):
    """log of the weighted mean of several posteriors' EIs, ``log sum_j w_j EI_j(x)``, ``EI_j``
    of improving on ``bests[j]`` under posterior ``j`` (with one best for all, the EI under the
    mixture of the posteriors).

    Args:
        posteriors: the posteriors (e.g. one per structure sample).
        bests: each one's value to improve on (minimisation).
        weights: positive, normalised here.
    """

    def __init__(
        self, posteriors: Sequence[Posterior], bests: Sequence[float], weights: Sequence[float]
    ) -> None:
        if not len(posteriors) == len(bests) == len(weights) > 0:
            raise ValueError(
                "need one best value and one weight per posterior, got "
                f"{len(posteriors)} posteriors, {len(bests)} bests, {len(weights)} weights"
            )
        w = np.asarray(weights, dtype=float)
        if not np.all(np.isfinite(w) & (w > 0)):
            raise ValueError(f"weights must be finite and positive, got {list(weights)!r}")
        self.parts = [LogExpectedImprovement(p, b) for p, b in zip(posteriors, bests)]
        self.log_w = np.log(w / w.sum())[:, None]  # (k, 1)

    def value(self, X: np.ndarray) -> np.ndarray:
        values = np.stack([p.value(X) for p in self.parts])  # (k, b)
        return cast(np.ndarray, logsumexp(self.log_w + values, axis=0))

    def value_and_grad(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        values, grads = zip(*(p.value_and_grad(X) for p in self.parts))
        weighted = self.log_w + np.stack(values)  # (k, b)
        out = logsumexp(weighted, axis=0)  # (b,)
        share = np.exp(weighted - out)  # (k, b): each part's share of the mixture's EI
        return out, np.einsum("kb,kbd->bd", share, np.stack(grads))


class UpperConfidenceBound(Acquisition):
    """``mean(x) + beta sd(x)`` of a posterior of a quantity to be *maximised* (e.g. BORE++'s class
    probability, Oliveira et al. 2022, eq. 11)."""

    def __init__(self, posterior: Posterior, beta: float) -> None:
        self.posterior, self.beta = posterior, float(beta)

    def value(self, X: np.ndarray) -> np.ndarray:
        mean, var = self.posterior.predict(X)
        return cast(np.ndarray, mean + self.beta * np.sqrt(var))

    def value_and_grad(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        mean, var, dmean, dvar = self.posterior.predict_with_grad(X)
        sd = np.sqrt(var)
        return mean + self.beta * sd, dmean + (self.beta / (2.0 * sd))[:, None] * dvar


def log_h(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``log h(z)`` with ``h(z) = z Phi(z) + phi(z)`` and
    ``d log h / dz = Phi(z) / h(z)``, stable for z << 0.

    For ``z < -5``: ``h = phi(z) (1 + z R(z))`` with Mills ratio
    ``R = Phi/phi = sqrt(pi/2) erfcx(-z/sqrt2)`` and ``1 + z R(z)`` by its asymptotic series
    below -30 to avoid cancellation.
    """
    z = np.asarray(z, dtype=float)
    out, dout = np.empty_like(z), np.empty_like(z)
    hi = z >= -5.0
    zh = z[hi]
    h = zh * ndtr(zh) + np.exp(-0.5 * zh * zh - _LOG_SQRT_2PI)
    out[hi] = np.log(h)
    dout[hi] = ndtr(zh) / h
    zl = z[~hi]
    mills = _SQRT_HALF_PI * erfcx(-zl / math.sqrt(2.0))  # R(z) = Phi(z) / phi(z)
    inv2 = 1.0 / (zl * zl)
    # error < 1e-9 for z < -30
    series = inv2 * (1.0 - 3.0 * inv2 + 15.0 * inv2**2 - 105.0 * inv2**3)
    # cancellation costs < 3 digits above -30
    one_plus_zr = np.where(zl < -30.0, series, 1.0 + zl * mills)
    out[~hi] = -0.5 * zl * zl - _LOG_SQRT_2PI + np.log(one_plus_zr)
    dout[~hi] = mills / one_plus_zr
    return out, dout
