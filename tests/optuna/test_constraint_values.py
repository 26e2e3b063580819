"""Constraint values reach the algorithm (``Observations.constraints``): by name, NaN where a trial
lacks one, completed trials only, feasible as ``study.best_trial`` counts it; ``constraints_func``
writes them as Optuna's samplers do. An algorithm that does not model them refuses them
(``test_refusals.py``).

The algorithms here are test doubles that record what the sampler hands them: the plumbing of the
adapter is tested, not how well an algorithm uses the values.
"""

import math
import pickle
import warnings

import numpy as np
import optuna
import pytest
from optuna.distributions import FloatDistribution
from optuna.trial import TrialState, create_trial

from optuna_egp import (
    BORESampler,
    CoreSampler,
    DistributedTSSampler,
    EGPTSSampler,
    _storage,
)
from optuna_egp._constraints import CompletedTrialConstraints
from shared_core import BOREAlgorithm, DistributedTSAlgorithm, EGPAlgorithm
from tests.optuna._recorders import NotModelling as _NotModelling
from tests.optuna._recorders import Recorder as _Recorder

# trial.set_constraint and FrozenTrial.constraints are Optuna 5's; on Optuna 4 constraint values
# come only from constraints_func (a system attribute, read through the same helper)
needs_set_constraint = pytest.mark.skipif(
    not hasattr(optuna.Trial, "set_constraint"), reason="trial.set_constraint needs Optuna 5"
)
OPTUNA_5 = int(optuna.__version__.split(".")[0]) >= 5
NOT_MODELLED = "does not model constraints"
X = {"x": FloatDistribution(0, 1)}


def _sampler(algorithm=None, **kwargs):
    return CoreSampler(algorithm or _Recorder(), seed=0, n_startup_trials=1, **kwargs)


def _constraints_of(trial):
    """A ``constraints_func``: x - 0.5 <= 0."""
    return [trial.params["x"] - 0.5]


def _ask_x(study):
    """Ask a trial and suggest ``x`` (the sampler's relative sampling runs)."""
    trial = study.ask()
    trial.suggest_float("x", 0, 1)
    return trial


def _trial(x, value, constraints=None, state=TrialState.COMPLETE):
    return create_trial(
        params={"x": x},
        distributions=X,
        value=value if state == TrialState.COMPLETE else None,
        state=state,
        constraints=constraints,
    )


def test_the_double_without_the_capability_does_not_model_constraints():
    from shared_core.interface import models_constraints

    assert models_constraints(_Recorder()) and not models_constraints(_NotModelling())


# ---------------------------------------------------------------------------------- the data path
@needs_set_constraint
def test_constraint_values_reach_the_algorithm_by_name_with_nan_where_a_trial_lacks_one():
    algorithm = _Recorder()
    study = optuna.create_study(sampler=_sampler(algorithm))
    study.add_trials(
        [
            _trial(0.1, 1.0, {"b": 1.0, "a": -1.0}),
            _trial(0.2, 2.0, {"b": 2.0}),
            _trial(0.3, 3.0),  # no values: feasible, as Optuna counts it
            _trial(0.4, 4.0, {"c": math.inf, "a": -0.5}),
        ]
    )
    _ask_x(study)
    obs = algorithm.seen[-1]
    assert obs.constraint_names == ("a", "b", "c")  # the sorted union
    np.testing.assert_allclose(obs.X[:, 0], [0.1, 0.2, 0.3, 0.4])  # rows in trial order
    np.testing.assert_array_equal(
        obs.constraints,
        [[-1.0, 1.0, np.nan], [np.nan, 2.0, np.nan], [np.nan] * 3, [-0.5, np.nan, math.inf]],
    )
    np.testing.assert_array_equal(obs.feasible, [False, False, True, False])
    # a trial completed between two suggestions is read too (the values are cached per trial)
    study.add_trial(_trial(0.5, 5.0, {"d": -3.0}))
    _ask_x(study)
    obs = algorithm.seen[-1]
    assert obs.constraint_names == ("a", "b", "c", "d")
    np.testing.assert_array_equal(obs.constraints[:, 3], [np.nan] * 4 + [-3.0])


