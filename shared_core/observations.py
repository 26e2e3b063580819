"""The data an algorithm is given: :class:`Observations`, the completed points, their values and
constraint values, the points of trials still running, and where each row came from.

Conventions:
    * ``X``: ``(n, d)`` encoded completed points; ``y``: ``(n,)`` objective values to be
      **minimised** (adapters negate maximised objectives), or ``(n, m)`` for ``m >= 2``
      objectives, each minimised (:attr:`Observations.Y` is always ``(n, m)``). ``y`` may hold
      ``+inf``/``-inf``; :meth:`Observations.cleaned` maps them to the worst/best finite value of
      their objective and drops rows with a NaN value.
    * ``reference_point``: ``(m,)`` hypervolume reference point of several objectives on their
      minimised scales (Ax's objective thresholds); NaN or None where it is not given, and the
      algorithm infers it (:func:`shared_core.pareto.infer_reference_point`).
    * ``X_pending``: ``(p, d)`` encoded points of trials still running (or already suggested in
      the same batch); algorithms should keep new suggestions away from them.
    * ``constraints``: ``(n, k)`` constraint values of the completed points, one column per name in
      ``constraint_names``; a point is feasible when every value it has is ``<= 0`` (Optuna's
      rule, so a point with no constraint values is feasible); NaN means the point has no value
      for that constraint.
    * ``repeatable``: ``(n,)`` flags of completed points that a new trial may take again: the
      trial set parameters the encoding leaves out (e.g. those of a branch of a conditional space
      too rare to be modelled yet), so a new trial at the same encoded point is another
      configuration. Algorithms avoid the others, :attr:`Observations.X_seen`, and fit their
      models to the best of the repeatable rows at each point alone
      (:meth:`Observations.best_of_repeats`).
    * ``X_failed``: ``(f, d)`` encoded points of trials that failed there (the objective raised or
      returned no value; not a worker that died): no value, infeasible. Algorithms that model
      constraints learn where points fail from them (:attr:`Observations.n_failed`); every
      algorithm keeps off them (:attr:`Observations.X_avoid`).
    * ``source``, ``pending_source``: ``(n,)`` and ``(p,)`` integer labels of where each row came
      from (for distributed Thompson sampling: the agent that ran the trial); ``-1``
      (:data:`UNKNOWN_SOURCE`) where unknown.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import cast

import numpy as np

from shared_core.pareto import dominance_ranks

__all__ = ["UNKNOWN_SOURCE", "Observations", "clean_targets"]


UNKNOWN_SOURCE = -1
"""The source label of a row whose source is unknown (the default of every row)."""


@dataclass(frozen=True)
class Observations:
    """Completed points, their values (minimised) and constraint values, the points of trials
    still running, and where each row came from.

    ``y`` is ``(n,)`` with one objective and ``(n, m)`` with ``m >= 2`` (a ``(n, 1)`` array is
    flattened); :attr:`Y` is ``(n, m)`` in both cases. ``reference_point`` ``(m,)`` is the
    hypervolume reference point of several objectives (NaN entries, or None: not given).

    ``source`` ``(n,)`` and ``pending_source`` ``(p,)`` are integer labels the adapter supplies (for
    distributed Thompson sampling: the agent that ran the trial); ``-1`` (:data:`UNKNOWN_SOURCE`)
    means unknown, and is the default. ``constraints`` ``(n, k)`` holds the value of constraint
    ``constraint_names[j]`` in column ``j`` (NaN: the point has no value for it); feasible means
    every value a point has is ``<= 0``. ``repeatable`` ``(n,)`` flags the completed points a new
    suggestion may take again (:attr:`X_seen`: the others). Every filtering step (:meth:`cleaned`,
    :meth:`subset`, :meth:`with_pending`) keeps sources, constraint values and flags aligned with
    their rows.
    """

    X: np.ndarray  # (n, d)
    y: np.ndarray  # (n,), or (n, m) with m >= 2 objectives
    X_pending: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))  # (p, d)
    source: np.ndarray | None = None  # (n,) int
    pending_source: np.ndarray | None = None  # (p,) int
    constraints: np.ndarray | None = None  # (n, k), NaN where a point has no value
    constraint_names: tuple[str, ...] = ()  # (k,)
    reference_point: np.ndarray | None = None  # (m,) minimised scale, NaN where not given
    repeatable: np.ndarray | None = None  # (n,) bool, default all False
    X_failed: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))  # (f, d)

    def __post_init__(self) -> None:
        y = _objective_values(self.y)
        X = np.asarray(self.X, dtype=np.float64)
        X = X.reshape(len(y), -1) if X.ndim != 2 and len(y) else X  # a flat X of n rows
        pending = np.asarray(self.X_pending, dtype=np.float64)
        if pending.ndim == 1 and pending.size:  # one pending point
            pending = pending[None]
        d = next(
            (a.shape[1] for a in (X, pending) if a.ndim == 2 and a.size),
            X.shape[-1] if X.ndim == 2 else 0,
        )
        pending = pending if pending.size else np.zeros((0, d))
        failed = np.asarray(self.X_failed, dtype=np.float64)
        failed = failed[None] if failed.ndim == 1 and failed.size else failed  # one failed point
        if failed.size and (failed.ndim != 2 or failed.shape[1] != d):
            raise ValueError(f"X_failed must have shape (f, {d}), got {failed.shape}")
        failed = failed if failed.size else np.zeros((0, d))
        if len(X) != len(y):
            raise ValueError(f"X has {len(X)} rows but y has {len(y)} values")
        if X.ndim == 2 and X.shape[1] and pending.size and pending.shape[1] != X.shape[1]:
            raise ValueError(f"X_pending has {pending.shape[1]} columns but X has {X.shape[1]}")
        object.__setattr__(self, "X", X.reshape(len(y), d))
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "X_pending", pending)
        object.__setattr__(self, "X_failed", failed)
        object.__setattr__(self, "source", _labels(self.source, len(y), "source"))
        object.__setattr__(
            self, "pending_source", _labels(self.pending_source, len(pending), "pending_source")
        )
        names = tuple(self.constraint_names)
        object.__setattr__(self, "constraint_names", names)
        object.__setattr__(self, "constraints", _constraint_matrix(self.constraints, len(y), names))
        object.__setattr__(
            self, "reference_point", _reference_point(self.reference_point, self.n_objectives)
        )
        repeatable = np.zeros(len(y), dtype=bool) if self.repeatable is None else self.repeatable
        repeatable = np.asarray(repeatable, dtype=bool).reshape(-1)
        if len(repeatable) != len(y):
            raise ValueError(f"repeatable has {len(repeatable)} flags but y has {len(y)} values")
        object.__setattr__(self, "repeatable", repeatable)

    @property
    def X_seen(self) -> np.ndarray:
        """``(n', d)``: the completed points a suggestion should not repeat (not
        :attr:`repeatable`)."""
        assert self.repeatable is not None  # __post_init__ fills it
        return cast(np.ndarray, self.X[~self.repeatable])

    @property
    def X_avoid(self) -> np.ndarray:
        """``(k, d)``: the points a suggestion keeps off, :attr:`X_seen`, and the failed and the
        pending points but those at a repeatable point (a running or failed trial there is one of
        its many configurations)."""
        assert self.repeatable is not None  # __post_init__ fills it
        repeatable = {row.tobytes() for row in np.round(self.X[self.repeatable], 9) + 0.0}

        def off_repeatable(rows: np.ndarray) -> np.ndarray:  # (k, d) -> (k', d)
            kept = [row.tobytes() not in repeatable for row in np.round(rows, 9) + 0.0]
            return cast(np.ndarray, rows[np.array(kept, dtype=bool)])

        pending = self.X_pending.reshape(-1, self.X.shape[1])  # (p, d)
        return np.vstack([off_repeatable(pending), self.X_seen, off_repeatable(self.X_failed)])

    @property
    def Y(self) -> np.ndarray:
        """``(n, m)`` objective values (minimised), also for one objective (``m = 1``)."""
        return self.y if self.y.ndim == 2 else self.y[:, None]

    @property
    def n_objectives(self) -> int:
        return 1 if self.y.ndim == 1 else int(self.y.shape[1])

    @property
    def n_constraints(self) -> int:
        return len(self.constraint_names)

    @property
    def n_failed(self) -> int:
        """The number of failed points (:attr:`X_failed`)."""
        return len(self.X_failed)

    @property
    def models_feasibility(self) -> bool:
        """Whether there is anything to learn feasibility from: constraint values or failed
        points."""
        return self.n_constraints > 0 or self.n_failed > 0

    @property
    def feasible(self) -> np.ndarray:
        """``(n,)`` mask: every constraint value the point has is ``<= 0`` (no value: feasible)."""
        assert self.constraints is not None  # __post_init__ fills it
        return cast(np.ndarray, ~np.any(self.constraints > 0.0, axis=1))  # NaN > 0 is False

    @property
    def violation(self) -> np.ndarray:
        """``(n,)`` total violation ``sum_j max(c_j, 0)`` (missing values count 0)."""
        assert self.constraints is not None  # __post_init__ fills it
        return cast(
            np.ndarray, np.sum(np.maximum(np.nan_to_num(self.constraints, nan=0.0), 0.0), axis=1)
        )

    def best_first(self) -> np.ndarray:
        """``(n,)`` row indices, best first: feasible rows by value, then infeasible rows by total
        violation (ties by value). With several objectives "by value" means by non-dominated
        sorting rank among the feasible rows (:func:`~shared_core.pareto.dominance_ranks`), ties
        by the sum of the row's ranks in each objective."""
        feasible = self.feasible
        key = np.where(feasible, 0.0, 1.0)
        violation = np.where(feasible, 0.0, self.violation)
        if self.n_objectives == 1:
            return cast(np.ndarray, np.lexsort((self.y, violation, key)))
        front_rank = np.zeros(len(self.y))  # (n,) infeasible rows: only their violation counts
        front_rank[feasible] = dominance_ranks(self.Y[feasible])
        column_ranks = np.argsort(np.argsort(self.Y, axis=0), axis=0).sum(axis=1)  # (n,)
        return cast(np.ndarray, np.lexsort((column_ranks, front_rank, violation, key)))

    def subset(self, rows: np.ndarray) -> Observations:
        """The completed rows selected by ``rows`` (a
        boolean mask or indices), pending points kept."""
        assert self.source is not None and self.constraints is not None  # __post_init__ fills them
        assert self.repeatable is not None
        return replace(
            self,
            X=self.X[rows],
            y=self.y[rows],
            source=self.source[rows],
            constraints=self.constraints[rows],
            repeatable=self.repeatable[rows],
        )

    def best_of_repeats(self) -> Observations:
        """Of the :attr:`repeatable` rows at one encoded point, the best (:meth:`best_first`)
        alone; the other rows kept. Such a point stands for many configurations (e.g. a
        conditional branch whose parameters are not modelled yet): a model fitted to every row
        would value it at their average, this one at the best configuration found there."""
        assert self.repeatable is not None  # __post_init__ fills it
        if self.repeatable.sum() < 2:
            return self
        keep = ~self.repeatable
        seen: set[bytes] = set()
        for i in self.best_first():
            if self.repeatable[i]:
                key = (np.round(self.X[i], 9) + 0.0).tobytes()
                keep[i] = key not in seen
                seen.add(key)
        return self if keep.all() else self.subset(keep)

    def cleaned(self) -> Observations:
        """Rows with a NaN objective value dropped; ``+inf`` clipped to the worst and ``-inf`` to
        the best finite value (of the same objective).

        If no value is finite, infinite values become ``+1`` (inf) and ``-1`` (-inf) so that their
        order is kept. Infinite constraint values are clipped the same way per constraint, but
        never across 0: ``+inf`` stays infeasible and ``-inf`` feasible (:func:`_clip_infinities`).
        NaN constraint values stay missing.
        """
        out = self.subset(~np.isnan(self.Y).any(axis=1))
        assert out.constraints is not None  # __post_init__ fills it
        constraints = out.constraints.copy()
        for j in range(constraints.shape[1]):
            constraints[:, j] = _clip_infinities(constraints[:, j], keep_sign=True)
        Y = np.stack([_clip_infinities(column) for column in out.Y.T], axis=1)  # (n, m)
        return replace(out, y=Y if out.y.ndim == 2 else Y[:, 0], constraints=constraints)

    def with_pending(
        self, X_new: np.ndarray, source: int | np.ndarray = UNKNOWN_SOURCE
    ) -> Observations:
        """More pending points ``X_new`` ``(k, d)`` (e.g. earlier suggestions of the same batch)."""
        X_new = np.atleast_2d(np.asarray(X_new, dtype=np.float64))
        pending = np.vstack([self.X_pending.reshape(-1, X_new.shape[1]), X_new])
        sources = np.concatenate([self.pending_source, np.broadcast_to(source, len(X_new))])
        return replace(self, X_pending=pending, pending_source=sources)


