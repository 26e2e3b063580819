"""Surrogates of the constraint functions of a study: one GP ensemble per constraint.

Glossary (shapes in comments):
    k: constraints with at least one value; n_j: rows with a value for constraint ``j``;
    p: pending points; d: input dimension.
    t_j: the feasibility threshold of constraint ``j`` on its GP scale, ``transform_j(0)``: the
        output transform is increasing, so ``c_j <= 0`` if and only if ``transform_j(c_j) <= t_j``.

Each constraint is modelled independently, as in Gardner et al., "Bayesian optimization with
inequality constraints" (ICML 2014) and Eriksson & Poloczek, "Scalable constrained Bayesian
optimization" (AISTATS 2021): an :class:`~shared_core.models.ensemble.EnsembleGP` with the
objective ensemble's options (kernels, random features, exact limit, refit schedule, output
warping), fitted on the rows that have a value for that constraint (a constraint may be missing on
some rows, or appear only in later trials). Models are kept by constraint name, so each is brought
up to date incrementally between refits exactly as the objective's ensemble is.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from shared_core.interface import Observations
from shared_core.models.ensemble import EnsembleGP
from shared_core.models.surrogate import Posterior

__all__ = ["ConstraintBelief", "ConstraintModels"]


@dataclass(frozen=True)
class ConstraintBelief:
    """One constraint's sampled ensemble member (conditioned on the pending points) and its
    feasibility threshold ``t_j`` on the member's scale: feasible where ``c_j <= threshold``."""

    name: str
    post: Posterior
    threshold: float


class ConstraintModels:
    """One ensemble of GPs per constraint name, each with the options of ``template`` (the
    objective's ensemble; only its options are read)."""

    def __init__(self, template: EnsembleGP) -> None:
        self._template = template.unfitted_copy()
        self.models: dict[str, EnsembleGP] = {}  # constraint name -> its ensemble
        self.active: tuple[str, ...] = ()  # names fitted by the last fit (they have values)

    def fit(self, obs: Observations, rng: np.random.Generator) -> None:
        """Bring the ensemble of every constraint with a value in ``obs`` (cleaned: finite or NaN
        values) up to date with the rows that have a value for it; constraints without any value
        are left out of :attr:`active`."""
        assert obs.constraints is not None  # Observations fills it
        active = []
        for j, name in enumerate(obs.constraint_names):
            rows = ~np.isnan(obs.constraints[:, j])  # (n,)
            if not rows.any():
                continue
            model = self.models.get(name)
            if model is None:
                model = self.models[name] = self._template.unfitted_copy()
            model.fit(obs.X[rows], obs.constraints[rows, j], rng)
            active.append(name)
        self.active = tuple(active)

    def threshold(self, name: str) -> float:
        """``t_j = transform_j(0)``: the constraint's feasibility threshold on its GP scale."""
        return float(self.models[name].y_std(np.zeros(1))[0])

    def sampled_members(
        self, rng: np.random.Generator, X_pending: np.ndarray
    ) -> list[ConstraintBelief]:
        """Per active constraint, a member ``m_j ~ Cat(w_j)`` (eq. 10 of Lu et al. 2023)
        conditioned on the pending points ``(p, d)`` by kriging believer."""
        out = []
        for name in self.active:
            model = self.models[name]
            member = model.conditioned_on_pending(model.sample_member(rng), X_pending)
            out.append(ConstraintBelief(name, member.post, self.threshold(name)))
        return out
