"""Many workers per machine: bounded threads while the sampler computes, dead trials ignored."""

import datetime
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import optuna
import pytest
from optuna.distributions import FloatDistribution
from optuna.trial import FrozenTrial, TrialState
from threadpoolctl import threadpool_info, threadpool_limits

from optuna_egp import CoreSampler, EGPTSSampler, _claims
from optuna_egp._claims import CLAIM_KEY
from optuna_egp._claims import settled as has_settled
from optuna_egp._heartbeats import HEARTBEAT_GIVEN_KEY
from optuna_egp._space import RelativeSpace, space_key
from optuna_egp._storage import write_system_attr
from optuna_egp._timeouts import (
    STALE_MIN_SECONDS,
    alive_running_trials,
    seconds_between,
    stale_after_seconds,
)
from shared_core.threads import limited_threads

optuna.logging.set_verbosity(optuna.logging.WARNING)


def _blas_threads() -> set[int]:
    return {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}


class _Recorder:
    """A stand-in algorithm: returns a random point (so that concurrent trials never share one) and
    records what it saw."""

    def __init__(self):
        self.blas_threads, self.pending = [], []

    def suggest(self, space, obs, n, rng):
        self.blas_threads.append(_blas_threads())
        self.pending.append(obs.X_pending.copy())
        return rng.random((n, space.dim))


# ---------------------------------------------------------------------------------------- threads
def test_blas_threads_are_capped_while_the_sampler_computes_and_restored_after():
    recorder = _Recorder()
    study = optuna.create_study(sampler=CoreSampler(recorder, n_startup_trials=1))
    with threadpool_limits(limits=3):  # a known outer setting, whatever the machine's default
        study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=3)
        assert _blas_threads() == {3}
    assert recorder.blas_threads == [{1}, {1}]  # the two model-based suggestions


def test_max_threads_none_leaves_the_thread_pools_alone():
    recorder = _Recorder()
    study = optuna.create_study(sampler=CoreSampler(recorder, n_startup_trials=1, max_threads=None))
    with threadpool_limits(limits=3):
        study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=2)
    assert recorder.blas_threads == [{3}]


def test_overlapping_limits_first_block_sets_and_restores_others_change_nothing():
    entered, release, seen = threading.Event(), threading.Event(), []

    def second_block():
        with limited_threads(
            2
        ) as capped:  # another thread's block holds the limit: nothing changes
            seen.append((_blas_threads(), capped))
            entered.set()
            release.wait(10)

    with threadpool_limits(limits=3):
        with limited_threads(1):
            other = threading.Thread(target=second_block)
            other.start()
            entered.wait(10)
            assert seen == [({1}, True)]
        assert _blas_threads() == {3}  # restored by the block that set it
        release.set()
        other.join()
        assert _blas_threads() == {3}


def test_blas_threads_are_capped_in_every_n_jobs_thread():
    """Each worker thread takes threadpoolctl's control
    of the pools and hands it back afterwards."""
    if max(_blas_threads()) < 2:
        pytest.skip("BLAS already runs one thread here (e.g. OMP_NUM_THREADS=1): nothing to cap")
    recorder = _Recorder()
    study = optuna.create_study(sampler=CoreSampler(recorder, n_startup_trials=1))
    study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=12, n_jobs=3)
    assert len(recorder.blas_threads) >= 6
    assert all(seen == {1} for seen in recorder.blas_threads)


def test_threads_are_capped_in_n_jobs_threads_or_a_warning_says_they_are_not(optuna_log):
    """While the user's own threadpool_limits block in the main thread controls the pools, a worker
    thread cannot change them (threadpoolctl >= 3.8): the sampler says so once."""
    recorder = _Recorder()
    study = optuna.create_study(sampler=CoreSampler(recorder, n_startup_trials=1))
    with threadpool_limits(limits=3):  # set from the main thread
        study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=4, n_jobs=2)
    warned = optuna_log.messages("could not cap the BLAS threads")
    assert len(recorder.blas_threads) >= 2
    assert all(seen == {1} for seen in recorder.blas_threads) or len(warned) == 1


def test_torch_threads_are_capped_and_restored():
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        with limited_threads(1):
            assert torch.get_num_threads() == 1
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_a_limit_never_raises_a_thread_count():
    with threadpool_limits(limits=1):
        with limited_threads(8) as capped:
            assert _blas_threads() == {1} and capped


