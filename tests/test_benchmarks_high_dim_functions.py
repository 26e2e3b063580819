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


@pytest.mark.slow
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


def _rover_u(points: np.ndarray) -> np.ndarray:
    """The unit-cube point of the rover's control points ``(30, 2)`` on [-0.1, 1.1]^2."""
    return ((points - hd.ROVER_LOW) / hd.ROVER_SPAN).ravel()


def test_the_rover_is_in_tier_50_deterministic_and_above_its_bound():
    problem = hd.PROBLEMS["rover-60"]
    assert (problem.d, problem.tier, problem.f_min) == (60, 50, None)
    rng = np.random.default_rng(4)
    for u in rng.random((20, 60)):
        value = problem.objective(u)
        assert math.isfinite(value) and value == problem.objective(u.copy())
        assert value > hd.ROVER_BOUND
    # coinciding control points: the jitter keeps the fit defined
    assert math.isfinite(hd.rover(np.full(60, 0.5)))


def test_the_rover_path_is_the_least_squares_cubic_by_chord_length():
    # the reference's splprep smoothing admits the cubic however far apart the points
    for u in (np.random.default_rng(5).random(60), np.tile([0.0, 0.0, 1.0, 1.0], 15)):
        points = hd.ROVER_LOW + hd.ROVER_SPAN * u.reshape(-1, 2) + hd._rover_jitter(30)
        chord = np.r_[0.0, np.cumsum(np.linalg.norm(np.diff(points, axis=0), axis=1))]
        coefficients = np.polyfit(chord / chord[-1], points, 3)  # (4, 2)
        t = np.linspace(0.0, 1.0, hd.ROVER_SAMPLES)
        cubic = np.column_stack([np.polyval(coefficients[:, j], t) for j in range(2)])
        np.testing.assert_allclose(hd.rover_path(u), cubic, atol=1e-9)


def test_the_straight_rover_line_costs_its_length_and_the_boxes_it_crosses():
    s = np.linspace(0.0, 1.0, 30)[:, None]
    value = hd.rover(_rover_u(hd.ROVER_START + s * (hd.ROVER_GOAL - hd.ROVER_START)))
    # on y = x the box at (a, b) covers x in [max(a, b) - 0.025, min(a, b) + 0.025]
    c, h = hd.ROVER_CENTRES, hd.ROVER_HALF_WIDTH
    spans = sorted(
        (max(lo, 0.05), min(hi, 0.95))
        for lo, hi in zip(c.max(axis=1) - h, c.min(axis=1) + h)
        if hi > lo
    )
    merged: list[list[float]] = []
    for lo, hi in spans:
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    inside = math.sqrt(2) * sum(hi - lo for lo, hi in merged)
    expected = 0.05 * 0.9 * math.sqrt(2) + 20.0 * inside - 5.0  # no misses: the line is the cubic
    assert len(merged) == 7 and expected > 2.0
    # each of the 14 box edges costs at most 20 over half a sample step (0.0013) too much or little
    assert value == pytest.approx(expected, abs=14 * 10.0 * 0.9 * math.sqrt(2) / 999 + 0.01)


def test_a_rover_path_through_a_box_costs_more_than_the_same_path_shifted_out_of_it():
    # a segment 0.2 long through the centre of the box at (0.193, 0.811), alone on its row, and the
    # same segment 0.05 above and below, clear of every box: same length and the same l1 misses
    x, y = hd.ROVER_CENTRES[38]
    assert (round(x, 3), round(y, 3)) == (0.193, 0.811)
    segment = np.column_stack([np.linspace(x - 0.1, x + 0.1, 30), np.full(30, y)])
    through = hd.rover(_rover_u(segment))
    above, below = (hd.rover(_rover_u(segment + [0.0, dy])) for dy in (0.05, -0.05))
    assert above == pytest.approx(below, abs=1e-9)
    assert through - above == pytest.approx(20.0 * 0.05, abs=0.01)  # the box's width at 20
