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

Constraints (our extension; neither paper treats them). BORE has no model of the objective's
values, so it has none per constraint either: the classifier itself learns "good and feasible"
against the rest, through the labels (:func:`constrained_labels`):

* a trial that violates a constraint (some value ``> 0``) is never good;
* with some feasible trials, the good class is the best ``ceil(gamma n_feasible)`` feasible
  trials by value (ties as in :func:`quantile_labels`);
* while no trial is feasible, the good class is the ``gamma``-fraction with the smallest total
  violation ``sum_j max(c_j, 0)`` (:func:`quantile_labels` of the violations), so the search moves
  towards the feasible region.

Feasibility is Optuna's (:attr:`~shared_core.interface.Observations.feasible`: a missing value
does not count), so a study without constraint values gets :func:`quantile_labels` of ``y``.
The local candidates of the acquisition optimiser start from the good points in
:meth:`~shared_core.interface.Observations.best_first` order.

Several objectives (MBORE: De Ath, Chugh & Rahat, "MBORE: multi-objective Bayesian optimisation
by density-ratio estimation", GECCO 2022). With ``y`` of shape ``(n, m)`` the classifier is the
same; only the labels change (:func:`pareto_labels`): each point gets a scalar, and the good class
is :func:`quantile_labels` of it. The scalar is the paper's HypI (hypervolume improvement, from
Rahat, Everson & Fieldsend, "Alternative infill strategies for expensive multi-objective
optimisation", GECCO 2017): with the points sorted into non-dominated shells ``S_0, S_1, ...``
(:func:`~shared_core.pareto.dominance_ranks`), a point ``x`` of shell ``S_k`` scores the
hypervolume of ``S_{k+1} ∪ {x}`` (that of ``{x}`` alone in the last shell), larger being better.
The score never increases from one shell to the next, so the non-dominated points are good first
and a shell cut by the quantile keeps the points that add the most hypervolume to the shell behind
it (spread along the front, not bunched). Ties between shells go to the better shell. The paper
also has a dominance-count rank (DomRank), a Pareto-compliant hypervolume contribution (PHC) and an
augmented Chebyshev scalarisation. The hypervolume's reference point is the given entries of
``Observations.reference_point``, the others from
:func:`~shared_core.pareto.infer_reference_point` of the feasible points. Only the shell that the
quantile cuts needs hypervolumes: its points are ordered by their exclusive contribution to it
and the shell behind (the same order as HypI), the other shells are all good or all bad. With
constraints the same rule applies to the feasible points (infeasible ones are never good, least
violation while none is feasible); with one objective the labels are exactly those above.
"""

from __future__ import annotations

import math
from typing import cast

import numpy as np

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
from shared_core.pareto import completed_reference_point, dominance_ranks, hypervolume
from shared_core.search_space import SearchSpace
from shared_core.validation import check_int, check_real

__all__ = ["BOREAlgorithm", "VARIANTS", "constrained_labels", "pareto_labels", "quantile_labels"]

VARIANTS = ("bore++", "bore")
# The classifiers' names in earlier versions of this module: samplers pickled then still load.
_LeastSquaresClassifier, _NetworkClassifier = LeastSquaresClassifier, NetworkClassifier


def quantile_labels(y: np.ndarray, gamma: float) -> np.ndarray:
    """``(n,)`` labels 1 for the best values of ``y`` (minimised), 0 otherwise.

    ``tau`` is the ``ceil(gamma n)``-th smallest value and good means ``y <= tau``, unless
    values tied with ``tau`` would make more than ``ceil(gamma n)`` points good while some
    value is below ``tau``: then good means ``y < tau``. So on a plateau (many equal bad
    values, e.g. failures reported as ``inf``) the few better trials stay the only positives.
    Equal values always get equal labels. With one point, or when every value ties (a constant
    objective), every label is 1: the classifier is flat and BORE++ explores through ``sigma``.
    """
    n = len(y)
    if n == 0:
        return np.zeros(0)
    k = min(n, max(1, math.ceil(gamma * n)))
    tau = np.sort(y)[k - 1]
    good = y <= tau
    if good.sum() > k and (y < tau).any():
        good = y < tau
    return cast(np.ndarray, good.astype(np.float64))


# Above this many objectives the exact HypI of a cut shell (one hypervolume per point, each
# ``O(n^{m-1})``) costs seconds per suggestion at a few hundred trials; the shell is then ordered
# by the volume each point dominates alone.
MAX_EXACT_HYPI_OBJECTIVES = 3


def pareto_labels(Y: np.ndarray, reference_point: np.ndarray, gamma: float) -> np.ndarray:
    """``(n,)`` MBORE labels of the points ``Y`` ``(n, m)`` (every objective minimised):
    :func:`quantile_labels` of the HypI scalarisation (see the module docstring).

    The good class holds ``ceil(gamma n)`` points with the tie rule of :func:`quantile_labels`:
    whole non-dominated shells, best first, then the points of the shell that the quantile cuts
    with the largest hypervolume improvement over the next shell (reference point
    ``reference_point`` ``(m,)``). Equal points get equal labels.
    """
    n = len(Y)
    if n == 0:
        return np.zeros(0)
    k = min(n, max(1, math.ceil(gamma * n)))
    shell = dominance_ranks(Y)  # (n,)
    cut = int(np.searchsorted(np.cumsum(np.bincount(shell)), k))  # the shell of the k-th best point
    score = shell.astype(np.float64)  # (n,) smaller is better
    rows = np.flatnonzero(shell == cut)
    if np.count_nonzero(shell <= cut) > k:  # the cut splits this shell: order it by HypI
        Y_unit, r_unit = _unit_scale(Y, reference_point)
        if Y.shape[1] <= MAX_EXACT_HYPI_OBJECTIVES:
            # HypI less the hypervolume of the next shell, common to the whole shell
            gain = _hypervolume_gains(Y_unit[rows], Y_unit[shell == cut + 1], r_unit)
        else:  # the volume each point dominates alone: no hypervolume of the next shell
            gain = np.prod(np.clip(r_unit - Y_unit[rows], 0.0, None), axis=1)
        # relative rounding: gains equal up to floating-point error tie
        gain = np.round(gain / max(float(gain.max()), np.finfo(float).tiny), 12)
        # in [cut, cut + 1): the shell stays between its neighbours, equal gains tie
        _, position = np.unique(-gain, return_inverse=True)
        score[rows] += position.reshape(-1) / len(rows)
    return quantile_labels(score, gamma)


def _unit_scale(Y: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``Y`` ``(n, m)`` and ``r`` ``(m,)`` mapped per objective by ``(v - ideal) / (r - ideal)``
    (``ideal``: the smallest value; a scale of 1 where ``r`` is not above it): an increasing map
    per objective, so dominance and the order of hypervolume gains are kept, while values of any
    magnitude stay of order one."""
    ideal = Y.min(axis=0)
    span = np.where(r > ideal, r - ideal, 1.0)
    return (Y - ideal) / span, (r - ideal) / span


def _hypervolume_gains(points: np.ndarray, behind: np.ndarray, r: np.ndarray) -> np.ndarray:
    """``(b,)`` hypervolume that each of ``points`` ``(b, m)`` alone adds to ``behind`` ``(c, m)``
    (reference point ``r``): the volume of its box ``[x, r]`` less the hypervolume of ``behind``
    clipped to the box (``max(a, x)``)."""
    gains = np.zeros(len(points))
    for i, x in enumerate(points):
        if np.all(x < r):
            gains[i] = np.prod(r - x) - hypervolume(np.maximum(behind, x), r)
    return np.maximum(gains, 0.0)


def reference_point_of(obs: Observations) -> np.ndarray:
    """``(m,)`` hypervolume reference point for ``obs``: the given entries of
    ``obs.reference_point``, the others (NaN, or all when it is None) from
    :func:`~shared_core.pareto.infer_reference_point` of the feasible rows (all rows if none is
    feasible; :func:`~shared_core.pareto.completed_reference_point`). ``obs`` has at least one
    row."""
    return completed_reference_point(obs.Y, obs.reference_point, obs.feasible)


def constrained_labels(obs: Observations, gamma: float) -> np.ndarray:
    """``(n,)`` labels of ``obs`` with its constraints: 1 for the best feasible values, 0 otherwise.

    Infeasible points (:attr:`Observations.feasible`) are never good. With ``f > 0`` feasible
    points, the good ones are :func:`quantile_labels` of their values, i.e. the best
    ``ceil(gamma f)`` with the same tie rule (with several objectives, :func:`pareto_labels` of
    the feasible points, reference point :func:`reference_point_of`). With none, the good ones are
    :func:`quantile_labels` of the total violations (:attr:`Observations.violation`): the least
    violating. Without constraint values every point is feasible and the labels are
    ``quantile_labels(obs.y, gamma)`` (``pareto_labels`` of ``obs.y``).
    """
    feasible = obs.feasible  # (n,)
    if not feasible.any():
        return quantile_labels(obs.violation, gamma)
    z = np.zeros(len(obs.y))
    if obs.n_objectives == 1:
        z[feasible] = quantile_labels(obs.y[feasible], gamma)
    else:
        z[feasible] = pareto_labels(obs.Y[feasible], reference_point_of(obs), gamma)
    return z


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
    (:func:`reference_point_of`). Constraints compose as above.

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
            variants and for ``batch_size`` batches. ``1`` is the paper's target; with ``beta = 3``
            in 5-6 dimensions ``a`` is nearly flat, and parallel regret was much worse with it
            (``benchmarks/`` compares the two).
        max_points: most observations the classifier is trained on (default 500): with more, the
            ``max_points // 5`` best (in ``Observations.best_first`` order) plus a random rest
            (labels always come from all observations).
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
            + repr(obs.constraint_names).encode()
            + (b"" if obs.reference_point is None else obs.reference_point.tobytes())
            + layout
        )
        labels = getattr(self, "_labels", None)  # absent in samplers pickled by older versions
        if key == self._fitted_key and labels is not None:
            return labels, key
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
        self.classifier.fit(obs.X[rows], z[rows], rng, n_observed=len(obs.y), layout=layout)
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
            if space.feasible(x[None])[0] and not matches_any(x[None], np.vstack([X, pending]))[0]:
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
            avoid=np.vstack([pending, X]),
        )
        # one particle, companions frozen
        if not synchronous and len(pending) and space.continuous_columns.size:
            x = self._move(clf, space, x_max[None], pending)[0]
            if not matches_any(x[None], np.vstack([X, pending]))[0]:
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
