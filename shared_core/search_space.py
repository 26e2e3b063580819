"""Search-space encoding to the unit cube and back, shared by every algorithm and adapter.

Glossary (shapes in comments):
    d:  number of encoded columns. A float or int parameter takes one column, a categorical
        parameter with c choices takes c one-hot columns.
    X:  encoded points, ``(n, d)`` float64 in ``[0, 1]``.

Encodings:
    * float, linear: ``u = (v - low) / (high - low)``; log: the same on ``log v``.
    * float with ``step`` and int (linear): the grid ``low, low + step, ..., high`` is padded by half
      a step on each side so that every grid value owns an equal share of ``[0, 1]``; decoding rounds
      to the nearest grid value.
    * int, log: ``log v`` padded by ``log(low - 0.5)``, ``log(high + 0.5)`` (each integer owns the
      interval of values that round to it), decoded by rounding.
    * categorical: one-hot; decoding takes the arg-max of the group, so any point decodes to a valid
      choice.
    * a single-value distribution (``low == high`` or one choice) encodes to ``0.5`` (or the only
      one-hot column) and always decodes to its value.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

import numpy as np
from scipy.stats import qmc

__all__ = ["FloatParam", "IntParam", "CategoricalParam", "LinearConstraint", "Param", "SearchSpace"]


@dataclass(frozen=True)
class FloatParam:
    """A float in ``[low, high]``, optionally log-scaled or on a grid of ``step``."""

    low: float
    high: float
    log: bool = False
    step: float | None = None

    def __post_init__(self) -> None:
        if not (math.isfinite(self.low) and math.isfinite(self.high)) or self.low > self.high:
            raise ValueError(f"FloatParam needs finite low <= high, got low={self.low!r}, high={self.high!r}")
        if self.log and self.low <= 0:
            raise ValueError(f"FloatParam with log=True needs low > 0, got low={self.low!r}")
        if self.step is not None and (self.step <= 0 or self.log):
            raise ValueError(f"FloatParam step must be > 0 and not combined with log, got step={self.step!r}")


@dataclass(frozen=True)
class IntParam:
    """An integer in ``[low, high]`` on a grid of ``step``, optionally log-scaled (step 1)."""

    low: int
    high: int
    log: bool = False
    step: int = 1

    def __post_init__(self) -> None:
        if self.low > self.high:
            raise ValueError(f"IntParam needs low <= high, got low={self.low!r}, high={self.high!r}")
        if self.log and (self.low < 1 or self.step != 1):
            raise ValueError(f"IntParam with log=True needs low >= 1 and step 1, got {self!r}")
        if self.step < 1:
            raise ValueError(f"IntParam step must be >= 1, got step={self.step!r}")


@dataclass(frozen=True)
class CategoricalParam:
    """One of ``choices`` (any hashable values; equality decides membership)."""

    choices: tuple[Hashable, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if len(self.choices) == 0:
            raise ValueError("CategoricalParam needs at least one choice, got an empty tuple")


Param = Union[FloatParam, IntParam, CategoricalParam]


@dataclass(frozen=True)
class LinearConstraint:
    """``sum(coefficient * value) <= bound`` on decoded values of float and int parameters.

    Args:
        coefficients: ``((name, coefficient), ...)`` pairs.
        bound: right-hand side.
    """

    coefficients: tuple[tuple[str, float], ...]
    bound: float

    def __post_init__(self) -> None:
        if not self.coefficients:
            raise ValueError("LinearConstraint needs at least one coefficient")
        if not math.isfinite(self.bound) or not all(math.isfinite(c) for _, c in self.coefficients):
            raise ValueError(f"LinearConstraint needs finite coefficients and bound, got {self!r}")


def _grid_size(p: FloatParam | IntParam) -> int | None:
    """Number of grid values of a stepped parameter, or None for a continuous one."""
    if isinstance(p, IntParam):
        return None if p.log else (p.high - p.low) // p.step + 1
    if p.step is None:
        return None
    return int(math.floor((p.high - p.low) / p.step + 1e-8)) + 1


class SearchSpace:
    """An ordered set of named parameters and their encoding to the unit cube.

    Args:
        params: mapping of parameter name to :class:`FloatParam`, :class:`IntParam` or
            :class:`CategoricalParam`; the order of the mapping is the order of the columns.
        constraints: linear constraints on decoded float and int values; :meth:`sample` and the
            acquisition optimiser return only points whose decoded values satisfy them.
    """

    def __init__(self, params: Mapping[str, Param], constraints: Sequence[LinearConstraint] = ()) -> None:
        self.params: dict[str, Param] = dict(params)
        self.constraints: tuple[LinearConstraint, ...] = tuple(constraints)
        for c in self.constraints:
            for name, _ in c.coefficients:
                if isinstance(self.params.get(name, None), (FloatParam, IntParam)) is False:
                    raise ValueError(f"constraint {c!r} names {name!r}, which is not a float or int parameter")
        self.columns: dict[str, slice] = {}
        col = 0
        for name, p in self.params.items():
            width = len(p.choices) if isinstance(p, CategoricalParam) else 1
            self.columns[name] = slice(col, col + width)
            col += width
        self.dim = col

    # ----------------------------------------------------------------------------- layout
    @property
    def names(self) -> list[str]:
        return list(self.params)

    @property
    def categorical_groups(self) -> list[np.ndarray]:
        """Column indices of each categorical parameter's one-hot block."""
        return [
            np.arange(self.columns[n].start, self.columns[n].stop)
            for n, p in self.params.items()
            if isinstance(p, CategoricalParam)
        ]

    @property
    def continuous_columns(self) -> np.ndarray:
        """Columns optimised by gradients (floats and ints; ints are rounded afterwards)."""
        return np.array(
            [self.columns[n].start for n, p in self.params.items() if not isinstance(p, CategoricalParam)],
            dtype=int,
        )

    # ----------------------------------------------------------------------------- encode
    def encode(self, values: Mapping[str, Any]) -> np.ndarray:
        """Encode one point given as ``{name: value}`` to a ``(d,)`` vector in ``[0, 1]``."""
        out = np.zeros(self.dim)
        for name, p in self.params.items():
            sl = self.columns[name]
            if name not in values:
                raise KeyError(f"parameter {name!r} missing from {dict(values)!r}")
            out[sl] = self._encode_one(p, values[name])
        return out

    def encode_many(self, points: Sequence[Mapping[str, Any]]) -> np.ndarray:
        """Encode a list of points to an ``(n, d)`` array."""
        if len(points) == 0:
            return np.zeros((0, self.dim))
        return np.stack([self.encode(v) for v in points])

    @staticmethod
    def _encode_one(p: Param, v: Any) -> float | np.ndarray:
        if isinstance(p, CategoricalParam):
            onehot = np.zeros(len(p.choices))
            onehot[_choice_index(p.choices, v)] = 1.0
            return onehot
        lo, hi = _encoded_bounds(p)
        if hi == lo:
            return 0.5
        x = math.log(v) if p.log else float(v)
        return float(np.clip((x - lo) / (hi - lo), 0.0, 1.0))

    # ----------------------------------------------------------------------------- decode
    def decode(self, x: np.ndarray) -> dict[str, Any]:
        """Decode a ``(d,)`` vector to ``{name: value}``; every value is valid for its parameter."""
        x = np.asarray(x, dtype=float)
        return {name: self._decode_one(p, x[self.columns[name]]) for name, p in self.params.items()}

    @staticmethod
    def _decode_one(p: Param, u: np.ndarray) -> Any:
        if isinstance(p, CategoricalParam):
            return p.choices[int(np.argmax(u))]
        value = _decode_numeric(p, np.asarray(u[:1], dtype=float))[0]
        return int(value) if isinstance(p, IntParam) else float(value)

    def feasible(self, X: np.ndarray) -> np.ndarray:
        """``(n,)`` mask of encoded points whose decoded values satisfy every linear constraint."""
        X = np.atleast_2d(X)
        ok = np.ones(len(X), dtype=bool)
        for c in self.constraints:
            total = np.zeros(len(X))
            for name, coef in c.coefficients:
                total += coef * _decode_numeric(self.params[name], X[:, self.columns[name].start])
            ok &= total <= c.bound
        return ok

    # ----------------------------------------------------------------------------- helpers
    def round_to_valid(self, X: np.ndarray) -> np.ndarray:
        """Snap ``(n, d)`` points to the encodings of the values they decode to."""
        X = np.atleast_2d(X)
        return np.stack([self.encode(self.decode(x)) for x in X])

    def sample(self, rng: np.random.Generator, n: int, qmc_sobol: bool = True) -> np.ndarray:
        """``(n, d)`` valid encoded points: scrambled Sobol (or uniform) then snapped to valid.

        With constraints, infeasible points are rejected and replaced by fresh uniform draws; a
        ``ValueError`` is raised if almost no point of the box is feasible.
        """
        X = self._sample_box(rng, n, qmc_sobol)
        if not self.constraints or n == 0:
            return X
        X = X[self.feasible(X)]
        for _ in range(_MAX_REJECTION_ROUNDS):
            if len(X) >= n:
                return X[:n]
            fresh = self._sample_box(rng, max(4 * n, 1024), qmc_sobol=False)
            X = np.vstack([X, fresh[self.feasible(fresh)]])
        if len(X) == 0:
            raise ValueError(
                f"no point satisfying the constraints {self.constraints!r} was found in "
                f"{_MAX_REJECTION_ROUNDS * max(4 * n, 1024)} random draws: they look infeasible or very tight"
            )
        return X[rng.integers(len(X), size=n)] if len(X) < n else X[:n]

    def _sample_box(self, rng: np.random.Generator, n: int, qmc_sobol: bool) -> np.ndarray:
        n_params = len(self.params)
        if n == 0 or n_params == 0:
            return np.zeros((n, self.dim))
        if qmc_sobol:
            engine = qmc.Sobol(n_params, scramble=True, seed=rng)
            m = max(int(math.ceil(math.log2(max(n, 2)))), 1)
            U = engine.random_base2(m)[:n]  # (n, n_params)
        else:
            U = rng.random((n, n_params))
        X = np.zeros((n, self.dim))
        for j, (name, p) in enumerate(self.params.items()):
            sl = self.columns[name]
            if isinstance(p, CategoricalParam):
                idx = np.minimum((U[:, j] * len(p.choices)).astype(int), len(p.choices) - 1)
                X[np.arange(n), sl.start + idx] = 1.0
            else:
                X[:, sl.start] = U[:, j]
        return self.round_to_valid(X) if self._has_grid() else X

    def _has_grid(self) -> bool:
        return any(
            isinstance(p, IntParam) or (isinstance(p, FloatParam) and p.step is not None)
            for p in self.params.values()
        )


