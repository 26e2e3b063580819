"""Surrogates of the other outcomes of a study (constraints, further objectives): one GP ensemble
per outcome.

Glossary (shapes in comments):
    k: constraints with at least one value; n_j: rows with a value for constraint ``j``;
    p: pending points; d: input dimension.
    t_j: the feasibility threshold of constraint ``j`` on its GP scale, ``transform_j(0)``: the
        output transform is increasing, so ``c_j <= 0`` if and only if ``transform_j(c_j) <= t_j``.

Each outcome is modelled independently, as the constraints in Gardner et al., "Bayesian
optimization with inequality constraints" (ICML 2014) and Eriksson & Poloczek, "Scalable
constrained Bayesian optimization" (AISTATS 2021), and the objectives in Paria, Kandasamy &
Póczos, "A flexible framework for multi-objective Bayesian optimization using random
scalarizations" (UAI 2019): an :class:`~shared_core.models.ensemble.EnsembleGP` with the first
objective's ensemble options (kernels, random features, exact limit, refit schedule, output
warping; an outcome fitted on -1/+1 labels, a two-level constraint or the failure model, has one
kernel, :data:`LABEL_KERNELS`, and no warping), fitted on the rows that have a value for that
outcome (a constraint may be missing on some rows, or appear only in later trials). Models are
kept by outcome key (a constraint's name, an objective's index), so each is brought up to date
incrementally between refits exactly as the first objective's ensemble is.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np

from shared_core.interface import Observations
from shared_core.models.ensemble import EnsembleGP, Member
from shared_core.models.kernels import KernelSpec
from shared_core.models.surrogate import Posterior

__all__ = [
    "FAILED",
    "TWO_LEVEL_MIN_ROWS",
    "ConstraintBelief",
    "ConstraintModels",
    "OutcomeModels",
    "believed_feasible",
    "two_level_labels",
]

# The outcome key of the failure model (a name no Optuna constraint or Ax metric takes).
FAILED = "(failed)"
# A constraint is two-level once at least this many rows hold exactly two values; a graded one
# with so many rows almost never does.
TWO_LEVEL_MIN_ROWS = 5
# Labels are fitted by one Matern-5/2 ARD GP: as well calibrated as the kernel dictionary on
# labels, at about a quarter of its cost (benchmarks/feasibility_models.py).
LABEL_KERNELS = (KernelSpec("matern52", ard=True),)


@dataclass(frozen=True)
class ConstraintBelief:
    """One constraint's sampled ensemble member (conditioned on the pending points) and its
    feasibility threshold ``t_j`` on the member's scale: feasible where ``c_j <= threshold``."""

    name: str
    post: Posterior
    threshold: float


def believed_feasible(constraints: list[ConstraintBelief], believed: np.ndarray) -> np.ndarray:
    """``(p,)`` mask of the believed pending points ``(p, d)`` where every constraint's mean is
    feasible (all of them without constraints)."""
    out = np.ones(len(believed), dtype=bool)
    for c in constraints:
        out &= c.post.predict(believed)[0] <= c.threshold
    return out


def two_level_labels(values: np.ndarray) -> np.ndarray | None:
    """``(n,)`` labels of a two-level constraint's values ``(n,)``: ``-1`` where feasible
    (``<= 0``), ``+1`` where violated; ``None`` for a graded constraint (not exactly two values,
    one feasible and one violated, on at least :data:`TWO_LEVEL_MIN_ROWS` rows).

    A step such as 0/1 puts every feasible row on the threshold itself, where a regression GP
    believes them feasible with probability one half; on the labels the threshold lies between
    the levels (the comparison of this label regression with a probit classifier:
    ``benchmarks/feasibility_models.py``)."""
    levels = np.unique(values)
    if len(values) < TWO_LEVEL_MIN_ROWS or len(levels) != 2 or not levels[0] <= 0 < levels[1]:
        return None
    return np.where(values > 0, 1.0, -1.0)


