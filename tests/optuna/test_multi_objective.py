"""Studies with several objectives in the Optuna adapter, driven by test algorithms: what reaches
the algorithm (each objective minimised, in its column), constraints with them, workers and
storages, and the refusal for an algorithm that models one objective (the named samplers':
``test_refusals.py``). The named samplers on several objectives: ``tests/test_fuzz.py`` and
``test_pytest_samplers.py``."""

from __future__ import annotations

import contextlib
import math
import threading
import time

import numpy as np
import optuna
import pytest
from optuna.trial import TrialState

from optuna_egp import CoreSampler

optuna.logging.set_verbosity(optuna.logging.WARNING)


class Recorder:
    """A test algorithm that models several objectives and constraints: uniform random points, and
    a copy of the ``Observations`` of every call."""

    multi_objective = True
    models_constraints = True

    def __init__(self) -> None:
        self.seen: list = []
        self._lock = threading.Lock()

    def suggest(self, space, obs, n_suggestions, rng):
        with self._lock:
            self.seen.append(obs)
        return space.sample(rng, n_suggestions)  # (n, d)


class SingleObjective:
    """A test algorithm without the ``MultiObjective`` capability."""

    def suggest(self, space, obs, n_suggestions, rng):
        return space.sample(rng, n_suggestions)


def _values(x: float, y: float) -> tuple[float, float, float]:
    return x + y, (x - 1.0) ** 2 - y, 3.0 * x * y - 1.0


def _objective(m: int):
    def objective(trial):
        x, y = trial.suggest_float("x", 0.0, 1.0), trial.suggest_float("y", 0.0, 1.0)
        return _values(x, y)[:m]

    return objective


def _expected_y(trials, directions) -> np.ndarray:
    """``(n, m)`` minimised values of the completed ``trials``, computed from their parameters."""
    signs = np.array([-1.0 if d == "maximize" else 1.0 for d in directions])
    values = [_values(t.params["x"], t.params["y"])[: len(directions)] for t in trials]
    return np.array(values) * signs


@pytest.mark.parametrize(
    "directions",
    [
        ["minimize", "maximize"],
        ["maximize", "minimize"],
        ["maximize", "maximize"],
        ["maximize", "minimize", "maximize"],
    ],
)
def test_each_objective_reaches_the_algorithm_in_its_column_minimised(directions):
    recorder = Recorder()
    sampler = CoreSampler(recorder, seed=0, n_startup_trials=3)
    study = optuna.create_study(directions=directions, sampler=sampler)
    study.optimize(_objective(len(directions)), n_trials=6)
    assert len(recorder.seen) == 3  # every trial after the start-up ones
    for obs in recorder.seen:
        complete = study.trials[: len(obs.y)]
        assert obs.y.shape == (len(complete), len(directions))
        np.testing.assert_allclose(obs.y, _expected_y(complete, directions), rtol=1e-12)
        assert obs.reference_point is None  # inferred by the algorithm


@pytest.mark.parametrize("direction", ["minimize", "maximize"])
def test_one_objective_keeps_a_flat_y(direction):
    recorder = Recorder()
    study = optuna.create_study(
        direction=direction, sampler=CoreSampler(recorder, seed=0, n_startup_trials=2)
    )
    study.optimize(lambda t: _objective(1)(t)[0], n_trials=3)
    (obs,) = recorder.seen
    assert obs.y.shape == (2,)
    np.testing.assert_allclose(obs.y, _expected_y(study.trials[:2], [direction])[:, 0])


def test_an_infinite_value_is_observed_and_a_nan_value_fails_the_trial():
    """Optuna completes a trial with ``inf`` in one objective and fails one with NaN in any: the
    algorithm sees the first (minimised: a maximised ``inf`` is ``-inf``), never the second."""
    values = iter([(1.0, 2.0), (math.inf, 0.5), (0.3, math.nan), (math.nan, math.nan), (2.0, -1.0)])
    recorder = Recorder()
    study = optuna.create_study(
        directions=["minimize", "maximize"],
        sampler=CoreSampler(recorder, seed=0, n_startup_trials=2),
    )
    study.optimize(lambda t: (t.suggest_float("x", 0, 1), next(values))[1], n_trials=5)
    states = [t.state for t in study.trials]
    assert states == [TrialState.COMPLETE] * 2 + [TrialState.FAIL] * 2 + [TrialState.COMPLETE]
    # trials 2-4 were suggested by the algorithm, each seeing the two completed start-up trials
    assert len(recorder.seen) == 3
    for obs in recorder.seen:
        np.testing.assert_array_equal(obs.y, [[1.0, -2.0], [math.inf, -0.5]])


