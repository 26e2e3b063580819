"""The fitted model recorded in the study, and a new
worker that starts from it (cheap cold starts)."""

import json

import optuna
import pytest
from optuna.trial import TrialState

from optuna_egp import EGPTSSampler
from optuna_egp._records import MODEL_KEY, WEIGHTS_KEY
from optuna_egp._storage import write_system_attr

optuna.logging.set_verbosity(optuna.logging.WARNING)

KERNELS = ["rbf", "matern52-ard"]


def _objective(trial):
    x, y = trial.suggest_float("x", -2, 2), trial.suggest_float("y", -2, 2)
    return (x - 0.5) ** 2 + 0.1 * y**2


def _study(tmp_path, n_trials=14, **kwargs):
    storage = f"sqlite:///{tmp_path / 's.db'}"
    study = optuna.create_study(
        study_name="s",
        storage=storage,
        sampler=EGPTSSampler(seed=0, n_startup_trials=5, kernels=KERNELS, **kwargs),
    )
    study.optimize(_objective, n_trials=n_trials)
    return storage


def _new_worker(storage, **kwargs):
    sampler = EGPTSSampler(seed=1, n_startup_trials=5, kernels=KERNELS, **kwargs)
    return optuna.load_study(study_name="s", storage=storage, sampler=sampler), sampler


def test_private_trial_system_attr_writer(tmp_path):
    """The one private Optuna call: it writes a JSON value that FrozenTrial.system_attrs returns."""
    study = optuna.create_study(storage=f"sqlite:///{tmp_path / 'a.db'}")
    trial = study.ask()
    frozen = study.get_trials(deepcopy=False)[0]
    write_system_attr(study, frozen, "k", {"a": [1.5, 2]})
    assert study.get_trials()[trial.number].system_attrs["k"] == {"a": [1.5, 2]}


@pytest.mark.slow
def test_model_based_trials_record_weights_and_refits_record_the_model(tmp_path):
    study = optuna.load_study(study_name="s", storage=_study(tmp_path))
    model_based = [t for t in study.trials if t.number >= 5]
    assert all(len(t.system_attrs[WEIGHTS_KEY]) == 2 for t in model_based)
    assert all(sum(t.system_attrs[WEIGHTS_KEY]) == pytest.approx(1.0) for t in model_based)
    recorded = [t.system_attrs[MODEL_KEY] for t in study.trials if MODEL_KEY in t.system_attrs]
    assert recorded and recorded[0]["columns"] == ["x", "y"]
    assert recorded[-1]["model"]["kernels"] == KERNELS
    # below 10 observations every suggestion refits, so every model-based trial there records one
    assert len(recorded) >= 5


@pytest.mark.slow
def test_a_new_worker_starts_from_the_recorded_model_instead_of_fitting(tmp_path):
    storage = _study(tmp_path)
    study, sampler = _new_worker(storage)
    study.optimize(_objective, n_trials=1)
    model = sampler.algorithm.model
    assert (model.n_adopted, model.n_refits) == (1, 0)
    newest = [t.system_attrs[MODEL_KEY] for t in study.trials if MODEL_KEY in t.system_attrs][-1]
    assert [h["lengthscales"] for h in newest["model"]["hyperparameters"]] == [
        m.hyper.ls.tolist() for m in model.members
    ]
    assert MODEL_KEY not in study.trials[-1].system_attrs  # the adopted model is not recorded again
    assert WEIGHTS_KEY in study.trials[-1].system_attrs


@pytest.mark.slow
def test_share_model_false_neither_records_nor_reads(tmp_path):
    storage = _study(tmp_path, share_model=False)
    study = optuna.load_study(study_name="s", storage=storage)
    assert not any(
        MODEL_KEY in t.system_attrs or WEIGHTS_KEY in t.system_attrs for t in study.trials
    )
    study, sampler = _new_worker(storage, share_model=False)
    study.optimize(_objective, n_trials=1)
    assert (sampler.algorithm.model.n_adopted, sampler.algorithm.model.n_refits) == (0, 1)


def _add_record(storage, edit):
    """A failed trial, newest of all, holding a copy of the newest record changed by ``edit``."""
    study = optuna.load_study(study_name="s", storage=storage)
    newest = [t.system_attrs[MODEL_KEY] for t in study.trials if MODEL_KEY in t.system_attrs][-1]
    trial = study.ask()
    write_system_attr(study, study.get_trials(deepcopy=False)[-1], MODEL_KEY, edit(newest))
    study.tell(trial, state=TrialState.FAIL)


