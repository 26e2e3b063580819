"""Constraint values are not modelled yet: ``constraints_func`` is refused, and a study whose trials
carry constraint values is told so, once."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from optuna.study import Study
from optuna.trial import FrozenTrial

from optuna_egp import _storage
from optuna_egp._warnings import OnceWarnings

__all__ = ["ConstraintNotice", "constraints_refusal"]


class ConstraintNotice:
    """Warns, once per study, at the first trial that carries constraint values
    (``trial.set_constraint``, or Optuna 4's ``constraints_func``): no algorithm models them yet,
    so the study is optimised as if it had none. Each trial is looked at once, so a long study
    does not pay for its old trials at every suggestion."""

    def __init__(self) -> None:
        self.checked: dict[str, set[int]] = {}  # study name -> numbers of the trials looked at

    def check(self, study: Study, trials: Sequence[FrozenTrial], warnings: OnceWarnings) -> None:
        topic = f"constraints of study {study.study_name}"
        if topic in warnings:
            return
        checked = self.checked.setdefault(study.study_name, set())
        for t in trials:
            if t.number in checked:
                continue
            checked.add(t.number)
            names = sorted(_storage.constraint_values(t))
            if names:
                warnings.warn(
                    topic,
                    f"trial {t.number} of study {study.study_name!r} has constraint values "
                    f"{names}, but this sampler does not model constraints yet: it optimises the "
                    "objective alone and may suggest infeasible points. Optuna's GPSampler and "
                    "TPESampler model constraints",
                    once="once per study",
                )
                self.checked.pop(study.study_name, None)
                return


def constraints_refusal(sampler_name: str, constraints_func: Any) -> str:
    """The error for ``constraints_func=...``, which no sampler of this package supports yet."""
    return (
        f"{sampler_name} does not model constraints yet, so constraints_func is not supported (got "
        f"{constraints_func!r}). Without it, {sampler_name} optimises the objective alone and "
        "may suggest infeasible points; constraint values set with trial.set_constraint are not "
        "used for sampling either (a warning says so). Optuna's GPSampler and TPESampler model "
        "constraints."
    )
