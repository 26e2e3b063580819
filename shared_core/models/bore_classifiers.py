"""The classifiers of BORE and BORE++ (see :mod:`shared_core.algorithms.bore`): BORE++'s
probabilistic least squares with its UCB, and BORE's network with its logit as the acquisition."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, cast, overload

import numpy as np

from shared_core.acquisition import Acquisition, UpperConfidenceBound
from shared_core.models.gp import ExactPosterior, GPHyper, fit_hyperparameters
from shared_core.models.kernels import KernelSpec
from shared_core.models.network import build_mlp, forward, forward_and_input_grad, require_torch
from shared_core.models.refit import RefitSchedule, fit_subset

if TYPE_CHECKING:  # pragma: no cover - annotations only; torch is imported when a network is built
    import torch

__all__ = ["A_FLOOR", "Classifier", "LeastSquaresClassifier", "NetworkClassifier", "NetworkLogit"]

A_FLOOR = 1e-6  # a(x) is floored before taking log a, so SVGD's target stays a density


class LeastSquaresClassifier:
    """BORE++'s classifier: GP regression on the labels with noise ``lambda`` (zero prior mean).

    Hyperparameters are refitted on the schedule of :class:`~shared_core.models.refit.RefitSchedule`
    (on at most ``max_fit_points`` points), and afresh (no warm start) when the search space changes
    or observations disappeared (e.g. the sampler moved to another study); in between, the posterior
    is rebuilt on the training points with the last hyperparameters (the labels of old points change
    as the quantile moves).
    """

    def __init__(
        self, spec: KernelSpec, lam: float, beta: float, max_fit_points: int = 300
    ) -> None:
        self.spec, self.lam, self.beta, self.max_fit_points = spec, lam, beta, max_fit_points
        self.schedule = RefitSchedule()
        self.hyper: GPHyper | None = None
        self.post: ExactPosterior | None = None
        self.n_at_refit = 0
        self.n_refits = 0
        self.layout = b""  # the search space of the last hyperparameter fit

    def fit(
        self,
        X: np.ndarray,
        z: np.ndarray,
        rng: np.random.Generator,
        *,
        n_observed: int,
        layout: bytes,
    ) -> None:
        """Train on ``(X (m, d), z (m,))``, a subset of
        ``n_observed`` observations in the space ``layout``."""
        # else a new space or study
        same_data = layout == self.layout and n_observed >= self.n_at_refit
        if self.hyper is None or not same_data or self.schedule.due(self.n_at_refit, n_observed):
            rows = fit_subset(X, -z, self.max_fit_points, rng)  # the good points first
            warm_start = self.hyper if same_data else None
            # the log-normal lengthscale prior alone: BORE++'s defaults were measured with it
            self.hyper = fit_hyperparameters(
                self.spec,
                X[rows],
                z[rows],
                warm_start=warm_start,
                noise=self.lam,
                lengthscale_penalty=0.0,
            )
            self.n_at_refit, self.n_refits, self.layout = n_observed, self.n_refits + 1, layout
        self.post = ExactPosterior(self.spec, self.hyper, X, z)

    def acquisition(self) -> Acquisition:
        """``a(x) = pi^(x) + beta sigma(x)``."""
        assert self.post is not None  # fitted
        return UpperConfidenceBound(self.post, self.beta)

    def density(self, X: np.ndarray) -> np.ndarray:
        """``(b,)`` unnormalised SVGD target ``a(x)`` (may be <= 0; floored by the caller)."""
        return self.acquisition().value(X)

    def given_pending(self, X_pending: np.ndarray) -> LeastSquaresClassifier:
        """A copy whose ``sigma`` also conditions on the pending points ``(p, d)`` (GP-BUCB)."""
        if len(X_pending) == 0:
            return self
        out = LeastSquaresClassifier(self.spec, self.lam, self.beta, self.max_fit_points)
        assert self.post is not None  # fitted
        out.hyper, out.post = self.hyper, self.post.believing(X_pending)
        return out

    def log_density_grad(self, X: np.ndarray) -> np.ndarray:
        """``grad log max(a, floor)`` ``(b, d)``: the SVGD target's score."""
        a, da = self.acquisition().value_and_grad(X)
        return np.where((a > A_FLOOR)[:, None], da / np.maximum(a, A_FLOOR)[:, None], 0.0)