def test_a_failure_while_setting_the_limit_frees_it_for_later_blocks(monkeypatch):
    import shared_core.threads as threads

    def broken():
        raise RuntimeError("thread pools unreadable")

    with monkeypatch.context() as m:
        m.setattr(threads, "_thread_pools", broken)
        with pytest.raises(RuntimeError), limited_threads(1):
            pass
    with threadpool_limits(limits=3), limited_threads(1) as capped:
        assert _blas_threads() == {1} and capped


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True])
def test_bad_max_threads_is_a_value_error(bad):
    with pytest.raises(ValueError, match="max_threads"):
        EGPTSSampler(max_threads=bad)


# -------------------------------------------------------------------------------------- dead trials
_DIST = {"x": FloatDistribution(0, 1)}


def _trial(number, state, start, seconds=None, x=0.5):
    complete = None if seconds is None else start + datetime.timedelta(seconds=seconds)
    return FrozenTrial(
        number=number,
        state=state,
        value=None if seconds is None else x,
        datetime_start=start,
        datetime_complete=complete,
        params={"x": x},
        distributions=_DIST,
        user_attrs={},
        system_attrs={},
        intermediate_values={},
        trial_id=number,
    )


def _completed(n, seconds, start):
    return [_trial(i, TrialState.COMPLETE, start, seconds, x=(i + 0.5) / n) for i in range(n)]


def test_stale_after_seconds_rule():
    t0 = datetime.datetime(2026, 1, 1)
    four, many = _completed(4, 1.0, t0), _completed(10, 1.0, t0)
    assert stale_after_seconds(four, "auto") == np.inf  # too few completed trials to judge
    assert stale_after_seconds(many, "auto") == STALE_MIN_SECONDS  # 10 x 1 s, raised to the floor
    slow = many[:-1] + [_trial(9, TrialState.COMPLETE, t0, 100.0)]
    # 10 x 90th percentile
    assert stale_after_seconds(slow, "auto") == pytest.approx(10 * (1.0 + 0.1 * 99.0))
    assert stale_after_seconds(many, None) == np.inf
    assert stale_after_seconds(many, 7.5) == 7.5


def test_trials_added_without_durations_do_not_count_for_the_rule():
    """``create_trial`` gives trials no duration (start == complete): they say nothing about
    how long trials take, so 20 of them leave the rule without data."""
    t0 = datetime.datetime(2026, 1, 1)
    added = _completed(20, 0.0, t0)
    assert stale_after_seconds(added, "auto") == np.inf
    assert stale_after_seconds(added + _completed(5, 2.0, t0), "auto") == STALE_MIN_SECONDS


@pytest.fixture
def berlin_local_time(monkeypatch):
    """Local time is Central European (daylight saving from 2024-03-31 02:00 to 03:00)."""
    monkeypatch.setenv("TZ", "Europe/Berlin")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_durations_of_naive_local_times_count_a_daylight_saving_change(berlin_local_time):
    """01:55 to 03:05 on the night clocks go forward is 10 minutes, not 70: a trial spanning
    the change must not inflate the dead-trial timeout."""
    start, end = datetime.datetime(2024, 3, 31, 1, 55), datetime.datetime(2024, 3, 31, 3, 5)
    assert seconds_between(start, end) == 600.0
    spanning = _trial(9, TrialState.COMPLETE, start, 600.0)
    spanning.datetime_complete = end
    trials = _completed(9, 600.0, datetime.datetime(2024, 3, 30)) + [spanning]
    assert stale_after_seconds(trials, "auto") == pytest.approx(10 * 600.0)


def test_aware_start_times_are_compared_without_error():
    t0 = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(seconds=600)
    trials = _completed(10, 1.0, t0) + [_trial(10, TrialState.RUNNING, t0)]
    assert alive_running_trials(trials, "auto", datetime.datetime.now().astimezone()) == []


def test_aware_start_times_from_the_storage_work_end_to_end():
    """Trials may carry time-zone-aware times (e.g. added with add_trials); the rule
    compares them with the local clock without error."""
    t0 = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(seconds=600)
    recorder = _Recorder()
    study = optuna.create_study(sampler=CoreSampler(recorder, n_startup_trials=1))
    study.add_trials(_completed(10, 1.0, t0 - datetime.timedelta(seconds=100)))
    study.add_trial(_trial(10, TrialState.RUNNING, t0, x=0.123))
    study.ask(_DIST)
    assert len(recorder.pending[-1]) == 0


