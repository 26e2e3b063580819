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
    * float with ``step`` and int (linear): the grid ``low, low + step, ..., high`` is padded by
      half a step on each side so that every grid value owns an equal share of ``[0, 1]``; decoding
      rounds to the nearest grid value.
    * int, log: ``log v`` padded by ``log(low - 0.5)``, ``log(high + 0.5)`` (each integer owns the
      interval of values that round to it), decoded by rounding.
    * categorical: one-hot; decoding takes the arg-max of the group, so any point decodes to a valid
      choice. A value matches the first choice equal to it, except that a ``bool`` matches only a
      ``bool``: ``True`` and ``1`` are distinct choices, but ``1.0`` matches an earlier ``1`` (a
      later ``1.0`` choice can be decoded, and encodes as that ``1``).
    * a single-value distribution (``low == high`` or one choice) always decodes to its value; it
      encodes to ``0.5`` (or the only one-hot column), except a log-scaled int, which keeps its
      padded log encoding.

Conditional spaces (``conditions``, :mod:`shared_core.conditions`): a parameter with a
:class:`Condition` is active only where its parent has one of the condition's values. Inactive
parameters are encoded at a fixed value (``INACTIVE_VALUE`` for floats and ints, an all-zero one-hot
block for categoricals); :meth:`SearchSpace.sample`, :meth:`SearchSpace.round_to_valid` and the
encoding of points return such imputed points. The value ``shared_core.conditions.INACTIVE`` (a
point without that parameter) encodes at the fixed value too, also for a parameter without a
condition (one whose presence the adapter cannot explain by a parent's value; it counts as active
at new points).

