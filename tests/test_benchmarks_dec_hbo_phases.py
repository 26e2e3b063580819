"""The DEC-HBO phase profile (``benchmarks.dec_hbo_phases``): the phases split a suggestion, the
structure is fitted at the first suggestion only, and the timers are removed afterwards."""

import pytest

import shared_core.algorithms.dec_hbo as dec_hbo
import shared_core.models.additive as additive
from benchmarks import dec_hbo_phases as phases


def _targets():
    return (
        dec_hbo.DECHBOAlgorithm._refit,
        dec_hbo.AdditivePosterior,
        additive.AdditivePosterior.condition,  # the class: dec_hbo's name is wrapped too
        dec_hbo.factor_table,
        dec_hbo.max_sum,
        dec_hbo.maximize_acquisition,
    )


def test_a_run_splits_both_suggestions_into_their_phases():
    originals = _targets()
    row = phases.run_one({"sampler": "dec-hbo-mf6", "d": 8, "n": 20, "seed": 0})
    first, second = row["first"], row["next"]
    for split in (first, second):
        assert all(split[p] >= 0 for p in phases.PHASES) and split["other"] >= 0
        assert sum(split[p] for p in (*phases.PHASES, "other")) == pytest.approx(split["total"])
        assert split["tables"] > 0 and split["polish"] > 0 and split["max_sum"] > 0
    assert first["structure"] > 0 and second["structure"] == 0  # 21 trials: no refit due
    assert _targets() == originals
    assert row["egp_first"] > 0 and row["egp_next"] > 0
    assert phases.summarise([row])[2].startswith("| 8 | 20 | first |")


def test_the_timers_are_removed_after_an_exception():
    originals = _targets()
    with pytest.raises(RuntimeError), phases._timed_phases({}):
        assert _targets() != originals
        raise RuntimeError("a failing suggestion")
    assert _targets() == originals


def test_the_summary_shows_the_last_runs_sampler_only():
    def row(sampler, seconds):
        split = dict.fromkeys((*phases.PHASES, "other"), 0.0) | {"total": seconds}
        return {
            "sampler": sampler,
            "d": 8,
            "n": 20,
            "seed": 0,
            "first": split,
            "next": split,
            "egp_first": 1.0,
            "egp_next": 1.0,
            "commit": "abc",
            "date": "2026-11-29",
        }

    lines = phases.summarise([row("dec-hbo-mf3-ucb", 7.0), row("dec-hbo-mf6", 3.0)])
    assert "| 3.00 | 1.00 | 1 |" in lines[2]  # mf6's total, one seed (not the mean of both)