def test_constraint_values_stored_as_optuna_4_stores_them_reach_the_algorithm():
    """Optuna 4's ``constraints_func`` stores a list in a system attribute; Optuna 5 reads it with
    the names ``"0"``, ``"1"``, ..."""
    algorithm = _Recorder()
    study = optuna.create_study(sampler=_sampler(algorithm))
    for x, values in ((0.1, [1.0, -2.0]), (0.2, [-1.0, -1.0])):
        study.add_trial(
            create_trial(
                params={"x": x},
                distributions=X,
                value=x,
                system_attrs={_storage.CONSTRAINTS_FUNC_KEY: values},
            )
        )
    _ask_x(study)
    obs = algorithm.seen[-1]
    assert obs.constraint_names == ("0", "1")
    np.testing.assert_array_equal(obs.constraints, [[1.0, -2.0], [-1.0, -1.0]])


@needs_set_constraint
def test_pruned_and_failed_trials_constraint_values_are_not_used():
    """Only completed trials train the models: a pruned trial (Optuna gives it its last
    intermediate value) and a failed one are left out, with their constraint names."""
    algorithm = _Recorder()
    study = optuna.create_study(sampler=_sampler(algorithm))
    for state in (TrialState.COMPLETE, TrialState.PRUNED, TrialState.FAIL):
        trial = _ask_x(study)
        trial.set_constraint(f"set_in_{state.name.lower()}", 1.0)
        trial.report(0.5, step=0)
        study.tell(trial, 0.5 if state == TrialState.COMPLETE else None, state=state)
    assert study.trials[1].value == 0.5  # the pruned trial has a value: still not used
    _ask_x(study)
    obs = algorithm.seen[-1]
    assert len(obs.y) == 1 and obs.constraint_names == ("set_in_complete",)


@pytest.mark.parametrize("direction", ["minimize", "maximize"])
@needs_set_constraint
def test_feasibility_and_the_best_observation_agree_with_optunas_best_trial(direction):
    """The best value is infeasible; an infinite value is infeasible; a trial without constraint
    values is feasible (Optuna's rule). The best row of ``Observations.best_first`` is
    ``study.best_trial``; with no feasible trial, Optuna has no best trial and no row is
    feasible."""
    sign = 1.0 if direction == "minimize" else -1.0
    algorithm = _Recorder()
    study = optuna.create_study(direction=direction, sampler=_sampler(algorithm))
    study.add_trials(
        [
            _trial(0.1, sign * 1.0, {"a": 0.5, "b": -1.0}),  # the best value, infeasible
            _trial(0.2, sign * 2.0, {"a": math.inf}),
            _trial(0.3, sign * 4.0),  # feasible: no values
            _trial(0.4, sign * 3.0, {"a": 0.0, "b": -2.0}),  # feasible (0 is feasible): the best
            _trial(0.5, sign * 5.0, {"b": -1.0}),
        ]
    )
    _ask_x(study)
    obs = algorithm.seen[-1]
    feasible_numbers = [t.number for t, ok in zip(study.trials, obs.feasible) if ok]
    assert feasible_numbers == [2, 3, 4]
    best = obs.best_first()[0]
    assert study.best_trial.number == 3 and obs.X[best, 0] == study.best_trial.params["x"]

    infeasible = optuna.create_study(direction=direction, sampler=_sampler(algorithm))
    infeasible.add_trials([_trial(0.1, 1.0, {"a": 2.0}), _trial(0.2, 2.0, {"a": 1.0})])
    _ask_x(infeasible)
    obs = algorithm.seen[-1]
    with pytest.raises(ValueError, match="No feasible trials"):
        _ = infeasible.best_trial
    assert not obs.feasible.any() and obs.X[obs.best_first()[0], 0] == 0.2  # least violating