def test_a_trial_this_process_runs_stays_pending_however_old():
    """ask/ask: the first trial of this process is older than the timeout but alive (its objective
    still runs here); another process's equally old trial is presumed dead."""
    now = datetime.datetime.now()
    recorder = _Recorder()
    study = optuna.create_study(
        sampler=CoreSampler(recorder, n_startup_trials=1, running_trial_timeout=0.5)
    )
    study.add_trials(_completed(10, 1.0, now - datetime.timedelta(seconds=100)))
    # another process's
    study.add_trial(_trial(10, TrialState.RUNNING, now - datetime.timedelta(seconds=60), x=0.9))
    mine = study.ask(_DIST)
    time.sleep(0.6)
    study.ask(_DIST)
    assert recorder.pending[-1][:, 0].tolist() == [mine.params["x"]]


def test_this_processs_own_running_trials_are_never_presumed_dead():
    now = datetime.datetime.now().astimezone()
    old = now - datetime.timedelta(seconds=600)
    trials = _completed(10, 1.0, old) + [
        _trial(10, TrialState.RUNNING, old),
        _trial(11, TrialState.RUNNING, old),
    ]
    assert [t.number for t in alive_running_trials(trials, "auto", now, own={11})] == [11]


@pytest.mark.parametrize(
    "age, timeout, pending", [(600, "auto", 0), (5, "auto", 1), (600, None, 1), (600, 900.0, 1)]
)
def test_a_trial_running_far_longer_than_completed_trials_is_not_pending(age, timeout, pending):
    """A study of 1-second trials with a trial started ``age`` seconds ago that never finished."""
    now = datetime.datetime.now()
    recorder = _Recorder()
    study = optuna.create_study(
        sampler=CoreSampler(recorder, n_startup_trials=1, running_trial_timeout=timeout)
    )
    study.add_trials(_completed(10, 1.0, now - datetime.timedelta(seconds=1000)))
    study.add_trial(_trial(10, TrialState.RUNNING, now - datetime.timedelta(seconds=age), x=0.123))
    study.ask(_DIST)  # the relative parameters are sampled when the first parameter is suggested
    assert len(recorder.pending[-1]) == pending
    if pending:
        assert recorder.pending[-1][0, 0] == pytest.approx(0.123)


@pytest.mark.parametrize("bad", [0, -1.0, float("inf"), "soon", True])
def test_bad_running_trial_timeout_is_a_value_error(bad):
    with pytest.raises(ValueError, match="running_trial_timeout"):
        EGPTSSampler(running_trial_timeout=bad)


KILLED_WORKER = textwrap.dedent(
    """
    import os, signal, sys, optuna
    study = optuna.load_study(study_name="s", storage=sys.argv[1])
    def objective(trial):
        trial.suggest_float("x", 0, 1)
        os.kill(os.getpid(), signal.SIGKILL)  # killed mid-trial: no clean-up runs
    study.optimize(objective, n_trials=1)
    """
)


@pytest.mark.slow
def test_a_killed_workers_trial_stops_counting_as_pending(tmp_path):
    url = f"sqlite:///{tmp_path / 's.db'}"
    study = optuna.create_study(study_name="s", storage=url)
    script = tmp_path / "worker.py"
    script.write_text(KILLED_WORKER)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    assert (
        subprocess.run([sys.executable, str(script), url], env=env, timeout=120).returncode
        == -signal.SIGKILL
    )
    (dead,) = study.get_trials(states=(TrialState.RUNNING,))

    # The timeout must outlast the dead trial's age at the first suggestions: a few seconds more
    # than its age now, and more again if a busy machine took longer than that to suggest.
    for margin in (3.0, 15.0):
        recorder = _Recorder()
        timeout = (datetime.datetime.now() - dead.datetime_start).total_seconds() + margin
        study = optuna.load_study(
            study_name="s",
            storage=url,
            sampler=CoreSampler(recorder, n_startup_trials=1, running_trial_timeout=timeout),
        )
        study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=2)
        age = (datetime.datetime.now() - dead.datetime_start).total_seconds()
        if age < timeout:
            break
    else:
        pytest.fail(f"the first suggestions took longer than {margin} s ({age:.1f} s trial age)")
    # pending while young
    assert [p[:, 0].tolist() for p in recorder.pending] == [[dead.params["x"]]]
    time.sleep(timeout - age + 0.5)
    study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=1)
    assert len(recorder.pending[-1]) == 0  # presumed dead
    assert study.trials[dead.number].state == TrialState.RUNNING  # ignored, not modified


