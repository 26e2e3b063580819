"""The failures benchmark (``benchmarks.failures``, ``benchmarks.failure_functions``): the
problems' best values and a run's row."""

import numpy as np
import pytest

from benchmarks import failures
from benchmarks.failure_functions import PROBLEMS, _hpo_fails, _hpo_loss


@pytest.mark.slow
def test_the_training_runs_best_value_is_the_best_point_that_does_not_fail():
    # a grid over width and batch (learning rate and dropout at their optima), 0.01 apart
    grid = [
        _hpo_loss(np.array([-2.5, w, b, 0.2]))
        for w in np.arange(4.0, 10.001, 0.01)
        for b in np.arange(4.0, 9.001, 0.01)
        if not _hpo_fails(np.array([-2.5, w, b, 0.2]))
    ]
    assert PROBLEMS["hpo-crash"].f_min <= min(grid) < PROBLEMS["hpo-crash"].f_min + 1e-3


def test_a_run_counts_the_failed_trials_after_the_startup():
    job = {"bench": "failures", "function": "branin-crash", "seed": 0, "mode": "seq"}
    row = failures.run_job({**job, "workers": 1, "n_trials": 14, "sampler": "tpe"})
    failed = [v is None for v in row["values"]]
    assert len(failed) == 14 and row["trials_after_startup"] == 4
    assert row["failed_after_startup"] == sum(failed[10:])
    assert all(v is None or v >= 0.397887 - 1e-6 for v in row["values"])
    assert any(failed)  # a third of the box fails: 14 random trials meet it (seed 0)