@pytest.mark.slow
@pytest.mark.parametrize(
    "corrupt",
    [
        lambda m: {**m, "hyperparameters": [{"lengthscales": "x"}] * 2},
        lambda m: {**m, "n_at_refit": float("inf")},
        lambda m: {**m, "transform": {**m["transform"], "scale": 10**400}},
        lambda m: {
            **m,
            "hyperparameters": [
                {**h, "lengthscales": [1e-300] * len(h["lengthscales"])}
                for h in m["hyperparameters"]
            ],
        },
    ],
)
def test_a_corrupted_newest_record_is_skipped_for_an_older_valid_one(tmp_path, corrupt):
    storage = _study(tmp_path)
    _add_record(storage, lambda r: {**r, "model": corrupt(r["model"])})
    study, sampler = _new_worker(storage)
    study.optimize(_objective, n_trials=1)
    model = sampler.algorithm.model
    assert (model.n_adopted, model.n_refits) == (1, 0)
    assert all(m.hyper.ls.min() > 1e-3 for m in model.members) and model.transform.scale < 1e10


@pytest.mark.slow
def test_a_record_of_another_search_space_is_skipped(tmp_path):
    storage = _study(tmp_path)

    def other_space(record):
        model = {
            **record["model"],
            "hyperparameters": [
                {**h, "lengthscales": [0.123] * len(h["lengthscales"])}
                for h in record["model"]["hyperparameters"]
            ],
        }
        return {**record, "space": "the hash of another search space", "model": model}

    _add_record(storage, other_space)
    study, sampler = _new_worker(storage)
    study.optimize(_objective, n_trials=1)
    model = sampler.algorithm.model
    assert model.n_adopted == 1  # from the older record of this space
    assert all(0.123 not in m.hyper.ls for m in model.members)


def test_bad_share_model_is_a_value_error():
    with pytest.raises(ValueError, match="share_model"):
        EGPTSSampler(share_model="yes")


def test_a_failing_record_write_never_fails_the_trial(tmp_path, monkeypatch, optuna_log):
    def broken(*args, **kwargs):
        raise RuntimeError("storage refuses system attributes")

    monkeypatch.setattr("optuna_egp._storage.write_system_attr", broken)
    study = optuna.load_study(study_name="s", storage=_study(tmp_path, n_trials=9))
    assert all(t.state == TrialState.COMPLETE for t in study.trials)
    warned = optuna_log.messages("storage refuses")
    assert len(warned) == 2  # once for the model records, once for the claims
    assert sum("egp_samplers:claim" in m for m in warned) == 1


def test_an_oversized_model_record_is_not_written_but_the_weights_are(tmp_path, monkeypatch):
    monkeypatch.setattr("optuna_egp._records.MAX_RECORD_CHARS", 100)
    study = optuna.load_study(study_name="s", storage=_study(tmp_path, n_trials=8))
    assert not any(MODEL_KEY in t.system_attrs for t in study.trials)
    assert all(WEIGHTS_KEY in t.system_attrs for t in study.trials[5:])


def _constrained_objective(trial):
    x, y = trial.suggest_float("x", -2, 2), trial.suggest_float("y", -2, 2)
    if x > 1.5:
        raise ValueError("out of memory")  # failed points: the failure model is fitted too
    return (x - 0.5) ** 2 + 0.1 * y**2


def _constraints(trial):
    return (trial.params["y"] - 1.0,)