@pytest.mark.slow
def test_with_heartbeats_optuna_fails_a_killed_workers_trial(tmp_path):
    """The documented recipe: an RDB storage with a heartbeat fails the dead trial by itself."""
    url = f"sqlite:///{tmp_path / 's.db'}"
    optuna.create_study(study_name="s", storage=url)
    script = tmp_path / "worker.py"
    script.write_text(
        KILLED_WORKER.replace(
            "storage=sys.argv[1]",
            "storage=optuna.storages.RDBStorage(sys.argv[1], heartbeat_interval=1, grace_period=2)",
        )
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    assert (
        subprocess.run([sys.executable, str(script), url], env=env, timeout=120).returncode
        == -signal.SIGKILL
    )
    storage = optuna.storages.RDBStorage(url, heartbeat_interval=1, grace_period=2)
    time.sleep(3)
    study = optuna.load_study(study_name="s", storage=storage, sampler=EGPTSSampler(seed=0))
    # optimize fails stale trials first
    study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=1)
    assert [t.state for t in study.trials] == [TrialState.FAIL, TrialState.COMPLETE]


def _heartbeat_study(tmp_path, sampler):
    storage = optuna.storages.RDBStorage(
        f"sqlite:///{tmp_path / 'h.db'}", heartbeat_interval=1, grace_period=1
    )
    return optuna.create_study(
        study_name="h", storage=storage, sampler=sampler, load_if_exists=True
    )


@pytest.mark.slow
def test_a_live_ask_and_tell_trial_is_never_given_a_heartbeat(tmp_path):
    """Only trials without parameters and claims look orphaned: an ask-and-tell trial (no heartbeat
    thread) that has written its parameters is left alone, so it is not failed and can be told."""
    live = _heartbeat_study(tmp_path, EGPTSSampler(seed=0)).ask()
    live.suggest_float("x", 0, 1)
    time.sleep(1.5)  # older than the 1 s heartbeat interval
    study = _heartbeat_study(tmp_path, EGPTSSampler(seed=1))
    study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=1)
    time.sleep(2.5)
    optuna.storages.fail_stale_trials(study)
    study.tell(live.number, 1.0)
    assert [t.state for t in study.trials] == [TrialState.COMPLETE, TrialState.COMPLETE]


@pytest.mark.slow
def test_an_orphaned_trial_gets_one_heartbeat_in_the_whole_study_not_one_per_new_process(
    tmp_path, monkeypatch
):
    """New processes must not keep a dead trial alive by each giving it a fresh heartbeat."""
    orphan = _heartbeat_study(tmp_path, optuna.samplers.RandomSampler(seed=0)).ask()
    time.sleep(1.5)
    given = []
    record = optuna.storages.RDBStorage.record_heartbeat
    monkeypatch.setattr(
        optuna.storages.RDBStorage,
        "record_heartbeat",
        lambda self, trial_id: (given.append(trial_id), record(self, trial_id))[1],
    )
    for seed in range(3):  # three new worker processes, one trial each
        _heartbeat_study(tmp_path, EGPTSSampler(seed=seed)).optimize(
            lambda t: t.suggest_float("x", 0, 1), n_trials=1
        )
    study = _heartbeat_study(tmp_path, None)
    assert given.count(study.trials[orphan.number]._trial_id) == 1


@pytest.mark.slow
def test_another_processs_running_trial_without_heartbeat_gets_one_and_is_then_failed(tmp_path):
    """A trial created by a worker that died before any heartbeat (here: asked under a sampler that
    records none) is given one by the next process that samples once it is older than the heartbeat
    interval; Optuna then fails it as stale. Live trials of the sampling process are left alone."""
    orphan = _heartbeat_study(tmp_path, optuna.samplers.RandomSampler(seed=0)).ask()
    time.sleep(1.5)  # older than the 1 s heartbeat interval
    study = _heartbeat_study(tmp_path, EGPTSSampler(seed=0))
    study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=1)
    time.sleep(2.5)
    optuna.storages.fail_stale_trials(study)
    assert [t.state for t in study.trials] == [TrialState.FAIL, TrialState.COMPLETE]
    assert study.trials[0].number == orphan.number


