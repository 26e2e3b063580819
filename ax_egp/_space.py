"""Ax search spaces <-> the core search space (the same encoding as the Optuna adapter).

* ``RangeParameter`` float / int, linear or log scale -> ``FloatParam`` / ``IntParam``
  (``logit_scale`` is treated as linear; a linear float with ``digits`` is a grid of
  ``10**-digits``).
* ``ChoiceParameter``: ordered numeric choices with even spacing (what Ax makes of a range with
  ``step_size``) -> a stepped ``FloatParam`` / ``IntParam`` on the values themselves, so constraints
  on them work; other ordered choices, and ordered choices with dependents -> an ``IntParam`` over
  the choice indices; unordered -> a one-hot ``CategoricalParam`` over the indices. Values of any
  type.
* ``FixedParameter``, disabled parameters (their default value) and ``fixed_parameters`` of a
  ``get_next_trials`` call: not modelled; added to every candidate where they are active and moved
  to the right-hand side of the constraints they appear in.
* ``ParameterConstraint`` (``sum w_i x_i <= bound``) -> ``LinearConstraint`` on decoded values.
* Hierarchical search spaces (``dependents`` of a ``ChoiceParameter`` or ``FixedParameter``): a
  dependent of a modelled choice parameter gets the core ``Condition`` "the parent's index is one
  of the indices of the values that list it"; a dependent of a parameter held at a value (fixed,
  disabled or given in ``fixed_parameters``) is active where that parameter is, if the held value
  lists it, and never otherwise (never-active parameters are not modelled). An arm holds only its
  active parameters (Ax's hierarchical semantics); the missing ones are ``INACTIVE`` in the core.
  Parameter constraints may not name a conditional parameter or a choice parameter with dependents.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np
from ax.core.parameter import ChoiceParameter, FixedParameter, ParameterType, RangeParameter
from ax.core.search_space import SearchSpace as AxSearchSpace

from shared_core.conditions import INACTIVE
from shared_core.search_space import (
    CategoricalParam,
    Condition,
    FloatParam,
    IntParam,
    LinearConstraint,
    Param,
    SearchSpace,
)


class AxSpace:
    """The core space of an Ax search space, with encoding of Ax parameterizations and decoding.

    Args:
        ax_space: the experiment's search space.
        fixed: extra parameters held at given values (``get_next_trials(fixed_parameters=...)``).
    """

    def __init__(self, ax_space: AxSearchSpace, fixed: Mapping[str, Any] | None = None) -> None:
        self.ax_space = ax_space
        self.fixed: dict[str, Any] = {}
        self.choices: dict[str, list[Any]] = {}  # choice parameters modelled by index
        self.numeric_choices: dict[str, list[Any]] = {}  # choice parameters modelled by value
        self.digits: dict[str, int] = {}
        params: dict[str, Param] = {}
        for name, p in ax_space.parameters.items():
            if fixed is not None and name in fixed:
                self.fixed[name] = fixed[name]
            elif isinstance(p, FixedParameter):
                self.fixed[name] = p.value
            elif p.is_disabled:
                self.fixed[name] = p.default_value
            elif isinstance(p, RangeParameter):
                params[name] = _range_param(name, p)
                if p.digits is not None and p.parameter_type == ParameterType.FLOAT:
                    self.digits[name] = p.digits
            elif isinstance(p, ChoiceParameter):
                # a parent of dependents is modelled by index, so that conditions can name it
                numeric = None if p.is_hierarchical else _evenly_spaced_param(p)
                if numeric is not None:
                    self.numeric_choices[name] = list(p.values)
                    params[name] = numeric
                else:
                    self.choices[name] = list(p.values)
                    k = len(p.values)
                    params[name] = (
                        IntParam(0, k - 1) if p.is_ordered else CategoricalParam(tuple(range(k)))
                    )
            else:
                raise ValueError(f"parameter {name!r} has unsupported type {type(p).__name__}")
        # {name: Condition, None (always active) or _NEVER} of every parameter
        self.activity = _Activity(ax_space, self.fixed, self.choices).of_every_parameter()
        for name, activity in self.activity.items():
            if activity is _NEVER:  # a dependent of a held value that does not list it
                params.pop(name, None)
                self.fixed.pop(name, None)
        conditions = {
            name: c
            for name, c in self.activity.items()
            if isinstance(c, Condition) and name in params
        }
        self.core = SearchSpace(params, self._constraints(ax_space, params), conditions)

    def _constraints(
        self, ax_space: AxSearchSpace, params: dict[str, Param]
    ) -> list[LinearConstraint]:
        out = []
        for c in ax_space.parameter_constraints:
            if getattr(c, "is_equality", False):
                raise ValueError(f"equality parameter constraints are not supported: {c}")
            bound = float(c.bound) - sum(
                w * float(self.fixed[n]) for n, w in c.constraint_dict.items() if n in self.fixed
            )
            for name in c.constraint_dict:
                if self.activity[name] is not None:
                    raise ValueError(
                        f"constraint {c} involves {name!r}, a parameter that is active only "
                        "under some values of its parent: constraints apply to parameters that "
                        "are always active"
                    )
                if ax_space.parameters[name].is_hierarchical and name not in self.fixed:
                    raise ValueError(
                        f"constraint {c} involves {name!r}, a choice parameter with dependents "
                        "(modelled over its choice indices)"
                    )
            free = tuple((n, float(w)) for n, w in c.constraint_dict.items() if n not in self.fixed)
            for name, _ in free:
                if not isinstance(params[name], (FloatParam, IntParam)) or name in self.choices:
                    raise ValueError(
                        f"constraint {c} involves {name!r}, a choice parameter whose values are "
                        "not evenly spaced numbers"
                    )
            if free:
                out.append(LinearConstraint(free, bound))
            elif bound < 0:
                raise ValueError(
                    f"the fixed parameter values {self.fixed} violate the constraint {c}"
                )
        return out

    def encode(self, parameterizations: Sequence[Mapping[str, Any]]) -> np.ndarray:
        """``(n, d)`` encodings of the parameterizations
        that lie in the search space (others dropped)."""
        return self.encode_kept(parameterizations)[0]

    def encode_kept(
        self, parameterizations: Sequence[Mapping[str, Any]]
    ) -> tuple[np.ndarray, np.ndarray]:
        """Encodings ``(n, d)`` of the parameterizations
        in the search space, and their indices ``(n,)``.

        Missing parameters take their backfill value (parameters added to the space later); in a
        hierarchical space, a conditional parameter missing from an arm is inactive there, and an
        arm without a parameter that is active under its values is dropped.
        """
        backfill = self.ax_space.backfill_values()
        columns: dict[str, list[Any]] = {name: [] for name in self.core.params}
        kept = []
        for i, params in enumerate(parameterizations):
            values = self._core_values({**backfill, **params})
            if values is not None:
                for name, v in values.items():
                    columns[name].append(v)
                kept.append(i)
        X = self.core.encode_columns(columns, n_rows=len(kept))
        if self.core.is_conditional:
            complete = np.ones(len(kept), dtype=bool)
            for name, active in self.core.active(X).items():
                given = np.array([v is not INACTIVE for v in columns[name]], dtype=bool)
                complete &= given | ~active
            X, kept = X[complete], [i for i, ok in zip(kept, complete, strict=True) if ok]
        return X, np.array(kept, dtype=int)

    def _core_values(self, params: Mapping[str, Any]) -> dict[str, Any] | None:
        values: dict[str, Any] = {}
        for name, p in self.core.params.items():
            if name in self.core.conditions and name not in params:
                values[name] = INACTIVE
                continue
            v = params.get(name)
            if v is None or (isinstance(v, float) and math.isnan(v)):
                return None
            if name in self.choices:
                index = [
                    i for i, c in enumerate(self.choices[name]) if c == v and type(c) is type(v)
                ]
                if not index:
                    return None
                v = index[0]
            else:
                numeric = cast("FloatParam | IntParam", p)  # choice parameters are handled above
                if isinstance(v, (bool, str)) or not (numeric.low <= v <= numeric.high):
                    return None
            values[name] = v
        return values

    def decode(self, x: np.ndarray) -> dict[str, Any]:
        """The Ax parameterization of an encoded row, with the parameters' Python types: only the
        parameters active there (all of them unless the space is hierarchical)."""
        values = self.core.decode_active(x)
        out: dict[str, Any] = {}
        for name in self.ax_space.parameters:
            if name in self.fixed:
                activity = self.activity[name]
                if activity is None or (
                    isinstance(activity, Condition)
                    and values.get(activity.parent, INACTIVE) in activity.values
                ):
                    out[name] = self.fixed[name]
            elif name not in values:
                continue  # inactive there, or never active
            elif name in self.choices:
                out[name] = self.choices[name][int(values[name])]
            elif name in self.numeric_choices:
                choices = self.numeric_choices[name]
                out[name] = choices[int(np.argmin([abs(c - values[name]) for c in choices]))]
            elif isinstance(self.core.params[name], IntParam):
                out[name] = int(values[name])
            else:
                v = float(values[name])
                if name in self.digits:  # already on the 10**-digits grid; this removes float error
                    p = cast(FloatParam, self.core.params[name])  # a float range parameter
                    v = min(max(round(v, self.digits[name]), p.low), p.high)
                out[name] = v
        return out

    def check(self, params: Mapping[str, Any]) -> None:
        """Raise ``RuntimeError`` unless Ax accepts
        ``params`` (bounds, types, choices, constraints)."""
        if not self.ax_space.check_membership(
            dict(params), raise_error=False, check_all_parameters_present=True
        ):
            raise RuntimeError(
                f"internal error: candidate {params!r} is not in the search space {self.ax_space}"
            )


class _Never:
    """The activity of a parameter that is never active (a dependent of a held value that does
    not list it)."""


_NEVER = _Never()


class _Activity:
    """When each parameter of an Ax search space is active, in terms of the modelled parameters.

    Args:
        ax_space: the search space (its ``dependents`` give the tree).
        fixed: the parameters held at a value (not modelled).
        choices: the choice parameters modelled over their indices (every modelled parent).
    """

    def __init__(
        self, ax_space: AxSearchSpace, fixed: Mapping[str, Any], choices: Mapping[str, list[Any]]
    ) -> None:
        self.ax_space, self.fixed, self.choices = ax_space, fixed, choices
        # child -> (parent, the parent's values that list it)
        self.parent: dict[str, tuple[str, list[Any]]] = {}
        for name, p in ax_space.parameters.items():
            if p.is_hierarchical:
                for value, children in p.dependents.items():
                    for child in children:
                        self.parent.setdefault(child, (name, []))[1].append(value)
        self.memo: dict[str, Condition | _Never | None] = {}

    def of_every_parameter(self) -> dict[str, Condition | _Never | None]:
        return {name: self.of(name) for name in self.ax_space.parameters}

    def of(self, name: str) -> Condition | _Never | None:
        """A ``Condition`` on a modelled parent, None (always active) or ``_NEVER``."""
        if name not in self.memo:
            self.memo[name] = self._resolve(name)
        return self.memo[name]

    def _resolve(self, name: str) -> Condition | _Never | None:
        if name not in self.parent:
            return None
        parent, values = self.parent[name]
        of_parent = self.of(parent)
        if of_parent is _NEVER:
            return _NEVER
        if parent in self.fixed:  # as active as the held parent, if its value lists ``name``
            return of_parent if any(self.fixed[parent] == v for v in values) else _NEVER
        # equality as Ax's lookup of a value in ``dependents``
        indices = tuple(
            i for i, c in enumerate(self.choices[parent]) if any(c == v for v in values)
        )
        return Condition(parent, indices) if indices else _NEVER


def _range_param(name: str, p: RangeParameter) -> FloatParam | IntParam:
    if p.parameter_type == ParameterType.INT:
        return IntParam(int(p.lower), int(p.upper), log=bool(p.log_scale))
    if p.parameter_type == ParameterType.FLOAT:
        step = None
        if p.digits is not None and not p.log_scale:
            grid = 10.0**-p.digits
            if _on_grid(p.lower, grid) and _on_grid(p.upper, grid):
                step = grid
        return FloatParam(float(p.lower), float(p.upper), log=bool(p.log_scale), step=step)
    raise ValueError(f"range parameter {name!r} has unsupported type {p.parameter_type}")


def _evenly_spaced_param(p: ChoiceParameter) -> FloatParam | IntParam | None:
    """A stepped numeric parameter for ordered, evenly spaced int/float choices, else None."""
    if (
        not p.is_ordered
        or p.parameter_type not in (ParameterType.INT, ParameterType.FLOAT)
        or len(p.values) < 2
    ):
        return None
    values = np.array(p.values, dtype=float)
    steps = np.diff(values)
    if np.any(steps <= 0) or not np.allclose(steps, steps[0], rtol=1e-9, atol=0.0):
        return None
    if p.parameter_type == ParameterType.INT:
        return IntParam(int(values[0]), int(values[-1]), step=int(round(steps[0])))
    return FloatParam(float(values[0]), float(values[-1]), step=float(steps[0]))


def _on_grid(value: float, grid: float) -> bool:
    return abs(value / grid - round(value / grid)) < 1e-9