def _clip_infinities(values: np.ndarray, keep_sign: bool = False) -> np.ndarray:
    """``values`` ``(n,)`` with ``+inf`` set to the largest and ``-inf`` to the smallest finite
    value (``+1``/``-1`` if none is finite; NaN kept). ``keep_sign``: ``+inf`` stays positive and
    ``-inf`` negative (a constraint's sign decides feasibility): where the largest finite value is
    not positive, ``+inf`` becomes the largest finite magnitude (``1`` if that is 0), and likewise
    for ``-inf``."""
    out = values.copy()
    finite = values[np.isfinite(values)]
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (-1.0, 1.0)
    if keep_sign:
        magnitude = float(np.max(np.abs(finite), initial=0.0)) or 1.0
        hi = hi if hi > 0 else magnitude
        lo = lo if lo < 0 else -magnitude
    out[out == np.inf] = hi
    out[out == -np.inf] = lo
    return cast(np.ndarray, out)


def _objective_values(values: np.ndarray) -> np.ndarray:
    """``(n,)`` float64 values of one objective, or ``(n, m)`` of ``m >= 2``."""
    y = np.asarray(values, dtype=np.float64)
    if y.ndim == 2 and y.shape[1] >= 2:
        return y
    if y.ndim == 2 and y.shape[1] == 0:
        raise ValueError(f"y must have at least one objective column, got shape {y.shape}")
    if y.ndim > 2:
        raise ValueError(f"y must have shape (n,) or (n, m), got {y.shape}")
    return y.reshape(-1)


