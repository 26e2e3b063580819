"""Many worker processes on one RDB storage, one of which gets killed mid-trial.

Run:  python examples/many_workers.py [storage URL]
      (default: an SQLite file in a temporary folder, removed at the end; for several machines
      pass a PostgreSQL URL, e.g. postgresql://user:password@host/db)

What it shows:
  * Optuna's heartbeat (``heartbeat_interval``, ``grace_period``): the trial of the killed worker is
    failed by Optuna at the start of a later trial, and ``RetryHeartbeatStaleTrialCallback`` (Optuna
    >= 4.9; ``failed_trial_callback=RetryFailedTrialCallback(...)`` before) enqueues it again.
    Without heartbeats (e.g. a Journal file) ``EGPTSSampler``'s ``running_trial_timeout="auto"``
    stops counting such a trial as pending instead (docs/running-at-scale.md, "Dead workers").
  * ``max_threads=1`` (the default): each process computes its suggestions with one BLAS thread, so
    4 processes on 2 cores do not run 8 BLAS threads.
  * ``share_model=True`` (the default): the replacement worker starts from the model the others
    recorded in the study instead of fitting one.
The heartbeat settings here are short for the demo; for real studies use e.g. 60 s / 120 s.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sys
import tempfile
import time
import warnings

import optuna

from optuna_egp import EGPTSSampler

# heartbeats are "experimental"
warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)

N_TRIALS, N_WORKERS = 60, 3
HEARTBEAT = {"heartbeat_interval": 1, "grace_period": 2}


def objective(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", -3, 3)
    y = trial.suggest_float("y", -3, 3)
    time.sleep(0.2)  # the "training run"
    return (x - 1) ** 2 + (y + 0.5) ** 2


def storage(url: str) -> optuna.storages.RDBStorage:
    if not hasattr(optuna.storages, "RetryHeartbeatStaleTrialCallback"):  # Optuna < 4.9
        retry = optuna.storages.RetryFailedTrialCallback(max_retry=1)
        return optuna.storages.RDBStorage(url, **HEARTBEAT, failed_trial_callback=retry)
    retry = optuna.storages.RetryHeartbeatStaleTrialCallback(max_retry=1)
    return optuna.storages.RDBStorage(url, **HEARTBEAT, heartbeat_stale_trial_callback=retry)


def worker(url: str, seed: int, die_after: int | None) -> None:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.load_study(
        study_name="demo", storage=storage(url), sampler=EGPTSSampler(seed=seed)
    )
    done = [0]

    def maybe_die(trial: optuna.Trial) -> float:
        if die_after is not None and done[0] == die_after:
            trial.suggest_float("x", -3, 3)
            os.kill(os.getpid(), signal.SIGKILL)  # killed mid-trial: no clean-up runs
        done[0] += 1
        return objective(trial)

    study.optimize(maybe_die, callbacks=[optuna.study.MaxTrialsCallback(N_TRIALS)])


def main() -> None:
    if len(sys.argv) > 1:
        run(sys.argv[1])
        return
    with tempfile.TemporaryDirectory() as folder:  # the SQLite file goes with the folder
        run(f"sqlite:///{os.path.join(folder, 'many_workers.db')}")


def run(url: str) -> None:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    optuna.create_study(study_name="demo", storage=storage(url))
    ctx = mp.get_context("spawn")
    procs = [
        ctx.Process(target=worker, args=(url, seed, 2 if seed == 0 else None))
        for seed in range(N_WORKERS)
    ]
    for p in procs:
        p.start()
    procs[0].join()
    print(f"worker 0 exit code {procs[0].exitcode} (killed mid-trial); starting a replacement")
    replacement = ctx.Process(target=worker, args=(url, N_WORKERS, None))
    replacement.start()
    for p in procs[1:] + [replacement]:
        p.join()

    study = optuna.load_study(study_name="demo", storage=url)
    states = [t.state.name for t in study.trials]
    print(
        f"{len(states)} trials: {states.count('COMPLETE')} complete, {states.count('FAIL')} failed "
        f"by the heartbeat, {states.count('RUNNING')} running"
    )
    failed = [t for t in study.trials if t.state == optuna.trial.TrialState.FAIL]
    for t in failed:
        retried = [r.number for r in study.trials if r.system_attrs.get("failed_trial") == t.number]
        print(f"trial {t.number} (the killed worker's) failed; retried as trial(s) {retried}")
    if "RUNNING" in states:
        print(
            "the killed worker's trial was not yet past the grace period when the study ended; "
            "the next optimize() call on this study fails it"
        )
    print(f"best value {study.best_value:.4f} at {study.best_params}")


if __name__ == "__main__":
    main()
