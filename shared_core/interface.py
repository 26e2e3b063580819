"""The one interface between framework adapters and algorithms.

An adapter (Optuna sampler, Ax node) turns its trials into :class:`Observations` on a
:class:`~shared_core.search_space.SearchSpace` and calls ``algorithm.suggest``; it turns the
returned encoded rows back into parameters with ``space.decode``. Algorithms never see a framework
object.

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
    * ``rng``: the caller's ``numpy.random.Generator``; algorithms draw every random number from it.

The contract, in one place. Every algorithm is an :class:`Algorithm` (``suggest``). Optional
capabilities are the runtime-checkable protocols below; an adapter tests
``isinstance(algorithm, P)`` and uses the capability only then:

* :class:`SharesModelState`: its fitted model can be recorded in the study and adopted by a new
  worker (``model_state``, ``wants_model_state``, ``offer_model_state``)
* :class:`ReadsSources`: it is given each row's source label (``Observations.source``), read
  from the trial attribute ``source_attribute``
* :class:`ModelsConstraints`: it uses ``Observations.constraints`` (``models_constraints`` is
  True); an adapter refuses or warns about a constrained study given another algorithm
* :class:`MultiObjective`: it models several objectives (``multi_objective`` is True); adapters
  refuse a study with several objectives, before its first trial, for any other algorithm
* :class:`MultiAgent`: one agent of several (distributed TS; also :class:`ReadsSources`): it
  learns from the trials of some sources only (``known_sources``), names the agent whose records
  it adopts (``model_source``), reports what it conditioned on (``last_view``), and an adapter
  that serves every agent may switch ``agent_id`` between suggestions (``n_agents`` of them)

A new algorithm is a class with ``suggest`` (usually a :class:`OneAtATimeAlgorithm`) and a line in
:mod:`shared_core.registry`; both adapters then serve it with no code of their own.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, cast, runtime_checkable

import numpy as np

from shared_core.pareto import dominance_ranks
from shared_core.search_space import SearchSpace

__all__ = [
    "CAPABILITY_MEMBERS",
    "UNKNOWN_SOURCE",
    "Observations",
    "Algorithm",
    "ModelsConstraints",
    "MultiAgent",
    "MultiObjective",
    "OneAtATimeAlgorithm",
    "ReadsSources",
    "SharesModelState",
    "check_capabilities",
    "clean_targets",
    "models_constraints",
    "multi_objective",
]


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
    every value a point has is ``<= 0``. Every filtering step (:meth:`cleaned`, :meth:`subset`,
    :meth:`with_pending`) keeps sources and constraint values aligned with their rows.
    """

    X: np.ndarray  # (n, d)
    y: np.ndarray  # (n,), or (n, m) with m >= 2 objectives
    X_pending: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))  # (p, d)
    source: np.ndarray | None = None  # (n,) int
    pending_source: np.ndarray | None = None  # (p,) int
    constraints: np.ndarray | None = None  # (n, k), NaN where a point has no value
    constraint_names: tuple[str, ...] = ()  # (k,)
    reference_point: np.ndarray | None = None  # (m,) minimised scale, NaN where not given

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
        if len(X) != len(y):
            raise ValueError(f"X has {len(X)} rows but y has {len(y)} values")
        if X.ndim == 2 and X.shape[1] and pending.size and pending.shape[1] != X.shape[1]:
            raise ValueError(f"X_pending has {pending.shape[1]} columns but X has {X.shape[1]}")
        object.__setattr__(self, "X", X.reshape(len(y), d))
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "X_pending", pending)
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
        return replace(
            self,
            X=self.X[rows],
            y=self.y[rows],
            source=self.source[rows],
            constraints=self.constraints[rows],
        )

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


@runtime_checkable
class Algorithm(Protocol):
    """Anything with this method can be wrapped by the Optuna sampler and the Ax node (optional
    capabilities: :class:`SharesModelState`, :class:`MultiAgent`)."""

    def suggest(
        self, space: SearchSpace, obs: Observations, n_suggestions: int, rng: np.random.Generator
    ) -> np.ndarray:
        """Return ``(n_suggestions, space.dim)`` encoded
        candidates that ``space.decode`` accepts."""
        ...


@runtime_checkable
class SharesModelState(Protocol):
    """An algorithm whose fitted model can be shared between workers of one study: the
    adapter records ``model_state()`` with each suggestion and offers the newest record to a
    worker that has no model."""

    def model_state(self) -> dict[str, Any] | None:
        """The fitted model as JSON values (``"weights"``, if present, is recorded with every
        suggestion, the rest only when it changed); None before a fit."""
        ...

    def wants_model_state(self) -> bool:
        """Whether a recorded state would be used now (no model fitted yet, none offered)."""
        ...

    def offer_model_state(self, state: dict[str, Any]) -> bool:
        """Adopt ``state`` (another worker's :meth:`model_state`);
        False if it does not fit (kept nothing)."""
        ...


@runtime_checkable
class ReadsSources(Protocol):
    """An algorithm that is given each row's source: adapters fill ``Observations.source`` and
    ``pending_source`` from the trial attribute ``source_attribute`` (``-1`` where a trial has
    none)."""

    source_attribute: str  # the trial attribute holding each trial's source (e.g. its agent)


