"""Ready generation strategies for Ax's ``Client``: Sobol initialisation, then a core algorithm.

The Sobol node carries :class:`NextNodeSupportsExperiment`, so that an experiment the algorithm
node would refuse (several objectives for an algorithm that does not model them, relative outcome
constraints, ...) is refused at the first ``get_next_trials``, before any Sobol trial is paid for.
"""

from __future__ import annotations

from typing import Any

from ax.adapter.registry import Generators
from ax.core.experiment import Experiment
from ax.core.experiment_status import ExperimentStatus
from ax.core.trial_status import TrialStatus
from ax.generation_strategy.generation_node import GenerationNode
from ax.generation_strategy.generation_strategy import GenerationStrategy
from ax.generation_strategy.generator_spec import GeneratorSpec
from ax.generation_strategy.transition_criterion import (
    MaxTrialsAwaitingData,
    MinTrials,
    TransitionCriterion,
)

from ax_egp.node import AlgorithmNode
from shared_core.registry import algorithm_names
from shared_core.validation import check_int

__all__ = ["NextNodeSupportsExperiment", "generation_strategy"]

_NOT_COUNTED = [TrialStatus.FAILED, TrialStatus.ABANDONED]


class NextNodeSupportsExperiment(TransitionCriterion):
    """A transition criterion that raises the ``ValueError`` of
    :meth:`AlgorithmNode.check_experiment` when the node it leads to cannot model the experiment,
    and is met otherwise (it never holds a transition back).

    Ax evaluates a node's transition criteria at every ``GenerationStrategy.gen``, before the
    node generates (to decide which node generates), and evaluates the criteria of one edge in
    order until one is not met; placed first on the Sobol node's edge to the algorithm node, this
    check runs at every ``get_next_trials`` of the initialisation, the first one included. Other
    places were considered: the check in ``AlgorithmNode`` alone runs only after the Sobol trials;
    a ``GenerationNode`` subclass for the Sobol node would need its own JSON decoder (Ax's decoder
    rebuilds exactly ``GenerationNode`` from a node's JSON); Ax's input constructors are a closed
    enum. A criterion is what Ax itself uses to branch on the optimization config
    (``IsSingleObjective``), its JSON form is its constructor arguments (``import ax_egp``
    registers it), and the strategy otherwise transitions exactly as without it.

    Args:
        transition_to: name of the :class:`AlgorithmNode` the edge leads to.
        continue_trial_generation: as for every Ax transition criterion (the edge's value).
    """

    def __init__(self, transition_to: str, continue_trial_generation: bool | None = False) -> None:
        super().__init__(
            transition_to=transition_to, continue_trial_generation=continue_trial_generation
        )

    def is_met(self, experiment: Experiment, curr_node: GenerationNode) -> bool:
        node = curr_node.generation_strategy.nodes_by_name.get(self.transition_to)
        if isinstance(node, AlgorithmNode):
            node.check_experiment(experiment)  # ValueError for an unsupported experiment
        return True


def generation_strategy(
    method: str = "egp-ts",
    *,
    initialization_trials: int = 5,
    seed: int | None = None,
    max_threads: int | None = 1,
    model_failures: bool = True,
    **options: Any,
) -> GenerationStrategy:
    """Sobol for ``initialization_trials`` trials, then the registered algorithm ``method``.

    Mirrors Ax's own default strategy: the Sobol node hands over once ``initialization_trials``
    trials exist and at least half of them have data, and pauses (rather than overshooting its
    budget) when a large ``get_next_trials`` call asks for more. Failed and abandoned trials do not
    count towards the budget.

    The objective may be one metric or a fixed weighted sum of metrics, or several objectives
    (with their objective thresholds as the hypervolume reference point) for algorithms that
    model them; outcome constraints with absolute bounds are modelled by algorithms that model
    constraints. An experiment the algorithm node would refuse (see
    :meth:`AlgorithmNode.check_experiment`: several objectives or outcome constraints for an
    algorithm that does not model them, relative constraints or thresholds, unsupported search
    spaces) gets its ``ValueError`` at the first ``get_next_trials``, before any trial is
    generated (:class:`NextNodeSupportsExperiment`).

    Args:
        method: one of ``shared_core.registry.algorithm_names()`` ("egp-ts", "egp-ei", ...).
        initialization_trials: Sobol trials before the algorithm (0 starts with the algorithm).
        seed: seed of the Sobol sequence and of the algorithm's candidates.
        max_threads: BLAS/OpenMP/PyTorch threads while a candidate is computed (default 1; ``None``:
            no limit), restored afterwards.
        model_failures: the arms of failed trials (``client.mark_trial_failed``) are failed
            points: infeasible to algorithms that model constraints, kept off by all (default
            True; abandoned trials never count).
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
    node = AlgorithmNode(
        method, seed=seed, options=options, max_threads=max_threads, model_failures=model_failures
    )
    seed = node.seed  # a plain int: Ax's Sobol rejects numpy integers
    if initialization_trials == 0:
        return GenerationStrategy(name=method, nodes=[node])
    sobol = GenerationNode(
        name="Sobol",
        generator_specs=[
            GeneratorSpec(generator_enum=Generators.SOBOL, generator_kwargs={"seed": seed})
        ],
        transition_criteria=[
            NextNodeSupportsExperiment(transition_to=node.name),  # first: always evaluated
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
