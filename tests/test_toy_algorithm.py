"""A new algorithm is a core class and a registration line: a toy one is driven through the
Optuna sampler and the Ax node with no adapter code of its own."""

import optuna
import pytest

from optuna_egp import CoreSampler
from shared_core import registry


class UniformRandom:
    """The simplest algorithm of the contract: uniform random points (and a count of its calls)."""

    def __init__(self, *, low_discrepancy: bool = False) -> None:
        self.low_discrepancy = low_discrepancy
        self.calls = 0

    def suggest(self, space, obs, n_suggestions, rng):
        self.calls += 1
        return space.sample(rng, n_suggestions, low_discrepancy=self.low_discrepancy)  # (n, d)


@pytest.fixture
def toy(monkeypatch):
    """``"toy-uniform"`` registered for the test only."""
    monkeypatch.setitem(registry._FACTORIES, "toy-uniform", UniformRandom)
    return "toy-uniform"


def test_a_registered_toy_algorithm_runs_in_optuna(toy):
    assert list(registry.algorithm_options(toy)) == ["low_discrepancy"]
    algorithm = registry.make_algorithm(toy)
    study = optuna.create_study(sampler=CoreSampler(algorithm, seed=0, n_startup_trials=2))
    study.optimize(
        lambda t: t.suggest_float("x", -1, 1) ** 2 + t.suggest_int("k", 0, 3), n_trials=8
    )
    assert len(study.trials) == 8 and all(-1 <= t.params["x"] <= 1 for t in study.trials)
    assert algorithm.calls == 6  # every trial after the two start-up ones


def test_a_registered_toy_algorithm_runs_in_ax(toy):
    pytest.importorskip("ax")
    from ax import Client, RangeParameterConfig

    import ax_egp

    client = Client(random_seed=0)
    client.configure_experiment(
        parameters=[RangeParameterConfig(name="x", bounds=(-1.0, 1.0), parameter_type="float")]
    )
    client.configure_optimization(objective="-loss")
    client.set_generation_strategy(ax_egp.generation_strategy(toy, initialization_trials=2, seed=0))
    for _ in range(3):
        for index, params in client.get_next_trials(max_trials=2).items():
            client.complete_trial(index, raw_data={"loss": params["x"] ** 2})
    summary = client.summarize()  # one row per trial, with the node that generated it
    assert (summary["generation_node"] == toy).sum() >= 2
    assert summary["x"].between(-1.0, 1.0).all() and (summary["trial_status"] == "COMPLETED").all()
