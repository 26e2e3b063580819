"""Several worker processes on one storage, and a worker that dies and is replaced.

The PostgreSQL case runs when EGP_TEST_POSTGRES_URL points at a server (``.ci/run`` starts one) and
is skipped otherwise.
"""

import os
import subprocess
import sys
import textwrap

import optuna
import pytest
from optuna.trial import TrialState

WORKER = textwrap.dedent(
    """
    import os, sys, optuna
    from optuna_egp import EGPTSSampler
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    url, n_trials = sys.argv[1], int(sys.argv[2])
    seed, crash_after = int(sys.argv[3]), int(sys.argv[4])
    if url.endswith(".log"):
        from optuna.storages.journal import JournalFileBackend
        storage = optuna.storages.JournalStorage(JournalFileBackend(url))
    else:
        storage = url
    sampler = EGPTSSampler(seed=seed, n_startup_trials=4)
    study = optuna.load_study(study_name="s", storage=storage, sampler=sampler)
    done = [0]
    def objective(trial):
        x = trial.suggest_float("x", -2, 2)
        c = trial.suggest_categorical("c", ["a", "b"])
        if done[0] == crash_after:
            os._exit(3)  # a hard crash in the middle of a trial: no clean-up runs
        done[0] += 1
        return (x - 0.5) ** 2 + (c == "b")
    study.optimize(objective, n_trials=n_trials)
    """
)


def _storage(url):
    if url.endswith(".log"):
        from optuna.storages.journal import JournalFileBackend

        return optuna.storages.JournalStorage(JournalFileBackend(url))
    return url


def _run_workers(url, tmp_path, specs):
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [
        subprocess.Popen([sys.executable, str(script), url, str(n), str(seed), str(crash)], env=env)
        for n, seed, crash in specs
    ]
    return [p.wait(timeout=300) for p in procs]


def _check(url, n_complete_min):
    study = optuna.load_study(study_name="s", storage=_storage(url))
    complete = study.get_trials(states=(TrialState.COMPLETE,))
    assert len(complete) >= n_complete_min
    for t in complete:
        assert -2 <= t.params["x"] <= 2 and t.params["c"] in ("a", "b")
    assert study.best_value < 0.05  # random search needs ~40 trials for this; the model gets there
    return study


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["journal", "sqlite"])
def test_processes_share_one_storage_and_a_crashed_worker_is_replaced(kind, tmp_path):
    url = str(tmp_path / "j.log") if kind == "journal" else f"sqlite:///{tmp_path / 's.db'}"
    optuna.create_study(study_name="s", storage=_storage(url))
    # the second dies in its 6th trial
    codes = _run_workers(url, tmp_path, [(10, 0, -1), (10, 1, 5)])
    assert codes == [0, 3]
    codes = _run_workers(url, tmp_path, [(6, 2, -1)])  # a new worker takes over from the storage
    assert codes == [0]
    study = _check(url, 21)
    # the crashed trial; nothing else lost
    assert sum(t.state == TrialState.RUNNING for t in study.trials) == 1


@pytest.mark.slow
@pytest.mark.postgres
def test_postgresql_workers(tmp_path, postgres_study):
    url = postgres_study("s")
    assert _run_workers(url, tmp_path, [(8, 0, -1), (8, 1, -1), (8, 2, -1)]) == [0, 0, 0]
    _check(url, 24)
