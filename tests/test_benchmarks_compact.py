"""Compact result rows (``benchmarks.harness.compact``): what a report reads comes back as it was
written; traces no report reads are not stored; plot-only entries are rounded, the entries tables
read are not; the environment is stored once."""

from __future__ import annotations

import json
import math
import pathlib

import pytest

from benchmarks.harness import compact as c
from benchmarks.harness.results import ResultsFile, read_rows

ENV = {
    "machine": {"cpu_count": 2, "platform": "Linux", "machine": "x86_64"},
    "python": "3.11.7",
    "versions": {"numpy": "2.4.6"},
    "threads": {"OMP_NUM_THREADS": "1"},
    "code": "/repo/optuna_egp",
}


def _suite_row(**extra) -> dict:
    regret = [3.0 + 1e-9] * 9 + [2.123456789012345] * 5 + [0.1234567890123456] * 6  # 20 trials
    return {
        "bench": "suite",
        "function": "branin",
        "sampler": "egp-auto",
        "seed": 0,
        "regret": regret,
        "instant_regret": [0.5] * 20,
        "params": [{"x": 1.0}] * 20,
        "seconds_per_trial": 0.123456789123,
        "commit": "abc1234",
        **ENV,
        **extra,
    }


def test_a_row_reads_back_as_written_but_for_unread_traces_and_plot_digits(tmp_path):
    path = tmp_path / "suite_seq.jsonl"
    row = _suite_row()

    stored = c.compact(row, path)
    back = c.expand(json.loads(json.dumps(stored)), path)

    assert "params" not in back and "instant_regret" not in back  # no report reads them here
    assert {k: back[k] for k in ENV} == ENV and "machine" not in stored
    assert back["seconds_per_trial"] == row["seconds_per_trial"]  # single numbers: exact
    regret = back["regret"]
    assert len(regret) == 20 and regret[-1] == row["regret"][-1] and regret[9] == row["regret"][9]
    assert regret[0] == 3.0  # an entry only plots draw: 4 significant digits
    assert stored["regret"] == {
        "rle": [[3.0, 9], [2.123456789012345], [2.123, 4], [0.1235, 5], [0.1234567890123456]]
    }


def test_traces_kept_where_their_report_reads_them():
    row = {"instant_regret": [0.5, 0.25, 0.125, 1.0], "values": [3.0, 1.0, 2.0, 0.5]}
    # the suite runner's rows (bench "suite") in the BORE benchmark's file
    kept = c.compact({"bench": "suite", **row}, pathlib.Path("/x/bore_rosenbrock.jsonl"))
    assert kept["instant_regret"] == row["instant_regret"] and "values" not in kept

    # the conditional report reads only the running minimum of the values
    cond = c.compact({"bench": "conditional", **row}, pathlib.Path("/x/c.jsonl"))
    assert cond == {"bench": "conditional", "best_values": [3.0, 1.0, 1.0, 0.5]}
    # the multi-objective report reads every value (fronts), to 12 digits
    mo = c.compact(
        {"bench": "multi_objective", "values": [[1 / 3, 2.0], [math.pi, 0.5]]},
        pathlib.Path("/x/m.jsonl"),
    )
    assert mo["values"] == [[0.333333333333, 2.0], [3.14159265359, 0.5]]


def test_results_file_round_trip_with_environments_stored_once(tmp_path, monkeypatch):
    from benchmarks.harness import results

    monkeypatch.setattr(results, "provenance", lambda: dict(ENV, commit="abc1234"))
    monkeypatch.setenv("EGP_BENCH_FINGERPRINTS", "0")
    path = tmp_path / "r.jsonl"
    out = ResultsFile(path)
    first = out.append({"bench": "suite", "sampler": "egp-auto", "seed": 0, "regret": [1.0, 0.5]})
    out.append({"bench": "suite", "sampler": "egp-auto", "seed": 1, "regret": [2.0, 0.25]})
    monkeypatch.setattr(results, "provenance", lambda: dict(ENV, python="3.12.0", commit="a"))
    out.append({"bench": "suite", "sampler": "egp-auto", "seed": 2, "regret": [0.1]})

    rows = read_rows(path)

    assert rows[0] == first and [r["seed"] for r in rows] == [0, 1, 2]
    assert [r["python"] for r in rows] == ["3.11.7", "3.11.7", "3.12.0"]
    assert len((tmp_path / "envs.jsonl").read_text().splitlines()) == 2
    assert "python" not in path.read_text()


def test_a_row_without_a_commit_keeps_the_commit_recorded_for_it(tmp_path):
    path = tmp_path / "r.jsonl"
    recorded = {"commit": "0ld0001", "date": "2026-11-25"}
    path.write_text(json.dumps({"sampler": "tpe", "recorded": recorded}) + "\n")
    assert read_rows(path)[0]["recorded"] == recorded


@pytest.mark.parametrize("value", [[1, 1, 1, 2, 2, 2, 2, 3], [True] * 5 + [False] * 3])
def test_run_length_encoding_is_lossless(value):
    stored = c._runs(value)
    assert "rle" in stored and c._unruns(stored) == value
    assert c._unruns(c._runs([1, 2, 3, 4])) == [1, 2, 3, 4]  # no long runs: stored as it is


def test_the_entries_tables_read_are_kept_exact():
    from benchmarks.dec_hbo_report import LAST_ASKS
    from benchmarks.harness.regret import STARTUP_TRIALS

    assert set(c.EXACT_ENTRIES["regret"]) == {STARTUP_TRIALS - 1, -1}
    assert set(range(-LAST_ASKS, 0)) <= set(c.EXACT_ENTRIES["ask_seconds"])


def test_currency_counts_rows_of_results_files_only(tmp_path, monkeypatch):
    from benchmarks import currency

    monkeypatch.setattr(currency, "head_fingerprints", lambda configs: {c: "f" for c in configs})
    (tmp_path / "r.jsonl").write_text(
        "\n".join(
            json.dumps(r)
            for r in (
                {"sampler": "egp-auto", "fingerprint": "f"},  # current
                {"sampler": "bore++", "fingerprint": "old"},  # measured with other behaviour
                {"sampler": "egp-ts"},  # no fingerprint
                {"sampler": "tpe"},  # a peer's
            )
        )
        + "\n"
    )
    (tmp_path / "envs.jsonl").write_text(json.dumps({"id": "e", "python": "3.11"}) + "\n")
    assert currency.counts(tmp_path) == {"r.jsonl": (3, 2, 1)}