class _ArgmaxStandIn:
    """A stand-in for an algorithm whose choice is deterministic given the data (an acquisition
    maximum): the first of 0.5, 0.25, 0.75, ... that is not a pending point. With a barrier, its
    first call waits for another worker's, so that both choose from the same data."""

    def __init__(self, barrier=None):
        self.barrier, self.calls = barrier, 0

    def suggest(self, space, obs, n, rng):
        self.calls += 1
        if self.barrier is not None and self.calls == 1:
            self.barrier.wait(timeout=30)
        for v in (0.5, 0.25, 0.75, 0.125, 0.375):
            if not np.any(np.abs(obs.X_pending - v) < 1e-9):
                return np.full((n, space.dim), v)
        raise AssertionError("no free value left")


def _frozen(study, trial):
    return next(t for t in study.get_trials(deepcopy=False) if t.number == trial.number)


def _two_workers(algorithms, **kwargs):
    """Two samplers (as two processes would have) on one study with one completed trial."""
    storage = optuna.storages.InMemoryStorage()
    first = optuna.create_study(
        storage=storage,
        study_name="s",
        sampler=CoreSampler(algorithms[0], n_startup_trials=1, **kwargs),
    )
    first.add_trial(
        optuna.trial.create_trial(params={"x": 0.9}, distributions={"x": _DIST["x"]}, value=1.0)
    )
    second = optuna.load_study(
        storage=storage,
        study_name="s",
        sampler=CoreSampler(algorithms[1], n_startup_trials=1, **kwargs),
    )
    return first, second


def test_two_workers_choosing_the_same_point_at_the_same_moment_end_with_different_points():
    barrier = threading.Barrier(2)
    studies = _two_workers([_ArgmaxStandIn(barrier), _ArgmaxStandIn(barrier)])
    points = [None, None]

    def worker(i):
        points[i] = studies[i].ask().suggest_float("x", 0, 1)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(points) == [0.25, 0.5]  # both chose 0.5 from the same data; one moved


def test_two_workers_that_both_see_each_others_claim_end_with_different_points(monkeypatch):
    """Both claims are written before either is read
    back: the earlier trial waits, the later moves."""
    draw_barrier, read_barrier, decide_barrier = (
        threading.Barrier(2),
        threading.Barrier(2),
        threading.Barrier(2),
    )
    studies = _two_workers([_ArgmaxStandIn(draw_barrier), _ArgmaxStandIn(draw_barrier)])
    read = _claims.other_points
    first_read = set()

    def read_after_both_claimed(study, trial, *args):
        if trial.number in first_read:
            return read(study, trial, *args)
        first_read.add(trial.number)
        read_barrier.wait(timeout=30)  # both claims are written
        others = read(study, trial, *args)
        decide_barrier.wait(timeout=30)  # both have read the other's claim
        return others

    monkeypatch.setattr(_claims, "other_points", read_after_both_claimed)
    points = {}

    def worker(i):
        trial = studies[i].ask()
        points[trial.number] = trial.suggest_float("x", 0, 1)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    earlier, later = sorted(points)
    assert (points[earlier], points[later]) == (0.5, 0.25)


def test_a_later_trial_that_never_settles_holds_the_point_only_for_the_claim_wait(monkeypatch):
    """A later trial that claims this trial's point while it is being drawn and never writes
    parameters (its worker died) is waited for ``CLAIM_WAIT_SECONDS``, then this trial draws
    another point."""
    monkeypatch.setattr("optuna_egp._claims.CLAIM_WAIT_SECONDS", 0.3)
    algorithm = _ArgmaxStandIn()
    mine, other = _two_workers([algorithm, _ArgmaxStandIn()])
    trial = mine.ask()
    dead = other.ask()  # killed before it wrote any parameter
    draw = algorithm.suggest

    def draw_while_the_later_trial_claims_the_same_point(space, obs, n, rng):
        if algorithm.calls == 0:
            write_system_attr(
                other, _frozen(other, dead), CLAIM_KEY, {"space": space_key(_DIST), "x": [0.5]}
            )
        return draw(space, obs, n, rng)

    algorithm.suggest = draw_while_the_later_trial_claims_the_same_point
    start = time.monotonic()
    assert trial.suggest_float("x", 0, 1) == 0.25
    assert time.monotonic() - start >= 0.3


