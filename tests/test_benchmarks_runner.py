"""The shared run loop (``benchmarks.harness.runner``): a run is done when our row is stored at the
current commit, or the peer's at the current versions and protocol; what is not done runs and is
stored as it arrives, ours in the results file and the peers' in the peer cache."""

from __future__ import annotations

import pytest

from benchmarks.harness import runner
from benchmarks.harness.cache import PeerCache
from benchmarks.harness.results import ResultsFile, read_rows

CELL = ("bench", "function", "seed")


def _job(sampler: str, seed: int) -> dict:
    return {"bench": "t", "function": "branin", "seed": seed, "sampler": sampler}


def _row(job: dict) -> dict:
    return {**job, "regret": [1.0, 0.5]}


@pytest.fixture
def files(tmp_path, monkeypatch):
    from benchmarks.harness import results

    monkeypatch.setenv("EGP_BENCH_FINGERPRINTS", "0")
    # rows of a clean tree at commit c0ffee1 (rows of a tree with uncommitted changes never count)
    monkeypatch.setattr(results, "provenance", lambda: {"commit": "c0ffee1", "date": "2026"})
    monkeypatch.setattr(runner, "commit", lambda: "c0ffee1")
    return ResultsFile(tmp_path / "ours.jsonl"), PeerCache(tmp_path / "peers.jsonl", protocol=3)


def test_only_the_runs_not_done_run_and_each_row_goes_where_it_belongs(files, capsys, monkeypatch):
    out, cache = files
    jobs = [_job("egp-auto", 0), _job("egp-auto", 1), _job("tpe", 0), _job("tpe", 1)]

    runner.run_jobs(jobs[::2], _row, out=out, cell=CELL, cache=cache, describe=lambda r: "ran")
    assert [r["sampler"] for r in read_rows(out.path)] == ["egp-auto"]
    assert [r["sampler"] for r in read_rows(cache.file.path)] == ["tpe"]
    assert capsys.readouterr().out.count("ran") == 2

    # seed 0 of both is stored: only seed 1 runs
    assert runner.not_done(jobs, out=out, cell=CELL, cache=cache) == [jobs[1], jobs[3]]
    # our rows of another commit do not count; the peer's are keyed by versions, not commits
    monkeypatch.setattr(runner, "commit", lambda: "beef002")
    assert runner.not_done(jobs, out=out, cell=CELL, cache=cache) == [jobs[0], jobs[1], jobs[3]]
    # a peer's cache cell may leave out fields of ours (the suite keys peers without "bench")
    cell_less = runner.not_done(jobs, out=out, cell=CELL, cache=cache, peer_cell=CELL[1:])
    assert jobs[2] in cell_less  # stored under the full cell, looked up under another one


def test_a_job_of_several_samplers_is_done_when_all_their_rows_are(files):
    out, _ = files
    job = {"bench": "t", "function": "branin", "seed": 0, "samplers": ["ax-default", "ax-egp-auto"]}
    runner.run_jobs([job], _rows_of_cell, out=out, cell=CELL)
    assert [r["sampler"] for r in read_rows(out.path)] == job["samplers"]
    assert runner.not_done([job], out=out, cell=CELL) == []
    assert runner.not_done([{**job, "samplers": ["ax-default", "x"]}], out=out, cell=CELL)


def _rows_of_cell(job: dict) -> list[dict]:
    cell = {f: job[f] for f in CELL}
    return [_row({**cell, "sampler": s}) for s in job["samplers"]]
