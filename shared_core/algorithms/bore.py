"""BORE and BORE++ (Oliveira, Tiao, Ramos, "Batch Bayesian optimisation via density-ratio
estimation with guarantees", NeurIPS 2022; Tiao et al., "BORE: Bayesian optimization by
density-ratio estimation", ICML 2021), with batches drawn by SVGD.

BORE turns optimisation into classification: observations better than the ``gamma``-quantile ``tau``
are labelled 1, the rest 0, and a classifier's probability ``pi(x) = p(z = 1 | x)`` is proportional
to the density ratio ``l(x) / g(x)`` of good to bad points, so its maximiser is the next query.

* **BORE++** (Oliveira et al. 2022, Sec. 4): probabilistic least squares -- kernel (GP) regression
  on the labels with regulariser ``lambda``: ``pi^(x) = k(x)^T (K + lambda I)^-1 z``,
  ``sigma^2(x) = k(x, x) - k(x)^T (K + lambda I)^-1 k(x)``; acquisition
  ``a(x) = pi^(x) + beta sigma(x)`` (the UCB of eq. 11 with ``beta_t`` fixed, as in the paper's
  experiments). Kernel hyperparameters by marginal likelihood with the noise fixed at ``lambda``.
* **BORE**: a 2x32 ReLU network trained with binary cross-entropy (Adam, mini-batches of 64,
  retrained with 100 warm-started steps whenever the observations change); ``a(x) = pi(x)``.

Batches (Oliveira et al. 2022, Sec. 5): the points of a batch are particles of SVGD approximating
``p^(x) ∝ a(x)^k p(x)`` with ``p`` uniform on the encoded box (:mod:`shared_core.optim.svgd`); the
paper has ``k = 1``, our default ``sharpness`` is ``k = 10`` (see ``BOREAlgorithm``). Points of
trials still running are frozen particles, so a new point is pushed away from them. Two further
choices of ours for asynchronous workers, where each suggestion is one particle:

* BORE++'s ``sigma`` is also conditioned on the running trials (their labels are hallucinated at
  ``pi^``, which leaves ``pi^`` unchanged: the batch UCB of GP-BUCB, cf. the paper's eq. A.17), so
  the acquisition itself stops favouring the places already being evaluated;
* the particle starts at the maximiser of that acquisition instead of at a random draw.

With no running trial the suggestion is the acquisition's maximiser (the sequential algorithm).

Constraints (our extension; neither paper treats them) and several objectives (MBORE: De Ath,
Chugh & Rahat, "MBORE: multi-objective Bayesian optimisation by density-ratio estimation", GECCO
2022) change the labels only (:mod:`shared_core.algorithms.bore_labels`): a trial that violates a
constraint is never good, while no trial is feasible the least violating are, and with several
objectives the good class comes from the HypI scalarisation of non-dominated shells. Failed points
(``Observations.X_failed``) join the classifier's training points as bad ones. The local
candidates of the acquisition optimiser start from the good points in
:meth:`~shared_core.interface.Observations.best_first` order.
"""

from __future__ import annotations

from typing import cast

import numpy as np

from shared_core.algorithms.bore_labels import constrained_labels, pareto_labels, quantile_labels
from shared_core.interface import Observations, OneAtATimeAlgorithm
from shared_core.models.bore_classifiers import (
    A_FLOOR,
    Classifier,
    LeastSquaresClassifier,
    NetworkClassifier,
)
from shared_core.models.kernels import KernelSpec, parse_kernel
from shared_core.models.refit import fit_subset
from shared_core.optim.acquisition_optimizer import (
    matches_any,
    maximize_acquisition,
    pull_back,
    raw_candidates,
)
from shared_core.optim.svgd import svgd
from shared_core.search_space import SearchSpace
from shared_core.validation import check_int, check_real

# the label functions are bore_labels.py's, re-exported so that BORE's names import from one place
__all__ = ["BOREAlgorithm", "VARIANTS", "constrained_labels", "pareto_labels", "quantile_labels"]

VARIANTS = ("bore++", "bore")


