"""8 worker processes per sampler on one PostgreSQL study with heartbeats; workers SIGKILLed mid-trial
at random times and restarted (``benchmarks/stress.py`` holds the harness and the longer runs)."""

import os
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "benchmarks"))
import stress  # noqa: E402


BORE_CONCURRENT_DUPLICATES = pytest.mark.xfail(
    reason="known problem: BORE++ workers asking at the same moment can suggest the same point (its acquisition "
           "maximum is deterministic given the data); measured 1e-14 apart in 2 of 3 runs", strict=False)


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("EGP_STRESS"), reason="opt-in (EGP_STRESS=1) until two known problems are "
                    "fixed: BORE++ concurrent duplicates, and a worker killed before its first heartbeat leaves its "
                    "trial RUNNING (Optuna's fail_stale_trials never sees it)")
@pytest.mark.parametrize("sampler", [pytest.param(s, marks=BORE_CONCURRENT_DUPLICATES) if s == "bore++" else s
                                     for s in stress.SAMPLERS])
def test_killed_workers_leave_no_running_trial_and_no_duplicate_concurrent_points(postgres_study, sampler):
    name = f"stress-{sampler}"
    url = postgres_study(name)
    row = stress.run_study(url, name, sampler, workers=8, trials=24, kills=True, seed=1,
                           trial_seconds=(0.2, 0.5), kill_every=(0.8, 1.6))
    assert row["kills"] >= 2, row  # the run did kill workers
    assert row["states"]["COMPLETE"] >= 24, row
    assert row["concurrent_pairs"] > 0, row
    assert stress.check(row) == [], row