def test_completed_trial_constraints_are_kept_per_study_object():
    """The cache: two studies of the same name in different storages never share values."""
    cache = CompletedTrialConstraints()
    for values in ([1.0], [-1.0, 2.0]):  # same name, a fresh in-memory storage each time
        study = optuna.create_study(study_name="same")
        study.add_trial(
            create_trial(
                params={},
                distributions={},
                value=0.0,
                system_attrs={_storage.CONSTRAINTS_FUNC_KEY: values},
            )
        )
        names, matrix = cache.matrix(study, study.trials)
        assert len(names) == len(values) and matrix.tolist() == [values]
    names, matrix = cache.matrix(study, [])
    assert names == () and matrix.shape == (0, 0)


# ----------------------------------------------------------------------------- constraints_func
def test_constraints_func_values_are_written_after_completed_and_pruned_trials():
    """As Optuna's samplers: after a completed or pruned trial (not a failed one), in the system
    attribute Optuna reads; the algorithm then sees the completed trials' values."""
    algorithm = _Recorder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        study = optuna.create_study(sampler=_sampler(algorithm, constraints_func=_constraints_of))

    def objective(trial):
        x = trial.suggest_float("x", 0, 1)
        if trial.number == 3:
            raise optuna.TrialPruned
        if trial.number == 4:
            raise RuntimeError("failed")
        return x

    study.optimize(objective, n_trials=6, catch=(RuntimeError,))
    states = [t.state for t in study.trials]
    assert states[3:5] == [TrialState.PRUNED, TrialState.FAIL]
    for t in study.trials:
        expected = {} if t.state == TrialState.FAIL else {"0": t.params["x"] - 0.5}
        assert _storage.constraint_values(t) == expected
    _ask_x(study)
    obs = algorithm.seen[-1]
    complete = [t for t in study.trials if t.state == TrialState.COMPLETE]
    assert obs.constraint_names == ("0",)
    np.testing.assert_allclose(obs.constraints[:, 0], [t.params["x"] - 0.5 for t in complete])


@pytest.mark.parametrize(
    ("returned", "error", "warned"),
    [([math.nan], ValueError, None), (np.array([0.5]), None, "should be a sequence")],
    ids=["nan", "array"],
)
def test_constraints_func_results_are_checked_as_optunas_samplers_check_them(
    returned, error, warned
):
    """NaN: ``study.tell`` raises and the trial completes without values; an array: a warning,
    the values kept. Compared with Optuna's ``TPESampler`` given the same function."""
    outcomes = []
    for make in (
        lambda f: optuna.samplers.TPESampler(seed=0, constraints_func=f),
        lambda f: _sampler(constraints_func=f),
    ):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            study = optuna.create_study(sampler=make(lambda trial: returned))
            trial = study.ask()
            try:
                study.tell(trial, 1.0)
                raised = None
            except Exception as err:
                raised = type(err)
        (frozen,) = study.trials
        told = [str(w.message) for w in caught if w.category is not FutureWarning]
        was_warned = warned is not None and any(warned in message for message in told)
        outcomes.append((raised, frozen.state, _storage.constraint_values(frozen), was_warned))
    assert outcomes[0] == outcomes[1]
    assert outcomes[1][0] is error and outcomes[1][3] == (warned is not None)


@pytest.mark.skipif(not OPTUNA_5, reason="constraints_func is deprecated from Optuna 5 on")
def test_constraints_func_gives_optunas_deprecation_warning_once_at_the_users_line():
    with pytest.warns(FutureWarning) as caught:
        _sampler(constraints_func=_constraints_of)
    (warning,) = [w for w in caught if w.category is FutureWarning]
    message = str(warning.message)
    assert "`constraints_func` has been deprecated in v5.0.0" in message
    assert "optuna.trial.Trial.set_constraint" in message and warning.filename == __file__
    # Optuna's own samplers give the same text
    with pytest.warns(FutureWarning, match="has been deprecated in v5.0.0") as theirs:
        optuna.samplers.GPSampler(constraints_func=_constraints_of)
    assert message in [str(w.message) for w in theirs]


NAMED = {
    "EGPTSSampler": (EGPTSSampler, EGPAlgorithm),
    "BORESampler": (BORESampler, BOREAlgorithm),
    "DistributedTSSampler": (
        lambda **kw: DistributedTSSampler(agent_id=0, n_agents=1, **kw),
        DistributedTSAlgorithm,
    ),
}


