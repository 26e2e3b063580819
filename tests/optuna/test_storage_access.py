"""Every private Optuna access of the package (``optuna_egp._storage``), each checked against the
Optuna behaviour it relies on, so that an Optuna release that changes one fails here, by name."""

import warnings
from types import SimpleNamespace

import optuna
import pytest
from optuna.distributions import FloatDistribution
from optuna.trial import create_trial

from optuna_egp import _storage


def _study(storage=None):
    return optuna.create_study(
        storage=storage or optuna.storages.InMemoryStorage(),
        sampler=optuna.samplers.RandomSampler(seed=0),
    )


def test_study_storage_is_the_storage_the_study_was_created_with():
    storage = optuna.storages.InMemoryStorage()
    assert _storage.study_storage(_study(storage)) is storage


def test_trial_id_is_the_id_the_storage_knows_the_trial_by():
    study = _study()
    study.ask()
    study.ask()
    for trial in study.get_trials(deepcopy=False):
        assert (
            _storage.study_storage(study).get_trial(_storage.trial_id(trial)).number == trial.number
        )


def test_attributes_written_to_a_running_trial_are_read_back_by_optunas_public_api():
    study = _study()
    study.ask()
    frozen = study.get_trials(deepcopy=False)[0]
    _storage.write_system_attr(study, frozen, "egp_samplers:probe", {"x": [0.5]})
    _storage.write_user_attr(study, frozen, "agent_id", 3)
    (trial,) = study.get_trials()
    assert (
        trial.system_attrs["egp_samplers:probe"] == {"x": [0.5]}
        and trial.user_attrs["agent_id"] == 3
    )


def test_heartbeats_are_recorded_only_by_storages_with_a_heartbeat_interval(tmp_path):
    assert _storage.heartbeat_interval(_study()) is None
    storage = optuna.storages.RDBStorage(f"sqlite:///{tmp_path}/h.db", heartbeat_interval=60)
    study = _study(storage)
    study.ask()
    assert _storage.heartbeat_interval(study) == 60.0
    # raises if the storage's API changed
    _storage.record_heartbeat(study, study.get_trials(deepcopy=False)[0])


def test_enqueued_parameters_are_where_optuna_keeps_them():
    study = _study()
    study.enqueue_trial({"x": 0.25})
    trial = study.ask()
    assert _storage.enqueued_params(study.get_trials(deepcopy=False)[0]) == {"x": 0.25}
    assert trial.suggest_float("x", 0, 1) == 0.25  # it is the enqueued trial
    study.ask()
    assert _storage.enqueued_params(study.get_trials(deepcopy=False)[1]) == {}


@pytest.mark.skipif(
    not hasattr(optuna.trial.FrozenTrial, "constraints"), reason="needs FrozenTrial.constraints"
)
def test_constraint_values_are_read_from_optuna_5_trials():
    trial = create_trial(params={}, distributions={}, value=0.0, constraints={"a": 1.5, "b": -2.0})
    assert _storage.constraint_values(trial) == {"a": 1.5, "b": -2.0}
    assert _storage.constraint_values(create_trial(params={}, distributions={}, value=0.0)) == {}


def test_constraint_values_are_read_from_optuna_4_trials():
    # Optuna 4's FrozenTrial has no ``constraints``: its samplers' constraints_func stores a
    # list, which Optuna 5 still reads under the same key and names "0", "1", ...
    stored = {_storage.CONSTRAINTS_FUNC_KEY: [0.5, -1.0]}
    assert _storage.constraint_values(SimpleNamespace(system_attrs=stored)) == {"0": 0.5, "1": -1.0}
    stored_trial = create_trial(
        params={"x": 0.1},
        distributions={"x": FloatDistribution(0, 1)},
        value=0.0,
        system_attrs=stored,
    )
    assert _storage.constraint_values(stored_trial) == {"0": 0.5, "1": -1.0}
    assert _storage.constraint_values(SimpleNamespace(system_attrs={})) == {}


def test_constraint_values_are_written_where_optunas_samplers_write_constraints_func_values():
    """Where Optuna's ``TPESampler(constraints_func=...)`` writes; Optuna reads them back
    (``FrozenTrial.constraints`` and ``study.best_trial`` on Optuna 5)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # Optuna 5 deprecates constraints_func
        tpe = optuna.samplers.TPESampler(seed=0, constraints_func=lambda trial: [0.5, -1.0])
    theirs = optuna.create_study(sampler=tpe)
    theirs.optimize(lambda trial: 0.0, n_trials=1)
    ours = _study()
    ours.ask()
    _storage.write_constraint_values(ours, ours.get_trials(deepcopy=False)[0], (0.5, -1.0))
    ours.tell(0, 0.0)
    (trial,) = ours.trials
    key = _storage.CONSTRAINTS_FUNC_KEY
    assert trial.system_attrs[key] == theirs.trials[0].system_attrs[key]
    assert _storage.constraint_values(trial) == {"0": 0.5, "1": -1.0}
    if hasattr(trial, "constraints"):  # Optuna 5
        assert trial.constraints == {"0": 0.5, "1": -1.0}
        with pytest.raises(ValueError, match="No feasible trials"):
            _ = ours.best_trial


@pytest.mark.parametrize(
    "name",
    [
        n
        for n in dir(_storage)
        if callable(getattr(_storage, n))
        and not n.startswith("_")
        and getattr(getattr(_storage, n), "__module__", "") == _storage.__name__
    ],
)
def test_every_access_function_has_a_test_here(name):
    with open(__file__) as source:
        assert f"_storage.{name}(" in source.read()
