"""The high-dimensional problems (``benchmarks.high_dim_functions``): their tiers, and each known
or computed minimum checked against the function itself."""

import math

import numpy as np
import pytest

from benchmarks import functions
from benchmarks import high_dim_functions as hd


def test_every_problem_is_in_its_tier_and_evaluates_on_the_unit_cube():
    rng = np.random.default_rng(0)
    tiers = {20: (20, 24), 50: (50, 60), 100: (100, 102)}
    for name, problem in hd.PROBLEMS.items():
        low, high = tiers[problem.tier]
        assert low <= problem.d <= high, name
        value = problem.objective(rng.random(problem.d))
        assert math.isfinite(value), name
        minimum = problem.f_min
        assert minimum is None or minimum <= value, name


def test_hartmann6_blocks_reach_their_minimum_at_every_block_optimum():
    u = np.tile(hd.H6_ARGMIN, 4)
    f_min = hd.PROBLEMS["hartmann6-blocks-24"].f_min
    assert hd.hartmann6_blocks(u) == pytest.approx(f_min, abs=1e-9)


def test_branin_on_the_unit_cube_is_the_suites_branin():
    rng = np.random.default_rng(2)
    for a, b in rng.random((20, 2)):
        x = (-5.0 + 15.0 * a, 15.0 * b)
        assert hd._branin_grid(a, b) == pytest.approx(functions.branin(x), rel=1e-12)


def test_the_chain_gradient_matches_finite_differences():
    u = np.random.default_rng(3).random(6)
    value, grad = hd._branin_chain_with_grad(u)
    numeric = [
        (hd.branin_chain(u + 1e-6 * e) - hd.branin_chain(u - 1e-6 * e)) / 2e-6 for e in np.eye(6)
    ]
    assert value == hd.branin_chain(u)
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-4)


def test_the_chain_minimum_is_attained_and_below_random_points():
    d = 8
    minimum = hd.chain_minimum(d)
    assert minimum >= (d - 1) * 0.397887  # no pair below Branin's own minimum
    rng = np.random.default_rng(1)
    assert minimum <= min(hd.branin_chain(rng.random(d)) for _ in range(2000))
    # brute force on a coarse grid of 3 parameters (two pairs) agrees with the programme
    grid = np.linspace(0.0, 1.0, 201)
    a, b, c = np.meshgrid(grid, grid, grid, indexing="ij")
    coarse = (hd._branin_grid(a, b) + hd._branin_grid(b, c)).min()
    assert hd.chain_minimum(3) == pytest.approx(coarse, abs=0.05)
    assert hd.chain_minimum(3) <= coarse + 1e-9


def test_michalewicz_minima_are_the_reference_values():
    # on [0, pi]^5 the usual reference value; at 50 parameters the best of each term's five best
    # local minima on a grid of 2 million points, refined (computed independently)
    assert hd.michalewicz_minimum(5) == pytest.approx(-4.687658, abs=1e-5)
    assert hd.michalewicz_minimum(50) == pytest.approx(-49.6248323, abs=1e-6)


def test_rotated_levy_is_zero_at_its_optimum_and_positive_elsewhere():
    q, z_star = hd._rotation(20)
    np.testing.assert_allclose(q @ q.T, np.eye(20), atol=1e-12)
    u_star = (z_star + 5.0) / 10.0
    assert hd.rotated_levy(u_star) == pytest.approx(0.0, abs=1e-12)
    assert hd.rotated_levy(np.clip(u_star + 0.01, 0, 1)) > 0.0


def test_weighted_lasso_is_deterministic_and_rewards_light_penalties_on_signal():
    d = 50
    light = hd.weighted_lasso(np.full(d, 0.25))
    assert light == hd.weighted_lasso(np.full(d, 0.25)) and light >= 0.0
    assert hd.weighted_lasso(np.ones(d)) > light  # the heaviest penalty on every feature
