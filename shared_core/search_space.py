"""Search-space encoding to the unit cube and back, shared by every algorithm and adapter.

Glossary (shapes in comments):
    n:  number of points.
    d:  number of encoded columns. A float or int parameter takes one column, a categorical
        parameter with c choices takes c one-hot columns.
    X:  encoded points, ``(n, d)`` float64 in ``[0, 1]``.
    columns: decoded points held per parameter, ``{name: (n,) values}`` (see
        :meth:`SearchSpace.encode_columns` and :meth:`SearchSpace.decode_columns`); every encoding
        and decoding works on such columns, one vectorised operation per parameter.

Encodings:
    * float, linear: ``u = (v - low) / (high - low)``; log: the same on ``log v``.
    * float with ``step`` and int (linear): the grid ``low, low + step, ..., high`` is padded by half
      a step on each side so that every grid value owns an equal share of ``[0, 1]``; decoding rounds
      to the nearest grid value.
    * int, log: ``log v`` padded by ``log(low - 0.5)``, ``log(high + 0.5)`` (each integer owns the
      interval of values that round to it), decoded by rounding.
    * categorical: one-hot; decoding takes the arg-max of the group, so any point decodes to a valid
      choice. A value matches the first choice equal to it, except that a ``bool`` matches only a
      ``bool``: ``True`` and ``1`` are distinct choices, but ``1.0`` matches an earlier ``1`` (a later
      ``1.0`` choice can be decoded, and encodes as that ``1``).
    * a single-value distribution (``low == high`` or one choice) always decodes to its value; it
      encodes to ``0.5`` (or the only one-hot column), except a log-scaled int, which keeps its padded
      log encoding.

Sampling: scrambled Halton points (framework-free, seeded only by the caller's generator), snapped
to valid encodings when the space has grids.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

import numpy as np

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
            raise ValueError(f"CategoricalParam needs at least one of its choices, got choices={self.choices!r}")


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
        for name, p in self.params.items():
            if not isinstance(p, (FloatParam, IntParam, CategoricalParam)):
                raise ValueError(f"params[{name!r}] must be a FloatParam, IntParam or CategoricalParam, got {p!r}")
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
        return self.encode_many([values])[0]

    def encode_many(self, points: Sequence[Mapping[str, Any]]) -> np.ndarray:
        """Encode a list of points, each ``{name: value}``, to an ``(n, d)`` array."""
        columns = {name: _column_of(points, name) for name in self.params}
        return self.encode_columns(columns, n_rows=len(points))

    def encode_columns(
        self, columns: Mapping[str, Sequence[Any] | np.ndarray], *, n_rows: int | None = None
    ) -> np.ndarray:
        """Encode points given per parameter to an ``(n, d)`` array in ``[0, 1]``.

        Args:
            columns: ``{name: values}`` with ``n`` values for every parameter (extra names are
                ignored). Numeric values may be any real numbers (out-of-range values are clipped);
                categorical values are the choices themselves; numpy arrays are first turned into
                Python scalars, so a ``bool`` array matches ``bool`` choices.
            n_rows: ``n``; by default the length of the columns (0 for a space without parameters).

        Raises:
            KeyError: a parameter has no column.
            ValueError: a column's length is not ``n``, a categorical value is not among the
                choices, or a log-scaled value is not positive.
        """
        n = n_rows if n_rows is not None else next((len(columns[name]) for name in self.params if name in columns), 0)
        X = np.empty((n, self.dim))
        for name, p in self.params.items():
            if name not in columns:
                raise KeyError(f"parameter {name!r} missing from the columns {list(columns)!r}")
            values = columns[name]
            if len(values) != n:
                raise ValueError(f"the column of {name!r} has {len(values)} values, expected {n}")
            if isinstance(p, CategoricalParam):
                values = _choice_indices(p.choices, values.tolist() if isinstance(values, np.ndarray) else values)
            X[:, self.columns[name]] = _encode_block(p, values)
        return X

    # ----------------------------------------------------------------------------- decode
    def decode(self, x: np.ndarray) -> dict[str, Any]:
        """Decode a ``(d,)`` vector to ``{name: value}`` of Python ``int``, ``float`` or choice objects."""
        columns = self.decode_columns(np.asarray(x, dtype=np.float64)[None, :])
        return {name: values[0] if isinstance(values, list) else values[0].item() for name, values in columns.items()}

    def decode_columns(self, X: np.ndarray) -> dict[str, np.ndarray | list[Any]]:
        """Decode ``(n, d)`` points (any real numbers; NaN decodes like 0.5) to valid values per parameter.

        Returns:
            ``{name: values}``: an ``(n,)`` float64 array for a float parameter, an ``(n,)`` int64 array
            for an int parameter and a list of ``n`` choice objects for a categorical parameter.
        """
        X = self._as_points(X)
        out: dict[str, np.ndarray | list[Any]] = {}
        for name, p in self.params.items():
            decoded = _decode_block(p, X[:, self.columns[name]])  # (n,)
            if isinstance(p, CategoricalParam):
                out[name] = [p.choices[i] for i in decoded.tolist()]
            else:
                out[name] = decoded.astype(np.int64) if isinstance(p, IntParam) else decoded
        return out

    def feasible(self, X: np.ndarray) -> np.ndarray:
        """``(n,)`` mask of encoded points whose decoded values satisfy every linear constraint."""
        X = self._as_points(X)
        ok = np.ones(len(X), dtype=bool)
        for c in self.constraints:
            total = np.zeros(len(X))
            for name, coef in c.coefficients:
                total += coef * _decode_block(self.params[name], X[:, self.columns[name]])
            ok &= total <= c.bound
        return ok

    # ----------------------------------------------------------------------------- helpers
    def round_to_valid(self, X: np.ndarray) -> np.ndarray:
        """Snap ``(n, d)`` points to the encodings of the values they decode to."""
        X = self._as_points(X)
        out = np.empty_like(X)
        for name, p in self.params.items():
            sl = self.columns[name]
            out[:, sl] = _encode_block(p, _decode_block(p, X[:, sl]))
        return out

    def _as_points(self, X: np.ndarray) -> np.ndarray:
        """``X`` as an ``(n, d)`` float64 array (a ``(d,)`` vector is one point)."""
        X = np.atleast_2d(np.asarray(X, dtype=np.float64))
        if X.ndim != 2 or X.shape[1] != self.dim:
            raise ValueError(f"expected encoded points of shape (n, {self.dim}), got shape {X.shape}")
        return X

    def sample(self, rng: np.random.Generator, n: int, low_discrepancy: bool = True) -> np.ndarray:
        """``(n, d)`` valid encoded points: scrambled Halton (or uniform) then snapped to valid.

        ``low_discrepancy=False`` draws uniform points instead. With constraints, infeasible points are rejected and replaced by fresh uniform
        draws; a ``ValueError`` is raised if almost no point of the box is feasible.
        """
        X = self._sample_box(rng, n, low_discrepancy)
        if not self.constraints or n == 0:
            return X
        X = X[self.feasible(X)]
        for _ in range(_MAX_REJECTION_ROUNDS):
            if len(X) >= n:
                return X[:n]
            fresh = self._sample_box(rng, max(4 * n, 1024), low_discrepancy=False)
            X = np.vstack([X, fresh[self.feasible(fresh)]])
        if len(X) == 0:
            raise ValueError(
                f"no point satisfying the constraints {self.constraints!r} was found in "
                f"{_MAX_REJECTION_ROUNDS * max(4 * n, 1024)} random draws: they look infeasible or very tight"
            )
        return X[rng.integers(len(X), size=n)] if len(X) < n else X[:n]

    def _sample_box(self, rng: np.random.Generator, n: int, low_discrepancy: bool) -> np.ndarray:
        n_params = len(self.params)
        if n == 0 or n_params == 0:
            return np.zeros((n, self.dim))
        U = _scrambled_halton(rng, n, n_params) if low_discrepancy else rng.random((n, n_params))  # (n, n_params)
        X = np.empty((n, self.dim))
        for j, (name, p) in enumerate(self.params.items()):
            if isinstance(p, CategoricalParam):
                k = len(p.choices)
                X[:, self.columns[name]] = _one_hot(np.minimum((U[:, j] * k).astype(np.int64), k - 1), k)
            else:
                X[:, self.columns[name].start] = U[:, j]
        return self.round_to_valid(X) if self._has_grid() else X

    def _has_grid(self) -> bool:
        return any(
            isinstance(p, IntParam) or (isinstance(p, FloatParam) and p.step is not None)
            for p in self.params.values()
        )


_MAX_REJECTION_ROUNDS = 20


# --------------------------------------------------------------------------------- per-parameter columns
def _encode_block(p: Param, decoded: Sequence[Any] | np.ndarray) -> np.ndarray:
    """``(n, width)`` encoding of ``(n,)`` numeric values, or of choice indices for a categorical.

    Choice ``i`` encodes as the first choice that ``choices[i]`` matches (``1.0`` as an earlier ``1``).
    """
    if isinstance(p, CategoricalParam):
        first_match = np.array([_choice_index(p.choices, c) for c in p.choices])  # (width,)
        return _one_hot(first_match[decoded], len(p.choices))
    return _encode_numeric(p, decoded)[:, None]


def _decode_block(p: Param, U: np.ndarray) -> np.ndarray:
    """``(n,)`` decoded values of an ``(n, width)`` block: numeric values, or choice indices (int64)."""
    if isinstance(p, CategoricalParam):
        return np.argmax(U, axis=1)
    return _decode_numeric(p, U[:, 0])


def _encode_numeric(p: FloatParam | IntParam, values: Sequence[Any] | np.ndarray) -> np.ndarray:
    """Encoded coordinates ``(n,)`` of values ``(n,)`` (clipped to ``[0, 1]``; NaN stays NaN)."""
    lo, hi = _encoded_bounds(p)
    if hi == lo:
        return np.full(len(values), 0.5)
    x = np.asarray(values, dtype=np.float64)
    if p.log:
        if np.any(x <= 0):
            raise ValueError(f"a log-scaled parameter needs values > 0, got {x[x <= 0][0]!r}")
        x = np.log(x)
    return np.clip((x - lo) / (hi - lo), 0.0, 1.0)


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


def _one_hot(index: np.ndarray, width: int) -> np.ndarray:
    """``(n, width)`` rows with a single 1 at ``index`` ``(n,)``."""
    out = np.zeros((len(index), width))
    out[np.arange(len(index)), index] = 1.0
    return out


def _column_of(points: Sequence[Mapping[str, Any]], name: str) -> list[Any]:
    """The values of ``name`` in every point; ``KeyError`` naming the first point without it."""
    try:
        return [values[name] for values in points]
    except KeyError:
        missing = next(values for values in points if name not in values)
        raise KeyError(f"parameter {name!r} missing from {dict(missing)!r}") from None


def _choice_indices(choices: tuple[Hashable, ...], values: Sequence[Any]) -> np.ndarray:
    """``(n,)`` indices of ``values`` among ``choices``, as :func:`_choice_index` defines them.

    A dict keyed by ``(is bool, value)`` finds the first equal choice of the same bool-ness in one
    lookup; values it cannot hash or find go through the definition (which raises if none matches).
    """
    lookup: dict[tuple[bool, Any], int] = {}
    for i, c in enumerate(choices):
        try:
            lookup.setdefault((isinstance(c, bool), c), i)
        except TypeError:  # an unhashable choice is found by the definition
            pass
    out = np.empty(len(values), dtype=np.int64)
    for row, v in enumerate(values):
        try:
            out[row] = lookup[(isinstance(v, bool), v)]
        except (KeyError, TypeError):
            out[row] = _choice_index(choices, v)
    return out


def _choice_index(choices: tuple[Hashable, ...], v: Any) -> int:
    """Index of the first choice equal (or identical) to ``v`` where a ``bool`` matches only a ``bool``."""
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


# --------------------------------------------------------------------------------- low-discrepancy points
def _scrambled_halton(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    """``(n, dim)`` scrambled Halton points in ``[0, 1]``, each one uniformly distributed.

    Column ``j`` uses the ``j``-th prime base ``b``. The first ``m`` base-``b`` digits of the point
    index (``b**m >= n``; the radical inverse reverses them) each go through their own random
    permutation of ``0..b-1`` and select one of ``b**m`` equal cells; a uniform offset places the
    point inside its cell. The permutations break the correlations between large bases that plain
    Halton points show in high dimension; every random number comes from ``rng``.
    """
    index = np.arange(n)  # (n,)
    U = rng.random((n, dim))  # (n, dim) offsets inside the cells
    for j, base in enumerate(_first_primes(dim)):
        n_digits = _digits_to_count(n, base)
        permutations = rng.permuted(np.tile(np.arange(base), (n_digits, 1)), axis=1)  # (n_digits, base)
        cell, rest = np.zeros(n, dtype=np.int64), index
        for k in range(n_digits):  # the index's k-th least significant digit is the cell's k-th most significant
            rest, digit = np.divmod(rest, base)
            cell = cell * base + permutations[k, digit]
        U[:, j] = (cell + U[:, j]) / float(base) ** n_digits
    return U


def _digits_to_count(n: int, base: int) -> int:
    """Smallest ``m >= 1`` with ``base**m >= n``: the index digits that vary among ``n`` points."""
    m = 1
    while base**m < n:
        m += 1
    return m


@functools.lru_cache(maxsize=None)
def _first_primes(k: int) -> tuple[int, ...]:
    """The ``k`` smallest primes (sieve up to Rosser's bound ``k (ln k + ln ln k)`` for ``k >= 6``)."""
    bound = 15 if k < 6 else int(k * (math.log(k) + math.log(math.log(k)))) + 1
    is_prime = np.ones(bound + 1, dtype=bool)
    is_prime[:2] = False
    for i in range(2, math.isqrt(bound) + 1):
        if is_prime[i]:
            is_prime[i * i :: i] = False
    return tuple(int(p) for p in np.flatnonzero(is_prime)[:k])
