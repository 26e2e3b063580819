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
        {"recovered": 1.0, "false": 0.0, "chance": 4 * 30 / (24 * 23)}
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
    recovered = []
    for _ in range(4000):
        order = rng.permutation(24)
        cuts = np.cumsum(sizes)[:-1]
        recovered.append(structure.scores(np.split(order, cuts), true, 24)["recovered"])
    chance = structure.scores(np.split(np.arange(24), np.cumsum(sizes)[:-1]), true, 24)["chance"]
    # 4000 draws: the mean's standard error is about 0.002
    assert np.mean(recovered) == pytest.approx(chance, abs=0.01)


def test_a_tiny_run_scores_each_structure_sample_at_its_checkpoints():
    job = {"sampler": "dec-hbo-mf6", "problem": "branin-chain-24", "seed": 0, "checkpoints": (12,)}
    row = structure.run_one(job)
    (at,) = row["at"]
    assert at["n"] == 12 and len(at["samples"]) == len(at["weights"]) >= 1
    for s in at["samples"]:
        assert 0 <= s["recovered"] <= 1 and 0 <= s["false"] <= 1 and 0 < s["chance"] < 1
    row |= {"commit": "abc", "date": "2026-11-29"}
    table = structure.summarise([row])
    assert table[2].startswith("| `branin-chain-24` | 12 |")


def test_pairs_of_a_partition_are_those_within_its_groups():
    assert structure.grouped_pairs([[0, 1, 2], [3]]) == set(itertools.combinations(range(3), 2))
