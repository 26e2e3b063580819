"""How a named sampler is built: its constructor's arguments split between the registered
algorithm's options and :class:`~optuna_egp.core_sampler.CoreSampler`'s, so the two cannot
disagree (a test fails when a named sampler's signature drifts from the registry)."""

from __future__ import annotations

from typing import Any

from optuna_egp.core_sampler import CoreSampler
from shared_core.registry import algorithm_options, make_algorithm

__all__ = ["build_named_sampler", "split_arguments"]


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
