"""Parameter types of a :class:`~shared_core.search_space.SearchSpace`: :class:`FloatParam`,
:class:`IntParam`, :class:`CategoricalParam` (their union is :data:`Param`) and the
:class:`LinearConstraint` on decoded float and int values. Each checks its arguments when built;
how a parameter maps to encoded columns is :mod:`shared_core.encoding`'s role.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass, field

__all__ = ["FloatParam", "IntParam", "CategoricalParam", "Condition", "LinearConstraint", "Param"]


@dataclass(frozen=True)
class FloatParam:
    """A float in ``[low, high]``, optionally log-scaled or on a grid of ``step``."""

    low: float
    high: float
    log: bool = False
    step: float | None = None

    def __post_init__(self) -> None:
        if not (math.isfinite(self.low) and math.isfinite(self.high)) or self.low > self.high:
            raise ValueError(
                f"FloatParam needs finite low <= high, got low={self.low!r}, high={self.high!r}"
            )
        if self.log and self.low <= 0:
            raise ValueError(f"FloatParam with log=True needs low > 0, got low={self.low!r}")
        if self.step is not None and (self.step <= 0 or self.log):
            raise ValueError(
                f"FloatParam step must be > 0 and not combined with log, got step={self.step!r}"
            )


@dataclass(frozen=True)
class IntParam:
    """An integer in ``[low, high]`` on a grid of ``step``, optionally log-scaled (step 1)."""

    low: int
    high: int
    log: bool = False
    step: int = 1

    def __post_init__(self) -> None:
        if self.low > self.high:
            raise ValueError(
                f"IntParam needs low <= high, got low={self.low!r}, high={self.high!r}"
            )
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
            raise ValueError(
                f"CategoricalParam needs at least one of its choices, got choices={self.choices!r}"
            )


Param = FloatParam | IntParam | CategoricalParam


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


@dataclass(frozen=True)
class Condition:
    """When a parameter of a conditional space is active: ``parent`` is active and its decoded
    value is one of ``values`` (a categorical parent's choices, an int parent's integers).

    Args:
        parent: name of a categorical or int parameter of the same space.
        values: the parent's values under which the parameter is active.
    """

    parent: str
    values: tuple[Hashable, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.parent, str) or not self.parent:
            raise ValueError(f"Condition needs a parent parameter name, got {self.parent!r}")
        if len(self.values) == 0:
            raise ValueError(f"Condition on {self.parent!r} needs at least one parent value")
