"""The parameters a suggestion does not model, sampled independently: by the independent sampler,
except a modelled parameter asked with a narrower range than the one modelled (the model's value
moved into it), with a warning once per study after the start-up phase."""

from __future__ import annotations

from typing import Any

from optuna.distributions import BaseDistribution
from optuna.samplers import BaseSampler
from optuna.study import Study
from optuna.trial import FrozenTrial

from optuna_egp._conditional import projected_value
from optuna_egp._warnings import OnceWarnings

__all__ = ["independent_value"]


def independent_value(
    sampler: BaseSampler,
    study: Study,
    trial: FrozenTrial,
    param_name: str,
    param_distribution: BaseDistribution,
    *,
    modelled: dict[str, Any],
    warnings: OnceWarnings | None,
) -> Any:
    """The value of ``param_name`` in ``trial``: the model's value in ``modelled`` (the trial's
    relative parameters) moved into ``param_distribution`` if it has one there, else ``sampler``'s.
    ``warnings``: where to warn that a parameter is sampled independently (None: no warning)."""
    if param_name in modelled:  # asked with a narrower range than the one modelled
        value = projected_value(param_distribution, modelled[param_name])
        if value is not None:
            return value
    if warnings is not None:
        warnings.warn(
            f"independent:{study.study_name}",
            f"The parameter '{param_name}' in trial#{trial.number} is sampled independently "
            f"by {type(sampler).__name__} instead of {warnings.owner}: it was suggested in too few "
            "completed trials to be modelled (fewer than 2), or the model did "
            "not expect it on this branch; later parameters sampled independently in this study "
            "are not reported",
            once="once per study",
            named=False,
        )
    return sampler.sample_independent(study, trial, param_name, param_distribution)
