"""The defaults ablation: each variant's penalty holds for its run only, and the table counts wins,
ties and losses against GPSampler with the suite's tie floors."""

from __future__ import annotations

import pytest

import shared_core.models.gp as gp
from benchmarks import defaults
from benchmarks.defaults_report import ratio_to_peer, variant_table


def test_a_variant_penalty_holds_for_its_run_only(monkeypatch):
    seen = []
    monkeypatch.setattr(
        defaults, "run_suite", lambda job: seen.append(gp.LENGTHSCALE_PENALTY) or dict(job)
    )  # a row as run_suite makes it: the job's fields, options included

    shipped = gp.LENGTHSCALE_PENALTY
    assert shipped > 0
    row = defaults.run_job({"variant": "previous"})
    assert seen == [0.0] and gp.LENGTHSCALE_PENALTY == shipped
    assert row["config"]["options"] == {"kernels": defaults.PAPER_KERNELS}  # the run's options
    assert "options" not in row  # the config holds them
    defaults.run_job({"variant": "default"})
    assert seen[-1] == shipped

    def fail(job):
        raise RuntimeError("run failed")

    monkeypatch.setattr(defaults, "run_suite", fail)
    with pytest.raises(RuntimeError):
        defaults.run_job({"variant": "no-penalty"})
    assert gp.LENGTHSCALE_PENALTY == shipped  # restored when the run fails too


def _rows(name: str, finals: list[float]) -> list[dict]:
    key = "variant" if name in defaults.VARIANTS else "sampler"
    return [
        {key: name, "sampler": "egp-auto" if key == "variant" else name, "function": "f",
         "seed": seed, "regret": [10.0, value]}
        for seed, value in enumerate(finals)
    ]  # fmt: skip


def test_table_counts_against_gpsampler_with_the_tie_floor():
    rows = _rows("default", [1.0, 1.0, 1.0]) + _rows("previous", [4.0, 4.0, 4.0])
    peers = _rows("gp", [2.0, 2.0, 2.0]) + _rows("tpe", [8.0, 8.0, 8.0])
    table = "\n".join(variant_table(rows, peers, ["f"], {"f": 0.0}))
    assert "| `default` | 1 (3) | 1/0/0 | 0.5 | 0.5 |" in table
    assert "| `previous` | 4 (3) | 0/0/1 | 2 | 2 |" in table
    assert "| TPE | 8 (3) | 0/0/1 | 4 | 4 |" in table
    # a floor above every median: all tie, the unfloored ratio still shows the difference
    table = "\n".join(variant_table(rows, peers, ["f"], {"f": 5.0}))
    assert "| `default` | 1 (3) | 0/1/0 | 1 | 0.5 |" in table
    assert ratio_to_peer([0.0], [0.0], 0.0) == 1.0  # no division by zero


def test_a_table_takes_each_function_at_its_latest_budget():
    from benchmarks.suite_report import per_function_setting

    def row(function, n_trials, seed):
        return {"function": function, "n_trials": n_trials, "workers": 1, "seed": seed}

    rows = [row("f", 50, 0), row("g", 30, 0), row("f", 20, 1), row("g", 30, 1)]
    assert per_function_setting(rows, ("workers", "n_trials")) == [
        row("f", 20, 1),
        row("g", 30, 0),
        row("g", 30, 1),
    ]
