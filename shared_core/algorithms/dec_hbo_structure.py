"""DEC-HBO's structure samples and their hyperparameters on one data set (Hoang, Hoang, Ouyang &
Low, AAAI 2018, Appendix B): one fit of a full GP and of one or two start partitions, one Cholesky
factorisation per proposal of the chain, and at most ``MAX_REBASES`` short warm refits besides.

The chain (:func:`~shared_core.models.structure.sample_partitions`) starts at the partition of
the strongest interactions in a full GP's mean
(:func:`~shared_core.models.interactions.interaction_partition`), or at the last refit's
partition where that has the higher evidence (both fitted; the last one warm from its previous fit
too, which favours it a little). That start's hyperparameters are fitted; every
proposal is then scored at them (the same lengthscales and noise, each group's signal variance
inherited from the groups its parameters come from:
:func:`~shared_core.models.structure.inherited_amplitudes`),
as Wang, Li, Jegelka & Kohli, "Batched high-dimensional Bayesian optimization via structural
kernel learning" (ICML 2017) score decompositions at fixed hyperparameters. Only the partitions
the chain returns get fits of their own. A partition inheriting hyperparameters (an accepted
state, a sample) is fitted warm from them (``WARM_MAXITER`` iterations); one fitted at an earlier
refit, warm from that fit, unless ``full`` (the refits where the structure is sampled anew), when
it is fitted from the prior mode too (``FIT_MAXITER``), as is a partition with neither.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from shared_core.models.additive import AdditiveHyper, EvidenceAtFixedHyper, additive_log_evidence
from shared_core.models.interactions import interaction_partition, interaction_strengths
from shared_core.models.structure import (
    Partition,
    inherited_amplitudes,
    partition_columns,
    sample_partitions,
)

__all__ = ["StructureFitter"]

FIT_MAXITER = 200  # L-BFGS-B iterations of a fit without a start of its own
WARM_MAXITER = 10  # and of a refit from the hyperparameters a partition has or inherits
MAX_REBASES = 20  # accepted states refitted per chain; later proposals keep the last fit's


class StructureFitter:
    """Fits and samples partitions of the parameters on ``(X (n, d), y (n,))``.

    Args:
        param_columns: each parameter's encoded columns.
        X, y: the data the hyperparameters are fitted on (``y`` transformed).
        form: the factors' kernel form.
        previous: hyperparameters of partitions fitted at the last refit (warm starts).
        full: fit a partition that inherits nothing from the prior mode too, ``FIT_MAXITER``
            iterations (at the refits where the structure is sampled anew, so that a fit stuck
            in a poor optimum since the first trials gets out), else warm.
        noise: a fixed noise variance (a deterministic objective), else None (fitted).
    """

    def __init__(
        self,
        param_columns: list[np.ndarray],
        X: np.ndarray,
        y: np.ndarray,
        form: str,
        previous: Mapping[Partition, AdditiveHyper],
        *,
        full: bool = False,
        noise: float | None = None,
    ) -> None:
        self.param_columns, self.X, self.y, self.form = param_columns, X, y, form
        self.previous, self.full, self.noise = previous, full, noise
        self.fits: dict[Partition, AdditiveHyper] = {}
        self.evidences: dict[Partition, float] = {}  # of the fits

    def fit(self, partition: Partition, inherited: AdditiveHyper | None = None) -> AdditiveHyper:
        """MAP hyperparameters of ``partition`` (cached): from ``inherited`` if given, else from
        its previous fit (and the prior mode if ``full``), else from the prior mode."""
        if partition not in self.fits:
            start = inherited if inherited is not None else self.previous.get(partition)
            warm = start is not None and (inherited is not None or not self.full)
            self.fits[partition], self.evidences[partition] = additive_log_evidence(
                partition_columns(partition, self.param_columns),
                self.X,
                self.y,
                form=self.form,
                start=start,
                maxiter=WARM_MAXITER if warm else FIT_MAXITER,
                from_prior=not warm,
                noise=self.noise,
            )
        return self.fits[partition]

    def sample(
        self,
        max_size: int,
        k: int,
        steps: int,
        start: Partition | None,
        rng: np.random.Generator,
    ) -> list[Partition]:
        """``k`` structure samples of the chain from the interaction partition or ``start``,
        whichever has the higher evidence (module docstring), each fitted."""
        n_params = len(self.param_columns)
        strength = interaction_strengths(  # (p, p)
            self.X, self.y, self.param_columns, rng, noise=self.noise
        )
        starts = [interaction_partition(strength, max_size)] + ([start] if start else [])
        for candidate in starts:
            self.fit(candidate)
        start = max(starts, key=lambda p: np.nan_to_num(self.evidences[p], nan=-np.inf))
        state, base, rebases = start, self.fit(start), 0
        scores: dict[Partition, float] = {}
        score = EvidenceAtFixedHyper(self.X, self.y, base.ls, base.noise, form=self.form)

        def inherit(partition: Partition) -> AdditiveHyper:
            amps = inherited_amplitudes(base.amps, state, partition)
            return AdditiveHyper(base.ls, amps, base.noise)

        def evidence(partition: Partition) -> float:
            if partition not in scores:
                columns = partition_columns(partition, self.param_columns)
                scores[partition] = score(columns, inherit(partition).amps)
            return scores[partition]

        def rebase(accepted: Partition) -> float:
            """Refit warm at the accepted state (the first ``MAX_REBASES``); later proposals
            inherit from it."""
            nonlocal state, base, score, rebases
            if rebases == MAX_REBASES:
                return evidence(accepted)
            rebases += 1
            base = self.fit(accepted, inherit(accepted))
            state = accepted
            score = EvidenceAtFixedHyper(self.X, self.y, base.ls, base.noise, form=self.form)
            scores.clear()
            return evidence(accepted)

        samples = sample_partitions(
            n_params, max_size, evidence, rng, k=k, steps=steps, start=start, on_accept=rebase
        )
        for partition in dict.fromkeys(samples):  # in the chain's order, for reproducibility
            self.fit(partition, inherit(partition))
        return samples
