"""EGP-TS and EGP-EI (Lu, Polyzos, Li, Giannakis, "Surrogate modeling for Bayesian optimization
beyond a single Gaussian process", TPAMI 2023): Thompson sampling or EI on an ensemble of GPs.

Per suggestion (Algorithm 1, lines 17-19, and Sec. V-D for EI):
    1. bring the ensemble up to date (refit or incremental update, see ``ensemble.py``);
    2. draw ``m ~ Cat(w)`` (eq. 10);
    3. condition GP ``m`` on the pending points (running trials and earlier members of the same
       batch) with kriging-believer fantasies, unless ``fantasize_pending=False``;
    4. TS: draw a posterior function of GP ``m`` (pathwise, or from the feature posterior, eq. 12)
       and minimise it; EI: maximise log EI of GP ``m``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from shared_core.acquisition import Acquisition, LogExpectedImprovement, ThompsonSampling
from shared_core.interface import Observations, OneAtATimeAlgorithm
from shared_core.models.ensemble import EnsembleGP
from shared_core.models.kernels import KernelSpec, parse_kernels
from shared_core.optim.acquisition_optimizer import maximize_acquisition
from shared_core.search_space import SearchSpace
from shared_core.validation import check_bool, check_int

__all__ = ["EGPAlgorithm", "ACQUISITIONS"]

ACQUISITIONS = ("ts", "ei", "auto")


AUTO_EI_OBSERVATIONS_PER_DIM = 10


def _auto_uses_ei(n_observed: int, dim: int, n_pending: int) -> bool:
    """``"auto"``: EI while nothing is pending and data is scarce (fewer than 10 observations per
    encoded dimension, where Thompson draws over-explore); TS with fantasies otherwise."""
    return n_pending == 0 and n_observed < AUTO_EI_OBSERVATIONS_PER_DIM * dim


class EGPAlgorithm(OneAtATimeAlgorithm):
    """Ensemble-GP Bayesian optimisation behind the
    :class:`~shared_core.interface.Algorithm` interface.

    Args:
        kernels: kernel dictionary: ``KernelSpec`` objects and/or names (``"rbf"``,
            ``"matern52-ard"``, ...; :func:`~shared_core.models.kernels.parse_kernels`), ``"grid"``
            (the paper's lengthscale grid) or ``None``: RBF, RBF-ARD, Matérn-3/2, Matérn-5/2 (the
            paper's).
        acquisition: ``"ts"`` (EGP-TS), ``"ei"`` (EGP-EI) or ``"auto"`` (EI while nothing is
            pending and there are fewer than 10 observations per dimension; TS with fantasies when
            trials are running, a batch is asked for, or data is plentiful).
        n_features: random Fourier features per GP (``F``; ``F/2`` frequencies).
        fantasize_pending: condition draws on pending points (beyond the paper; see module doc).
        exact_limit: above this many observations each GP is a feature-space posterior.
        warp_outputs: fit GPs to warped values
            (:class:`~shared_core.models.ensemble.OutputTransform`).
        n_raw: acquisition optimiser budget: random candidates scored.
        n_starts: acquisition optimiser budget: the best candidates refined by L-BFGS-B.
    """

    def __init__(
        self,
        *,
        kernels: Sequence[KernelSpec | str] | str | None = None,
        acquisition: str = "ts",
        n_features: int = 512,
        fantasize_pending: bool = True,
        exact_limit: int = 1000,
        warp_outputs: bool = True,
        n_raw: int = 512,
        n_starts: int = 8,
    ) -> None:
        if acquisition not in ACQUISITIONS:
            raise ValueError(f"acquisition must be one of {ACQUISITIONS}, got {acquisition!r}")
        n_features = check_int("n_features", n_features, minimum=2)
        if n_features % 2:
            raise ValueError(f"n_features must be an even integer >= 2, got {n_features!r}")
        kernels = parse_kernels(kernels)
        exact_limit = check_int("exact_limit", exact_limit, minimum=1)
        self.acquisition = acquisition
        self.fantasize_pending = check_bool("fantasize_pending", fantasize_pending)
        self.n_raw, self.n_starts = (
            check_int("n_raw", n_raw, minimum=1),
            check_int("n_starts", n_starts, minimum=1),
        )
        self.model = EnsembleGP(
            kernels,
            n_frequencies=n_features // 2,
            exact_limit=exact_limit,
            warp_outputs=check_bool("warp_outputs", warp_outputs),
        )
        super().__init__()

    # Shared model state (hyperparameters, output transform, weights), for adapters that persist it.
    def model_state(self) -> dict[str, Any] | None:
        """The ensemble's fitted state as JSON values
        (:meth:`EnsembleGP.state`), None before a fit."""
        return self.model.state()

    def wants_model_state(self) -> bool:
        """True until the ensemble is first fitted and while no state has been offered."""
        return not self.model.members and not self.model.has_offered_state

    def offer_model_state(self, state: dict[str, Any]) -> bool:
        """Build the first posteriors from ``state`` (another process's :meth:`model_state`)
        instead of fitting hyperparameters, when it matches the kernels and inputs and no
        refit is due. False if ``state`` does not match or is invalid (nothing kept)."""
        return self.model.offer_state(state)

    def _prepare(self, space: SearchSpace, obs: Observations, rng: np.random.Generator) -> None:
        # refit or incremental update (the cached ensemble is shared by threads)
        self.model.fit(obs.X, obs.y, rng)

    def _suggest_one(
        self, space: SearchSpace, obs: Observations, context: Any, rng: np.random.Generator
    ) -> np.ndarray:
        X, y, pending = obs.X, obs.y, obs.X_pending
        acq = self._acquisition(space, obs, rng)
        X_best = X[np.argsort(y)[: min(5, len(y))]]
        avoid = np.vstack([pending, X])  # never repeat a running or an evaluated point if avoidable
        return maximize_acquisition(
            acq, space, rng, X_best=X_best, n_raw=self.n_raw, n_starts=self.n_starts, avoid=avoid
        )

    def _acquisition(
        self, space: SearchSpace, obs: Observations, rng: np.random.Generator
    ) -> Acquisition:
        """EI or a Thompson draw of one member ``m ~ Cat(w)``
        (eq. 10), conditioned on the pending points."""
        model, pending = self.model, obs.X_pending
        member = model.conditioned_on_pending(
            model.sample_member(rng), pending if self.fantasize_pending else pending[:0]
        )
        auto_ei = self.acquisition == "auto" and _auto_uses_ei(len(obs.y), space.dim, len(pending))
        if self.acquisition == "ei" or auto_ei:
            best = float(model.y_std(obs.y).min())
            # kriging believer: fantasies count as observed
            if self.fantasize_pending and len(pending):
                best = min(best, float(np.min(member.post.predict(pending)[0])))
            return LogExpectedImprovement(member.post, best=best)
        return ThompsonSampling(member.post.sample_path(rng))  # eq. (12)
