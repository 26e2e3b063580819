"""The high-dimensional speed benchmark's summary: the last run's setting, the targets."""

from __future__ import annotations

from benchmarks.high_dim_speed import summarise


def _row(sampler: str, d: int, warm: float, asks: int = 5) -> dict:
    return {
        "bench": "high_dim_speed",
        "sampler": sampler,
        "d": d,
        "n": 10 * d,
        "asks": asks,
        "cold_seconds": 10 * warm,
        "seconds": [warm] * asks,
        "peak_rss_mb": 100.0,
        "commit": "abc1234",
        "date": "2026-11-28T00:00:00+00:00",
    }


def test_the_targets_compare_rows_of_the_last_runs_setting():
    rows = [
        _row("dec-hbo-mf6", 20, 0.01, asks=1),  # an earlier run of another setting: left out
        _row("gp", 100, 3.0),
        _row("egp-ts", 100, 0.5),
        _row("dec-hbo-mf6", 100, 0.45),
        _row("gp", 50, 1.0),
        _row("egp-ts", 50, 0.2),
        _row("dec-hbo-mf6", 50, 0.4),
    ]
    text = "\n".join(summarise(rows))
    assert "| 100 | 1000 | dec-hbo-mf6 | 4.50 | 0.450 | 100 |" in text
    assert "0.15 of GPSampler's, 0.9x EGPTSSampler's: **met**" in text  # d = 100
    assert "0.40 of GPSampler's, 2.0x EGPTSSampler's: **not met**" in text  # d = 50
    assert "0.010" not in text


def test_the_summary_compares_rows_of_the_last_rows_machine_only():
    fast, slow = {"machine_key": "fast CPU"}, {"machine_key": "slow CPU"}
    rows = [
        {**_row("gp", 50, 2.5), **slow, "date": "2026-11-28T00:00:00+00:00"},
        # GPSampler measured again, later, on a faster machine: left out
        {**_row("gp", 50, 0.5), **fast, "date": "2026-11-28T01:00:00+00:00"},
        {**_row("egp-ts", 50, 0.2), **slow, "date": "2026-11-28T02:00:00+00:00"},
        # ours measured last: its machine is the summary's
        {**_row("dec-hbo-mf6", 50, 0.4), **slow, "date": "2026-11-28T03:00:00+00:00"},
        # a peer measured later on the fast machine, listed last (as a page lists cached peers)
        {**_row("gp", 20, 0.1), **fast, "date": "2026-11-28T04:00:00+00:00"},
    ]
    text = "\n".join(summarise(rows))
    assert "0.16 of GPSampler's, 2.0x EGPTSSampler's" in text
    assert "measured on slow CPU." in text
    assert "| 50 | 500 | gp | 5.00 | 0.500 |" not in text
