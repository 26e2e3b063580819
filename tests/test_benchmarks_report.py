"""The benchmark report's rules, on tiny synthetic rows: a table, the lines under it and its plot
use the same (function, seed) pairs; a suite table shows one setting; rows without their own
provenance are named by the commit that added them; rows of our samplers measured at other
sampler code are flagged; ``run_all`` checks its arguments and where it writes."""

from __future__ import annotations

import json
import pathlib
import subprocess

import pytest

from benchmarks import report, run_all
from benchmarks.harness import provenance
from benchmarks.harness.results import read_rows, same_setting
from benchmarks.harness.tables import current_line, provenance_line

SUITE = {"bench": "suite", "mode": "async", "workers": 4, "n_trials": 3}


def _row(sampler, function, seed, final, **extra) -> dict:
    return {
        **SUITE,
        "sampler": sampler,
        "function": function,
        "seed": seed,
        "regret": [final + 1.0, final + 0.5, final],
        "seconds_per_trial": 0.1,
        "commit": "abc1234",
        "date": "2026-11-26T10:00:00+00:00",
        **extra,
    }


def _write(path: pathlib.Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def _peer(row: dict) -> dict:
    return {**row, "cache_cell": ["function", "seed", "mode", "workers", "n_trials"]}


def test_paired_keeps_the_pairs_every_sampler_ran():
    rows = [_row("egp-ts", "branin", s, 1.0) for s in (0, 1)] + [_row("tpe", "branin", 0, 2.0)]
    assert {(r["sampler"], r["seed"]) for r in report.paired(rows)} == {("egp-ts", 0), ("tpe", 0)}


def test_lines_and_plot_use_the_table_seeds(tmp_path, monkeypatch):
    # egp-ts has seeds 0 and 1, tpe only seed 0: everything under the table uses seed 0 only.
    ours = [_row("egp-ts", "branin", 0, 1.0), _row("egp-ts", "branin", 1, 100.0)]
    _write(tmp_path / "suite_async4.jsonl", ours)
    _write(tmp_path / "peers.jsonl", [_peer(_row("tpe", "branin", 0, 2.0))])
    seq = [
        {**_row("egp-auto", "branin", s, v), "mode": "seq", "workers": 1}
        for s, v in ((0, 0.5), (1, 1000.0))
    ]
    plotted = []
    monkeypatch.setattr(report, "regret_plot", lambda rows, *_: plotted.append(rows))
    ctx = report.Context(results=tmp_path, img=tmp_path / "img")

    lines = report.parallel_section(ctx, seq, "suite_async4.jsonl", "Async")

    assert {(r["sampler"], r["seed"]) for r in plotted[0]} == {("egp-ts", 0), ("tpe", 0)}
    # egp-ts / sequential egp-auto on seed 0 only: 1.0 / 0.5
    assert "- egp-ts / sequential egp-auto: median 2.00 (per function: 2.00)" in lines
    assert "- egp-ts has a lower median than tpe on 1 of 1 functions" in lines


def test_wins_and_ratios_pair_their_rows_themselves():
    # gp lacks seed 1: on seed 0 alone egp-ts (3) loses to tpe (2); on both seeds it would win.
    rows = [
        _row("egp-ts", "branin", 0, 3.0),
        _row("egp-ts", "branin", 1, 0.0),
        _row("tpe", "branin", 0, 2.0),
        _row("tpe", "branin", 1, 10.0),
        _row("gp", "branin", 0, 1.0),
    ]
    assert "- egp-ts has a lower median than tpe on 0 of 1 functions" in report.wins_lines(rows)
    seq = [{**_row("egp-auto", "branin", s, 1.5), "mode": "seq"} for s in (0, 1)]
    assert report.sequential_ratios(rows, seq)[0] == (
        "- egp-ts / sequential egp-auto: median 2.00 (per function: 2.00)"
    )
    spread = report.spread_table([{**r, "pending_spread": 0.5} for r in rows])
    assert "| branin | 0.500 (1) | 0.500 (1) | 0.500 (1) |" in spread


def test_suite_shows_the_setting_of_the_latest_row(tmp_path):
    old = [{**_row("egp-ts", "branin", 0, 5.0), "n_trials": 2}]
    new = [_row("egp-ts", "branin", 0, 1.0)]
    _write(tmp_path / "suite_async4.jsonl", new + old + new)
    _write(
        tmp_path / "peers.jsonl",
        [
            _peer(_row("tpe", "branin", 0, 2.0)),
            _peer({**_row("tpe", "branin", 0, 3.0), "workers": 8}),
        ],
    )
    ctx = report.Context(results=tmp_path, img=tmp_path / "img")

    rows = ctx.suite("suite_async4.jsonl", peers=("tpe",))

    assert sorted((r["sampler"], r["n_trials"], r["workers"]) for r in rows) == [
        ("egp-ts", 3, 4),
        ("tpe", 3, 4),
    ]
    assert same_setting(old + new, ("n_trials",)) == new


def test_provenance_line_names_measured_and_recorded_commits():
    recorded = {"commit": "def5678", "date": "2026-11-25"}
    rows = [
        _row("egp-ts", "branin", 0, 1.0),
        _row("tpe", "branin", 0, 1.0, commit=None, date=None, recorded=recorded),
    ]
    line = provenance_line(rows)
    assert line.startswith(
        "Rows (2): 1 recorded with commit `def5678` (2026-11-25), 1 measured at commit `abc1234` "
        "(2026-11-26)."
    )


def test_the_note_flags_our_rows_at_other_sampler_code_only():
    current = {"abc1234"}

    def same(commit, paths):
        return commit.removesuffix("+dirty") in current

    peer_old = _row("tpe", "branin", 0, 1.0, commit="0ld0001")
    assert current_line([_row("egp-ts", "branin", 0, 1.0), peer_old], same=same) == ""
    recorded = {"commit": "0ld0003", "date": "2026-11-25"}
    stale = [
        _row("egp-ts", "branin", 0, 1.0, commit="0ld0002+dirty"),
        _row("egp-ei", "branin", 0, 1.0, commit=None, recorded=recorded),
    ]
    note = current_line(stale + [peer_old], same=same)
    assert note.startswith("**Not current:**") and "(commits `0ld0002+dirty`, `0ld0003`)" in note
    assert "0ld0001" not in note


def test_rows_without_a_commit_are_named_by_the_commit_that_added_them(tmp_path):
    def git(*args):
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
            cwd=tmp_path,
            check=True,
            capture_output=True,
        )

    path = tmp_path / "r.jsonl"
    _write(path, [{"sampler": "tpe"}, {"sampler": "gp", "commit": "abc1234"}])
    git("init", "-q")
    git("add", "r.jsonl")
    git("commit", "-q", "-m", "rows")
    with path.open("a") as fh:
        fh.write(json.dumps({"sampler": "random"}) + "\n")  # not committed

    rows = read_rows(path)

    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=tmp_path, capture_output=True, text=True
    ).stdout
    assert rows[0]["recorded"]["commit"] == head[:7] and len(rows[0]["recorded"]["date"]) == 10
    assert "recorded" not in rows[1] and "recorded" not in rows[2]