def _reference_point(point: np.ndarray | None, m: int) -> np.ndarray | None:
    """``(m,)`` float64 reference point (NaN: not given), or None."""
    if point is None:
        return None
    out = np.asarray(point, dtype=np.float64).reshape(-1)
    if out.shape != (m,) or np.isinf(out).any():
        raise ValueError(
            f"reference_point must be {m} finite values or NaN (one per objective), got {point!r}"
        )
    return out


def _constraint_matrix(values: np.ndarray | None, n: int, names: tuple[str, ...]) -> np.ndarray:
    """``(n, k)`` float64 constraint values, checked against the ``k`` names."""
    if len(set(names)) != len(names) or not all(isinstance(name, str) for name in names):
        raise ValueError(f"constraint_names must be distinct strings, got {names!r}")
    if values is None:
        if names:
            raise ValueError(f"constraint_names {names!r} given without constraints")
        return np.zeros((n, 0))
    out = np.asarray(values, dtype=np.float64)
    if out.shape != (n, len(names)):
        raise ValueError(
            f"constraints must have shape {(n, len(names))} (points, constraint_names), "
            f"got {out.shape}"
        )
    return out


def _labels(labels: np.ndarray | None, n: int, name: str) -> np.ndarray:
    """``(n,)`` int64 labels, ``-1`` where not given."""
    if labels is None:
        return np.full(n, UNKNOWN_SOURCE, dtype=np.int64)
    out = np.asarray(labels)
    if out.shape != (n,) or (out.size and not np.issubdtype(out.dtype, np.integer)):
        raise ValueError(f"{name} must be {n} integers, got {labels!r}")
    return out.astype(np.int64)


def clean_targets(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(X, y)`` of :meth:`Observations.cleaned`: NaN rows dropped, infinities clipped."""
    obs = Observations(X, y).cleaned()
    return obs.X, obs.y
