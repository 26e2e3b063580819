"""The named Optuna samplers: a registered core algorithm
(``shared_core.registry``) in a :class:`CoreSampler`.

Each keeps an explicit keyword-only signature (for IDEs, docs, type checkers and pickling):
the options the registry lists for its methods, then :class:`CoreSampler`'s. The constructor
hands the first to ``make_algorithm`` and the rest to :class:`CoreSampler`, so the two
cannot disagree; a test fails when a signature drifts from the registry.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from optuna.samplers import BaseSampler
from optuna.trial import FrozenTrial

from optuna_egp.core_sampler import CoreSampler
from shared_core.algorithms.bore import VARIANTS
from shared_core.algorithms.egp import ACQUISITIONS
from shared_core.algorithms.stobnts import VARIANTS as STO_BNTS_VARIANTS
from shared_core.models.kernels import KernelSpec
from shared_core.registry import algorithm_options, make_algorithm

__all__ = [
    "BORESampler",
    "DECHBOSampler",
    "EGPTSSampler",
    "NAMED_SAMPLERS",
    "STOBNTSSampler",
    "build_named_sampler",
    "split_arguments",
]


def split_arguments(
    method: str, arguments: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A named sampler's constructor ``arguments``, split into the options the registry lists for
    ``method`` (the algorithm's) and the others (:class:`CoreSampler`'s)."""
    names = algorithm_options(method)
    return (
        {k: v for k, v in arguments.items() if k in names},
        {k: v for k, v in arguments.items() if k not in names},
    )


def build_named_sampler(sampler: CoreSampler, method: str, arguments: dict[str, Any]) -> None:
    """Initialise ``sampler`` from its constructor's ``arguments`` (:func:`split_arguments`)."""
    algorithm_arguments, core_arguments = split_arguments(method, arguments)
    CoreSampler.__init__(sampler, make_algorithm(method, **algorithm_arguments), **core_arguments)


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


class DECHBOSampler(CoreSampler):
    """DEC-HBO (Hoang, Hoang, Ouyang & Low, "Decentralized high-dimensional Bayesian optimization
    with factor graphs", AAAI 2018) as an Optuna sampler: an additive GP over small groups of
    parameters, its additive UCB maximised by max-sum message passing and the point polished on
    the GP's log EI (see :class:`shared_core.DECHBOAlgorithm`). For studies with many parameters
    that interact in small groups.

    Running trials (``n_jobs``, several processes, ask/tell batches) are believed at the model's
    mean: its standard deviations, and so the expected improvement, shrink near them.

    Several objectives and constraints are refused (DEC-HBO does not model them), with
    a ``ValueError`` naming the samplers to use instead: several objectives before the first
    trial, ``constraints_func`` when the sampler is built, and constraint values
    (``trial.set_constraint``) at the trial after the first completed one that carries them,
    start-up trials included.

    Examples:
        >>> import optuna
        >>> from optuna_egp import DECHBOSampler
        >>> study = optuna.create_study(sampler=DECHBOSampler(seed=0))

    Args:
        max_factor_size: the most parameters in one factor (default 6; 1 is Add-GP-UCB, 3 the
            paper's MF3).
        groups: the factors, if known: lists of parameter names (e.g.
            ``[["x0", "x1"], ["x2", "lr"]]``), disjoint; parameters in no group are factors of
            their own.
            With define-by-run spaces the names are checked at the first model-based suggestion.
            Default ``None``: sampled from the data by MCMC on the marginal likelihood.
        n_structures: structure samples whose acquisitions are averaged (default 3).
        mcmc_steps: Metropolis-Hastings moves per structure refresh (default 100).
        beta_scale: multiplies the paper's ``beta_t`` (Lemma 4) (default 0.02).
        delta: confidence parameter of ``beta_t`` (default 0.1).
        max_sum_iterations: message-passing iterations per suggestion (default 30, the paper's).
        damping: message damping on loopy factor graphs (default 0: none).
        kernel: each factor's kernel, ``"matern52"`` (default), ``"matern32"`` or ``"rbf"``.
        warp_outputs: fit the GPs to power-warped objective values (default True).
        n_raw: random candidates of the polishing step (default 256; fewer with many trials).
        n_starts: of those and the start points, the best refined (default 4; fewer likewise).
        acquisition: what the polish maximises from the max-sum point: ``"ei"`` (default; the
            log EI of the additive GPs) or ``"ucb"`` (the paper's additive UCB).
        constraints_func: not supported (a ``ValueError``): DEC-HBO does not model constraints.

    The other options, ``seed``, ``n_startup_trials``, ``independent_sampler``,
    ``warn_independent_sampling``, ``max_threads``, ``running_trial_timeout``, ``share_model`` and
    ``model_failures``, are :class:`CoreSampler`'s (``share_model`` has no effect: no model state is
    shared).
    """

    METHODS = ("dec-hbo",)

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
        arguments = {k: v for k, v in locals().items() if k not in ("self", "__class__")}
        build_named_sampler(self, "dec-hbo", arguments)