# ----------------------------------------------------------------------------------- algorithm
class BOREAlgorithm(OneAtATimeAlgorithm):
    """BORE / BORE++ behind the :class:`~shared_core.interface.Algorithm` interface.

    Constraints (:class:`~shared_core.interface.ModelsConstraints`; our extension of Tiao et al.
    2021 and Oliveira et al. 2022): infeasible trials are never labelled good; the good class is
    the best ``ceil(gamma n_feasible)`` feasible trials, or, while no trial is feasible, the
    ``gamma``-fraction of least total violation (:func:`constrained_labels`). There is no model
    per constraint: the one classifier learns "good and feasible" against the rest, and its
    maximiser is the next query. Every variant and ``batch_size`` uses these labels.

    Several objectives (:class:`~shared_core.interface.MultiObjective`; MBORE, De Ath, Chugh &
    Rahat, "MBORE: multi-objective Bayesian optimisation by density-ratio estimation", GECCO
    2022): the labels come from the HypI scalarisation (:func:`pareto_labels`): whole
    non-dominated shells of the feasible trials are good, best first, and in the shell that the
    ``gamma`` quantile cuts the trials adding the most hypervolume over the next shell. The
    reference point is ``Observations.reference_point`` where given, else inferred
    (:func:`~shared_core.algorithms.bore_labels.reference_point_of`). Constraints compose as above.

    Args:
        variant: ``"bore++"`` (least-squares classifier with UCB, default) or ``"bore"`` (network).
        gamma: quantile of the observed values labelled good, in (0, 1) (default 0.25).
        beta: weight of ``sigma`` in BORE++'s acquisition (default 3, as in the paper; BORE has no
            ``sigma`` and ignores it).
        lam: regulariser (label-noise variance) of BORE++'s least squares (default 0.025).
        batch_size: ``None`` (default): each suggestion is one new SVGD particle, the running trials
            being frozen particles (asynchronous). An integer ``B``: particles are drawn ``B`` at a
            time by one joint SVGD run (the paper's synchronous batch) and handed out to the next
            suggestions until a new observation arrives.
        kernel: kernel of BORE++'s classifier: a :class:`KernelSpec` or a name (``"rbf"``,
            ``"matern32"``, ``"matern52"``, each optionally ``"-ard"``); default ``"matern52-ard"``.
        svgd_steps: SVGD iterations (1000 as in the paper).
        svgd_step_size: SVGD step size (1e-2 per step in logit coordinates, see
            :mod:`shared_core.optim.svgd`).
        n_raw: acquisition optimiser budget for the sequential argmax: random candidates scored.
        n_starts: acquisition optimiser budget for the sequential argmax: the best candidates
            refined by L-BFGS-B.
        sharpness: exponent ``k`` of the SVGD target ``p^(x) ∝ a(x)^k p(x)`` (default 10), for both
            variants and for ``batch_size`` batches. ``1`` is the paper's target, nearly flat with
            ``beta = 3`` in 5-6 dimensions (why: see
            [docs/design-decisions.md#bore-sharpness][bore-sharpness]).
        max_points: most observations the classifier is trained on (default 500): with more, the
            ``max_points // 5`` best (in ``Observations.best_first`` order) plus a random rest
            (labels always come from all observations), and at most ``max_points // 4`` failed
            points (the latest).
            An exact GP on ``n`` points costs ``O(n^2)`` memory traffic per SVGD step, and BORE++
            takes 1000 steps.
    """

    models_constraints = True  # through the labels (constrained_labels)
    multi_objective = True  # through the labels (pareto_labels)

    def __init__(
        self,
        *,
        variant: str = "bore++",
        gamma: float = 0.25,
        beta: float = 3.0,
        lam: float = 0.025,
        batch_size: int | None = None,
        kernel: KernelSpec | str | None = None,
        svgd_steps: int = 1000,
        svgd_step_size: float = 1e-2,
        n_raw: int = 512,
        n_starts: int = 8,
        sharpness: float = 10.0,
        max_points: int = 500,
    ) -> None:
        if variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
        self.variant = variant
        self.gamma = check_real("gamma", gamma, low=0.0, high=1.0, low_open=True, high_open=True)
        self.beta = check_real("beta", beta, low=0.0)
        self.lam = check_real("lam", lam, low=0.0, low_open=True)
        self.batch_size = (
            None if batch_size is None else check_int("batch_size", batch_size, minimum=1)
        )
        self.svgd_steps = check_int("svgd_steps", svgd_steps, minimum=0)
        self.svgd_step_size = check_real("svgd_step_size", svgd_step_size, low=0.0, low_open=True)
        self.n_raw, self.n_starts = (
            check_int("n_raw", n_raw, minimum=1),
            check_int("n_starts", n_starts, minimum=1),
        )
        self.sharpness = check_real("sharpness", sharpness, low=0.0, low_open=True)
        self.max_points = check_int("max_points", max_points, minimum=2)
        spec = parse_kernel("matern52-ard" if kernel is None else kernel)
        self.classifier = (
            LeastSquaresClassifier(spec, self.lam, self.beta)
            if variant == "bore++"
            else NetworkClassifier()
        )
        # the observations (and space) the classifier was last fitted to, and their labels
        self._fitted_key: bytes = b""
        self._labels: np.ndarray | None = None
        # particles of the current synchronous batch not handed out yet
        self._queue: list[np.ndarray] = []
        self._queue_key: bytes = b""
        super().__init__()

    def _prepare(
        self, space: SearchSpace, obs: Observations, rng: np.random.Generator
    ) -> tuple[np.ndarray, bytes]:
        """Fit the classifier unless it was fitted to these very observations; return the labels and
        the key of the observations in this space (a queued batch is valid for that key only)."""
        layout = repr((space.params, space.constraints)).encode()
        assert obs.constraints is not None  # Observations fills it
        key = (
            np.ascontiguousarray(np.hstack([obs.X, obs.Y, obs.constraints])).tobytes()
            + np.ascontiguousarray(obs.X_failed).tobytes()
            + repr(obs.constraint_names).encode()
            + (b"" if obs.reference_point is None else obs.reference_point.tobytes())
            + layout
        )
        if key == self._fitted_key and self._labels is not None:
            return self._labels, key
        z = constrained_labels(obs, self.gamma)
        # labels come from all observations; beyond max_points the best rows (best_first:
        # feasible by value or non-dominated rank, then infeasible by violation) are kept
        # (n,) position of each row: good rows first, each class in best_first order (with
        # several objectives the good class need not be a prefix of best_first)
        position = np.empty(len(obs.y))
        position[obs.best_first()] = np.arange(len(obs.y))
        rank = np.empty(len(obs.y))
        rank[np.lexsort((position, -z))] = np.arange(len(obs.y))
        rows = fit_subset(obs.X, rank, self.max_points, rng)
        # failed points are never good: the classifier learns to keep off them (the latest, at
        # most max_points // 4 of them)
        failed = obs.X_failed[len(obs.X_failed) - self.max_points // 4 :]  # (f', d)
        X_fit = np.vstack([obs.X[rows], failed])  # (n' + f', d)
        z_fit = np.concatenate([z[rows], np.zeros(len(failed))])
        self.classifier.fit(X_fit, z_fit, rng, n_observed=len(obs.y) + obs.n_failed, layout=layout)
        self._fitted_key, self._labels = key, z
        return z, key

    def _suggest_one(
        self,
        space: SearchSpace,
        obs: Observations,
        context: tuple[np.ndarray, bytes],
        rng: np.random.Generator,
    ) -> np.ndarray:
        X, pending = obs.X, obs.X_pending
        known = obs.X_avoid  # points not to suggest again
        z, key = context
        synchronous = self.batch_size is not None and self.batch_size > 1
        if synchronous:
            assert self.batch_size is not None  # synchronous
            if key != self._queue_key or not self._queue:
                clf = self.classifier.given_pending(pending)
                self._queue = list(
                    self._move(clf, space, self._draw(clf, space, self.batch_size, rng), pending)
                )
                self._queue_key = key
            x = self._queue.pop(0)
            if space.feasible(x[None])[0] and not matches_any(x[None], known)[0]:
                return x
        clf = self.classifier.given_pending(pending)  # BORE++: sigma also counts the running trials
        # the best good points (with one objective the good class is a prefix of best_first)
        order = obs.best_first()
        X_best = X[order[z[order] > 0][: self.n_starts]]
        x_max = maximize_acquisition(
            clf.acquisition(),
            space,
            rng,
            X_best=X_best,
            n_raw=self.n_raw,
            n_starts=self.n_starts,
            avoid=known,
        )
        # one particle, companions frozen
        if not synchronous and len(pending) and space.continuous_columns.size:
            x = self._move(clf, space, x_max[None], pending)[0]
            if not matches_any(x[None], known)[0]:
                return cast(np.ndarray, x)
        # the sequential step, a particle that snapped onto
        # a known point, or a rejected queued particle
        return x_max

    def _draw(
        self, clf: Classifier, space: SearchSpace, k: int, rng: np.random.Generator
    ) -> np.ndarray:
        """``(k, d)`` SVGD starts: raw candidates drawn ∝ ``a(x)^sharpness``."""
        raw = raw_candidates(space, rng, self.n_raw, np.zeros((0, space.dim)))
        if space.constraints:
            raw = raw[space.feasible(raw)]
            if len(raw) == 0:
                raw = space.sample(rng, 1)
        a = clf.density(raw)
        # (b,)
        log_w = self.sharpness * np.log(np.where(np.isfinite(a), np.maximum(a, A_FLOOR), A_FLOOR))
        # large sharpness: others underflow, but stay drawable
        w = np.exp(log_w - log_w.max()) + 1e-300
        return raw[rng.choice(len(raw), size=min(k, len(raw)), replace=False, p=w / w.sum())]

    def _move(
        self, clf: Classifier, space: SearchSpace, start: np.ndarray, frozen: np.ndarray
    ) -> np.ndarray:
        """SVGD from ``start`` ``(k, d)`` towards ``p^ ∝ a^sharpness`` with ``frozen`` held fixed;
        ``(k, d)`` valid points."""
        moved = svgd(
            lambda Z: self.sharpness * clf.log_density_grad(Z),
            start,
            frozen=frozen,
            columns=space.continuous_columns,
            steps=self.svgd_steps,
            step_size=self.svgd_step_size,
        )
        return space.round_to_valid(pull_back(space, start, moved))
