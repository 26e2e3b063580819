"""Ready generation strategies for Ax's ``Client``: Sobol initialisation, then a core algorithm."""

from __future__ import annotations

from typing import Any

from ax.adapter.registry import Generators
from ax.core.experiment_status import ExperimentStatus
from ax.core.trial_status import TrialStatus
from ax.generation_strategy.generation_node import GenerationNode
from ax.generation_strategy.generation_strategy import GenerationStrategy
from ax.generation_strategy.generator_spec import GeneratorSpec
from ax.generation_strategy.transition_criterion import MaxTrialsAwaitingData, MinTrials

from ax_egp.node import AlgorithmNode
from shared_core.registry import algorithm_names
from shared_core.validation import check_int

__all__ = ["generation_strategy"]

_NOT_COUNTED = [TrialStatus.FAILED, TrialStatus.ABANDONED]


def generation_strategy(
    method: str = "egp-ts",
    *,
    initialization_trials: int = 5,
    seed: int | None = None,
    max_threads: int | None = 1,
    **options: Any,
) -> GenerationStrategy:
    """Sobol for ``initialization_trials`` trials, then the registered algorithm ``method``.

    Mirrors Ax's own default strategy: the Sobol node hands over once ``initialization_trials``
    trials exist and at least half of them have data, and pauses (rather than overshooting its
    budget) when a large ``get_next_trials`` call asks for more. Failed and abandoned trials do not
    count towards the budget.

    Args:
        method: one of ``shared_core.registry.algorithm_names()`` ("egp-ts", "egp-ei", ...).
        initialization_trials: Sobol trials before the algorithm (0 starts with the algorithm).
        seed: seed of the Sobol sequence and of the algorithm's candidates.
        max_threads: BLAS/OpenMP/PyTorch threads while a candidate is computed (default 1; ``None``:
            no limit), restored afterwards.
        options: options of the algorithm, e.g. ``n_features=256`` or
            ``kernels=["rbf", "matern52"]`` (JSON values, saved with the strategy).

    Examples:
        >>> from ax import Client
        >>> import ax_egp
        >>> client = Client()
        >>> # ... configure_experiment / configure_optimization ...
        >>> client.set_generation_strategy(ax_egp.generation_strategy("egp-ts", seed=0))
    """
    if method not in algorithm_names():
        raise ValueError(f"unknown method {method!r}; valid methods: {algorithm_names()}")
    initialization_trials = check_int("initialization_trials", initialization_trials, minimum=0)
    # validates seed and options
    node = AlgorithmNode(method, seed=seed, options=options, max_threads=max_threads)
    seed = node.seed  # a plain int: Ax's Sobol rejects numpy integers
    if initialization_trials == 0:
        return GenerationStrategy(name=method, nodes=[node])
    sobol = GenerationNode(
        name="Sobol",
        generator_specs=[
            GeneratorSpec(generator_enum=Generators.SOBOL, generator_kwargs={"seed": seed})
        ],
        transition_criteria=[
            MinTrials(
                threshold=initialization_trials,
                transition_to=node.name,
                use_all_trials_in_exp=True,
                not_in_statuses=_NOT_COUNTED,
            ),
            MinTrials(
                threshold=max(1, initialization_trials // 2),
                transition_to=node.name,
                use_all_trials_in_exp=True,
                only_in_statuses=[TrialStatus.COMPLETED],
                count_only_trials_with_data=True,
            ),
        ],
        pausing_criteria=[
            MaxTrialsAwaitingData(
                threshold=initialization_trials,
                use_all_trials_in_exp=True,
                not_in_statuses=_NOT_COUNTED,
            ),
        ],
        should_deduplicate=True,
        suggested_experiment_status=ExperimentStatus.INITIALIZATION,
    )
    return GenerationStrategy(name=f"Sobol+{method}", nodes=[sobol, node])
