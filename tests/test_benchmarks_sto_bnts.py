"""STO-BNTS's benchmark (``benchmarks.sto_bnts``) and its page (``benchmarks.sto_bnts_report``):
the problems' minima, the command line (the STO-BNTS names, the wall-time limit on GPSampler's
runs only), a run's row, and the paper's checks on tiny synthetic rows."""

from __future__ import annotations

import json

import numpy as np
import optuna
import pytest

from benchmarks import sto_bnts, sto_bnts_claims, sto_bnts_report
from benchmarks.functions import FUNCTIONS, SUITE
from benchmarks.harness.samplers import make_sto_bnts_sampler


def test_mixed16_maps_its_parameters_to_levy_and_has_its_minimum_at_ones():
    best = {
        **{f"x{i}": 1.0 for i in range(sto_bnts.MIXED_FLOATS)},
        **{f"n{i}": 1 for i in range(sto_bnts.MIXED_INTS)},
        **{f"c{i}": "c" for i in range(sto_bnts.MIXED_CHOICES)},
    }
    x = sto_bnts.suggest_mixed16(optuna.trial.FixedTrial(best))
    assert x.shape == (16,) and np.all(x == 1.0)
    problem = sto_bnts.PROBLEMS["mixed16"]
    # Levy's minimum is 0 at ones up to sin(pi)^2 (about 1.5e-32)
    assert problem.objective(x) == pytest.approx(problem.f_min, abs=1e-12)
    other = sto_bnts.suggest_mixed16(optuna.trial.FixedTrial({**best, "c0": "a", "n2": -10}))
    assert other[sto_bnts.MIXED_FLOATS + sto_bnts.MIXED_INTS] == sto_bnts.LEVELS["a"]
    assert problem.objective(other) > problem.f_min


def test_the_problems_are_the_suite_and_two_of_at_least_12_dimensions():
    assert list(sto_bnts.PROBLEMS) == [*SUITE, "levy12", "mixed16"]
    for name in SUITE:
        bounds, objective, f_min = FUNCTIONS[name]
        problem = sto_bnts.PROBLEMS[name]
        assert np.array_equal(problem.bounds, bounds) and problem.f_min == f_min
        assert problem.objective is objective and problem.n_trials == sto_bnts.N_TRIALS
    levy12 = sto_bnts.PROBLEMS["levy12"]
    assert levy12.bounds.shape == (12, 2)
    assert levy12.objective(np.ones(12)) == pytest.approx(levy12.f_min, abs=1e-12)


def test_the_wall_limit_applies_to_gpsampler_only():
    a = sto_bnts.BENCHMARK.arguments(
        ["--samplers", "egp-auto,gp,tpe", "--wall-limit", "900", "--out", "x.jsonl"]
    )
    limits = {job["sampler"]: job.get("wall_limit") for job in sto_bnts.BENCHMARK.jobs(a)}
    assert limits == {"egp-auto": None, "gp": 900.0, "tpe": None}


def test_the_sto_bnts_names_pass_the_command_line_and_build_their_variant():
    argv = ["--samplers", "sto-bnts,sto-bnts-linear,tpe", "--out", "x.jsonl"]
    a = sto_bnts.BENCHMARK.arguments(argv)
    assert a.samplers == "sto-bnts,sto-bnts-linear,tpe"
    assert {job["sampler"] for job in sto_bnts.BENCHMARK.jobs(a)} == set(a.samplers.split(","))
    network = sto_bnts.make_samplers("sto-bnts", 0, 1)
    linear = sto_bnts.make_samplers("sto-bnts-linear", 0, 4)
    assert network[0].algorithm.variant == "network" and linear[0].algorithm.variant == "linear"
    assert len(linear) == 4 and all(s is linear[0] for s in linear)  # one sampler, every slot
    scaled = sto_bnts.make_samplers("sto-bnts-linear-beta0.25", 0, 1)[0].algorithm
    assert scaled.variant == "linear" and scaled.beta == 0.25


def test_unknown_names_fail_before_any_run():
    with pytest.raises(ValueError, match="unknown sampler 'nope'"):
        sto_bnts.BENCHMARK.arguments(["--samplers", "tpe,nope", "--out", "x.jsonl"])
    with pytest.raises(ValueError, match="unknown STO-BNTS sampler"):
        make_sto_bnts_sampler("sto-bnts-wide", seed=0)