def test_a_new_worker_adopts_the_constraint_and_failure_models_too(tmp_path):
    storage = f"sqlite:///{tmp_path / 's.db'}"
    options = dict(n_startup_trials=5, kernels=KERNELS, constraints_func=_constraints)
    study = optuna.create_study(
        study_name="s", storage=storage, sampler=EGPTSSampler(seed=0, **options)
    )
    for x in (1.8, 1.9):  # two failures among the start-up trials
        study.enqueue_trial({"x": x, "y": 0.0})
    study.optimize(_constrained_objective, n_trials=9, catch=(ValueError,))
    # below 10 observations every suggestion refits: the newest record is fitted on what the new
    # worker sees while this trial stays pending, so no refit is due there
    study.ask().suggest_float("x", -2, 2)  # relative sampling runs at the first suggestion
    newest = [t.system_attrs[MODEL_KEY] for t in study.trials if MODEL_KEY in t.system_attrs][-1]
    assert set(newest["model"]["outcomes"]["constraints"]) == {"0", "(failed)"}

    sampler = EGPTSSampler(seed=1, **options)
    study = optuna.load_study(study_name="s", storage=storage, sampler=sampler)
    study.optimize(_constrained_objective, n_trials=1, catch=(ValueError,))
    outcomes = sampler.algorithm.constraint_models.models
    assert set(outcomes) == {"0", "(failed)"}
    assert sampler.algorithm.model.n_adopted == 1
    for name, model in outcomes.items():
        assert (model.n_adopted, model.n_refits) == (1, 0), name
        recorded = newest["model"]["outcomes"]["constraints"][name]["hyperparameters"]
        assert [h["lengthscales"] for h in recorded] == [m.hyper.ls.tolist() for m in model.members]
    assert MODEL_KEY not in study.trials[-1].system_attrs  # adopted models are not recorded again


@pytest.mark.slow
def test_a_new_worker_adopts_the_other_objectives_models(tmp_path):
    storage = f"sqlite:///{tmp_path / 's.db'}"

    def objectives(trial):
        return _objective(trial), (trial.params["x"] + 0.5) ** 2

    study = optuna.create_study(
        study_name="s",
        storage=storage,
        directions=["minimize", "minimize"],
        sampler=EGPTSSampler(seed=0, n_startup_trials=5, kernels=KERNELS),
    )
    study.optimize(objectives, n_trials=14)
    sampler = EGPTSSampler(seed=1, n_startup_trials=5, kernels=KERNELS)
    study = optuna.load_study(study_name="s", storage=storage, sampler=sampler)
    study.optimize(objectives, n_trials=1)
    (second,) = sampler.algorithm.objective_models.models.values()
    assert (sampler.algorithm.model.n_adopted, second.n_adopted, second.n_refits) == (1, 1, 0)
    assert MODEL_KEY not in study.trials[-1].system_attrs


@pytest.mark.slow
def test_a_record_without_the_other_outcomes_still_starts_the_first_model(tmp_path):
    """Records written before the other outcomes were shared: the constraint model is fitted."""
    storage = f"sqlite:///{tmp_path / 's.db'}"
    options = dict(n_startup_trials=5, kernels=KERNELS, constraints_func=_constraints)
    study = optuna.create_study(
        study_name="s", storage=storage, sampler=EGPTSSampler(seed=0, **options)
    )
    study.optimize(_objective, n_trials=14)

    def older(record):
        return {**record, "model": {k: v for k, v in record["model"].items() if k != "outcomes"}}

    _add_record(storage, older)
    sampler = EGPTSSampler(seed=1, **options)
    study = optuna.load_study(study_name="s", storage=storage, sampler=sampler)
    study.optimize(_objective, n_trials=1)
    (constraint,) = sampler.algorithm.constraint_models.models.values()
    assert sampler.algorithm.model.n_adopted == 1
    assert (constraint.n_adopted, constraint.n_refits) == (0, 1)


@pytest.mark.slow
def test_a_record_too_large_with_the_other_outcomes_is_written_without_them(tmp_path, monkeypatch):
    storage = f"sqlite:///{tmp_path / 's.db'}"
    options = dict(n_startup_trials=5, kernels=KERNELS, constraints_func=_constraints)
    study = optuna.create_study(
        study_name="s", storage=storage, sampler=EGPTSSampler(seed=0, **options)
    )
    study.optimize(_objective, n_trials=6)
    full = study.trials[-1].system_attrs[MODEL_KEY]
    assert "outcomes" in full["model"]
    # a limit the record passes only without the constraint's model (halfway: sizes vary a little)
    without = {**full, "model": {k: v for k, v in full["model"].items() if k != "outcomes"}}
    limit = (len(json.dumps(without)) + len(json.dumps(full))) // 2
    monkeypatch.setattr("optuna_egp._records.MAX_RECORD_CHARS", limit)
    study.optimize(_objective, n_trials=1)
    assert study.trials[-1].system_attrs[MODEL_KEY]["model"].keys() == without["model"].keys()
