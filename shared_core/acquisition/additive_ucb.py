"""The additive GP-UCB of DEC-HBO (Hoang, Hoang, Ouyang & Low, "Decentralized high-dimensional
Bayesian optimization with factor graphs", AAAI 2018, eq. 2 and, over structure samples, eq. 5).

For minimisation, each factor ``g`` of a structure sample ``s`` contributes the local acquisition
``phi_g(x_g) = -mu_g(x_g) + beta^1/2 sigma_g(x_g)`` (eq. 2 on ``-f``), with ``mu_g``, ``sigma_g^2``
the factor's posterior mean and variance (eq. 1): a sum of per-factor standard deviations, not the
standard deviation of the sum. Eq. (5) averages the sums of ``k`` structure samples, so every term
carries the weight ``1/k``. A term depends on its factor's columns only, which is what lets max-sum
maximise the sum on per-factor grids.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np

from shared_core.acquisition.base import Acquisition
from shared_core.models.additive import AdditivePosterior

__all__ = ["AdditiveUCB", "UCBTerm", "paper_beta"]


def paper_beta(log_domain_size: float, n_factors: int, t: int, delta: float) -> float:
    """``beta_t = 2 log(|D_t| |U| pi^2 t^2 / (6 delta))`` (Lemma 4, Appendix E), from
    ``log |D_t|`` (the log of the number of points of the discretised domain)."""
    return 2.0 * (
        log_domain_size + math.log(n_factors) + math.log(math.pi**2 * t**2 / (6.0 * delta))
    )


@dataclass(frozen=True)
class UCBTerm:
    """Factor ``group`` of ``posterior`` (one structure sample), on encoded ``columns``, with
    ``weight`` (``1/k`` of eq. 5)."""

    posterior: AdditivePosterior
    group: int
    columns: np.ndarray  # (|g|,) encoded columns of the factor
    weight: float


class AdditiveUCB(Acquisition):
    """``sum_terms weight * (-mu_g + sqrt_beta * sigma_g)`` (eq. 2 and 5; module docstring)."""

    def __init__(self, terms: Sequence[UCBTerm], sqrt_beta: float) -> None:
        self.terms, self.sqrt_beta = tuple(terms), float(sqrt_beta)
        batches: dict[int, list[int]] = {}  # terms of one posterior share its solves
        for i, term in enumerate(self.terms):
            batches.setdefault(id(term.posterior), []).append(i)
        self._batches = [[self.terms[i] for i in batch] for batch in batches.values()]

    @property
    def n_observations(self) -> int:
        """The most observations (pending points included) of the terms' posteriors."""
        return max((term.posterior.n for term in self.terms), default=0)

    def term_value(self, i: int, Z: np.ndarray) -> np.ndarray:
        """Term ``i`` at ``Z`` ``(b, |g|)``, points given in the term's own columns: ``(b,)``."""
        term = self.terms[i]
        mean, var = term.posterior.factor_predict(term.group, Z)
        return cast(np.ndarray, term.weight * (-mean + self.sqrt_beta * np.sqrt(var)))

    def value(self, X: np.ndarray) -> np.ndarray:
        out = np.zeros(len(X))  # (b,)
        for batch in self._batches:
            mean, var = batch[0].posterior.factors_predict(
                [term.group for term in batch], [X[:, term.columns] for term in batch]
            )  # (F, b) each
            weights = np.array([term.weight for term in batch])[:, None]  # (F, 1)
            out += np.sum(weights * (-mean + self.sqrt_beta * np.sqrt(var)), axis=0)  # eq. 2, 5
        return out

    def value_and_grad(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        out, grad = np.zeros(len(X)), np.zeros(X.shape)  # (b,), (b, d)
        for batch in self._batches:
            mean, var, dmeans, dvars = batch[0].posterior.factors_predict_with_grad(
                [term.group for term in batch], [X[:, term.columns] for term in batch]
            )  # (F, b), (F, b), F x (b, m_i), F x (b, m_i)
            sd = np.sqrt(var)  # (F, b)
            for i, term in enumerate(batch):
                out += term.weight * (-mean[i] + self.sqrt_beta * sd[i])
                grad[:, term.columns] += term.weight * (
                    -dmeans[i] + (self.sqrt_beta / (2.0 * sd[i]))[:, None] * dvars[i]
                )
        return out, grad
