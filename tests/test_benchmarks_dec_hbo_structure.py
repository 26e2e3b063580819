"""The structure benchmark (``benchmarks.dec_hbo_structure``): the true pairs of the problems, the
scores of a partition against them and what chance would score, and a tiny run's rows."""

import itertools

import numpy as np
import pytest

from benchmarks import dec_hbo_structure as structure


def test_the_true_pairs_are_the_blocks_and_the_chains_neighbours():
    blocks = structure.true_pairs("hartmann6-blocks-24", 24)
    assert len(blocks) == 4 * 15 and (0, 5) in blocks and (5, 6) not in blocks
    assert structure.true_pairs("branin-chain-24", 24) == {(i, i + 1) for i in range(23)}
    with pytest.raises(ValueError, match="rotated-levy-20"):
        structure.true_pairs("rotated-levy-20", 20)


def test_the_true_partition_scores_all_recovered_none_false_and_chance_by_its_group_sizes():
    blocks = [range(i, i + 6) for i in range(0, 24, 6)]
    true = structure.true_pairs("hartmann6-blocks-24", 24)
    assert structure.scores(blocks, true, 24) == pytest.approx(
        {
            "recovered": 1.0,
            "false": 0.0,
            "chance": 4 * 30 / (24 * 23),
            "false_chance": 1 - 60 / (24 * 23 / 2),
        }
    )
    shifted = [range(i, i + 6) for i in range(3, 21, 6)] + [[0, 1, 2, 21, 22, 23]]
    got = structure.scores(shifted, true, 24)
    # each shifted block holds 2 x 3 of a true block's pairs; the wrapped one 3 + 3 of its 15
    assert got["recovered"] == pytest.approx((3 * 6 + 6) / 60)
    assert got["false"] == pytest.approx(1 - (3 * 6 + 6) / 60)


def test_chance_is_what_random_partitions_with_those_sizes_recover():
    rng = np.random.default_rng(0)
    true = structure.true_pairs("branin-chain-24", 24)
    sizes = (6, 6, 5, 4, 3)
    cuts = np.cumsum(sizes)[:-1]
    drawn = [structure.scores(np.split(rng.permutation(24), cuts), true, 24) for _ in range(4000)]
    expected = structure.scores(np.split(np.arange(24), cuts), true, 24)
    # 4000 draws: the means' standard errors are about 0.002 (3 of them: 0.006)
    for key, chance in (("recovered", "chance"), ("false", "false_chance")):
        assert np.mean([d[key] for d in drawn]) == pytest.approx(expected[chance], abs=0.006)


@pytest.mark.slow
def test_a_tiny_run_scores_each_structure_sample_at_its_checkpoints():
    job = {"sampler": "dec-hbo-mf6", "problem": "branin-chain-24", "seed": 0, "checkpoints": "12"}
    row = structure.run_one(job)
    (at,) = row["at"]
    # 24 parameters, 11 trials: the chain is cheap enough to run at every refit, one per trial
    assert at["n"] == 12 and at["learned_at"] == 11
    assert len(at["samples"]) == len(at["weights"]) >= 1 and sum(at["weights"]) == pytest.approx(1)
    for s in at["samples"]:
        assert 0 <= s["recovered"] <= 1 and 0 <= s["false"] <= 1 and 0 < s["chance"] < 1
    row |= {"commit": "abc", "date": "2026-11-29"}
    table = structure.summarise([row])
    assert table[2].startswith("| `branin-chain-24` | 12 | 11 |")


def test_the_summary_weighs_a_sample_the_chain_drew_twice_twice_and_takes_medians_over_seeds():
    def row(seed, recovered, weights):
        samples = [dict.fromkeys(structure.SUMMARY, 0.5) | {"recovered": r} for r in recovered]
        at = {"n": 100, "learned_at": 90 + seed, "samples": samples, "weights": weights}
        return {
            "sampler": "dec-hbo-mf6",
            "problem": "branin-chain-24",
            "seed": seed,
            "checkpoints": "100",
            "at": [at],
            "commit": "abc",
            "date": "2026-11-29",
        }

    rows = [row(0, [0.9, 0.0], [2 / 3, 1 / 3]), row(1, [0.3], [1.0]), row(2, [0.8], [1.0])]
    # seed 0's weighted mean is 0.6 (unweighted: 0.45); the median of 0.6, 0.3 and 0.8 is 0.6
    assert structure.summarise(rows)[2] == (
        "| `branin-chain-24` | 100 | 91 | 0.60 | 0.50 | 0.50 | 0.50 | 3 |"
    )


def test_checkpoints_must_come_after_the_start_up_trials():
    assert structure.checkpoint_list("100,240") == (100, 240)
    with pytest.raises(ValueError, match="'5,100'"):
        structure.checkpoint_list("5,100")
    with pytest.raises(ValueError, match="rotated-levy-20"):
        structure.main(["--problems", "rotated-levy-20", "--checkpoints", "20", "--out", "x"])


def test_pairs_of_a_partition_are_those_within_its_groups():
    assert structure.grouped_pairs([[0, 1, 2], [3]]) == set(itertools.combinations(range(3), 2))
