"""Argument checks shared by the constructors: numpy integers and floats are accepted wherever
Python ones are, bools are not numbers, and every error names the argument and the bad value."""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

__all__ = ["check_bool", "check_int", "check_real"]


def check_bool(name: str, value: Any) -> bool:
    """``value`` as a Python ``bool`` (Python or numpy bool), else ``ValueError``."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_int(name: str, value: Any, minimum: int | None = None) -> int:
    """``value`` as a Python ``int`` (Python or numpy integer,
    not bool, ``>= minimum``), else ``ValueError``."""
    if (
        not isinstance(value, numbers.Integral)
        or isinstance(value, bool)
        or (minimum is not None and value < minimum)
    ):
        bound = "" if minimum is None else f" >= {minimum}"
        raise ValueError(f"{name} must be an integer{bound}, got {value!r}")
    return int(value)


def check_real(
    name: str,
    value: Any,
    *,
    low: float = -math.inf,
    high: float = math.inf,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """``value`` as a finite Python ``float`` in the
    given interval (Python or numpy real, not bool)."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)
    ok = (
        ok
        and (value > low if low_open else value >= low)
        and (value < high if high_open else value <= high)
    )
    if not ok:
        interval = f"{'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
        raise ValueError(f"{name} must be a finite number in {interval}, got {value!r}")
    return float(value)