@pytest.mark.parametrize("name", list(NAMED))
def test_named_samplers_hand_constraints_func_to_the_sampler_once(name, monkeypatch):
    """A named sampler whose algorithm models constraints takes ``constraints_func`` (with the
    deprecation warning once on Optuna 5); one whose algorithm does not refuses it."""
    make, algorithm_class = NAMED[name]
    assert algorithm_class.models_constraints is True  # every built-in algorithm models them
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sampler = make(constraints_func=_constraints_of)
    assert sampler._constraints_func is _constraints_of
    expected = [__file__] if OPTUNA_5 else []
    assert [w.filename for w in caught if w.category is FutureWarning] == expected
    monkeypatch.setattr(algorithm_class, "models_constraints", False)
    with pytest.raises(ValueError, match=f"{NOT_MODELLED}: constraints_func="):
        make(constraints_func=_constraints_of)


def test_a_sampler_with_constraints_func_pickles_and_continues():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        sampler = _sampler(constraints_func=_constraints_of)
    study = optuna.create_study(sampler=pickle.loads(pickle.dumps(sampler)))
    study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=3)
    assert all(_storage.constraint_values(t) for t in study.trials)


def _constrained_from(first):
    """Objective of ``x``; from trial ``first`` on, the trial sets the constraint x - 0.5 <= 0."""

    def objective(trial):
        x = trial.suggest_float("x", 0, 1)
        if trial.number >= first:
            trial.set_constraint("half", x - 0.5)
        return x

    return objective


# ------------------------------------------------------------------------ threads and storages
@needs_set_constraint
def test_constraints_with_two_threads():
    """``n_jobs=2``: both ways of setting values, every completed trial's values reach the
    algorithm."""
    algorithm = _Recorder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        sampler = _sampler(algorithm, constraints_func=_constraints_of)
    study = optuna.create_study(sampler=sampler)
    study.optimize(_constrained_from(0), n_trials=12, n_jobs=2)
    assert all(t.state == TrialState.COMPLETE for t in study.trials)
    assert all(set(_storage.constraint_values(t)) == {"0", "half"} for t in study.trials)
    _ask_x(study)
    obs = algorithm.seen[-1]
    assert obs.constraint_names == ("0", "half") and len(obs.y) == 12
    np.testing.assert_allclose(obs.constraints[:, 0], obs.constraints[:, 1])  # both are x - 0.5


STUDY = "constraint_values_storages"


def _storage_maker(kind, tmp_path, request):
    """A function that makes a fresh storage object on the test's storage, as each worker makes its
    own."""
    if kind == "postgres":
        url = request.getfixturevalue("postgres_study")(STUDY)  # a new, empty study
        return lambda: optuna.storages.RDBStorage(url)
    from optuna.storages.journal import JournalFileBackend

    path = str(tmp_path / "journal.log")
    return lambda: optuna.storages.JournalStorage(JournalFileBackend(path))


@pytest.mark.parametrize("kind", ["journal", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_constraint_values_written_through_one_storage_object_are_read_through_another(
    kind, tmp_path, request
):
    """What a worker wrote (``constraints_func`` and, on Optuna 5, ``trial.set_constraint``) is
    what another worker's sampler reads through its own storage object."""
    make_storage = _storage_maker(kind, tmp_path, request)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        writer = _sampler(constraints_func=_constraints_of)
    study = optuna.create_study(
        study_name=STUDY, storage=make_storage(), sampler=writer, load_if_exists=True
    )
    study.optimize(_constrained_from(0 if OPTUNA_5 else 99), n_trials=3)
    xs = [t.params["x"] for t in study.trials]
    algorithm = _Recorder()
    reader = optuna.load_study(
        study_name=STUDY, storage=make_storage(), sampler=_sampler(algorithm)
    )
    _ask_x(reader)
    obs = algorithm.seen[-1]
    assert obs.constraint_names == (("0", "half") if OPTUNA_5 else ("0",))
    np.testing.assert_allclose(obs.constraints, np.array([xs] * (1 + OPTUNA_5)).T - 0.5)
