"""Acquisition functions on one GP of the ensemble, for minimisation, with analytic gradients.

Each builder returns ``acq(X (b, d), with_grad) -> values (b,)`` or ``(values, grads (b, d))`` to be
*maximised* by :func:`shared_core.optim.acquisition_optimizer.maximize_acquisition`.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import erfcx, ndtr

__all__ = ["thompson_acquisition", "log_ei_acquisition", "log_h"]

_SQRT_HALF_PI = math.sqrt(math.pi / 2.0)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


def thompson_acquisition(path):
    """TS (eq. 12): maximise ``-f~(x)`` for a posterior draw ``f~`` of the (minimised) objective."""

    def acq(X: np.ndarray, with_grad: bool = False):
        if not with_grad:
            return -path(X)
        f, g = path(X, True)
        return -f, -g

    return acq


def log_h(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``log h(z)`` with ``h(z) = z Phi(z) + phi(z)`` and ``d log h / dz = Phi(z) / h(z)``, stable for z << 0.

    For ``z < -5``: ``h = phi(z) (1 + z R(z))`` with Mills ratio ``R = Phi/phi = sqrt(pi/2) erfcx(-z/sqrt2)``
    and ``1 + z R(z)`` by its asymptotic series below -30 to avoid cancellation.
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
    series = inv2 * (1.0 - 3.0 * inv2 + 15.0 * inv2**2 - 105.0 * inv2**3)  # error < 1e-9 for z < -30
    one_plus_zr = np.where(zl < -30.0, series, 1.0 + zl * mills)  # cancellation costs < 3 digits above -30
    out[~hi] = -0.5 * zl * zl - _LOG_SQRT_2PI + np.log(one_plus_zr)
    dout[~hi] = mills / one_plus_zr
    return out, dout


def log_ei_acquisition(posterior, best: float):
    """log EI of improving on ``best`` (minimisation) under the latent posterior of one GP."""

    def acq(X: np.ndarray, with_grad: bool = False):
        if not with_grad:
            mean, var = posterior.predict(X)
        else:
            mean, var, dmean, dvar = posterior.predict(X, True)
        sd = np.sqrt(var)
        z = (best - mean) / sd
        lh, dlh = log_h(z)
        val = np.log(sd) + lh  # log EI = log sd + log h(z)
        if not with_grad:
            return val
        dsd = dvar / (2.0 * sd[:, None])
        # d/dmean = dlh * (-1/sd); d/dsd = 1/sd + dlh * (-z/sd)
        grad = (-dlh / sd)[:, None] * dmean + (1.0 / sd - dlh * z / sd)[:, None] * dsd
        return val, grad

    return acq