class OutcomeModels:
    """One ensemble of GPs per outcome key, each with the options of ``template`` (the first
    objective's ensemble; only its options are read)."""

    def __init__(self, template: EnsembleGP) -> None:
        self._template = template.unfitted_copy()
        self.label_kernels = LABEL_KERNELS  # the kernels of an outcome fitted on labels
        self.models: dict[Hashable, EnsembleGP] = {}  # outcome key -> its ensemble
        self._offered: dict[str, Any] = {}  # str(outcome key) -> another process's state

    def states(self) -> dict[str, dict[str, Any]]:
        """Each fitted ensemble's state (:meth:`EnsembleGP.state`) without its weights, by
        ``str(key)``: the weights change with every observation and are rebuilt by eq. (9) when a
        state is adopted, so a record changes only when some outcome's model is refitted."""
        out = {}
        for key, model in self.models.items():
            state = model.state()
            if state is not None:
                out[str(key)] = {k: v for k, v in state.items() if k != "weights"}
        return out

    def offer_states(self, states: Any) -> None:
        """Keep ``states`` (another process's :meth:`states`) for the ensembles not created yet:
        each builds its first posteriors from its outcome's state instead of fitting, when the
        state matches (:meth:`EnsembleGP.offer_state`)."""
        self._offered = dict(states) if isinstance(states, dict) else {}

    def fit_outcome(
        self,
        key: Hashable,
        X: np.ndarray,
        y: np.ndarray,
        rng: np.random.Generator,
        *,
        labels: bool = False,
    ) -> EnsembleGP:
        """Bring the ensemble of ``key`` up to date with ``(X (n, d), y (n,))`` (finite values),
        creating it at its first values. ``labels``: ``y`` are -1/+1 labels, fitted without
        output warping (warped, two values are squeezed towards one side and the model is far
        worse calibrated: ``benchmarks/feasibility_models.py``)."""
        warp = self._template.warp_outputs and not labels
        kernels = tuple(self.label_kernels) if labels else self._template.kernels
        model = self.models.get(key)
        # a constraint that turns two-level (or graded again) gets a new model of the other kind
        if model is None or model.warp_outputs != warp or model.kernels != kernels:
            model = self.models[key] = self._template.unfitted_copy(kernels)
            model.warp_outputs = warp
            offered = self._offered.pop(str(key), None)
            if isinstance(offered, dict):
                model.offer_state(offered)  # a state that does not match is ignored
        model.fit(X, y, rng)
        return model

    def sampled_member(
        self, key: Hashable, rng: np.random.Generator, X_pending: np.ndarray
    ) -> Member:
        """A member ``m ~ Cat(w)`` (eq. 10 of Lu et al. 2023) of the ensemble of ``key``,
        conditioned on the pending points ``(p, d)`` by kriging believer."""
        model = self.models[key]
        return model.conditioned_on_pending(model.sample_member(rng), X_pending)


class ConstraintModels(OutcomeModels):
    """One ensemble of GPs per constraint name (:class:`OutcomeModels` keyed by name)."""

    def __init__(self, template: EnsembleGP) -> None:
        super().__init__(template)
        self.active: tuple[str, ...] = ()  # names fitted by the last fit (they have values)

    def fit(self, obs: Observations, rng: np.random.Generator) -> None:
        """Bring the ensemble of every constraint with a value in ``obs`` (cleaned: finite or NaN
        values) up to date with the rows that have a value for it, a two-level constraint's on
        its labels (:func:`two_level_labels`); constraints without any value are left out of
        :attr:`active`. With failed points (``obs.X_failed``), the outcome :data:`FAILED` too:
        ``+1`` at each failed point, ``-1`` at each completed one, feasible where ``<= 0``."""
        assert obs.constraints is not None  # Observations fills it
        active = []
        for j, name in enumerate(obs.constraint_names):
            rows = ~np.isnan(obs.constraints[:, j])  # (n,)
            if not rows.any():
                continue
            values = obs.constraints[rows, j]  # (n_j,)
            labels = two_level_labels(values)
            if labels is None:
                self.fit_outcome(name, obs.X[rows], values, rng)
            else:
                self.fit_outcome(name, obs.X[rows], labels, rng, labels=True)
            active.append(name)
        if obs.n_failed and len(obs.y):
            X = np.vstack([obs.X, obs.X_failed])  # (n + f, d)
            labels = np.concatenate([np.full(len(obs.y), -1.0), np.ones(obs.n_failed)])
            self.fit_outcome(FAILED, X, labels, rng, labels=True)
            active.append(FAILED)
        self.active = tuple(active)

    def threshold(self, name: str) -> float:
        """``t_j = transform_j(0)``: the constraint's feasibility threshold on its GP scale."""
        return float(self.models[name].y_std(np.zeros(1))[0])

    def sampled_members(
        self, rng: np.random.Generator, X_pending: np.ndarray
    ) -> list[ConstraintBelief]:
        """Per active constraint, a member ``m_j ~ Cat(w_j)`` (eq. 10 of Lu et al. 2023)
        conditioned on the pending points ``(p, d)`` by kriging believer."""
        return [
            ConstraintBelief(
                name, self.sampled_member(name, rng, X_pending).post, self.threshold(name)
            )
            for name in self.active
        ]