def test_a_constant_objective_reaches_the_algorithm_unchanged():
    recorder = Recorder()
    study = optuna.create_study(
        directions=["minimize", "maximize"],
        sampler=CoreSampler(recorder, seed=0, n_startup_trials=3),
    )
    study.optimize(lambda t: (t.suggest_float("x", 0, 1), 4.0), n_trials=4)
    (obs,) = recorder.seen
    np.testing.assert_allclose(obs.y[:, 1], [-4.0] * 3)
    np.testing.assert_allclose(obs.y[:, 0], [t.params["x"] for t in study.trials[:3]])


@pytest.mark.parametrize("how", ["set_constraint", "constraints_func"])
def test_constraints_reach_the_algorithm_with_several_objectives(how):
    def objective(trial):
        x = trial.suggest_float("x", 0.0, 1.0)
        if how == "set_constraint":
            trial.set_constraint("c", x - 0.5)
        return x, 1.0 - x

    recorder = Recorder()
    func = (lambda t: [t.params["x"] - 0.5]) if how == "constraints_func" else None
    with pytest.warns(FutureWarning) if func else contextlib.nullcontext():
        sampler = CoreSampler(recorder, seed=0, n_startup_trials=3, constraints_func=func)
    study = optuna.create_study(directions=["minimize", "maximize"], sampler=sampler)
    study.optimize(objective, n_trials=5)
    obs = recorder.seen[-1]
    x = np.array([t.params["x"] for t in study.trials[:4]])
    assert obs.constraint_names == (("c",) if how == "set_constraint" else ("0",))
    np.testing.assert_allclose(obs.constraints[:, 0], x - 0.5)
    np.testing.assert_allclose(obs.y, np.column_stack([x, x - 1.0]))
    # Optuna's Pareto front of a constrained study: feasible trials only
    assert all(t.params["x"] <= 0.5 for t in study.best_trials)


@pytest.mark.parametrize("n_objectives", [2, 3])
def test_an_algorithm_of_one_objective_refuses_before_the_first_trial_runs(n_objectives):
    directions = ["minimize", "maximize", "minimize"][:n_objectives]
    study = optuna.create_study(
        directions=directions, sampler=CoreSampler(SingleObjective(), seed=0)
    )
    calls = []

    def objective(trial):
        calls.append(trial.number)
        return _objective(n_objectives)(trial)

    with pytest.raises(ValueError) as raised:
        study.optimize(objective, n_trials=3)
    message = str(raised.value)
    assert "CoreSampler" in message and f"{n_objectives} objectives" in message, message
    assert "SingleObjective" in message, message
    # the objective never ran, and no trial is left RUNNING
    assert calls == [] and [t.state for t in study.trials] == [TrialState.FAIL]


def test_two_threads_see_each_others_running_trials_as_pending():
    recorder = Recorder()
    study = optuna.create_study(
        directions=["minimize", "maximize"],
        sampler=CoreSampler(recorder, seed=0, n_startup_trials=2),
    )

    def objective(trial):
        values = _objective(2)(trial)
        time.sleep(0.05)  # long enough for the other thread to ask while this one runs
        return values

    study.optimize(objective, n_trials=12, n_jobs=2)
    assert all(t.state == TrialState.COMPLETE for t in study.trials)
    assert recorder.seen and all(obs.y.shape[1] == 2 for obs in recorder.seen)
    # some suggestion saw the other thread's running trial (each sleeps while the other asks)
    assert any(len(obs.X_pending) for obs in recorder.seen)
    numbers = {t.number: t for t in study.trials}
    for obs in recorder.seen:  # the rows are completed trials' values, whatever the order
        assert {tuple(row) for row in obs.y} <= {
            tuple(_expected_y([t], ["minimize", "maximize"])[0]) for t in numbers.values()
        }


def test_an_rdb_study_gives_a_new_worker_the_same_observations(tmp_path):
    storage = optuna.storages.RDBStorage(f"sqlite:///{tmp_path / 'study.db'}")  # set up once
    directions = ["maximize", "minimize", "maximize"]
    first = Recorder()
    study = optuna.create_study(
        storage=storage,
        study_name="mo",
        directions=directions,
        sampler=CoreSampler(first, seed=0, n_startup_trials=3),
    )
    study.optimize(_objective(3), n_trials=5)
    second = Recorder()  # another worker, loading the study
    loaded = optuna.load_study(
        storage=storage, study_name="mo", sampler=CoreSampler(second, seed=1, n_startup_trials=3)
    )
    loaded.optimize(_objective(3), n_trials=1)
    (obs,) = second.seen
    np.testing.assert_allclose(obs.y, _expected_y(loaded.trials[:5], directions), rtol=1e-12)
