"""The output transform of the GP ensemble: minimised values to the GP scale (shift to the best
value, Yeo-Johnson with ``lambda <= 1``, standardise), fitted at each refit and fixed between
refits."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize_scalar

__all__ = ["OutputTransform", "standardize", "yeojohnson"]


def standardize(y: np.ndarray) -> tuple[float, float]:
    """Centre and scale of finite ``y`` without overflow for huge values (e.g. ``1e300``)."""
    big = float(np.max(np.abs(y))) if len(y) else 0.0
    if big == 0.0 or not math.isfinite(big):
        return 0.0, 1.0
    z = y / big
    scale = float(np.std(z)) * big
    center = float(np.mean(z)) * big
    return center, (scale if scale > 1e-12 * big and scale > 0 else 1.0)


@dataclass(frozen=True)
class OutputTransform:
    """Monotone increasing map of minimised values to the GP scale.

    ``u = (y - y_min) / spread`` (the best value goes to 0, ``spread`` is the standard deviation),
    ``t = YeoJohnson_lambda(u)`` with ``lambda`` fitted by maximum likelihood and clipped to
    ``[-1, 1]`` (``lambda < 1`` compresses large, bad values; ``lambda = 1`` is the identity), then
    ``(t - center) / scale`` standardises. Values below ``y_min`` (new best values between refits)
    stay ordered because the Yeo-Johnson map is increasing on the whole real line.
    """

    y_min: float = 0.0
    spread: float = 1.0
    lam: float = 1.0
    center: float = 0.0
    scale: float = 1.0

    @classmethod
    def fit(cls, y: np.ndarray, warp: bool = True) -> OutputTransform:
        """Fit to finite ``y`` ``(n,)``; ``warp=False`` gives plain standardisation."""
        if not warp or len(y) < 3:
            center, scale = standardize(y)
            return cls(center=center, scale=scale)
        y_min = float(np.min(y))
        spread = standardize(y)[1]
        u = (y - y_min) / spread
        lam = 1.0
        if np.ptp(u) > 0 and np.all(np.isfinite(u)):
            with np.errstate(all="ignore"):
                lam = _yeojohnson_lambda(u)
            if not math.isfinite(lam):
                lam = 1.0
        partial = cls(y_min=y_min, spread=spread, lam=lam)
        center, scale = standardize(partial(y))
        return cls(y_min=y_min, spread=spread, lam=lam, center=center, scale=scale)

    def __call__(self, y: np.ndarray) -> np.ndarray:
        u = (np.asarray(y, dtype=float) - self.y_min) / self.spread
        t = u if self.lam == 1.0 else yeojohnson(u, self.lam)
        return (t - self.center) / self.scale


def yeojohnson(u: np.ndarray, lam: float) -> np.ndarray:
    """The Yeo-Johnson power transform of ``u`` ``(n,)``
    for ``lam`` in ``[-1, 1]`` (increasing on R)."""
    u = np.asarray(u, dtype=float)
    pos = u >= 0
    out = np.empty_like(u)
    up, un = u[pos], -u[~pos]
    out[pos] = np.log1p(up) if lam == 0.0 else np.expm1(lam * np.log1p(up)) / lam
    out[~pos] = -np.expm1((2.0 - lam) * np.log1p(un)) / (2.0 - lam)  # lam <= 1, never 2
    return out


def _yeojohnson_lambda(u: np.ndarray) -> float:
    """Maximum-likelihood ``lam`` in ``[-1, 1]`` of the Yeo-Johnson transform of ``u`` ``(n,)``
    (Gaussian profile likelihood ``-n/2 log var(t) + (lam - 1) sum sign(u) log(1 + |u|)``)."""
    jacobian = np.sum(np.sign(u) * np.log1p(np.abs(u)))

    def neg_llf(lam: float) -> float:
        var = np.var(yeojohnson(u, lam))
        return (
            math.inf
            if not var > 0 or not math.isfinite(var)
            else 0.5 * len(u) * math.log(var) - (lam - 1.0) * jacobian
        )

    res = minimize_scalar(neg_llf, bounds=(-1.0, 1.0), method="bounded", options={"xatol": 1e-4})
    # the bounds exactly, if best there
    candidates = [1.0, -1.0] + ([float(res.x)] if res.success else [])
    values = [neg_llf(lam) for lam in candidates]
    return candidates[int(np.argmin(values))] if math.isfinite(min(values)) else 1.0