def test_code_imported_from_outside_the_checkout_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(provenance, "ROOT", tmp_path)
    with pytest.raises(RuntimeError, match="shared_core is imported from"):
        provenance.check_code.__wrapped__()


def test_run_all_checks_names_and_writes_the_repository_report_only_for_its_results(tmp_path):
    with pytest.raises(SystemExit, match="unknown benchmarks nope; known: suite_seq"):
        run_all.chosen("suite_seq,nope")
    assert [b.name for b in run_all.chosen("ax,suite_seq")] == ["suite_seq", "ax"]
    assert run_all.report_targets(tmp_path) == (tmp_path / "docs", None)
    docs, readme = run_all.report_targets(run_all.RESULTS)
    assert docs == run_all.ROOT / "docs" / "benchmarks" and readme == run_all.ROOT / "README.md"


def test_same_code_compares_with_head():
    assert provenance.same_code("HEAD")
    assert not provenance.same_code("HEAD+dirty")  # uncommitted edits: unknown code
    assert not provenance.same_code("0000000") and not provenance.same_code("unknown")


def test_code_comparison_ignores_docstrings_and_comments_only():
    code = provenance.code_without_docstrings
    before = 'def f(x):\n    """Old words."""\n    return x + 1  # one\n'
    reworded = 'def f(x):\n    """New words,\n    on two lines."""\n\n    return x + 1\n'
    assert code(before) == code(reworded)
    assert code(before) != code('def f(x):\n    """Old words."""\n    return x + 2\n')
    attribute = 'KEY = "a"\n"""What KEY holds."""\n'
    assert code(attribute) == code('KEY = "a"  # what it holds\n') != code('KEY = "b"\n')
    assert code("def f(:\n") is None