def test_a_run_records_the_regret_and_the_seconds_of_every_ask():
    job = {
        "bench": sto_bnts.BENCH,
        "function": "mixed16",
        "seed": 0,
        "mode": "async",
        "workers": 2,
        "n_trials": 6,
        "sampler": "tpe",
    }
    row = sto_bnts.run_job(job)
    assert len(row["values"]) == len(row["regret"]) == len(row["ask_seconds"]) == 6
    assert np.all(np.diff(row["regret"]) <= 0) and min(row["regret"]) >= 0
    assert len(row["ask_cpu_seconds"]) == 6 and "stopped_at" not in row


def _row(sampler, function, seed, final, mode="seq", workers=1, seconds=0.5) -> dict:
    row = {
        "bench": sto_bnts.BENCH,
        "sampler": sampler,
        "function": function,
        "seed": seed,
        "mode": mode,
        "workers": workers,
        "n_trials": 100,
        # 10 start-up trials at regret 1 (the tie floor: 1e-3), then the final regret
        "regret": [1.0] * 10 + [final] * 90,
        "ask_seconds": [0.01] * 89 + [seconds] * 11,
        "ask_cpu_seconds": [0.01] * 89 + [seconds / 2] * 11,
        "commit": "abc1234",
        "date": "2026-11-28T10:00:00+00:00",
    }
    return {**row, "late_seconds": sto_bnts.late_seconds(row)}  # as run_job adds it


def test_ratio_check_counts_the_functions_within_the_target():
    seq = [_row("sto-bnts", fn, s, 0.1) for fn in SUITE for s in range(3)]
    # 4 pending: 0.12 on four functions (ratio 1.2), 0.3 on two (3.0); seed 2 only sequential
    pending = [
        _row("sto-bnts", fn, s, 0.12 if i < 4 else 0.3, "async", 4)
        for i, fn in enumerate(SUITE)
        for s in range(2)
    ]
    by_setting = sto_bnts_claims.settings(seq + pending)
    lines = sto_bnts_claims.ratio_check(by_setting, {fn: 1e-3 for fn in SUITE})
    assert "**4 of 6** suite functions (target: at least 4 of 6): met" in lines[0]
    first = SUITE[0]
    assert f"| {first} | 0.12 / 0.1 (2) | 1.20 | – | – |" in lines


def test_ratio_check_raises_solved_functions_to_their_floor():
    fn = SUITE[0]
    rows = [_row("sto-bnts", fn, 0, 1e-9), _row("sto-bnts", fn, 0, 1e-6, "async", 4)]
    lines = sto_bnts_claims.ratio_check(sto_bnts_claims.settings(rows), {fn: 1e-3})
    assert f"| {fn} | 0.001 / 0.001 (1) | 1.00 | – | – |" in lines
    assert "undecided (rows missing)" in lines[0]


def test_tpe_check_with_8_pending_counts_lower_medians_and_ties():
    problems = list(sto_bnts.PROBLEMS)
    rows = []
    for i, fn in enumerate(problems):
        ours = 0.01 if i < 5 else 1e-5 if i == 5 else 0.5  # 5 lower, 1 tie (both solved), 2 higher
        rows += [_row("sto-bnts", fn, 0, ours, "async", 8), _row("tpe", fn, 0, 0.1, "async", 8)]
    rows[11]["regret"][-1] = 1e-6  # tpe on problems[5]: also below the floor
    floors = {fn: 1e-3 for fn in problems}
    lines = sto_bnts_claims.tpe_check(sto_bnts_claims.settings(rows), floors)
    assert (
        "lower on **5 of 8** problems, tied on 1 (target: lower on most of the 8): met" in lines[0]
    )


def test_seconds_check_takes_the_asks_of_trials_90_to_100():
    rows = [_row("sto-bnts", "branin", s, 0.1, seconds=1.5) for s in range(3)]
    rows += [_row("sto-bnts", "levy12", s, 0.1, seconds=3.0) for s in range(2)]
    rows += [_row("tpe", "branin", 0, 0.1, seconds=0.02)]
    lines = sto_bnts_claims.seconds_check(sto_bnts_claims.settings(rows))
    assert "sequential 1.5 s (met)" in lines[0]
    assert "| STOBNTSSampler | 1.5 (0.75) |" in lines and "| TPE | 0.02 (0.01) |" in lines
    assert "| levy12 | 3 (1.5) |" in lines


def test_page_without_rows_is_empty(tmp_path):
    assert sto_bnts_report.page(tmp_path, tmp_path / "img") == []