Sampling: scrambled Halton points (framework-free, seeded only by the caller's generator), snapped
to valid encodings when the space has grids.

Modules: the parameter types are defined in :mod:`shared_core.parameters` (and importable
from here), the per-parameter encodings in :mod:`shared_core.encoding`, the Halton points in
:mod:`shared_core.halton`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np

from shared_core.conditions import INACTIVE, INACTIVE_VALUE, active_masks, condition_order
from shared_core.encoding import choice_indices, decode_block, encode_block, one_hot
from shared_core.halton import scrambled_halton
from shared_core.parameters import (
    CategoricalParam,
    Condition,
    FloatParam,
    IntParam,
    LinearConstraint,
    Param,
)

__all__ = [
    "FloatParam",
    "IntParam",
    "CategoricalParam",
    "Condition",
    "LinearConstraint",
    "Param",
    "SearchSpace",
]


class SearchSpace:
    """An ordered set of named parameters and their encoding to the unit cube.

    Args:
        params: mapping of parameter name to :class:`FloatParam`, :class:`IntParam` or
            :class:`CategoricalParam`; the order of the mapping is the order of the columns.
        constraints: linear constraints on decoded float and int values; :meth:`sample` and the
            acquisition optimiser return only points whose decoded values satisfy them.
        conditions: ``{name: Condition}`` for the parameters that are active only under a value
            of their parent (a conditional or hierarchical space); the others are always active.
            Constraints may not name a conditional parameter.
    """

    def __init__(
        self,
        params: Mapping[str, Param],
        constraints: Sequence[LinearConstraint] = (),
        conditions: Mapping[str, Condition] | None = None,
    ) -> None:
        self.params: dict[str, Param] = dict(params)
        for name, p in self.params.items():
            if not isinstance(p, (FloatParam, IntParam, CategoricalParam)):
                raise ValueError(
                    f"params[{name!r}] must be a FloatParam, IntParam or CategoricalParam, got "
                    f"{p!r}"
                )
        self.constraints: tuple[LinearConstraint, ...] = tuple(constraints)
        for c in self.constraints:
            for name, _ in c.coefficients:
                if isinstance(self.params.get(name, None), (FloatParam, IntParam)) is False:
                    raise ValueError(
                        f"constraint {c!r} names {name!r}, which is not a float or int parameter"
                    )
        self.conditions: dict[str, Condition] = dict(conditions or {})
        self._condition_order = condition_order(self.params, self.conditions)
        for c in self.constraints:
            for name, _ in c.coefficients:
                if name in self.conditions:
                    raise ValueError(
                        f"constraint {c!r} names the conditional parameter {name!r}: constraints "
                        "apply to parameters that are always active"
                    )
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
    def is_conditional(self) -> bool:
        return bool(self.conditions)

    @property
    def categorical_groups(self) -> list[np.ndarray]:
        """Column indices of each categorical parameter's one-hot block (in a conditional space,
        parents before their children)."""
        return [
            np.arange(self.columns[n].start, self.columns[n].stop)
            for n in self._condition_order
            if isinstance(self.params[n], CategoricalParam)
        ]

    @property
    def parent_columns(self) -> np.ndarray:
        """The columns of the parameters that some condition names as parent."""
        parents = {c.parent for c in self.conditions.values()}
        return np.array(
            [col for n in parents for col in range(self.columns[n].start, self.columns[n].stop)],
            dtype=int,
        )

    @property
    def continuous_columns(self) -> np.ndarray:
        """Columns optimised by gradients (floats and ints; ints are rounded afterwards)."""
        return np.array(
            [
                self.columns[n].start
                for n, p in self.params.items()
                if not isinstance(p, CategoricalParam)
            ],
            dtype=int,
        )

    # ----------------------------------------------------------------------------- encode
    def encode(self, values: Mapping[str, Any]) -> np.ndarray:
        """Encode one point given as ``{name: value}`` to a ``(d,)`` vector in ``[0, 1]``."""
        return cast(np.ndarray, self.encode_many([values])[0])

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
        n = (
            n_rows
            if n_rows is not None
            else next((len(columns[name]) for name in self.params if name in columns), 0)
        )
        X = np.empty((n, self.dim))
        for name, p in self.params.items():
            if name not in columns:
                raise KeyError(f"parameter {name!r} missing from the columns {list(columns)!r}")
            values = columns[name]
            if len(values) != n:
                raise ValueError(f"the column of {name!r} has {len(values)} values, expected {n}")
            values = values.tolist() if isinstance(values, np.ndarray) else list(values)
            missing = np.array([v is INACTIVE for v in values], dtype=bool)  # (n,)
            present = [v for v in values if v is not INACTIVE]
            block = self.columns[name]
            X[~missing, block] = encode_block(
                p,
                choice_indices(p.choices, present) if isinstance(p, CategoricalParam) else present,
            )
            X[missing, block] = 0.0 if isinstance(p, CategoricalParam) else INACTIVE_VALUE
        return self.impute_inactive(X)

    # ----------------------------------------------------------------------------- decode
    def decode(self, x: np.ndarray) -> dict[str, Any]:
        """Decode a ``(d,)`` vector to ``{name: value}``
        of Python ``int``, ``float`` or choice objects."""
        columns = self.decode_columns(np.asarray(x, dtype=np.float64)[None, :])
        return {
            name: values[0] if isinstance(values, list) else values[0].item()
            for name, values in columns.items()
        }

    def decode_columns(self, X: np.ndarray) -> dict[str, np.ndarray | list[Any]]:
        """Decode ``(n, d)`` points (any real numbers; NaN
        decodes like 0.5) to valid values per parameter.

        Returns:
            ``{name: values}``: an ``(n,)`` float64 array for a float parameter, an ``(n,)``
            int64 array for an int parameter and a list of ``n`` choice objects for a
            categorical parameter.
        """
        X = self._as_points(X)
        out: dict[str, np.ndarray | list[Any]] = {}
        for name, p in self.params.items():
            decoded = decode_block(p, X[:, self.columns[name]])  # (n,)
            if isinstance(p, CategoricalParam):
                out[name] = [p.choices[i] for i in decoded.tolist()]
            else:
                out[name] = decoded.astype(np.int64) if isinstance(p, IntParam) else decoded
        return out

    def decode_active(self, x: np.ndarray) -> dict[str, Any]:
        """Decode a ``(d,)`` vector to ``{name: value}`` of the parameters active at it."""
        active = self.active(np.asarray(x, dtype=np.float64)[None, :])
        return {name: v for name, v in self.decode(x).items() if active[name][0]}

    def active(self, X: np.ndarray) -> dict[str, np.ndarray]:
        """``{name: (n,) bool}``: where each parameter is active at the ``(n, d)`` points (every
        parameter everywhere in a space without conditions)."""
        X = self._as_points(X)
        return active_masks(self.params, self.columns, self.conditions, self._condition_order, X)

    def impute_inactive(self, X: np.ndarray) -> np.ndarray:
        """``(n, d)`` points with every inactive parameter at its fixed encoding
        (``INACTIVE_VALUE``, or an all-zero one-hot block); ``X`` itself if nothing is
        conditional. An active categorical whose block is all zero (a parameter a switch of its
        parent has just activated) takes the choice it decodes to (the first)."""
        X = self._as_points(X)
        if not self.conditions:
            return X
        X = X.copy()
        for name, active in self.active(X).items():
            p, block = self.params[name], self.columns[name]
            if isinstance(p, CategoricalParam):
                X[~active, block] = 0.0
                unset = active & ~np.any(X[:, block] > 0.0, axis=1)  # (n,)
                X[np.flatnonzero(unset), block.start] = 1.0
            else:
                X[~active, block] = INACTIVE_VALUE
        return X

    def feasible(self, X: np.ndarray) -> np.ndarray:
        """``(n,)`` mask of encoded points whose decoded values satisfy every linear constraint."""
        X = self._as_points(X)
        ok = np.ones(len(X), dtype=bool)
        for c in self.constraints:
            total = np.zeros(len(X))
            for name, coef in c.coefficients:
                total += coef * decode_block(self.params[name], X[:, self.columns[name]])
            ok &= total <= c.bound
        return ok

    # ----------------------------------------------------------------------------- helpers
    def round_to_valid(self, X: np.ndarray) -> np.ndarray:
        """Snap ``(n, d)`` points to the encodings of the values they decode to."""
        X = self._as_points(X)
        out = np.empty_like(X)
        for name, p in self.params.items():
            sl = self.columns[name]
            out[:, sl] = encode_block(p, decode_block(p, X[:, sl]))
        return self.impute_inactive(out)

    def _as_points(self, X: np.ndarray) -> np.ndarray:
        """``X`` as an ``(n, d)`` float64 array (a ``(d,)`` vector is one point)."""
        X = np.atleast_2d(np.asarray(X, dtype=np.float64))
        if X.ndim != 2 or X.shape[1] != self.dim:
            raise ValueError(
                f"expected encoded points of shape (n, {self.dim}), got shape {X.shape}"
            )
        return X

    def sample(self, rng: np.random.Generator, n: int, low_discrepancy: bool = True) -> np.ndarray:
        """``(n, d)`` valid encoded points: scrambled Halton (or uniform) then snapped to valid.

        ``low_discrepancy=False`` draws uniform points instead. With constraints, infeasible
        points are rejected and replaced by fresh uniform draws; a ``ValueError`` is raised
        if almost no point of the box is feasible.
        """
        X = self._sample_box(rng, n, low_discrepancy)
        if not self.constraints or n == 0:
            return X
        X = X[self.feasible(X)]
        for _ in range(_MAX_REJECTION_ROUNDS):
            if len(X) >= n:
                return cast(np.ndarray, X[:n])
            fresh = self._sample_box(rng, max(4 * n, 1024), low_discrepancy=False)
            X = np.vstack([X, fresh[self.feasible(fresh)]])
        if len(X) == 0:
            raise ValueError(
                f"no point satisfying the constraints {self.constraints!r} was found in "
                f"{_MAX_REJECTION_ROUNDS * max(4 * n, 1024)} random draws: they look infeasible "
                "or very tight"
            )
        return X[rng.integers(len(X), size=n)] if len(X) < n else X[:n]

    def _sample_box(self, rng: np.random.Generator, n: int, low_discrepancy: bool) -> np.ndarray:
        n_params = len(self.params)
        if n == 0 or n_params == 0:
            return np.zeros((n, self.dim))
        # (n, n_params)
        U = scrambled_halton(rng, n, n_params) if low_discrepancy else rng.random((n, n_params))
        X = np.empty((n, self.dim))
        for j, (name, p) in enumerate(self.params.items()):
            if isinstance(p, CategoricalParam):
                k = len(p.choices)
                X[:, self.columns[name]] = one_hot(
                    np.minimum((U[:, j] * k).astype(np.int64), k - 1), k
                )
            else:
                X[:, self.columns[name].start] = U[:, j]
        return self.round_to_valid(X) if self._has_grid() else self.impute_inactive(X)

    def _has_grid(self) -> bool:
        return any(
            isinstance(p, IntParam) or (isinstance(p, FloatParam) and p.step is not None)
            for p in self.params.values()
        )


_MAX_REJECTION_ROUNDS = 20


def _column_of(points: Sequence[Mapping[str, Any]], name: str) -> list[Any]:
    """The values of ``name`` in every point; ``KeyError`` naming the first point without it."""
    try:
        return [values[name] for values in points]
    except KeyError:
        missing = next(values for values in points if name not in values)
        raise KeyError(f"parameter {name!r} missing from {dict(missing)!r}") from None
