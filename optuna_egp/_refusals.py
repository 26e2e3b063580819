"""What a sampler refuses for its algorithm, and when: at the first moment it can know, with one
message (:func:`shared_core.capabilities.refusal`) that names the sampler and the named samplers to
use instead; never a warning that the study goes on, followed by an error some trials later.

* ``constraints_func``, for an algorithm that does not declare ``models_constraints = True``: at
  construction (:func:`refuse_constraints_func`);
* several objectives, for an algorithm that does not declare ``multi_objective = True``: at the
  first trial, before its objective runs (the trial is failed);
* constraint values of a completed trial (``trial.set_constraint``, or another sampler's
  ``constraints_func``), for an algorithm that does not declare ``models_constraints = True``: at
  the next trial, before its objective runs (the trial is failed), start-up trials included.
"""

from __future__ import annotations

from typing import Any

from optuna.study import Study
from optuna.trial import TrialState

from optuna_egp import _storage
from shared_core.capabilities import (
    ModelsConstraints,
    MultiObjective,
    declares,
    models_constraints,
    multi_objective,
    refusal,
)
from shared_core.registry import algorithm_class

__all__ = ["Refusals", "refuse_constraints_func", "samplers_declaring"]


def samplers_declaring(protocol: type) -> list[str]:
    """The named samplers whose every registry method (their ``METHODS``) has an algorithm that
    declares what ``protocol`` names (``ModelsConstraints``, ``MultiObjective``)."""
    # imported here: the named samplers are built on CoreSampler, which imports this module
    from optuna_egp.distributed import DistributedTSSampler
    from optuna_egp.named_samplers import NAMED_SAMPLERS

    samplers = NAMED_SAMPLERS + (DistributedTSSampler,)
    return [
        sampler.__name__
        for sampler in samplers
        if all(declares(algorithm_class(method), protocol) for method in sampler.METHODS)
    ]


def refuse_constraints_func(sampler_name: str, algorithm: object, constraints_func: Any) -> None:
    """``ValueError`` if ``algorithm`` does not model constraints (``constraints_func`` given)."""
    if not models_constraints(algorithm):
        raise ValueError(
            refusal(
                sampler_name,
                algorithm,
                ModelsConstraints,
                f"constraints_func={constraints_func!r} was given",
                samplers_declaring(ModelsConstraints),
            )
        )


class Refusals:
    """The studies a sampler refuses for ``algorithm``: :meth:`check` raises the ``ValueError``
    for a study with several objectives, or with a completed trial that carries constraint values,
    that the algorithm does not model. Each completed trial is looked at once per study (a long
    study does not pay for its old trials at every trial); a refused study stays refused. Not
    thread-safe: callers hold a lock, or accept that two threads may look at a trial twice.

    Args:
        sampler_name: the sampler's class name, for the messages.
        algorithm: the sampler's algorithm.
    """

    def __init__(self, sampler_name: str, algorithm: object) -> None:
        self.sampler_name = sampler_name
        self.algorithm = algorithm
        self._several_objectives = multi_objective(algorithm)
        self._constraints = models_constraints(algorithm)
        self._checked: dict[str, set[int]] = {}  # study name -> completed trials looked at
        self._refused: dict[str, str] = {}  # study name -> its message

    def check_objectives(self, study: Study) -> None:
        """``ValueError`` for a study with several objectives if the algorithm models one."""
        if len(study.directions) > 1 and not self._several_objectives:
            directions = [d.name for d in study.directions]
            raise ValueError(
                refusal(
                    self.sampler_name,
                    self.algorithm,
                    MultiObjective,
                    f"study {study.study_name!r} has {len(directions)} objectives "
                    f"(directions {directions})",
                    samplers_declaring(MultiObjective),
                )
            )

    def check(self, study: Study) -> None:
        """``ValueError`` for a study the algorithm cannot model: several objectives
        (:meth:`check_objectives`), or a completed trial with constraint values."""
        self.check_objectives(study)
        if self._constraints:
            return
        if study.study_name not in self._refused:
            self._find_constraint_values(study)
        if study.study_name in self._refused:
            raise ValueError(self._refused[study.study_name])

    def _find_constraint_values(self, study: Study) -> None:
        """Look at the completed trials not looked at yet; the message for the first with
        constraint values, if any."""
        checked = self._checked.setdefault(study.study_name, set())
        for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
            if t.number in checked:
                continue
            checked.add(t.number)
            names = sorted(_storage.constraint_values(t))
            if names:
                self._refused[study.study_name] = refusal(
                    self.sampler_name,
                    self.algorithm,
                    ModelsConstraints,
                    f"trial {t.number} of study {study.study_name!r} has constraint values {names}",
                    samplers_declaring(ModelsConstraints),
                    otherwise=", or a study without constraint values (trial.set_constraint)",
                )
                self._checked.pop(study.study_name, None)
                return