class NetworkClassifier:
    """BORE's classifier: a ``d -> 32 -> 32 -> 1`` ReLU network, BCE loss, Adam, float64
    (torch; the network comes from :mod:`shared_core.models.network`).

    Torch's global state is left alone (its random generator and thread count). The network is tiny,
    so with other busy processes on few cores ``torch.set_num_threads(1)`` in the user's program
    makes it much faster (why: see
    [docs/design-decisions.md#bore-network-threads][bore-network-threads]).
    """

    def __init__(
        self, hidden: int = 32, lr: float = 3e-3, steps: int = 100, first_steps: int = 500
    ) -> None:
        require_torch("variant='bore'")
        self.hidden, self.lr, self.steps, self.first_steps = hidden, lr, steps, first_steps
        self.net: torch.nn.Sequential | None = None
        self.opt: torch.optim.Adam | None = None
        self.layout = b""  # the search space the network was built for
        self.n_observed = 0  # observations at the last fit

    def _build(self, d: int, rng: np.random.Generator) -> None:
        import torch

        self.net = build_mlp((d, self.hidden, self.hidden, 1), rng)
        self.opt = torch.optim.Adam(self.net.parameters(), lr=self.lr)

    def fit(
        self,
        X: np.ndarray,
        z: np.ndarray,
        rng: np.random.Generator,
        *,
        n_observed: int,
        layout: bytes,
    ) -> None:
        """Train on ``(X (m, d), z (m,))``: 500 steps from scratch in a new space or when
        observations disappeared (another study), else 100 steps warm-started from the last fit."""
        import torch

        first = self.net is None or layout != self.layout or n_observed < self.n_observed
        if first:
            self._build(X.shape[1], rng)
            self.layout = layout
        assert self.net is not None and self.opt is not None  # built together by _build
        self.n_observed = n_observed
        Xt, zt = torch.from_numpy(X), torch.from_numpy(z)
        loss_fn = torch.nn.BCEWithLogitsLoss()
        for _ in range(self.first_steps if first else self.steps):
            idx = torch.from_numpy(rng.integers(len(X), size=min(64, len(X))))  # mini-batch of 64
            self.opt.zero_grad()
            loss = loss_fn(self.net(Xt[idx]).squeeze(-1), zt[idx])
            loss.backward()
            self.opt.step()

    @overload
    def _logit(self, X: np.ndarray, with_grad: Literal[False]) -> np.ndarray: ...

    @overload
    def _logit(self, X: np.ndarray, with_grad: Literal[True]) -> tuple[np.ndarray, np.ndarray]: ...

    def _logit(self, X: np.ndarray, with_grad: bool) -> Any:
        """``(b,)`` logits at ``X`` ``(b, d)``; with
        ``with_grad`` also their input gradients ``(b, d)``."""
        assert self.net is not None  # fitted
        return forward_and_input_grad(self.net, X) if with_grad else forward(self.net, X)

    def acquisition(self) -> Acquisition:
        """The logit of ``pi(x)`` (same maximiser as
        ``pi``, but not flat where ``pi`` saturates)."""
        return NetworkLogit(self)

    def log_density_grad(self, X: np.ndarray) -> np.ndarray:
        """``grad log pi(x) = (1 - pi(x)) grad logit(x)`` ``(b, d)``."""
        logit, dlogit = self._logit(X, True)
        return cast(np.ndarray, (1.0 - 1.0 / (1.0 + np.exp(-logit)))[:, None] * dlogit)

    def density(self, X: np.ndarray) -> np.ndarray:
        """``(b,)`` unnormalised SVGD target ``pi(x)``."""
        return cast(np.ndarray, 1.0 / (1.0 + np.exp(-self._logit(X, False))))

    def given_pending(self, X_pending: np.ndarray) -> NetworkClassifier:
        """The network has no uncertainty that pending points could reduce."""
        return self


class NetworkLogit(Acquisition):
    """The network's logit as an acquisition (gradients by autograd)."""

    def __init__(self, classifier: NetworkClassifier) -> None:
        self.classifier = classifier

    def value(self, X: np.ndarray) -> np.ndarray:
        return self.classifier._logit(X, False)

    def value_and_grad(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.classifier._logit(X, True)


Classifier = LeastSquaresClassifier | NetworkClassifier
