"""The Ax ``Client`` of the benchmarks' Ax runs (``benchmarks.ax_budget``, ``constrained``,
``multi_objective``, ``conditional``): Ax's default generation strategy or one of ours."""

from __future__ import annotations

import logging
import warnings

import numpy as np

from benchmarks.harness.threads import pin_torch

AX_METHODS = ["ax-default", "ax-egp-ts", "ax-egp-ei", "ax-egp-auto"]


def ax_client(
    sampler: str,
    bounds: np.ndarray | None,
    seed: int,
    outcome_constraints=(),
    *,
    objectives: tuple[str, ...] = ("loss",),
    parameters: list | None = None,
    parameter_constraints: tuple[str, ...] = (),
):
    """An Ax ``Client`` minimising the metrics ``objectives`` (default one, ``loss``) over floats
    ``x<i>`` on the rows of ``bounds`` (or over ``parameters``, Ax parameter configs, when
    given, with their linear ``parameter_constraints``, e.g. ``["x1 + x2 <= 0.6"]``), subject to
    ``outcome_constraints`` (e.g. ``["c0 <= 0"]``; with several objectives, a
    constraint on an objective metric, e.g. ``"f0 <= 18"``, is its objective threshold), with
    Ax's default strategy (``ax-default``) or ``ax_egp.generation_strategy(<method>)``
    (``ax-<method>``)."""
    warnings.filterwarnings("ignore")
    logging.disable(logging.INFO)  # Ax logs every trial
    from ax import Client, RangeParameterConfig

    import ax_egp

    pin_torch()
    client = Client(random_seed=seed)
    if parameters is None:
        parameters = [
            RangeParameterConfig(
                name=f"x{i}", bounds=(float(lo), float(hi)), parameter_type="float"
            )
            for i, (lo, hi) in enumerate(bounds)
        ]
    client.configure_experiment(
        parameters=parameters, parameter_constraints=list(parameter_constraints)
    )
    client.configure_optimization(
        objective=", ".join(f"-{name}" for name in objectives),  # Ax maximises "-name"
        outcome_constraints=list(outcome_constraints),
    )
    if sampler == "ax-default":
        client.configure_generation_strategy(initialization_random_seed=seed)
    else:
        method = sampler[len("ax-") :]
        client.set_generation_strategy(ax_egp.generation_strategy(method, seed=seed))
    return client