def test_points_claimed_by_other_workers_are_pending_before_their_parameters_are_written():
    algorithm = _ArgmaxStandIn()
    mine, other = _two_workers([algorithm, _ArgmaxStandIn()])
    claimed = other.ask()  # its worker has chosen 0.5 but not written the parameter yet
    write_system_attr(
        other, _frozen(other, claimed), CLAIM_KEY, {"space": space_key(_DIST), "x": [0.5]}
    )
    assert mine.ask().suggest_float("x", 0, 1) == 0.25
    assert algorithm.calls == 1  # no second draw: the first one already knew


def test_a_second_draw_counts_every_point_taken_meanwhile_not_only_the_conflicting_one():
    algorithm = _ArgmaxStandIn()
    mine, other = _two_workers([algorithm, _ArgmaxStandIn()])
    trial = mine.ask()
    draw = algorithm.suggest

    def draw_while_others_take_points(space, obs, n, rng):
        # while this (slow) draw runs: one trial completes at 0.5, one claims 0.25
        if algorithm.calls == 0:
            other.add_trial(
                optuna.trial.create_trial(params={"x": 0.5}, distributions=_DIST, value=2.0)
            )
            write_system_attr(
                other,
                _frozen(other, other.ask()),
                CLAIM_KEY,
                {"space": space_key(_DIST), "x": [0.25]},
            )
        return draw(space, obs, n, rng)

    algorithm.suggest = draw_while_others_take_points
    assert trial.suggest_float("x", 0, 1) == 0.75
    assert algorithm.calls == 2


class _StubbornStandIn:
    """Always the centre, pending or not (as workers
    drawing again from the same data would agree)."""

    def __init__(self):
        self.calls = 0

    def suggest(self, space, obs, n, rng):
        self.calls += 1
        return np.full((n, space.dim), 0.5)


def test_after_two_draws_on_a_taken_point_the_trial_gets_a_random_free_point():
    algorithm = _StubbornStandIn()
    mine, other = _two_workers([algorithm, _StubbornStandIn()])
    other.enqueue_trial({"x": 0.5})
    other.ask().suggest_float("x", 0, 1)  # running at 0.5, parameters written
    x = mine.ask().suggest_float("x", 0, 1)
    assert x not in (0.5, 0.9)  # neither the running trial's point nor the completed one
    assert algorithm.calls == 2


def test_a_running_trial_presumed_dead_does_not_hold_its_point():
    algorithm = _StubbornStandIn()
    mine, other = _two_workers([algorithm, _StubbornStandIn()], running_trial_timeout=0.2)
    other.enqueue_trial({"x": 0.5})
    other.ask().suggest_float("x", 0, 1)  # its worker dies
    time.sleep(0.3)
    assert mine.ask().suggest_float("x", 0, 1) == 0.5
    assert algorithm.calls == 1


class _AgentStandIn(_StubbornStandIn):
    """A stubborn agent (``MultiAgent``) that learns from agent 0's trials only."""

    source_attribute = "agent_id"
    agent_id, n_agents, model_source, last_view = 0, 6, 0, None

    def known_sources(self):
        return frozenset({0})


def test_an_agent_is_not_held_off_points_that_other_agents_completed_before_it_drew():
    algorithm = _AgentStandIn()
    study = optuna.create_study(sampler=CoreSampler(algorithm, n_startup_trials=1))
    for x, agent in ((0.9, 0), (0.5, 5)):  # agent 5 (not a neighbour) evaluated the centre long ago
        study.add_trial(
            optuna.trial.create_trial(
                params={"x": x}, distributions=_DIST, value=1.0, user_attrs={"agent_id": agent}
            )
        )
    assert study.ask().suggest_float("x", 0, 1) == 0.5
    assert algorithm.calls == 1


