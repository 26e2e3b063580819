"""The named Optuna samplers that model one objective without constraints (a study with
several objectives or with constraint values is refused, naming the samplers that model them):
DEC-HBO and STO-BNTS, each a registered core algorithm in a :class:`CoreSampler` built as those of
:mod:`optuna_egp.named_samplers`."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from optuna.samplers import BaseSampler
from optuna.trial import FrozenTrial

from optuna_egp._named import build_named_sampler
from optuna_egp.core_sampler import CoreSampler
from shared_core.algorithms.stobnts import VARIANTS as STO_BNTS_VARIANTS

__all__ = ["DECHBOSampler", "STOBNTSSampler"]


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
        deterministic_objective: the objective is noise-free: the additive GPs' noise variance
            is fixed at its floor, as GPSampler's option of the same name (default False).
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