_MAX_REJECTION_ROUNDS = 20


def _decode_numeric(p: FloatParam | IntParam, u: np.ndarray) -> np.ndarray:
    """Decoded values ``(n,)`` of encoded coordinates ``u`` ``(n,)`` (NaN decodes like 0.5)."""
    u = np.clip(np.nan_to_num(u, nan=0.5), 0.0, 1.0)
    lo, hi = _encoded_bounds(p)
    raw = lo + u * (hi - lo)
    if p.log:
        raw = np.exp(raw)
    if isinstance(p, IntParam):
        if p.log:
            return np.clip(np.round(raw), p.low, p.high)
        k = np.round((raw - p.low) / p.step)
        return np.clip(p.low + k * p.step, p.low, p.high - (p.high - p.low) % p.step)
    if p.step is not None:
        k = np.clip(np.round((raw - p.low) / p.step), 0, _grid_size(p) - 1)
        return np.minimum(p.low + k * p.step, p.high)
    return np.clip(raw, p.low, p.high)


def _choice_index(choices: tuple[Hashable, ...], v: Any) -> int:
    for i, c in enumerate(choices):
        if c == v or (c is v):
            if type(c) is type(v) or not (isinstance(c, bool) or isinstance(v, bool)):
                return i
    raise ValueError(f"value {v!r} is not one of the choices {choices!r}")


def _encoded_bounds(p: FloatParam | IntParam) -> tuple[float, float]:
    """The interval that maps onto ``[0, 1]`` (padded by half a step for grids)."""
    if isinstance(p, IntParam):
        if p.log:
            return math.log(p.low - 0.5 if p.low > 1 else 0.5), math.log(p.high + 0.5)
        n = _grid_size(p)
        return p.low - 0.5 * p.step, p.low + (n - 0.5) * p.step
    if p.log:
        return math.log(p.low), math.log(p.high)
    if p.step is not None:
        n = _grid_size(p)
        return p.low - 0.5 * p.step, p.low + (n - 0.5) * p.step
    return p.low, p.high
