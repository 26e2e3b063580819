"""The ensemble of GPs over a kernel dictionary (Lu et al. 2023, Sec. III and Algorithm 1).

Glossary (shapes in comments):
    M: kernels in the dictionary; n: observations; d: input dimension.
    log_w: ``(M,)`` normalised log weights ``log Pr(i = m | D)``.

Refit schedule (Algorithm 1, lines 10-15, "re-initialisation"): hyperparameters are refitted by
marginal likelihood and the weights re-initialised by eq. (9) when the number of observations has
grown by ``refit_fraction`` (10 %) since the last refit, and at least every ``refit_max_interval``
(50, the paper's interval) observations and at every observation while there are fewer than 10.
Between refits each GP posterior is conditioned on the new observations and the weights multiplied
by the predictive densities, eq. (13)-(15). Costs per observation with n observations:

* refit: ``O(M * iters * m^3)`` for the MAP fit on ``m = min(n, max_fit_points)`` points plus
  ``O(M n^3)`` (exact) or ``O(M n F^2)`` (features) to rebuild the posterior; it happens
  ``O(log n)`` times up to ``n = 500`` and every 50 observations after that.
* between refits: ``O(M n^2)`` per new observation for exact GPs (block Cholesky append),
  ``O(M F^2)`` for the feature posterior (rank-one update, eq. 15).

Output transform: the minimised values are mapped by :class:`OutputTransform` (shift to the best
value, Yeo-Johnson with ``lambda <= 1``, standardise), fitted at each refit and fixed between refits
so that the incremental updates stay exact. It compresses heavy tails of bad values (e.g. Zakharov's
quartic growth) that would otherwise flatten the region around the optimum, and is the identity up
to scale when values are not right-skewed.

Exact GPs are used up to ``exact_limit`` observations; above that each GP is the Bayesian linear
regression on ``F`` random features of the paper, so the per-suggestion cost stops growing with n.

Shared state: :meth:`EnsembleGP.state` gives the fitted hyperparameters, output transform, weights
and the size of the last refit as JSON values; another process's ensemble offered that state
(:meth:`EnsembleGP.offer_state`) builds its first posteriors with those hyperparameters instead of
fitting them, unless a refit is due anyway. Its weights are then eq. (9) on all observations, which
for exact GPs equals the refit weights times every later predictive density, eq. (13), the weights
of the process that fitted them.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy.special import logsumexp

from shared_core.models.features import BayesianLinearRegression
from shared_core.models.gp import (
    ExactPosterior,
    GPHyper,
    fit_hyperparameters,
    hyperparameters_valid,
)
from shared_core.models.kernels import KernelSpec, RandomFourierFeatures, default_dictionary
from shared_core.models.output_transform import OutputTransform, standardize
from shared_core.models.refit import RefitSchedule, fit_subset
from shared_core.models.surrogate import Posterior

__all__ = ["EnsembleGP", "Member", "OutputTransform", "standardize"]

STATE_VERSION = 1
MAX_ADOPTED_ABS_VALUE = 1e3  # an offered output transform must map the values into [-1e3, 1e3]


@dataclass
class Member:
    """One GP of the ensemble: its kernel, hyperparameters
    and posterior (exact or random-feature)."""

    spec: KernelSpec
    hyper: GPHyper
    post: Posterior


class EnsembleGP:
    """Ensemble of GPs with Bayesian model weights, incremental updates and a refit schedule.

    Args:
        kernels: the kernel dictionary (default: :func:`default_dictionary`).
        n_frequencies: random frequencies per GP (features ``F = 2 * n_frequencies``).
        exact_limit: largest number of observations handled by exact GPs.
        max_fit_points: largest number of points used to fit hyperparameters (a subset above).
        refit_fraction, refit_max_interval: the refit schedule described in the module docstring.
        warp_outputs: use the :class:`OutputTransform` warping (default True); plain
            standardisation otherwise.
        noise: a fixed noise variance of every GP (standardised scale; e.g.
            :data:`~shared_core.models.gp.NOISE_FLOOR` for a deterministic objective) instead of
            a fitted one (default None: fitted).
    """

    def __init__(
        self,
        kernels: tuple[KernelSpec, ...] | None = None,
        *,
        n_frequencies: int = 256,
        exact_limit: int = 1000,
        max_fit_points: int = 300,
        refit_fraction: float = 0.1,
        refit_max_interval: int = 50,
        warp_outputs: bool = True,
        noise: float | None = None,
    ) -> None:
        self.kernels = tuple(kernels) if kernels is not None else default_dictionary()
        self.n_frequencies = n_frequencies
        self.exact_limit = exact_limit
        self.max_fit_points = max_fit_points
        self.schedule = RefitSchedule(fraction=refit_fraction, max_interval=refit_max_interval)
        self.warp_outputs = warp_outputs
        self.noise = noise
        self.members: list[Member] = []
        self.log_w = np.zeros(0)  # (M,)
        self.transform = OutputTransform()
        self._X = np.zeros((0, 0))  # (n, d) data the posteriors hold, in the order they got it
        self._y_raw = np.zeros(0)  # (n,) unstandardised
        self._n_at_refit = 0
        self.n_refits = 0
        self.n_adopted = 0  # times the first posteriors were built from an offered state
        self._offered: dict[str, Any] | None = None

    def unfitted_copy(self, kernels: tuple[KernelSpec, ...] | None = None) -> EnsembleGP:
        """A new, unfitted ensemble with the same options (kernels unless ``kernels`` are given,
        features, exact limit, refit schedule, output warping)."""
        out = EnsembleGP(
            self.kernels if kernels is None else kernels,
            n_frequencies=self.n_frequencies,
            exact_limit=self.exact_limit,
            max_fit_points=self.max_fit_points,
            warp_outputs=self.warp_outputs,
            noise=self.noise,
        )
        out.schedule = self.schedule  # frozen: shared as is
        return out

    # ------------------------------------------------------------------------------- data
    @property
    def weights(self) -> np.ndarray:
        return np.exp(self.log_w)

    @property
    def n(self) -> int:
        return len(self._y_raw)

    def y_std(self, y_raw: np.ndarray) -> np.ndarray:
        """Values on the GP scale (the output transform of the last refit)."""
        return self.transform(y_raw)

    def fit(self, X: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> None:
        """Bring the ensemble up to date with ``(X (n, d), y (n,))`` (finite, to be minimised).

        Reuses the current posteriors when ``X, y`` contain everything they were built on (in any
        order) and no refit is due; otherwise refits.
        """
        if not self.members and self._offered is not None:
            self._adopt(self._offered, X, y, rng)
            self._offered = None
        new_rows = self._new_rows(X, y)
        if new_rows is None or self._refit_due(len(X)):
            self._refit(X, y, rng)
        elif len(new_rows):
            self._condition(X[new_rows], y[new_rows])

    def _new_rows(self, X: np.ndarray, y: np.ndarray) -> np.ndarray | None:
        """Indices of rows not yet in the posteriors, or None if some old row disappeared."""
        if not self.members or X.shape[1] != self._X.shape[1]:
            return None
        index: dict[bytes, list[int]] = {}
        for i, key in enumerate(_row_keys(X, y)):
            index.setdefault(key, []).append(i)
        for key in _row_keys(self._X, self._y_raw):
            if not index.get(key):
                return None
            index[key].pop()
        return np.array(sorted(i for rows in index.values() for i in rows), dtype=int)

    def _refit_due(self, n: int) -> bool:
        crossed_exact_limit = self._n_at_refit <= self.exact_limit < n
        return self.schedule.due(self._n_at_refit, n) or crossed_exact_limit

    # ------------------------------------------------------------------------------- refit
    def _refit(self, X: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> None:
        """Algorithm 1, lines 10-15: MAP hyperparameters, new features, weights by eq. (9)."""
        self.transform = OutputTransform.fit(y, warp=self.warp_outputs)
        ys = self.y_std(y)
        rows = fit_subset(X, ys, self.max_fit_points, rng)
        previous = {m.spec: m.hyper for m in self.members}
        hypers = [
            fit_hyperparameters(
                spec, X[rows], ys[rows], warm_start=previous.get(spec), noise=self.noise
            )
            for spec in self.kernels
        ]
        self._build(X, y, hypers, rng)
        self.n_refits += 1

    def _build(
        self, X: np.ndarray, y: np.ndarray, hypers: list[GPHyper], rng: np.random.Generator
    ) -> None:
        """Posteriors on ``X (n, d), y (n,)`` with the given hyperparameters, weights by eq. (9)."""
        ys = self.y_std(y)
        members, log_ml = [], []
        for spec, hyper in zip(self.kernels, hypers):
            post: Posterior
            if len(X) <= self.exact_limit:
                post = ExactPosterior(spec, hyper, X, ys, n_frequencies=self.n_frequencies)
            else:
                rff = RandomFourierFeatures(spec, hyper.ls, X.shape[1], self.n_frequencies, rng)
                post = BayesianLinearRegression.from_data(rff, hyper, spec, X, ys)
            members.append(Member(spec, hyper, post))
            log_ml.append(post.log_marginal_likelihood())
        log_w = np.log(1.0 / len(members)) + np.array(log_ml)  # eq. (9), w0 = 1/M
        self.members, self.log_w = members, log_w - logsumexp(log_w)
        self._X, self._y_raw, self._n_at_refit = X.copy(), y.copy(), len(X)

    # ------------------------------------------------------------------------------- shared state
    def state(self) -> dict[str, Any] | None:
        """The fitted model as JSON values (None before the first fit): kernel names, input
        dimension, output transform, per-kernel hyperparameters, weights and the number of
        observations at the last refit."""
        if not self.members:
            return None
        return {
            "version": STATE_VERSION,
            "kernels": [m.spec.name for m in self.members],
            "dim": int(self._X.shape[1]),
            "warp_outputs": bool(self.warp_outputs),
            "fixed_noise": self.noise,  # None: fitted
            "n_at_refit": int(self._n_at_refit),
            "transform": {k: float(v) for k, v in asdict(self.transform).items()},
            "hyperparameters": [
                {
                    "lengthscales": [float(v) for v in m.hyper.ls],
                    "amplitude": float(m.hyper.amp),
                    "noise": float(m.hyper.noise),
                }
                for m in self.members
            ],
            "weights": [float(w) for w in self.weights],
        }

    @property
    def has_offered_state(self) -> bool:
        return self._offered is not None

    def offer_state(self, state: dict[str, Any]) -> bool:
        """Use ``state`` (from :meth:`state`, e.g. of another process) for the first posteriors
        instead of fitting hyperparameters, if it matches this ensemble and no refit is due.

        Returns False (and keeps nothing) if ``state`` does not match the kernels or is invalid.
        """
        try:
            ok = self._matching_hyperparameters(state, int(state["dim"])) is not None
            ok = ok and _transform_from(state["transform"]) is not None
        except Exception:  # anything read from a shared storage may be malformed
            ok = False
        self._offered = state if ok else None
        return ok

    def _adopt(
        self, state: dict[str, Any], X: np.ndarray, y: np.ndarray, rng: np.random.Generator
    ) -> bool:
        """Build the posteriors with the hyperparameters and output transform of ``state``; on any
        failure leave the ensemble unfitted (the caller then refits)."""
        try:
            with np.errstate(all="ignore"):  # absurd values show up as non-finite weights below
                adopted = self._try_adopt(state, X, y, rng)
        except Exception:  # a malformed state must never stop a suggestion
            adopted = False
        if adopted and not np.all(np.isfinite(self.log_w)):  # e.g. absurd output-transform values
            adopted = False
        if not adopted:
            self.members, self.log_w, self.transform, self._n_at_refit = (
                [],
                np.zeros(0),
                OutputTransform(),
                0,
            )
            self._X, self._y_raw = np.zeros((0, 0)), np.zeros(0)
        self.n_adopted += adopted
        return adopted

    def _try_adopt(
        self, state: dict[str, Any], X: np.ndarray, y: np.ndarray, rng: np.random.Generator
    ) -> bool:
        hypers = self._matching_hyperparameters(state, X.shape[1])
        if hypers is None:
            return False
        self._n_at_refit = min(int(state["n_at_refit"]), len(X))
        if self._refit_due(len(X)):  # the process that fitted them would refit now too
            return False
        transform = _transform_from(state.get("transform"))
        if transform is None or not np.max(np.abs(transform(y))) <= MAX_ADOPTED_ABS_VALUE:
            # invalid, or absurd for these values (a fitted transform standardises them)
            return False
        self.transform = transform
        n_at_refit = self._n_at_refit
        self._build(X, y, hypers, rng)
        self._n_at_refit = n_at_refit  # the refit schedule continues from the other process's refit
        return True

    def _matching_hyperparameters(self, state: Any, d: int) -> list[GPHyper] | None:
        """The hyperparameters of ``state`` if it was fitted
        by the same kernels on ``d`` inputs, else None."""
        try:
            same = (
                state["version"] == STATE_VERSION
                and state["kernels"] == [s.name for s in self.kernels]
                and state["dim"] == d
                and state["warp_outputs"] == self.warp_outputs
                # a deterministic worker's noise is not a noisy one's fit, nor the reverse
                and state.get("fixed_noise") == self.noise
                and int(state["n_at_refit"]) > 0
            )
            if not same:
                return None
            hypers = []
            for spec, h in zip(self.kernels, state["hyperparameters"], strict=True):
                hyper = GPHyper(
                    ls=np.asarray(h["lengthscales"], dtype=float),
                    amp=float(h["amplitude"]),
                    noise=float(h["noise"]),
                )
                if not hyperparameters_valid(spec, hyper, d):
                    return None
                hypers.append(hyper)
            return hypers
        except Exception:  # malformed: missing keys, wrong types, huge numbers, ...
            return None

    # ------------------------------------------------------------------------------- update
    def _condition(self, Xn: np.ndarray, yn_raw: np.ndarray) -> None:
        """Eq. (13)-(15): condition every GP on the new points, multiply weights by predictives."""
        yn = self.y_std(yn_raw)
        log_w = self.log_w.copy()
        for m, member in enumerate(self.members):
            member.post, log_pred = member.post.condition(Xn, yn)
            log_w[m] += log_pred  # eq. (13)
        self.log_w = log_w - logsumexp(log_w)
        self._X = np.vstack([self._X, Xn])
        self._y_raw = np.concatenate([self._y_raw, yn_raw])

    def sample_member(self, rng: np.random.Generator) -> int:
        """Eq. (10): ``m ~ Cat(w)``."""
        w = self.weights
        return int(rng.choice(len(w), p=w / w.sum()))

    def conditioned_on_pending(self, m: int, X_pending: np.ndarray) -> Member:
        """Member ``m`` conditioned on pending points with their own posterior mean as value.

        "Kriging believer" fantasies leave the mean unchanged and shrink the variance around running
        trials, so a Thompson draw or EI is less likely to land next to them.
        """
        member = self.members[m]
        if len(X_pending) == 0:
            return member
        return Member(member.spec, member.hyper, member.post.believing(X_pending))


def _transform_from(values: Any) -> OutputTransform | None:
    """The :class:`OutputTransform` of ``values`` (a dict of its fields), or None if invalid."""
    try:
        t = OutputTransform(**{name: float(values[name]) for name in asdict(OutputTransform())})
    except Exception:  # malformed: missing keys, wrong types, huge numbers, ...
        return None
    finite = all(math.isfinite(v) for v in asdict(t).values())
    return t if finite and t.spread > 0 and t.scale > 0 and -1.0 <= t.lam <= 1.0 else None


def _row_keys(X: np.ndarray, y: np.ndarray) -> list[bytes]:
    data = np.ascontiguousarray(np.hstack([X, y[:, None]]))
    return [row.tobytes() for row in data]