def _beta_rows() -> list[dict]:
    """Seeds 10-12 of three values of beta on two problems; 0.5 also ran seeds 13-15 on branin
    (with them its median would be 0.2, tied with 0.25's), and a linear variant is left out."""
    finals = {
        ("0.25", "branin"): [0.1, 0.2, 0.3],
        ("0.5", "branin"): [0.4, 0.4, 0.4, 0.0, 0.0, 0.0],
        ("1", "branin"): [1.0, 1.0, 1.0],
        ("0.25", "levy12"): [5.0, 5.0, 5.0],
        ("0.5", "levy12"): [2.0, 2.0, 2.0],
        ("1", "levy12"): [2.0, 2.0, 9.0],  # median 2, tied with 0.5's (its mean is higher)
    }
    rows = [
        _row(f"sto-bnts-beta{beta}", fn, 10 + i, final)
        for (beta, fn), values in finals.items()
        for i, final in enumerate(values)
    ]
    return rows + [_row("sto-bnts-linear-beta0.5", "branin", 10, 100.0)]


@pytest.mark.parametrize(
    ("default", "verdict"),
    [
        (1.0, "the current default, 1, is not that value."),
        (0.5, "the current default, 0.5, is that value."),
    ],
)
def test_beta_section_ranks_the_medians_of_the_paired_seeds(monkeypatch, default, verdict):
    """Medians over the seeds every value ran (3); ranks of the medians, equal ones sharing their
    mean rank: branin 1, 2, 3 and levy12 3, 1.5, 1.5, so 0.5 is best with 1.75."""
    monkeypatch.setattr(sto_bnts_report, "_default_beta", lambda: default)
    reported = [_row("tpe", "branin", s, 0.1) for s in range(10)]
    lines = sto_bnts_report.beta_section(_beta_rows(), reported)
    assert lines[0] == "## The development runs behind the default `beta`"
    assert "100 trials (the first 10 random), sequential, seeds 10-15" in lines[2]
    assert lines[4] == (
        "These runs' seeds (10-15) are apart from the seeds (0-9) of the tables above, and the "
        "default `beta` is chosen as the value with the best mean rank, 0.5 (mean rank 1.75): "
        + verdict
    )
    mark = {1.0: ("", " (default)"), 0.5: (" (default)", "")}[default]
    assert lines[6:12] == [
        "| `beta` | branin | levy12 | mean rank |",
        "|---|---|---|---|",
        "| 0.25 | 0.2 (3) | 5 (3) | 2 |",
        f"| 0.5{mark[0]} | 0.4 (3) | 2 (3) | 1.75 |",
        f"| 1{mark[1]} | 1 (3) | 2 (3) | 2.25 |",
        "",
    ]
    assert lines[12].startswith("Rows (21): 21 measured at commit `abc1234`")  # not the linear


def test_beta_section_without_rows_says_so():
    assert sto_bnts_report.beta_section([], [])[2] == (
        "No results yet: run `python -m benchmarks.run_all --only sto_bnts_beta`."
    )


def test_the_suites_gp_runs_stand_for_this_benchmarks_on_the_suite_functions_only(tmp_path):
    """GPSampler's suite runs fill the cells of the six suite functions this benchmark did not run
    (seq, or 4 or 8 pending, at 100 trials); another peer's, another problem's, another trial
    count's and a cell this benchmark ran are left out."""
    from benchmarks.harness.cache import PeerCache
    from benchmarks.sto_bnts_report import suite_peer_rows

    def row(bench, sampler, function, mode="seq", workers=1, n_trials=100, seed=0):
        cell = ["bench", "function", "seed", "mode", "workers", "n_trials"]
        return {
            "bench": bench,
            "function": function,
            "sampler": sampler,
            "seed": seed,
            "mode": mode,
            "workers": workers,
            "n_trials": n_trials,
            "regret": [1.0],
            "cache_cell": cell,
            "peer_version": {},
        }

    rows = [
        row("suite", "gp", "branin"),
        row("suite", "gp", "branin", seed=1),
        row("suite", "gp", "hartmann6", "async", 4),
        row("suite", "gp", "hartmann6", "threads", 4),
        row("suite", "gp", "ackley5", n_trials=50),
        row("suite", "tpe", "branin"),
        row("suite", "gp", "rosenbrock"),
    ]
    (tmp_path / "peers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    have = {("branin", "gp", 1, "seq", 1, 100)}  # this benchmark ran seed 1 itself
    got = suite_peer_rows(PeerCache(tmp_path / "peers.jsonl"), have)
    cells = sorted((r["function"], r["seed"], r["mode"], r["workers"]) for r in got)
    assert cells == [("branin", 0, "seq", 1), ("hartmann6", 0, "async", 4)]
    assert all(r["bench"] == sto_bnts.BENCH and r["sampler"] == "gp" for r in got)
