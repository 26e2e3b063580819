"""Ax search spaces <-> the core search space (the same encoding as the Optuna adapter).

* ``RangeParameter`` float / int, linear or log scale -> ``FloatParam`` / ``IntParam``
  (``logit_scale`` is treated as linear; ``digits`` rounds the decoded float).
* ``ChoiceParameter``: ordered -> an ``IntParam`` over the choice indices (neighbouring choices are
  close), unordered -> a one-hot ``CategoricalParam`` over the indices; values of any type.
* ``FixedParameter``: not modelled; added to every candidate.
* ``ParameterConstraint`` (``sum w_i x_i <= bound``) -> ``LinearConstraint`` on decoded values.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from ax.core.parameter import ChoiceParameter, FixedParameter, ParameterType, RangeParameter
from ax.core.search_space import SearchSpace as AxSearchSpace

from shared_core.search_space import CategoricalParam, FloatParam, IntParam, LinearConstraint, Param, SearchSpace


class AxSpace:
    """The core space of an Ax search space, with encoding of Ax parameterizations and decoding."""

    def __init__(self, ax_space: AxSearchSpace) -> None:
        self.ax_space = ax_space
        self.fixed: dict[str, Any] = {}
        self.choices: dict[str, list[Any]] = {}
        self.digits: dict[str, int] = {}
        params: dict[str, Param] = {}
        for name, p in ax_space.parameters.items():
            if isinstance(p, FixedParameter):
                self.fixed[name] = p.value
            elif isinstance(p, RangeParameter):
                params[name] = _range_param(name, p)
                if p.digits is not None and p.parameter_type == ParameterType.FLOAT:
                    self.digits[name] = p.digits
            elif isinstance(p, ChoiceParameter):
                self.choices[name] = list(p.values)
                k = len(p.values)
                params[name] = IntParam(0, k - 1) if p.is_ordered else CategoricalParam(tuple(range(k)))
            else:
                raise ValueError(f"parameter {name!r} has unsupported type {type(p).__name__}")
        constraints = []
        for c in ax_space.parameter_constraints:
            if getattr(c, "is_equality", False):
                raise ValueError(f"equality parameter constraints are not supported: {c}")
            for name in c.constraint_dict:
                if name in self.choices or name in self.fixed:
                    raise ValueError(f"constraint {c} involves {name!r}, which is not a range parameter")
            constraints.append(LinearConstraint(tuple(c.constraint_dict.items()), float(c.bound)))
        self.core = SearchSpace(params, constraints)

    def encode(self, parameterizations: list[Mapping[str, Any]]) -> np.ndarray:
        """``(n, d)`` encodings of the parameterizations that lie in the search space (others dropped)."""
        rows = []
        for params in parameterizations:
            values = self._core_values(params)
            if values is not None:
                rows.append(self.core.encode(values))
        return np.array(rows).reshape(len(rows), self.core.dim)

    def _core_values(self, params: Mapping[str, Any]) -> dict[str, Any] | None:
        values = {}
        for name, p in self.core.params.items():
            if params.get(name) is None:
                return None
            v = params[name]
            if name in self.choices:
                index = [i for i, c in enumerate(self.choices[name]) if c == v and type(c) is type(v)]
                if not index:
                    return None
                v = index[0]
            elif not (p.low <= v <= p.high):
                return None
            values[name] = v
        return values

    def decode(self, x: np.ndarray) -> dict[str, Any]:
        """The Ax parameterization of an encoded row, with the parameters' Python types."""
        values = self.core.decode(x)
        out: dict[str, Any] = {}
        for name in self.ax_space.parameters:
            if name in self.fixed:
                out[name] = self.fixed[name]
            elif name in self.choices:
                out[name] = self.choices[name][int(values[name])]
            elif isinstance(self.core.params[name], IntParam):
                out[name] = int(values[name])
            else:
                v = float(values[name])
                if name in self.digits:
                    p = self.core.params[name]
                    v = min(max(round(v, self.digits[name]), p.low), p.high)
                out[name] = v
        return out

    def check(self, params: Mapping[str, Any]) -> None:
        """Raise ``RuntimeError`` unless Ax accepts ``params`` (bounds, types, choices, constraints)."""
        if not self.ax_space.check_membership(dict(params), raise_error=False, check_all_parameters_present=True):
            raise RuntimeError(f"internal error: candidate {params!r} is not in the search space {self.ax_space}")


def _range_param(name: str, p: RangeParameter) -> FloatParam | IntParam:
    if p.parameter_type == ParameterType.INT:
        return IntParam(int(p.lower), int(p.upper), log=bool(p.log_scale))
    if p.parameter_type == ParameterType.FLOAT:
        return FloatParam(float(p.lower), float(p.upper), log=bool(p.log_scale))
    raise ValueError(f"range parameter {name!r} has unsupported type {p.parameter_type}")