class STOBNTSSampler(CoreSampler):
    """STO-BNTS (Dai, Shu, Low & Jaillet, "Sample-then-optimize batch neural Thompson sampling",
    NeurIPS 2022) as an Optuna sampler: every suggestion trains a small neural network from its own
    random initialisation with a regularised loss and suggests the network's minimiser, a Thompson
    sample by sample-then-optimize (see :class:`shared_core.STOBNTSAlgorithm`). Concurrent
    suggestions (``n_jobs``, several processes, ask/tell batches) are independently trained
    networks; running trials enter each network as believed targets (the posterior mean under the
    network's empirical neural tangent kernel), so that a sample is not minimised at a running
    trial's point (it may be minimised close to it). Needs
    PyTorch (``pip install "egp-samplers[torch]"``); it is imported when the sampler is built.

    Several objectives and constraints are refused, as by :class:`DECHBOSampler`: STO-BNTS does
    not model them.

    Examples:
        >>> import optuna
        >>> from optuna_egp import STOBNTSSampler
        >>> study = optuna.create_study(sampler=STOBNTSSampler(seed=0))

    Args:
        variant: ``"network"`` (default; STO-BNTS) or ``"linear"`` (STO-BNTS-Linear: a model
            linear in the parameters on the network's neural tangent features, solved exactly: an
            exact posterior sample of that kernel's GP, faster).
        width: units per hidden layer (default 64; the paper's 256 costs several times more).
        depth: hidden layers (default 2).
        activation: ``"erf"`` (default), ``"relu"`` or ``"tanh"``.
        beta: exploration scale, the paper's ``beta_t`` held constant: the sample's spread around
            the posterior mean relative to the posterior's (default 0.5, chosen by development
            runs; 1 is plain Thompson sampling).
        bias_std: prior scale of the biases (default 1).
        noise_var: noise variance on the standardised objective scale (default 0.01).
        max_steps: L-BFGS iterations of a network's training (default 200).
        max_points: most completed trials a network is trained on (default 300: the best fifth of
            them and a random rest above that).
        warp_outputs: fit power-warped objective values (default True).
        n_raw: random candidates scored when a network is minimised (default 2048).
        n_starts: of those, the best refined by L-BFGS-B (default 8).
        constraints_func: not supported (a ``ValueError``): STO-BNTS does not model constraints.

    The other options, ``seed``, ``n_startup_trials``, ``independent_sampler``,
    ``warn_independent_sampling``, ``max_threads``, ``running_trial_timeout``, ``share_model`` and
    ``model_failures``, are :class:`CoreSampler`'s (``share_model`` has no effect: no model state is
    shared).
    """

    METHODS = ("sto-bnts", "sto-bnts-linear")

    def __init__(
        self,
        *,
        variant: str = "network",
        width: int = 64,
        depth: int = 2,
        activation: str = "erf",
        beta: float = 0.5,
        bias_std: float = 1.0,
        noise_var: float = 0.01,
        max_steps: int = 200,
        max_points: int = 300,
        warp_outputs: bool = True,
        n_raw: int = 2048,
        n_starts: int = 8,
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
        if variant not in STO_BNTS_VARIANTS:
            raise ValueError(f"variant must be one of {STO_BNTS_VARIANTS}, got {variant!r}")
        arguments = {k: v for k, v in locals().items() if k not in ("self", "variant", "__class__")}
        build_named_sampler(
            self, "sto-bnts" if variant == "network" else "sto-bnts-linear", arguments
        )


# The named samplers of this module (DistributedTSSampler is in ``distributed``).
NAMED_SAMPLERS: tuple[type[CoreSampler], ...] = (
    EGPTSSampler,
    BORESampler,
    DECHBOSampler,
    STOBNTSSampler,
)
