"""The named Optuna samplers: a registered core algorithm
(``shared_core.registry``) in a :class:`CoreSampler`.

Each keeps an explicit keyword-only signature (for IDEs, docs, type checkers and pickling):
the options the registry lists for its methods, then :class:`CoreSampler`'s. The constructor
hands the first to ``make_algorithm`` and the rest to :class:`CoreSampler`
(:func:`~optuna_egp._named.build_named_sampler`). The samplers that model one objective without
constraints are in :mod:`optuna_egp.single_objective_samplers`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from optuna.samplers import BaseSampler
from optuna.trial import FrozenTrial

from optuna_egp._named import build_named_sampler
from optuna_egp.core_sampler import CoreSampler
from optuna_egp.single_objective_samplers import DECHBOSampler, STOBNTSSampler
from shared_core.algorithms.bore import VARIANTS
from shared_core.algorithms.egp import ACQUISITIONS
from shared_core.models.kernels import KernelSpec

__all__ = [
    "BORESampler",
    "DECHBOSampler",
    "EGPTSSampler",
    "NAMED_SAMPLERS",
    "STOBNTSSampler",
]


class EGPTSSampler(CoreSampler):
    """Ensemble-GP Thompson sampling (EGP-TS, Lu et al. 2023) as an Optuna sampler.

    Constraints: constraint values set in the objective with ``trial.set_constraint`` (or returned
    by ``constraints_func``) are modelled with the objective. A trial is feasible when every value
    it has is ``<= 0`` (a trial with none is feasible), the rule of ``study.best_trial``. The
    constraint values of pruned and failed trials are not used (a failed trial's point is:
    ``model_failures``).

    Several objectives (``optuna.create_study(directions=[...])``): a GP ensemble per objective; a
    Thompson draw of each, scalarised per suggestion with a random weight vector (EGP-EI: see
    :class:`shared_core.EGPAlgorithm`). The reference point is inferred from the observed front.
    With constraints, the front is that of the feasible trials. ``study.best_trials`` is the
    Pareto front found.

    Examples:
        >>> import optuna
        >>> from optuna_egp import EGPTSSampler
        >>> study = optuna.create_study(sampler=EGPTSSampler(seed=0))

    Args:
        kernels: kernel dictionary: names (``["rbf", "matern52-ard"]``; each of ``"rbf"``,
            ``"matern32"``, ``"matern52"``, optionally with ``"-ard"``) and/or
            :class:`shared_core.KernelSpec` objects, or ``"grid"`` (the paper's 11-lengthscale RBF
            grid); default the paper's RBF, RBF-ARD, Matérn-3/2 and Matérn-5/2, plus Matérn-5/2-ARD.
        acquisition: ``"auto"`` (default: EGP-EI while there are fewer than 10 completed trials
            per encoded dimension, where Thompson draws over-explore, running trials counted as
            kriging-believer fantasies; EGP-TS with fantasies once data is plentiful), ``"ts"``
            Thompson sampling, or ``"ei"`` EGP-EI (the registry's methods ``"egp-auto"``,
            ``"egp-ts"``, ``"egp-ei"``).
        n_features: random Fourier features per GP (default 512).
        fantasize_pending: condition each draw on running trials (kriging believer) so that
            concurrent workers get diverse suggestions (default True).
        exact_limit: above this many completed trials each GP is a random-feature posterior (default
            1000).
        warp_outputs: fit the GPs to power-warped objective values, which compresses heavy tails
            of bad values (default True; ``False`` gives plain standardisation).
        n_raw: random candidates scored when the acquisition is maximised (default 512).
        n_starts: of the ``n_raw`` candidates, the best refined by L-BFGS-B (default 8).
        deterministic_objective: the objective and constraint values are noise-free: every GP's
            noise variance is fixed at its floor (1e-6 of the standardised variance), as
            GPSampler's option of the same name, instead of fitted (default False; see
            `docs/getting-started.md#noise`).
        constraints_func: a function that takes a trial (``FrozenTrial``) and returns its
            constraint values, as in Optuna's samplers (deprecated on Optuna 5, as theirs, in
            favour of ``trial.set_constraint``; see :class:`CoreSampler`).

    The other options, ``seed``, ``n_startup_trials``, ``independent_sampler``,
    ``warn_independent_sampling``, ``max_threads``, ``running_trial_timeout``, ``share_model`` and
    ``model_failures``, are :class:`CoreSampler`'s (``share_model`` records the fitted ensemble,
    kernel weights per trial; see :func:`optuna_egp.plot_model`).
    """

    METHODS = ("egp-ts", "egp-ei", "egp-auto")

    def __init__(
        self,
        *,
        kernels: Sequence[KernelSpec | str] | str | None = None,
        acquisition: str = "auto",
        n_features: int = 512,
        fantasize_pending: bool = True,
        exact_limit: int = 1000,
        warp_outputs: bool = True,
        n_raw: int = 512,
        n_starts: int = 8,
        deterministic_objective: bool = False,
        seed: int | None = None,
        n_startup_trials: int = 10,
        independent_sampler: BaseSampler | None = None,
        warn_independent_sampling: bool = True,
        max_threads: int | None = 1,
        running_trial_timeout: float | str | None = "auto",
        share_model: bool = True,
        constraints_func: Callable[[FrozenTrial], Sequence[float]] | None = None,
        model_failures: bool = True,
    ) -> None:
        if acquisition not in ACQUISITIONS:
            raise ValueError(f"acquisition must be one of {ACQUISITIONS}, got {acquisition!r}")
        arguments = {
            k: v for k, v in locals().items() if k not in ("self", "acquisition", "__class__")
        }
        build_named_sampler(self, f"egp-{acquisition}", arguments)


class BORESampler(CoreSampler):
    """BORE++ / BORE (density-ratio BO; Oliveira et
    al. 2022, Tiao et al. 2021) as an Optuna sampler.

    Observations better than the ``gamma``-quantile are "good"; a classifier of good vs. bad
    points is the acquisition. With no running trial the suggestion is the acquisition's
    maximiser. With running trials (``n_jobs``, several processes on one storage, or ask/tell
    batches) each suggestion is one SVGD particle of ``p(x) ∝ acquisition(x)^sharpness`` whose
    companions are the running trials, held fixed, so concurrent suggestions spread over the
    promising region instead of piling onto one point. The particle starts at the acquisition's
    maximiser, and BORE++'s uncertainty already counts the running trials as (soon) observed.

    Constraints: constraint values set in the objective with ``trial.set_constraint`` (or returned
    by ``constraints_func``) decide the labels with the objective: an infeasible trial is never
    good (while no trial is feasible, the least violating are). A trial is feasible when every
    value it has is ``<= 0`` (a trial with none is feasible), the rule of ``study.best_trial``.
    The constraint values of pruned and failed trials are not used (a failed trial's point is a
    bad one: ``model_failures``).

    Several objectives (``optuna.create_study(directions=[...])``): MBORE (De Ath, Chugh & Rahat,
    "MBORE: multi-objective Bayesian optimisation by density-ratio estimation", GECCO 2022): the
    good class comes from a scalarisation of each trial against the others on the Pareto
    criterion (see :class:`shared_core.BOREAlgorithm`); infeasible trials are never good.
    ``study.best_trials`` is the Pareto front found.

    Examples:
        >>> import optuna
        >>> from optuna_egp import BORESampler
        >>> study = optuna.create_study(sampler=BORESampler(seed=0))

    Args:
        variant: ``"bore++"`` (default: least-squares kernel classifier with UCB
            ``pi + beta sigma``) or ``"bore"`` (the original 2x32 network classifier; needs PyTorch,
            ``python -m pip install torch``); the registry's methods of the same names.
        gamma: fraction of completed trials labelled good, in (0, 1) (default 0.25).
        beta: exploration weight of BORE++ (default 3; unused by ``"bore"``).
        lam: regulariser (label-noise variance) of BORE++'s least squares (default 0.025).
        batch_size: ``None`` (default): one SVGD particle per suggestion, companions derived from
            the running trials. An integer ``B``: ``B`` particles are drawn jointly (the paper's
            synchronous batch) and handed out to the next ``B`` suggestions of this process while no
            trial completes. Meant for synchronous batches (ask ``B`` trials, then tell them): with
            ``optimize(n_jobs=1)`` or asynchronous workers every completion starts a new batch, so
            each suggestion costs a ``B``-particle run and is a draw, not the acquisition's
            maximiser.
        kernel: kernel of BORE++'s classifier, a name (``"rbf"``, ``"matern52"``, ...) or a
            :class:`shared_core.KernelSpec` (default: see :class:`shared_core.BOREAlgorithm`).
        svgd_steps: SVGD iterations (default 1000).
        svgd_step_size: SVGD step size (default 0.01).
        n_raw: random candidates scored when the acquisition is maximised (default 512).
        n_starts: of the ``n_raw`` candidates, the best refined (default 8).
        sharpness: exponent ``k`` of the SVGD target ``acquisition(x)^k`` (default 10, both
            variants, also for ``batch_size``). The paper's target is ``k = 1``, nearly flat in 5-6
            dimensions (see `docs/design-decisions.md#bore-sharpness`).
        max_points: most completed trials the classifier is trained on (default 500; above that the
            ``max_points // 5`` best plus a random rest, labels from all trials), which bounds the
            cost per suggestion in long studies.
        constraints_func: a function that takes a trial (``FrozenTrial``) and returns its
            constraint values, as in Optuna's samplers (deprecated on Optuna 5, as theirs, in
            favour of ``trial.set_constraint``; see :class:`CoreSampler`).

    The other options, ``seed``, ``n_startup_trials``, ``independent_sampler``,
    ``warn_independent_sampling``, ``max_threads``, ``running_trial_timeout``, ``share_model`` and
    ``model_failures``, are :class:`CoreSampler`'s (``share_model`` has no effect: BORE has no model
    state to share).
    """

    METHODS = ("bore++", "bore")

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
        seed: int | None = None,
        n_startup_trials: int = 10,
        independent_sampler: BaseSampler | None = None,
        warn_independent_sampling: bool = True,
        max_threads: int | None = 1,
        running_trial_timeout: float | str | None = "auto",
        share_model: bool = True,
        constraints_func: Callable[[FrozenTrial], Sequence[float]] | None = None,
        model_failures: bool = True,
    ) -> None:
        if variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
        arguments = {k: v for k, v in locals().items() if k not in ("self", "variant", "__class__")}
        build_named_sampler(self, variant, arguments)


# The named samplers but DistributedTSSampler (in ``distributed``), for tests and refusals.
NAMED_SAMPLERS: tuple[type[CoreSampler], ...] = (
    EGPTSSampler,
    BORESampler,
    DECHBOSampler,
    STOBNTSSampler,
)
