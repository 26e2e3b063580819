"""Per-parameter column encodings of :class:`~shared_core.search_space.SearchSpace` (the
rules are in :mod:`shared_core.search_space`'s docstring).

A parameter owns a block of ``width`` encoded columns: 1 for a float or int, ``c`` one-hot
columns for a categorical with ``c`` choices. :func:`encode_block` maps ``(n,)`` decoded
values (choice indices for a categorical, see :func:`choice_indices`) to the ``(n, width)``
block; :func:`decode_block` maps a block back, one vectorised operation per parameter.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Any, cast

import numpy as np

from shared_core.parameters import CategoricalParam, FloatParam, IntParam, Param

__all__ = ["choice_indices", "decode_block", "encode_block", "one_hot"]


def encode_block(p: Param, decoded: Sequence[Any] | np.ndarray) -> np.ndarray:
    """``(n, width)`` encoding of ``(n,)`` numeric values, or of choice indices for a categorical.

    Choice ``i`` encodes as the first choice that
    ``choices[i]`` matches (``1.0`` as an earlier ``1``).
    """
    if isinstance(p, CategoricalParam):
        first_match = np.array([_choice_index(p.choices, c) for c in p.choices])  # (width,)
        return one_hot(first_match[decoded], len(p.choices))
    return _encode_numeric(p, decoded)[:, None]


def decode_block(p: Param, U: np.ndarray) -> np.ndarray:
    """``(n,)`` decoded values of an ``(n, width)``
    block: numeric values, or choice indices (int64)."""
    if isinstance(p, CategoricalParam):
        return cast(np.ndarray, np.argmax(U, axis=1))
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
        n = _grid_size(p)
        assert n is not None  # a grid has a size
        k = np.clip(np.round((raw - p.low) / p.step), 0, n - 1)
        return np.minimum(p.low + k * p.step, p.high)
    return np.clip(raw, p.low, p.high)


def one_hot(index: np.ndarray, width: int) -> np.ndarray:
    """``(n, width)`` rows with a single 1 at ``index`` ``(n,)``."""
    out = np.zeros((len(index), width))
    out[np.arange(len(index)), index] = 1.0
    return out


def choice_indices(choices: tuple[Hashable, ...], values: Sequence[Any]) -> np.ndarray:
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
    """Index of the first choice equal (or identical) to
    ``v`` where a ``bool`` matches only a ``bool``."""
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
        assert n is not None  # a grid has a size
        return p.low - 0.5 * p.step, p.low + (n - 0.5) * p.step
    if p.log:
        return math.log(p.low), math.log(p.high)
    if p.step is not None:
        n = _grid_size(p)
        assert n is not None  # a grid has a size
        return p.low - 0.5 * p.step, p.low + (n - 0.5) * p.step
    return p.low, p.high


def _grid_size(p: FloatParam | IntParam) -> int | None:
    """Number of grid values of a stepped parameter, or None for a continuous one."""
    if isinstance(p, IntParam):
        return None if p.log else (p.high - p.low) // p.step + 1
    if p.step is None:
        return None
    return int(math.floor((p.high - p.low) / p.step + 1e-8)) + 1
