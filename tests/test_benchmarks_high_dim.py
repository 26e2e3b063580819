"""The high-dimensional benchmark (``benchmarks.high_dim``): its budgets, tiers and a run's row."""

import numpy as np
import pytest

from benchmarks import high_dim
from benchmarks.high_dim_functions import PROBLEMS


def test_each_problem_gets_ten_evaluations_per_parameter_capped_at_500():
    assert high_dim.PROBLEMS["rotated-levy-20"].n_trials == 200
    assert high_dim.PROBLEMS["hartmann6-blocks-24"].n_trials == 240
    assert high_dim.PROBLEMS["hartmann6-blocks-60"].n_trials == 500
    assert high_dim.PROBLEMS["branin-chain-102"].n_trials == 500


def test_a_tier_names_its_problems_and_names_pass_through():
    tier = high_dim.expand_tiers("tier20").split(",")
    assert sorted(tier) == sorted(n for n, p in PROBLEMS.items() if p.tier == 20)
    assert {PROBLEMS[n].d for n in tier} <= set(range(20, 25))
    assert high_dim.expand_tiers("tier100,michalewicz-50").split(",")[-1] == "michalewicz-50"


@pytest.mark.parametrize("function", ["branin-chain-24", "weighted-lasso-50"])
def test_a_run_reports_the_regret_or_the_best_value_where_the_minimum_is_unknown(function):
    job = {"bench": "high_dim", "function": function, "seed": 0, "mode": "seq"}
    row = high_dim.run_job({**job, "workers": 1, "n_trials": 4, "sampler": "tpe"})
    values, regret = np.array(row["values"]), np.array(row["regret"])
    f_min = PROBLEMS[function].f_min or 0.0
    np.testing.assert_allclose(regret, np.minimum.accumulate(values) - f_min)
    assert len(values) == 4 and np.all(regret >= 0)


@pytest.mark.parametrize(
    "name, options",
    [
        ("dec-hbo-mf6", {"max_factor_size": 6}),
        ("dec-hbo-mf3-ucb", {"max_factor_size": 3, "acquisition": "ucb"}),
        (
            "dec-hbo-mf3-ucb-beta0.5",
            {"max_factor_size": 3, "acquisition": "ucb", "beta_scale": 0.5},
        ),
        ("dec-hbo-mf6-ei", None),  # the default has no suffix: one name per configuration
        ("dec-hbo-mf3-beta0.5-ucb", None),  # the beta suffix comes last
        ("egp-auto", None),
    ],
)
def test_dec_hbo_names_give_their_options_and_build_that_sampler(name, options):
    from benchmarks.harness.samplers import dec_hbo_options, make_sampler

    assert dec_hbo_options(name) == options
    if options is not None:
        algorithm = make_sampler(name, seed=0).algorithm
        assert {k: getattr(algorithm, k) for k in options} == options