@pytest.mark.parametrize(
    ("params", "fixed", "settled"),
    [
        ({}, {}, False),
        (
            {"k": 1},
            {},
            False,
        ),  # a single-valued parameter (not in the relative space) written first
        ({"x": 0.5}, {"x": 0.5}, True),  # enqueued with every parameter fixed: it never chooses
        (
            {"y": 0.5},
            {"y": 0.5},
            False,
        ),  # enqueued, another parameter fixed: the sampler still chooses x
        ({"x": 0.5}, {}, True),
    ],
)
def test_a_trial_has_settled_once_it_wrote_a_parameter_the_sampler_chose(params, fixed, settled):
    dists = {
        name: optuna.distributions.IntDistribution(1, 1) if name == "k" else FloatDistribution(0, 1)
        for name in params
    }
    trial = optuna.trial.create_trial(
        state=TrialState.RUNNING,
        params=params,
        distributions=dists,
        system_attrs={"fixed_params": fixed} if fixed else {},
    )
    assert has_settled(trial, RelativeSpace(_DIST)) == settled


def test_startup_points_avoid_the_running_trials_points_on_a_small_discrete_space():
    """Start-up draws are uniform like RandomSampler's but skip other trials' points: five running
    trials and one completed one on a 2 x 3 grid take all six points."""
    study = optuna.create_study(sampler=EGPTSSampler(seed=0, n_startup_trials=10))
    study.optimize(lambda t: float(_grid_point(t)[0]), n_trials=1)
    running = [_grid_point(study.ask()) for _ in range(5)]
    assert len(set(running) | {tuple(study.trials[0].params.values())}) == 6


def test_before_any_trial_completes_the_first_running_trials_parameters_give_the_space():
    """Workers starting together: six running trials, none completed, take all six points of a 2 x 3
    grid (only the first is drawn blind, by the independent sampler)."""
    study = optuna.create_study(sampler=EGPTSSampler(seed=0))
    running = [_grid_point(study.ask()) for _ in range(6)]
    assert len(set(running)) == 6


def _grid_point(trial):
    return trial.suggest_int("a", 0, 1), trial.suggest_categorical("b", ["p", "q", "r"])


def test_a_trial_completed_while_the_point_was_drawn_counts_as_taken():
    """A worker's trial can complete at the very point another worker is drawing from older
    data (the draw took longer than that trial); the drawing worker then moves."""
    algorithm = _ArgmaxStandIn()
    mine, other = _two_workers([algorithm, _ArgmaxStandIn()])
    draw = algorithm.suggest

    def draw_while_another_trial_completes(space, obs, n, rng):
        if algorithm.calls == 0:
            other.add_trial(
                optuna.trial.create_trial(params={"x": 0.5}, distributions=_DIST, value=2.0)
            )
        return draw(space, obs, n, rng)

    algorithm.suggest = draw_while_another_trial_completes
    assert mine.ask().suggest_float("x", 0, 1) == 0.25


def test_the_first_wave_takes_its_space_from_the_running_trial_with_most_parameters():
    study = optuna.create_study(sampler=EGPTSSampler(seed=0))
    study.ask().suggest_int("a", 0, 1)  # still writing its parameters
    writing_done = study.ask()
    _grid_point(writing_done)
    space = study.sampler.infer_relative_search_space(study, _frozen(study, study.ask()))
    assert sorted(space) == ["a", "b"]


@pytest.mark.slow
def test_a_retried_trial_whose_inherited_marks_were_cleared_can_get_a_heartbeat_again(
    tmp_path, monkeypatch
):
    """Retry callbacks copy system attributes; marks
    cleared to None (as before_trial does) do not count."""
    study = _heartbeat_study(tmp_path, optuna.samplers.RandomSampler(seed=0))
    orphan = study.ask()
    for key in (CLAIM_KEY, HEARTBEAT_GIVEN_KEY):
        write_system_attr(study, _frozen(study, orphan), key, None)
    time.sleep(1.5)
    given = []
    record = optuna.storages.RDBStorage.record_heartbeat
    monkeypatch.setattr(
        optuna.storages.RDBStorage,
        "record_heartbeat",
        lambda self, trial_id: (given.append(trial_id), record(self, trial_id))[1],
    )
    _heartbeat_study(tmp_path, EGPTSSampler(seed=1)).optimize(
        lambda t: t.suggest_float("x", 0, 1), n_trials=1
    )
    assert given.count(_frozen(study, orphan)._trial_id) == 1
