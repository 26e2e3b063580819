"""The suggestion-cost replay (``benchmarks.failure_cost``): replayed trials keep their failure
marks and lose the run's model records, and a run times both settings."""

import optuna

from benchmarks import failure_cost as fc
from optuna_egp._failures import FAILURE_KEY
from optuna_egp._records import MODEL_KEY


def test_a_replayed_trial_keeps_its_failure_mark_and_drops_the_model_records():
    trial = optuna.trial.create_trial(
        state=optuna.trial.TrialState.FAIL,
        params={"x": 0.5},
        distributions={"x": optuna.distributions.FloatDistribution(0, 1)},
        system_attrs={FAILURE_KEY: True, MODEL_KEY: {"model": {}}},
    )
    replayed = fc.without_records(trial)
    assert replayed.system_attrs == {FAILURE_KEY: True}
    assert replayed.params == {"x": 0.5} and replayed.state == trial.state


def test_a_run_times_both_settings_on_the_same_trials():
    # branin-crash seed 0: some trials fail, so only the modelled setting fits a failure model
    row = fc.run_one({"function": "branin-crash", "seed": 0, "n_trials": 18})
    assert row["n_failed"] >= 1 and 1 <= row["asks"] <= 8
    assert row["failure_model"] == {"modelled": True, "ignored": False}
    assert all(s > 0 for s in row["seconds_per_ask"].values())
    assert fc.summarise([row])[2].startswith("| branin-crash |")
