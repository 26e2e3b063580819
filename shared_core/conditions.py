"""Conditional (hierarchical) search spaces: which parameters are active at a point, and the
fixed encoding of the inactive ones.

A parameter with a :class:`~shared_core.parameters.Condition` is active where its parent is
active and the parent's decoded value is one of the condition's values; a parameter without one is
always active. The models see one input per encoded column, so an inactive parameter is encoded
at a fixed value, the same at every point: ``INACTIVE_VALUE`` for a float or int, an all-zero
one-hot block for a categorical (equally far from every choice). Points that differ only in
inactive parameters then have the same encoding, and the parent's columns tell the model which
branch a point is in (the imputation design of, e.g., Ax's hierarchical search spaces).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from shared_core.encoding import decode_block
from shared_core.parameters import CategoricalParam, Condition, IntParam, Param

__all__ = ["INACTIVE", "INACTIVE_VALUE", "active_masks", "condition_order"]

# The encoding of an inactive float or int parameter (the middle of its range).
INACTIVE_VALUE = 0.5


class _Inactive:
    """The type of :data:`INACTIVE`."""

    def __repr__(self) -> str:
        return "INACTIVE"

    def __reduce__(self) -> str:
        return "INACTIVE"  # unpickles as the module's one instance


# The value given to ``SearchSpace.encode_columns`` for a parameter a point does not have (``None``
# may be a categorical choice).
INACTIVE = _Inactive()


def condition_order(params: Mapping[str, Param], conditions: Mapping[str, Condition]) -> list[str]:
    """The names of ``params``, every parent before its children (stable otherwise); ``ValueError``
    for a condition on an unknown parameter, a parent that is not categorical or int, a value the
    parent cannot take, or a cycle."""
    for child, condition in conditions.items():
        if child not in params:
            raise ValueError(f"conditions name {child!r}, which is not a parameter of the space")
        if not isinstance(condition, Condition):
            raise ValueError(f"conditions[{child!r}] must be a Condition, got {condition!r}")
        parent = params.get(condition.parent)
        if not isinstance(parent, (CategoricalParam, IntParam)):
            raise ValueError(
                f"the condition of {child!r} names parent {condition.parent!r}, which is not a "
                "categorical or int parameter of the space"
            )
        allowed = parent.choices if isinstance(parent, CategoricalParam) else None
        for value in condition.values:
            if allowed is not None and value not in allowed:
                raise ValueError(
                    f"the condition of {child!r} names {value!r}, not a choice of "
                    f"{condition.parent!r} {allowed!r}"
                )
    order: list[str] = []
    placed: set[str] = set()
    remaining = list(params)
    while remaining:
        ready = [n for n in remaining if n not in conditions or conditions[n].parent in placed]
        if not ready:
            raise ValueError(f"the conditions of {remaining!r} form a cycle")
        order += ready
        placed |= set(ready)
        remaining = [n for n in remaining if n not in placed]
    return order


def active_masks(
    params: Mapping[str, Param],
    columns: Mapping[str, slice],
    conditions: Mapping[str, Condition],
    order: list[str],
    X: np.ndarray,
) -> dict[str, np.ndarray]:
    """``{name: (n,) bool}``: where each parameter is active at the encoded points ``X``
    ``(n, d)`` (parents decoded as :meth:`SearchSpace.decode_columns` decodes them)."""
    n = len(X)
    active: dict[str, np.ndarray] = {}
    for name in order:
        condition = conditions.get(name)
        if condition is None:
            active[name] = np.ones(n, dtype=bool)
            continue
        parent = params[condition.parent]
        decoded = decode_block(parent, X[:, columns[condition.parent]])  # (n,)
        if isinstance(parent, CategoricalParam):
            allowed = [i for i, c in enumerate(parent.choices) if c in condition.values]
        else:
            allowed = [int(v) for v in condition.values]  # type: ignore[call-overload]
        active[name] = active[condition.parent] & np.isin(decoded, allowed)
    return active