@runtime_checkable
class MultiAgent(ReadsSources, Protocol):
    """One agent of several, each learning from some sources only (distributed Thompson sampling).

    Adapters may leave out rows whose source is not in ``known_sources()`` before encoding them (the
    algorithm must not rely on it).
    """

    # the agent that suggests; an adapter serving every agent may set it between calls
    agent_id: int
    # what the last suggestion conditioned on (JSON values), for records
    last_view: dict[str, Any] | None

    @property
    def n_agents(self) -> int:
        """Number of agents."""
        ...

    @property
    def model_source(self) -> int:
        """The source whose recorded model states this agent may adopt
        (:class:`SharesModelState`)."""
        ...

    def known_sources(self) -> frozenset[int]:
        """The sources the current agent may learn from (always including ``UNKNOWN_SOURCE``)."""
        ...


@runtime_checkable
class ModelsConstraints(Protocol):
    """An algorithm that models ``Observations.constraints``: its suggestions aim at the feasible
    region (feasible: every constraint value ``<= 0``). Adapters give other algorithms a
    constrained study only with a warning (Optuna) or refuse it (Ax)."""

    models_constraints: bool  # True if constraint values steer the suggestions


def models_constraints(algorithm: object) -> bool:
    """Whether ``algorithm`` uses constraint values (:class:`ModelsConstraints`)."""
    return isinstance(algorithm, ModelsConstraints) and bool(algorithm.models_constraints)


@runtime_checkable
class MultiObjective(Protocol):
    """An algorithm that models several objectives: given ``Observations.y`` ``(n, m)`` with
    ``m >= 2``, its suggestions aim at the Pareto front (with ``reference_point`` where given).
    Adapters refuse a study with several objectives for other algorithms, before its first
    trial."""

    multi_objective: bool  # True if it accepts y of shape (n, m), m >= 2


def multi_objective(algorithm: object) -> bool:
    """Whether ``algorithm`` models several objectives (:class:`MultiObjective`)."""
    return isinstance(algorithm, MultiObjective) and bool(algorithm.multi_objective)


# The members of each capability (MultiAgent's besides ReadsSources'), for check_capabilities.
CAPABILITY_MEMBERS: dict[type, tuple[str, ...]] = {
    SharesModelState: ("model_state", "wants_model_state", "offer_model_state"),
    MultiAgent: ("known_sources", "agent_id", "n_agents", "model_source", "last_view"),
}


def check_capabilities(algorithm: object) -> None:
    """Raise ``ValueError`` if ``algorithm`` has some members of a capability but is not an instance
    of it (a member missing, or provided only through ``__getattr__``, which ``isinstance`` does not
    see from Python 3.12 on): an adapter would otherwise ignore the capability without a word."""
    for protocol, members in CAPABILITY_MEMBERS.items():
        present = [m for m in members if hasattr(algorithm, m)]
        if present and not isinstance(algorithm, protocol):
            wanted = members + (("source_attribute",) if protocol is MultiAgent else ())
            missing = [m for m in wanted if not hasattr(algorithm, m)]
            raise ValueError(
                f"{type(algorithm).__name__} has {present} of the {protocol.__name__} capability "
                f"(shared_core.interface) but "
                + (f"not {missing}" if missing else "not as class members (isinstance fails)")
                + ": implement all of its members, or none"
            )


def clean_targets(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(X, y)`` of :meth:`Observations.cleaned`: NaN rows dropped, infinities clipped."""
    obs = Observations(X, y).cleaned()
    return obs.X, obs.y


class OneAtATimeAlgorithm:
    """Base of algorithms that build ``n`` suggestions one
    at a time, each seeing the earlier ones as pending.

    ``suggest`` cleans the observations, falls back to random points without data, then under a lock
    (the model is shared by threads) calls ``_prepare`` once and ``_suggest_one`` per suggestion,
    adding each new point to the pending points. Subclasses implement:

    * ``_prepare(space, obs, rng) -> context``: bring the model up to date with the (clean)
      observations;
    * ``_suggest_one(space, obs, context, rng) -> (d,)``: one valid encoded point; ``obs.X_pending``
      holds the running trials and the earlier suggestions of this call.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def suggest(
        self, space: SearchSpace, obs: Observations, n_suggestions: int, rng: np.random.Generator
    ) -> np.ndarray:
        obs = obs.cleaned()
        if len(obs.y) == 0 or space.dim == 0:
            return space.sample(rng, n_suggestions, low_discrepancy=False)
        with self._lock:
            context = self._prepare(space, obs, rng)
            out = []
            for _ in range(n_suggestions):
                x = self._suggest_one(space, obs, context, rng)
                out.append(x)
                obs = obs.with_pending(x[None])
        return np.stack(out)

    def _prepare(self, space: SearchSpace, obs: Observations, rng: np.random.Generator) -> Any:
        raise NotImplementedError

    def _suggest_one(
        self, space: SearchSpace, obs: Observations, context: Any, rng: np.random.Generator
    ) -> np.ndarray:
        raise NotImplementedError
