"""DEC-HBO (Hoang, Hoang, Ouyang & Low, "Decentralized high-dimensional Bayesian optimization
with factor graphs", AAAI 2018): an additive GP over small groups of parameters, its additive
GP-UCB maximised by max-sum message passing on the factor graph, the point then polished on the
GP's log EI by default (step 5).

Per suggestion:
    1. the model (refitted on :class:`~shared_core.models.refit.RefitSchedule`'s schedule, rebuilt
       with the new data in between): the minimised values through EGP-TS's output transform, and
       for each of ``k`` structure samples (disjoint partitions of the parameters into groups of
       at most ``max_factor_size``; Appendix B) an additive GP (Assumptions 1-2) with MAP
       hyperparameters (:mod:`shared_core.algorithms.dec_hbo_structure`: from the prior mode too
       where the structure is sampled anew, warm from the last fit in between). The structure is
       given (``groups``) or sampled by MCMC on the marginal likelihood
       (:mod:`shared_core.models.structure`, proposals scored at inherited hyperparameters:
       :mod:`shared_core.algorithms.dec_hbo_structure`), the chain run at every refit while
       ``CHAIN_WORK`` allows, else once the data grew by ``STRUCTURE_GROWTH`` since it last ran;
       with ``max_factor_size = 1`` every parameter is its own factor (Add-GP-UCB, Kandasamy et al.
       2015), and with ``max_factor_size`` at least the number of parameters there is one factor of
       them all (the ARD GP; no sampling);
    2. running trials and the earlier suggestions of a batch are believed at each GP's mean
       (kriging believer: the variances shrink there, the means stay; the GP-BUCB idea of
       Desautels, Krause & Burdick 2014);
    3. the acquisition: per factor ``-mu_g + beta^1/2 sigma_g`` (eq. 2 for minimisation), averaged
       over the structure samples (eq. 5; :mod:`shared_core.acquisition.additive_ucb`), with
       ``beta = beta_scale * beta_t`` and ``beta_t`` of Lemma 4 (Appendix E);
    4. max-sum (eq. 3-4; :mod:`shared_core.optim.max_sum`) over per-parameter grids: a float or
       int parameter takes ``D_t`` points, a randomly shifted regular grid plus the best observed
       point's value (snapped to the parameter's valid values), a categorical its choices. The
       factors of the union of the structure samples form the graph (the union is where the
       factors overlap); factors over the same parameters are merged. ``D_t = min(cap, 8 +
       floor(t / 5))`` grows with the iteration ``t``, ``cap`` keeping the largest factor's table
       at most ``MAX_TABLE`` points and all tables' work (points times ``n^2``, ``n`` the
       observations each point's variance solves against) at most ``TABLE_WORK``: this package's
       schedule (the grid of the paper's regret bound, Lemma 5, grows as ``t^2`` per parameter,
       and Appendix A states the cost per grid size ``|D_t|`` without a schedule);
    5. the max-sum point is polished by the shared continuous optimiser (it and raw candidates
       around it, fewer where evaluating them would exceed ``POLISH_WORK``, and L-BFGS-B, with
       fewer starts and iterations where they would exceed ``LBFGS_WORK``) on the polish's
       acquisition, and the better of the two by it (the max-sum point only if it satisfies the
       space's linear constraints and is no pending or observed point) is the suggestion. The
       polish's acquisition is, by default (``acquisition="ei"``; this package's step, not the
       paper's), the log of the expected improvement of the additive GPs averaged over the
       structure samples (weights of eq. 5; each on its own data and believed points), started
       from the best observed point too; with ``acquisition="ucb"`` it is the additive UCB itself
       (the paper's algorithm). The UCB's sum of per-factor deviations drives max-sum's search of
       the factor graph; the EI of the whole additive GP decides where its sum is worth trying.

Not supported (refused): several objectives and constraint values, which DEC-HBO does not
model. ``multi_objective`` and ``models_constraints`` are False
(:mod:`shared_core.capabilities`): the adapters refuse such a study before its first trial, or at
the trial after the first that carries constraint values, and ``suggest`` refuses such
observations.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from shared_core.acquisition.additive_ucb import AdditiveUCB, UCBTerm, paper_beta
from shared_core.acquisition.analytic import MixtureLogExpectedImprovement
from shared_core.acquisition.base import Acquisition
from shared_core.algorithms.dec_hbo_groups import checked_groups, resolve_groups
from shared_core.algorithms.dec_hbo_structure import StructureFitter
from shared_core.algorithms.dec_hbo_tables import factor_table, parameter_grids
from shared_core.interface import Observations, OneAtATimeAlgorithm
from shared_core.models.additive import AdditiveHyper, AdditivePosterior
from shared_core.models.gp import NOISE_FLOOR
from shared_core.models.output_transform import OutputTransform
from shared_core.models.refit import RefitSchedule, fit_subset
from shared_core.models.structure import Partition, canonical, partition_columns
from shared_core.optim.acquisition_optimizer import matches_any, maximize_acquisition
from shared_core.optim.max_sum import Factor, max_sum
from shared_core.parameters import CategoricalParam
from shared_core.search_space import SearchSpace
from shared_core.validation import check_bool, check_int, check_real

__all__ = ["DECHBOAlgorithm"]

MAX_TABLE = 8000  # grid points of the largest factor's table (20^3)
# Sum over the tables of (points x observations^2), each point's variance a solve against the
# n x n Cholesky factor: about 0.25 s of tables per suggestion on one core.
TABLE_WORK = 2e9
# The polish's random candidates, (candidates x point cost) at most; with many terms and
# observations, L-BFGS-B from the max-sum and best points does the polish's work. A point costs
# terms x n^2 on the UCB (a solve per factor of each structure sample) and structure samples x
# EI_SOLVES x n^2 on the EI (its gradient for one structure sample took as long as about five
# n x n solves at 20-100 parameters, the kernel's gradient over n x d entries included).
POLISH_WORK = 5e8
EI_SOLVES = 5
# And its L-BFGS-B, (starts x iterations x point cost) at most: fewer starts first (the best
# start, the max-sum point or one near it, is the one that matters), then fewer iterations, at
# least MIN_POLISH_ITERATIONS. Table 1's sizes (at most 30 terms, 150 observations) keep them all.
LBFGS_WORK = 3e8
MAX_POLISH_ITERATIONS, MIN_POLISH_ITERATIONS = 100, 10
GRID_START, GRID_GROWTH = 8, 5  # D_t = min(cap, GRID_START + t // GRID_GROWTH)
# The structure chain runs (its start, or a fixed structure, fitted from the prior mode too) at
# every refit while parameters x fit points^2 is at most CHAIN_WORK (small studies, where it is
# cheap), and beyond at a refit once the data grew by STRUCTURE_GROWTH since it last ran; other
# refits are warm.
CHAIN_WORK = 1e6
STRUCTURE_GROWTH = 1.5
MAX_FIT_POINTS = 300  # hyperparameters (and structures) are fitted on at most this many points


class DECHBOAlgorithm(OneAtATimeAlgorithm):
    """DEC-HBO behind the :class:`~shared_core.interface.Algorithm` interface (module docstring).

    Args:
        max_factor_size: the most parameters in one factor (1: Add-GP-UCB; the paper's MF2 and
            MF3 are 2 and 3).
        groups: the structure, if known: groups of parameter names (or of parameter positions in
            the search space); parameters in no group are factors of their own. Names are checked
            against the search space at the first model-based suggestion. Default: sampled.
        n_structures: ``k``, the structure samples averaged (eq. 5).
        mcmc_steps: Metropolis-Hastings moves per structure refresh.
        beta_scale: multiplies Lemma 4's ``beta_t``.
        delta: the confidence parameter of ``beta_t``.
        max_sum_iterations: message-passing iterations per suggestion (the paper's 30).
        damping: max-sum message damping on loopy factor graphs (default ``0``, none: plain
            max-sum with its anytime decoding found the maximum more often; why: see
            [docs/design-decisions.md#dec-hbo-damping][dec-hbo-damping]).
        kernel: ``"matern52"``, ``"matern32"`` or ``"rbf"``, each factor's kernel (one lengthscale
            per column).
        warp_outputs: as :class:`~shared_core.algorithms.egp.EGPAlgorithm`'s.
        n_raw: the polishing optimiser's random candidates (at most: fewer where the factors and
            trials are many, module docstring).
        n_starts: of them, the max-sum point and (EI) the best trial's point, how many start
            L-BFGS-B (at most, likewise).
        acquisition: what the polish maximises from the max-sum point: ``"ei"``, the log EI of
            the additive GPs averaged over the structure samples, started from the max-sum and
            the best observed points, or ``"ucb"``, the additive UCB max-sum maximised (the
            paper's).
        deterministic_objective: as in :class:`~shared_core.algorithms.egp.EGPAlgorithm`: the
            additive GPs' noise variance fixed at its floor.
    """

    models_constraints = False  # refused: DEC-HBO does not model them
    multi_objective = False  # refused

    def __init__(
        self,
        *,
        max_factor_size: int = 6,
        groups: Sequence[Sequence[str | int]] | None = None,
        n_structures: int = 3,
        mcmc_steps: int = 100,
        beta_scale: float = 0.02,
        delta: float = 0.1,
        max_sum_iterations: int = 30,
        damping: float = 0.0,
        kernel: str = "matern52",
        warp_outputs: bool = True,
        n_raw: int = 256,
        n_starts: int = 4,
        acquisition: str = "ei",
        deterministic_objective: bool = False,
    ) -> None:
        if acquisition not in ("ei", "ucb"):
            raise ValueError(f"acquisition must be 'ei' or 'ucb', got {acquisition!r}")
        self.acquisition = acquisition
        self.max_factor_size = check_int("max_factor_size", max_factor_size, minimum=1)
        self.groups = checked_groups(groups, self.max_factor_size)
        self.n_structures = check_int("n_structures", n_structures, minimum=1)
        self.mcmc_steps = check_int("mcmc_steps", mcmc_steps, minimum=0)
        self.beta_scale = check_real("beta_scale", beta_scale, low=0.0)
        self.delta = check_real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
        self.max_sum_iterations = check_int("max_sum_iterations", max_sum_iterations, minimum=1)
        self.damping = check_real("damping", damping, low=0.0, high=1.0, high_open=True)
        if kernel not in ("matern52", "matern32", "rbf"):
            raise ValueError(f"kernel must be 'matern52', 'matern32' or 'rbf', got {kernel!r}")
        self.kernel = kernel
        self.warp_outputs = check_bool("warp_outputs", warp_outputs)
        deterministic = check_bool("deterministic_objective", deterministic_objective)
        self.noise = NOISE_FLOOR if deterministic else None  # None: fitted
        self.n_raw = check_int("n_raw", n_raw, minimum=1)
        self.n_starts = check_int("n_starts", n_starts, minimum=1)
        self.schedule = RefitSchedule()
        self.partitions: list[Partition] = []  # the distinct structure samples (parameters)
        self.weights: list[float] = []  # their shares of the k samples
        self._hypers: dict[Partition, AdditiveHyper] = {}
        self._posteriors: list[AdditivePosterior] = []  # one per partition, on the last data
        self._n_at_structure = 0  # observations when the structure was last sampled
        self._transform = OutputTransform()
        self._n_at_refit = 0
        self._space_key: tuple[Any, ...] | None = None
        super().__init__()

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state["_posteriors"] = []  # n x n factors: rebuilt from the data at the next suggestion
        return state

    # ------------------------------------------------------------------------------ model
    def _prepare(
        self, space: SearchSpace, obs: Observations, rng: np.random.Generator
    ) -> list[AdditivePosterior]:
        param_columns = _param_columns(space)
        key = (tuple(space.names), space.dim)
        if key != self._space_key:  # a new space: start over
            self._space_key, self.partitions, self.weights = key, [], []
            self._hypers, self._n_at_refit, self._posteriors = {}, 0, []
            self._n_at_structure = 0
        if not self.partitions or self.schedule.due(self._n_at_refit, len(obs.y)):
            self._refit(space, obs, param_columns, rng)
            self._posteriors = []
        y = self._transform(obs.y)
        m = self._posteriors[0].n if self._posteriors else 0
        if m and _extends(self._posteriors[0], obs.X, y):  # between refits: append the new rows
            if len(y) > m:
                self._posteriors = [p.condition(obs.X[m:], y[m:])[0] for p in self._posteriors]
        else:
            self._posteriors = [
                AdditivePosterior(
                    partition_columns(p, param_columns), self._hypers[p], obs.X, y, form=self.kernel
                )
                for p in self.partitions
            ]
        return self._posteriors

    def _refit(
        self,
        space: SearchSpace,
        obs: Observations,
        param_columns: list[np.ndarray],
        rng: np.random.Generator,
    ) -> None:
        """The output transform, the structure samples and their hyperparameters, on at most
        ``MAX_FIT_POINTS`` points."""
        self._transform = OutputTransform.fit(obs.y, warp=self.warp_outputs)
        rows = fit_subset(obs.X, obs.y, MAX_FIT_POINTS, rng)
        X, y = obs.X[rows], self._transform(obs.y[rows])
        anew = (
            not self.partitions
            or len(obs.y) >= STRUCTURE_GROWTH * self._n_at_structure
            or len(param_columns) * len(rows) ** 2 <= CHAIN_WORK  # cheap: at every refit
        )
        fitter = StructureFitter(
            param_columns, X, y, self.kernel, dict(self._hypers), full=anew, noise=self.noise
        )
        n_params = len(param_columns)
        if anew:
            self._n_at_structure = len(obs.y)
        if self.groups is not None:
            samples = [resolve_groups(self.groups, space)]
        elif self.max_factor_size == 1 or self.max_factor_size >= n_params:
            size = min(self.max_factor_size, n_params)
            samples = [
                canonical([range(i, min(i + size, n_params)) for i in range(0, n_params, size)])
            ]
        elif not anew:
            samples = None  # the same structure samples, their hyperparameters refitted warm
        else:
            start = self.partitions[-1] if self.partitions else None
            samples = fitter.sample(
                self.max_factor_size, self.n_structures, self.mcmc_steps, start, rng
            )
        if samples is not None:
            counts = Counter(samples)  # a chain revisits partitions: one model each, weighted
            self.partitions = list(counts)
            self.weights = [counts[p] / len(samples) for p in self.partitions]  # eq. (5)'s 1/k
        self._hypers = {p: fitter.fit(p) for p in self.partitions}
        self._n_at_refit = len(obs.y)

    # ------------------------------------------------------------------------ suggestion
    def _suggest_one(
        self,
        space: SearchSpace,
        obs: Observations,
        context: list[AdditivePosterior],
        rng: np.random.Generator,
    ) -> np.ndarray:
        posteriors = [post.believing(obs.X_pending) for post in context]
        param_columns = _param_columns(space)
        incumbent = obs.X[obs.best_first()[0]]
        t = len(obs.y) + len(obs.X_pending) + 1
        n_posterior = len(obs.y) + len(obs.X_pending)
        grids = parameter_grids(space, self._grid_size(space, t, n_posterior), incumbent, rng)
        terms, term_params = [], []
        for post, partition, weight in zip(posteriors, self.partitions, self.weights):
            for g, columns in enumerate(partition_columns(partition, param_columns)):
                terms.append(UCBTerm(post, g, columns, weight))
                term_params.append(partition[g])
        factors = {p_group for p in self.partitions for p_group in p}
        log_domain = float(sum(math.log(len(grid)) for grid in grids))
        beta = self.beta_scale * paper_beta(log_domain, len(factors), t, self.delta)
        ucb = AdditiveUCB(terms, math.sqrt(beta))
        x_grid = self._max_sum_point(ucb, term_params, grids, space, rng)
        avoid = obs.X_avoid
        acq: Acquisition = ucb
        if self.acquisition == "ei":  # the max-sum point starts a polish of the models' log EI
            acq = MixtureLogExpectedImprovement(
                posteriors, [float(np.min(p.y)) for p in posteriors], self.weights
            )
            centres, point_cost = np.vstack([x_grid, incumbent]), len(posteriors) * EI_SOLVES
        else:
            centres, point_cost = x_grid[None], len(terms)
        n_raw, n_starts, maxiter = _polish_budget(
            self.n_raw, self.n_starts, point_cost * max(n_posterior, 1) ** 2
        )
        try:
            x_polished = maximize_acquisition(
                acq,
                space,
                rng,
                X_best=centres,
                n_raw=n_raw,
                n_starts=n_starts,
                maxiter=maxiter,
                avoid=avoid,
                keep_best=True,
            )
        finally:
            for post in posteriors:  # the cached ones would keep the optimiser's n x n inverse
                post.release()
        candidates = np.vstack([x_grid, x_polished])  # (2, d); x_polished is always feasible
        usable = space.feasible(candidates) & ~matches_any(candidates, avoid)
        if not usable.any():  # the optimiser's own fall-back: feasible, avoided if it can be
            return x_polished
        values = np.where(usable, acq.value(candidates), -np.inf)
        return cast(np.ndarray, candidates[int(np.argmax(values))])

    def _grid_size(self, space: SearchSpace, t: int, n: int = 0) -> int:
        """``D_t = min(cap, GRID_START + t // GRID_GROWTH)`` points per float or int: ``cap``
        keeps every factor's table (``D_t`` per numeric parameter times the choices of its
        categoricals) at ``MAX_TABLE`` points or fewer, and the tables of all structure samples,
        each point's variance a solve against ``n`` observations, within ``TABLE_WORK``
        (points x n^2) where they can, with at least 2 points."""
        params = [space.params[name] for name in space.names]
        shapes = []  # per table: (numeric parameters, product of categorical choices)
        for group in (g for p in self.partitions for g in p):
            cats = [params[i] for i in group]
            choices = [len(c.choices) for c in cats if isinstance(c, CategoricalParam)]
            shapes.append((len(group) - len(choices), math.prod(choices)))
        size = GRID_START + t // GRID_GROWTH
        while size > 2 and any(
            numeric and size**numeric * choices > MAX_TABLE for numeric, choices in shapes
        ):
            size -= 1
        while size > 2 and n * n * sum(size**k * c for k, c in shapes) > TABLE_WORK:
            size -= 1
        return max(2, size)

    def _max_sum_point(
        self,
        acq: AdditiveUCB,
        term_params: list[tuple[int, ...]],
        grids: list[np.ndarray],
        space: SearchSpace,
        rng: np.random.Generator,
    ) -> np.ndarray:
        """Eq. (3)-(4): the grid point max-sum finds, encoded ``(d,)`` and valid. Term ``i`` of
        ``acq`` is a factor over the parameters ``term_params[i]``; terms over the same
        parameters (the same group in several structure samples) are one factor."""
        tables: dict[tuple[int, ...], np.ndarray] = {}
        for i, params in enumerate(term_params):
            shape = tuple(len(grids[p]) for p in params)
            value = factor_table(acq, i, grids, params).reshape(shape)
            tables[params] = tables[params] + value if params in tables else value
        result = max_sum(
            [len(grid) for grid in grids],
            [Factor(params, table) for params, table in tables.items()],
            iterations=self.max_sum_iterations,
            damping=self.damping,
            rng=rng,
        )
        x = np.concatenate([grids[p][result.assignment[p]] for p in range(len(grids))])  # (d,)
        return cast(np.ndarray, space.round_to_valid(x[None])[0])


def _polish_budget(n_raw: int, n_starts: int, point_cost: float) -> tuple[int, int, int]:
    """The polish's random candidates, L-BFGS-B starts and iterations, ``point_cost`` the work of
    one acquisition gradient at one point: ``n_raw`` candidates, fewer where ``candidates x
    point_cost`` exceeds ``POLISH_WORK`` (at least 1); ``n_starts`` (at most the candidates) and
    ``MAX_POLISH_ITERATIONS``, where ``starts x iterations x point_cost`` exceeds ``LBFGS_WORK``
    fewer starts (at least 1), then fewer iterations (at least ``MIN_POLISH_ITERATIONS``)."""
    point_cost = max(point_cost, 1.0)
    n_raw = max(1, min(n_raw, int(POLISH_WORK / point_cost)))
    evaluations = int(LBFGS_WORK / point_cost)  # starts x iterations
    n_starts = max(1, min(n_starts, n_raw, evaluations // MAX_POLISH_ITERATIONS))
    maxiter = max(MIN_POLISH_ITERATIONS, min(MAX_POLISH_ITERATIONS, evaluations // n_starts))
    return n_raw, n_starts, maxiter


def _extends(post: AdditivePosterior, X: np.ndarray, y: np.ndarray) -> bool:
    """Do ``(X (n, d), y (n,))`` start with ``post``'s data (trials completed since, appended)?"""
    m = post.n
    return len(y) >= m and np.array_equal(X[:m], post.X) and np.array_equal(y[:m], post.y)


def _param_columns(space: SearchSpace) -> list[np.ndarray]:
    """Each parameter's encoded columns, in the space's order."""
    return [np.arange(space.columns[n].start, space.columns[n].stop) for n in space.names]
