"""6 worker processes per sampler on one PostgreSQL study with heartbeats; workers SIGKILLed
mid-trial at random times and restarted (``benchmarks/stress.py`` holds the harness and the
longer runs)."""

import pytest

from benchmarks import stress


@pytest.mark.slow
@pytest.mark.parametrize(
    ("sampler", "space"),
    # About 30 s each on a busy 2-core machine, so two runs fit CI's time budget: the model-based
    # sampler on the discrete space (64 points), where concurrent duplicates are likeliest, and the
    # multi-agent one. BORESampler's workers go through the same adapter (claims, pending trials,
    # timeouts); they run in several processes in test_grpc_proxy.py, and under kills in
    # `python -m benchmarks.stress run`, which runs every sampler and space, longer.
    [
        ("egp-auto", "discrete"),
        ("dts-complete", "continuous"),
    ],
)
def test_killed_workers_leave_no_running_trial_and_no_duplicate_concurrent_points(
    postgres_study, sampler, space
):
    name = f"stress-{sampler}-{space}"
    url = postgres_study(name)
    row = stress.run_study(
        url,
        name,
        sampler,
        space=space,
        workers=6,
        trials=16,
        kills=True,
        seed=1,
        trial_seconds=(0.2, 0.5),
        kill_every=(1.5, 3.0),
    )
    assert row["kills"] >= 2, row  # the run did kill workers
    assert row["states"]["COMPLETE"] >= 16, row
    assert row["concurrent_pairs"] > 0, row
    assert stress.check(row) == [], row
