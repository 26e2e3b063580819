"""Several minimised objectives: random scalarisations of per-objective draws and posteriors.

Glossary (shapes in comments):
    b: query points; d: input dimension; m: objectives; S: Monte-Carlo base samples.
    GP scale: each objective's values after its ensemble's increasing output transform.
    ideal ``z`` ``(m,)``, reference ``r`` ``(m,)``: on the GP scales; the best observed value of
        each objective and the hypervolume reference point mapped through the transforms.
    u: normalised values ``u_i = (f_i - z_i) / (r_i - z_i)`` ``(b, m)``: the ideal point at 0, the
        reference point at 1 (an affine map per objective: dominance is unchanged and hypervolumes
        are scaled by one constant).
    lambda: ``(m,)`` positive weights, drawn afresh for each suggestion.

Scalarisations (each *minimised*, so that :class:`ScalarizedSample` and
:class:`SampledHypervolumeImprovement` are draws of one objective to minimise, which
:class:`~shared_core.acquisition.ThompsonSampling` and the constrained Thompson rule take
unchanged):

* :class:`HypervolumeScalarization`, Golovin & Zhang, "Random hypervolume scalarizations for
  provable multi-objective black box optimization" (ICML 2020), eq. (3) and Lemma 5: with
  ``lambda`` uniform on the positive unit sphere, ``s_lambda(y) = min_i max(0, (r_i - y_i) /
  lambda_i)^m`` satisfies ``HV(Y) = c_m E_lambda[max_{y in Y} s_lambda(y)]``, so that maximising
  a fresh random ``s_lambda`` targets the hypervolume. ``max(0, .)^m`` is increasing where the
  minimum is positive, so the maximiser is that of ``t(u) = min_i (1 - u_i) / lambda_i``; the
  value used is ``-t(u)``, unclipped, so that points beyond the reference point are still ranked
  (and have gradients).
* :class:`ChebyshevScalarization`, the augmented Chebyshev scalarisation of ParEGO (Knowles,
  "ParEGO: a hybrid algorithm with on-line landscape approximation for expensive multiobjective
  optimization problems", IEEE TEVC 2006, eq. 2) with ``lambda`` uniform on the simplex (Paria,
  Kandasamy & Póczos, "A flexible framework for multi-objective Bayesian optimization using
  random scalarizations", UAI 2019, Sec. 3): ``max_i lambda_i u_i + rho sum_i lambda_i u_i``,
  ``rho = 0.05``, as BoTorch's ``get_chebyshev_scalarization`` on normalised values.

Acquisitions:

* :class:`ScalarizedSample`: one Thompson draw per objective (Paria et al. 2019, Algorithm 1 with
  TS), scalarised.
* :class:`SampledHypervolumeImprovement`: the hypervolume improvement of the same draws over a
  front (Bradford, Schweidtmann & Lapkin, "Efficient multiobjective optimization employing
  Gaussian processes, spectral sampling and a genetic algorithm", J. Global Optim. 2018, TSEMO),
  a rule that ranks candidates (EGP-TS's; the scalarised draw is what L-BFGS-B follows).
* :class:`ScalarizedLogExpectedImprovement`: qParEGO (Daulton, Balandat & Bakshy, "Differentiable
  expected hypervolume improvement for parallel multi-objective Bayesian optimization", NeurIPS
  2020, Sec. 5 and Appendix): the Monte-Carlo expected improvement of a random Chebyshev
  scalarisation of the objectives' posteriors over the best scalarised observed value, with base
  samples fixed for the suggestion (deterministic and differentiable), in log space (a smoothed
  ``log max(0, .)``, as qLogEI of Ament et al., "Unexpected improvements to expected improvement
  for Bayesian optimization", NeurIPS 2023).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np
from scipy.special import expit, logsumexp

from shared_core.acquisition.base import Acquisition
from shared_core.acquisition.constrained import LogProbabilityOfFeasibility
from shared_core.models.surrogate import FunctionSample, Posterior
from shared_core.pareto import hypervolume_improvements

__all__ = [
    "CHEBYSHEV_AUGMENTATION",
    "ChebyshevScalarization",
    "HypervolumeScalarization",
    "ObjectiveScales",
    "SampledHypervolumeImprovement",
    "ScalarizedLogExpectedImprovement",
    "ScalarizedSample",
    "Scalarization",
    "sphere_weights",
    "simplex_weights",
]

CHEBYSHEV_AUGMENTATION = 0.05  # rho of ParEGO's augmented Chebyshev scalarisation (Knowles 2006)
# The smallest span r_i - z_i used to normalise. A reference point at or below the ideal value (an
# Ax threshold stricter than every trial so far, or a constant objective with a given reference
# point) would divide by zero or inflate that objective a millionfold; its span is then one
# standard deviation of the (standardised) GP scale instead, and the reference point keeps its place
# in normalised units (``reference_unit``, at most MIN_SPAN), so that improving on it comes first.
MIN_SPAN = 1e-3
# Above this many objectives, the exact hypervolume improvement (one sliced hypervolume per
# candidate, O(k^{m-1}) for a front of k points) is computed for the best candidates by the
# scalarised draw only: for all of the optimiser's several hundred candidates it costs seconds per
# suggestion from three objectives and a front of tens of points on.
MAX_EXACT_IMPROVEMENT_OBJECTIVES = 2
N_EXACT_IMPROVEMENTS = 64
# Temperature of the smoothed log max(0, I) of the log EI, in normalised units (the ideal-to-
# reference box is [0, 1]^m): improvements far below it are ranked by their size, not set to -inf.
LOG_EI_TEMPERATURE = 1e-3


# The smallest sphere weight before normalising: ``1 / lambda_i`` scales the scalarisation and
# its gradient, which at 1e-12 made L-BFGS-B's steps (and the constrained merit) meaningless; at
# 1e-3 the distribution stays uniform on the sphere but for a sliver (|N(0, 1)| < 1e-3: 0.08 %).
WEIGHT_FLOOR = 1e-3


def simplex_weights(m: int, rng: np.random.Generator) -> np.ndarray:
    """``(m,)`` weights uniform on the probability simplex (Paria et al. 2019, Sec. 3)."""
    return rng.dirichlet(np.ones(m))


def sphere_weights(m: int, rng: np.random.Generator) -> np.ndarray:
    """``(m,)`` weights uniform on the positive part of the unit sphere (Golovin & Zhang 2020):
    absolute values of a standard normal vector, normalised (floored away from 0, so that
    ``1 / lambda_i`` is finite)."""
    v = np.maximum(np.abs(rng.standard_normal(m)), WEIGHT_FLOOR)
    return cast(np.ndarray, v / np.linalg.norm(v))


@dataclass(frozen=True)
class ObjectiveScales:
    """The affine per-objective map ``u = (f - ideal) / span`` of GP-scale values ``f``
    ``(..., m)``: ``span = reference - ideal``, or 1 (a GP standard deviation) where that is below
    :data:`MIN_SPAN`; the reference point is at :attr:`reference_unit` (1 but there)."""

    ideal: np.ndarray  # (m,)
    reference: np.ndarray  # (m,)

    @property
    def span(self) -> np.ndarray:
        """``(m,)`` ``reference - ideal`` where it is at least :data:`MIN_SPAN`, else 1."""
        gap = self.reference - self.ideal
        return np.where(gap >= MIN_SPAN, gap, 1.0)

    @property
    def reference_unit(self) -> np.ndarray:
        """``(m,)`` the reference point in normalised units."""
        return cast(np.ndarray, (self.reference - self.ideal) / self.span)

    def __call__(self, F: np.ndarray) -> np.ndarray:
        return cast(np.ndarray, (F - self.ideal) / self.span)


class Scalarization:
    """A scalarisation ``s(u)`` of normalised values ``u`` ``(..., m)``, minimised."""

    def __init__(self, weights: np.ndarray) -> None:
        self.weights = np.asarray(weights, dtype=np.float64)  # (m,)

    def __call__(self, U: np.ndarray) -> np.ndarray:
        """``s(U)`` ``(...,)``."""
        return self.value_and_grad(U)[0]

    def value_and_grad(self, U: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``s(U)`` ``(...,)`` and ``ds/dU`` ``(..., m)`` (of the active term at a kink)."""
        raise NotImplementedError


