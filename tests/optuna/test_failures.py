"""Failed trials as data in Optuna (``optuna_egp._failures``): a trial whose objective raised or
returned NaN reaches the algorithm as a failed point, a trial failed outside our sampler's
``after_trial`` (as Optuna's heartbeat fails a dead worker's) does not, ``model_failures=False``
ignores them all, and learning from them fails less."""

import math

import numpy as np
import optuna
import pytest
from optuna.trial import TrialState

from optuna_egp import CoreSampler, EGPTSSampler
from optuna_egp._failures import FAILURE_KEY
from tests.optuna._recorders import Recorder as _Recorder


def _objective(trial):
    x = trial.suggest_float("x", 0.0, 1.0)
    y = trial.suggest_float("y", 0.0, 1.0)
    if x > 0.7:
        raise ValueError("out of memory")  # the failure region, away from the minimum
    return (x - 0.3) ** 2 + (y - 0.3) ** 2


def _study_with_failures(sampler, storage=None):
    """Two completed trials, one that raised, one that returned NaN, then one more trial."""
    study = optuna.create_study(sampler=sampler, storage=storage)
    for params in ({"x": 0.1, "y": 0.2}, {"x": 0.2, "y": 0.9}, {"x": 0.9, "y": 0.5}):
        study.enqueue_trial(params)
    study.optimize(_objective, n_trials=3, catch=(ValueError,))
    study.enqueue_trial({"x": 0.4, "y": 0.4})
    study.optimize(lambda t: math.nan if _objective(t) >= 0 else 0.0, n_trials=1)
    study.optimize(_objective, n_trials=1, catch=(ValueError,))
    return study


def test_trials_that_raised_or_returned_nan_are_failed_points():
    algorithm = _Recorder()
    study = _study_with_failures(CoreSampler(algorithm, seed=0, n_startup_trials=1))
    failed = study.get_trials(states=(TrialState.FAIL,))
    assert [t.system_attrs.get(FAILURE_KEY) for t in failed] == [True, True]
    obs = algorithm.seen[-1]
    assert obs.n_failed == 2 and len(obs.y) == 2
    # encoded in the unit cube, x and y in the space's order
    np.testing.assert_allclose(np.sort(obs.X_failed[:, 0]), [0.4, 0.9])


def test_failed_trials_are_ignored_when_asked_or_failed_outside_the_sampler():
    algorithm = _Recorder()
    _study_with_failures(CoreSampler(algorithm, seed=0, n_startup_trials=1, model_failures=False))
    assert algorithm.seen[-1].n_failed == 0

    # a trial asked by our sampler and failed by another process's (as Optuna's heartbeat fails
    # a dead worker's trial): never marked, so not a failed point
    algorithm = _Recorder()
    storage = optuna.storages.InMemoryStorage()
    sampler = CoreSampler(algorithm, seed=0, n_startup_trials=1)
    study = optuna.create_study(storage=storage, sampler=sampler)
    study.optimize(_objective, n_trials=2, catch=(ValueError,))
    dead = study.ask()
    dead.suggest_float("x", 0.0, 1.0)
    other = optuna.load_study(study_name=study.study_name, storage=storage)
    other.tell(dead.number, state=TrialState.FAIL)
    study.optimize(_objective, n_trials=1, catch=(ValueError,))
    assert FAILURE_KEY not in study.trials[dead.number].system_attrs
    assert algorithm.seen[-1].n_failed == sum(t.state == TrialState.FAIL for t in study.trials[:2])


def test_a_retry_does_not_inherit_the_failure_mark_of_the_trial_it_copies():
    """A retry copies the system attributes of the trial it retries (as Optuna's retry callback
    does); if the retry's worker then dies, the copied mark must not make it a failed point."""
    algorithm, storage = _Recorder(), optuna.storages.InMemoryStorage()
    study = _study_with_failures(CoreSampler(algorithm, seed=0, n_startup_trials=1), storage)
    marked = study.trials[2]
    assert marked.system_attrs.get(FAILURE_KEY)
    retry = optuna.trial.create_trial(state=TrialState.WAITING, system_attrs=marked.system_attrs)
    study.add_trial(retry)
    taken = study.ask()  # our sampler's before_trial clears the copied records
    taken.suggest_float("x", 0.0, 1.0)
    taken.suggest_float("y", 0.0, 1.0)  # a point, so only the mark decides
    other = optuna.load_study(study_name=study.study_name, storage=storage)
    other.tell(taken.number, state=TrialState.FAIL)  # as the heartbeat fails a dead worker's
    assert not study.trials[taken.number].system_attrs.get(FAILURE_KEY)
    study.optimize(_objective, n_trials=1, catch=(ValueError,))
    assert algorithm.seen[-1].n_failed == 2


def _failures_after_startup(model_failures: bool, seed: int) -> int:
    sampler = EGPTSSampler(seed=seed, acquisition="ei", model_failures=model_failures)
    study = optuna.create_study(sampler=sampler)
    study.optimize(_objective, n_trials=26, catch=(ValueError,))
    return sum(t.state == TrialState.FAIL for t in study.trials[10:])


@pytest.mark.slow
def test_learning_where_trials_fail_fails_less():
    # 16 trials after the start-up, seeds 0-1: 2 failed against 13 (held-out seeds 2-3: 6
    # against 19); EI's uncertainty draws it to the region it learns nothing of while failed
    # trials are not data
    with_failures = sum(_failures_after_startup(True, seed) for seed in range(2))
    without = sum(_failures_after_startup(False, seed) for seed in range(2))
    assert with_failures <= without / 2


def test_a_trial_that_failed_before_suggesting_an_active_parameter_is_left_out():
    # branch b's "extra" is active once "kind" is b: a trial that raised in between has no point
    def objective(trial):
        kind = trial.suggest_categorical("kind", ["a", "b"])
        x = trial.suggest_float("x", 0.0, 1.0)
        if trial.number == 4:
            raise ValueError("before extra")
        extra = trial.suggest_float(f"extra_{kind}", 0.0, 1.0)
        return x + extra

    algorithm = _Recorder()
    study = optuna.create_study(sampler=CoreSampler(algorithm, seed=0, n_startup_trials=1))
    for i in range(4):
        study.enqueue_trial({"kind": "ab"[i % 2], "x": 0.1 * i, "extra_a": 0.5, "extra_b": 0.5})
    study.enqueue_trial({"kind": "b", "x": 0.9})
    study.optimize(objective, n_trials=6, catch=(ValueError,))
    assert study.trials[4].state == TrialState.FAIL
    assert study.trials[4].system_attrs.get(FAILURE_KEY)  # marked, but its point is not known
    assert algorithm.seen[-1].n_failed == 0
