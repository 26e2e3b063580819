"""Ax ``Client`` with an egp-samplers generation strategy: sequential trials, then batches of 4.

Run:  python -m pip install -e ".[ax]" && python examples/ax_client.py

Branin-Hoo on a mixed search space (a log-scaled float, an int, a categorical that matters and a
linear constraint), minimised with EGP-TS. The strategy is saved to and reloaded from Ax's JSON
storage half-way through (``import ax_egp`` registers it with Ax's JSON encoder and decoder).
"""

from __future__ import annotations

import logging
import math
import os
import tempfile
import warnings

from ax import ChoiceParameterConfig, Client, RangeParameterConfig
from ax.utils.common.logger import set_ax_logger_levels

import ax_egp

warnings.filterwarnings("ignore")  # Ax and pandas deprecation chatter
set_ax_logger_levels(logging.WARNING)  # Ax logs every trial at INFO level; show warnings only


def branin(p: dict) -> float:
    """Branin on x1 in [-5, 10], x2 in [0, 15] (minimum 0.397887), plus 1 unless shape == "flat"."""
    x1, x2 = p["x1"], p["x2"]
    value = (
        (x2 - 5.1 / (4 * math.pi**2) * x1**2 + 5 / math.pi * x1 - 6) ** 2
        + 10 * (1 - 1 / (8 * math.pi)) * math.cos(x1)
        + 10
    )
    return (
        value
        + (0.0 if p["shape"] == "flat" else 1.0)
        + 0.01 * abs(math.log10(p["lr"]) + 3)
        + 0.001 * p["layers"]
    )


def make_client() -> Client:
    client = Client(random_seed=0)
    client.configure_experiment(
        name="branin_mixed",
        parameters=[
            RangeParameterConfig(name="x1", bounds=(-5.0, 10.0), parameter_type="float"),
            RangeParameterConfig(name="x2", bounds=(0.0, 15.0), parameter_type="float"),
            RangeParameterConfig(
                name="lr", bounds=(1e-5, 1e-1), parameter_type="float", scaling="log"
            ),
            RangeParameterConfig(name="layers", bounds=(1, 8), parameter_type="int"),
            ChoiceParameterConfig(
                name="shape", values=["flat", "funnel", "wide"], parameter_type="str"
            ),
        ],
        parameter_constraints=["x1 + x2 <= 15"],
    )
    client.configure_optimization(objective="-loss")  # minimise loss
    client.set_generation_strategy(
        ax_egp.generation_strategy("egp-ts", initialization_trials=5, seed=0)
    )
    return client


def run_batches(client: Client, batches: list[int]) -> None:
    for size in batches:
        for index, params in client.get_next_trials(max_trials=size).items():
            client.complete_trial(index, raw_data={"loss": branin(params)})


if __name__ == "__main__":
    client = make_client()
    run_batches(client, [1] * 12)  # sequential: 5 Sobol, then EGP-TS
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "ax_client.json")
        client.save_to_json_file(path)
        client = Client.load_from_json_file(path)  # the egp-ts strategy comes back with it
    run_batches(client, [4] * 5)  # batches of 4: pending arms keep the batch diverse
    print(client.summarize().tail(8).to_string())
    params, values, index, _ = client.get_best_parameterization()
    print(
        f"\nBest trial {index}: loss {values['loss'][0]:.4f} (optimum 0.3979 at shape='flat', "
        "lr=1e-3, layers=1)"
    )
    print({k: (round(v, 4) if isinstance(v, float) else v) for k, v in params.items()})