class ChebyshevScalarization(Scalarization):
    """``max_i lambda_i u_i + rho sum_i lambda_i u_i`` (Knowles 2006, eq. 2; ``rho``:
    :data:`CHEBYSHEV_AUGMENTATION`), minimised; ``lambda`` from :func:`simplex_weights`."""

    def value_and_grad(self, U: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        weighted = U * self.weights  # (..., m)
        active = np.argmax(weighted, axis=-1)  # (...,)
        one_hot = np.eye(self.weights.shape[-1])[active]  # (..., m)
        value = np.max(weighted, axis=-1) + CHEBYSHEV_AUGMENTATION * weighted.sum(axis=-1)
        return value, (one_hot + CHEBYSHEV_AUGMENTATION) * self.weights


class HypervolumeScalarization(Scalarization):
    """``-min_i (r_i - u_i) / lambda_i``: minus the hypervolume scalarisation of Golovin & Zhang
    (2020, eq. 3) before its increasing ``max(0, .)^m`` (module docstring); ``lambda`` from
    :func:`sphere_weights`, ``r`` the normalised reference point (:attr:`ObjectiveScales.
    reference_unit`; default 1)."""

    def __init__(self, weights: np.ndarray, reference: np.ndarray | None = None) -> None:
        super().__init__(weights)
        self.reference = np.ones(self.weights.shape[-1]) if reference is None else reference

    def value_and_grad(self, U: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ratios = (self.reference - U) / self.weights  # (..., m)
        active = np.argmin(ratios, axis=-1)  # (...,)
        one_hot = np.eye(self.weights.shape[-1])[active]  # (..., m)
        return -np.min(ratios, axis=-1), one_hot / self.weights


class ScalarizedSample:
    """``s(u(f~_1(x), ..., f~_m(x)))``: a :class:`~shared_core.models.surrogate.FunctionSample`
    of one objective (minimised) from one draw ``f~_i`` per objective on its GP scale."""

    def __init__(
        self,
        samples: Sequence[FunctionSample],
        scales: ObjectiveScales,
        scalarization: Scalarization,
    ) -> None:
        self.samples, self.scales, self.scalarization = list(samples), scales, scalarization

    def objectives(self, X: np.ndarray) -> np.ndarray:
        """The draws' values ``(b, m)`` on the GP scales."""
        return np.stack([f.value(X) for f in self.samples], axis=1)

    def value(self, X: np.ndarray) -> np.ndarray:
        return self.scalarization(self.scales(self.objectives(X)))

    def value_and_grad(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        values, grads = zip(*(f.value_and_grad(X) for f in self.samples))
        F, dF = np.stack(values, axis=1), np.stack(grads, axis=1)  # (b, m), (b, m, d)
        s, ds = self.scalarization.value_and_grad(self.scales(F))  # (b,), (b, m)
        return s, np.einsum("bm,bmd->bd", ds / self.scales.span, dF)


class ScalarizedLogExpectedImprovement(Acquisition):
    """qParEGO's expected improvement (Daulton et al. 2020) in log space, for one point:
    ``log (1/S) sum_k softplus_tau(best - s(u(mu(x) + sd(x) * z_k)))`` with base samples ``z``
    ``(S, m)`` fixed, ``s`` a Chebyshev scalarisation, ``best`` the best scalarised observed value
    and ``softplus_tau(v) = tau log(1 + exp(v / tau))`` (``tau``: :data:`LOG_EI_TEMPERATURE`); plus
    ``sum_j log P(c_j <= t_j)`` with constraints (Gardner et al. 2014)."""

    def __init__(
        self,
        posteriors: Sequence[Posterior],
        scales: ObjectiveScales,
        scalarization: Scalarization,
        best: float,
        base_samples: np.ndarray,
        feasibility: LogProbabilityOfFeasibility | None = None,
    ) -> None:
        self.posteriors, self.scales, self.scalarization = list(posteriors), scales, scalarization
        self.best, self.base_samples = float(best), np.asarray(base_samples)  # (S, m)
        self.feasibility = feasibility

    def value(self, X: np.ndarray) -> np.ndarray:
        moments = [post.predict(X) for post in self.posteriors]
        mean = np.stack([mu for mu, _ in moments], axis=1)  # (b, m)
        sd = np.sqrt(np.stack([var for _, var in moments], axis=1))  # (b, m)
        F = mean[:, None, :] + sd[:, None, :] * self.base_samples  # (b, S, m)
        log_improvement = _log_softplus(self.best - self.scalarization(self.scales(F)))[0]
        out = logsumexp(log_improvement, axis=1) - math.log(len(self.base_samples))
        if self.feasibility is not None:
            out = out + self.feasibility.value(X)
        return cast(np.ndarray, out)

    def value_and_grad(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        moments = [post.predict_with_grad(X) for post in self.posteriors]
        mean = np.stack([mo[0] for mo in moments], axis=1)  # (b, m)
        sd = np.sqrt(np.stack([mo[1] for mo in moments], axis=1))  # (b, m)
        dmean = np.stack([mo[2] for mo in moments], axis=1)  # (b, m, d)
        dsd = np.stack([mo[3] for mo in moments], axis=1) / (2.0 * sd[..., None])  # (b, m, d)
        F = mean[:, None, :] + sd[:, None, :] * self.base_samples  # (b, S, m)
        s, ds = self.scalarization.value_and_grad(self.scales(F))  # (b, S), (b, S, m)
        log_improvement, dlog = _log_softplus(self.best - s)  # (b, S)
        out = logsumexp(log_improvement, axis=1)  # (b,)
        weights = np.exp(log_improvement - out[:, None]) * dlog  # (b, S): d out / d(best - s)
        dF = -weights[..., None] * ds / self.scales.span  # (b, S, m): d out / dF
        # dF/dx = dmean + z dsd per objective
        grad = np.einsum("bm,bmd->bd", dF.sum(axis=1), dmean) + np.einsum(
            "bsm,sm,bmd->bd", dF, self.base_samples, dsd
        )
        out = out - math.log(len(self.base_samples))
        if self.feasibility is not None:
            v_pf, g_pf = self.feasibility.value_and_grad(X)
            out, grad = out + v_pf, grad + g_pf
        return out, grad


def _log_softplus(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``log softplus_tau(v)`` and its derivative ``sigmoid(v / tau) / softplus(v / tau) / tau``
    (``tau``: :data:`LOG_EI_TEMPERATURE`), stable far below 0 where ``log softplus(z) ~ z``."""
    z = v / LOG_EI_TEMPERATURE
    low = z < -30.0
    softplus = np.logaddexp(0.0, np.where(low, 0.0, z))
    value = np.where(low, z, np.log(softplus)) + math.log(LOG_EI_TEMPERATURE)
    dz = np.where(low, 1.0, expit(z) / softplus)
    return value, dz / LOG_EI_TEMPERATURE


class SampledHypervolumeImprovement:
    """The hypervolume improvement rule of TSEMO (Bradford, Schweidtmann & Lapkin, "Efficient
    multiobjective optimization employing Gaussian processes, spectral sampling and a genetic
    algorithm", J. Global Optim. 2018, Sec. 3.3) on one draw per objective, as a sample to
    *minimise*: ``-HVI(u(f~(x)))`` over ``front`` ``(k, m)`` (normalised values of the observed
    and believed points; reference point ``r``, :attr:`ObjectiveScales.reference_unit`), and where
    ``u`` adds nothing, how far it is from adding anything:
    ``max(shift, max_i (u_i - r_i), 0)``, ``shift = max_k min_i (u_i - front_ki)``
    the smallest equal decrease of every objective that takes ``u`` out of the front's dominated
    region.

    TSEMO ranks the sampled front that NSGA-II finds on the draws; here the rule ranks the
    acquisition optimiser's candidates (raw points and the optimum of the hypervolume
    scalarisation of the same draws, :class:`ScalarizedSample`, which L-BFGS-B follows). A ranking
    rule: it has no gradient (:meth:`value_and_grad` raises). Above
    :data:`MAX_EXACT_IMPROVEMENT_OBJECTIVES` objectives the improvement is computed exactly for the
    :data:`N_EXACT_IMPROVEMENTS` best candidates by the scalarised draw; the others that improve
    rank after them, tied (value 0).
    """

    def __init__(self, sample: ScalarizedSample, front: np.ndarray) -> None:
        self.sample = sample
        self.front = np.asarray(front, dtype=np.float64).reshape(-1, len(sample.samples))

    def value(self, X: np.ndarray) -> np.ndarray:
        U = self.sample.scales(self.sample.objectives(X))  # (b, m)
        r = self.sample.scales.reference_unit  # (m,)
        improvement = np.zeros(len(U))  # (b,)
        exact = np.arange(len(U))
        if U.shape[1] > MAX_EXACT_IMPROVEMENT_OBJECTIVES:  # the best by the scalarised draw
            exact = np.argsort(self.sample.scalarization(U), kind="stable")[:N_EXACT_IMPROVEMENTS]
        improvement[exact] = hypervolume_improvements(U[exact], self.front, r)
        shift = (
            np.max(np.min(U[:, None, :] - self.front[None], axis=2), axis=1)
            if len(self.front)
            else np.full(len(U), -np.inf)
        )  # (b,)
        distance = np.maximum(np.maximum(shift, np.max(U - r, axis=1)), 0.0)
        return np.where(improvement > 0.0, -improvement, distance)

    def value_and_grad(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError(
            "the hypervolume improvement rule ranks candidates; L-BFGS-B follows the scalarised "
            "sample"
        )
