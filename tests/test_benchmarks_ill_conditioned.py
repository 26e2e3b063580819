"""The ill-conditioned suite functions: each is minimal (0) at its stated optimum inside its box,
the rotation is orthogonal and the same in every process; and the suite tables' tie rule."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks import ill_conditioned
from benchmarks.harness import regret
from benchmarks.run import FUNCTIONS, SUITE, default_trials

# Entries of the fixed draws (numpy's PCG64 streams), so that a change of seed or of how the
# rotation and the optimum are drawn fails here.
_ROTATION_CORNERS = {5: (-0.246713, -0.331797), 10: (-0.103598, -0.154064)}
_OPTIMUM_FIRST = {5: -3.276508, 10: 2.514396}


@pytest.mark.parametrize("name", list(ill_conditioned.FUNCTIONS))
def test_minimum_is_at_the_stated_optimum(name):
    bounds, f, f_min = FUNCTIONS[name]
    d = len(bounds)
    x_star = ill_conditioned.optimum(d)
    assert np.all((bounds[:, 0] < x_star) & (x_star < bounds[:, 1]))
    assert np.linalg.norm(x_star - bounds.mean(axis=1)) > 1.0  # off the centre
    assert f(np.array(x_star)) == pytest.approx(f_min, abs=1e-12)
    rng = np.random.default_rng(0)
    for scale in (1e-6, 1e-3, 1.0):  # every nearby and far point is higher
        points = x_star + scale * rng.standard_normal((20, d))
        assert min(f(x) for x in points) > f_min
    assert name in SUITE and default_trials(name) == ill_conditioned.N_TRIALS == 50


def test_ellipsoid_weights_span_six_decades():
    x_star = ill_conditioned.optimum(5)
    values = [ill_conditioned.ellipsoid(x_star + np.eye(5)[i]) for i in range(5)]
    np.testing.assert_allclose(values, 10.0 ** (6 * np.arange(5) / 4))


@pytest.mark.parametrize("d", [5, 10])
def test_rotation_is_orthogonal_and_fixed(d):
    r = ill_conditioned.rotation(d)
    np.testing.assert_allclose(r @ r.T, np.eye(d), atol=1e-12)
    assert not np.allclose(np.abs(r), np.eye(d), atol=0.1)  # a rotation, not a permutation
    # Drawn from a fixed seed: the same matrix in every process (two entries recorded).
    assert (r[0, 0], r[-1, -1]) == pytest.approx(_ROTATION_CORNERS[d], abs=1e-6)
    assert ill_conditioned.optimum(d)[0] == pytest.approx(_OPTIMUM_FIRST[d], abs=1e-6)
    x = ill_conditioned.optimum(d) + 0.1
    rotated, separable = FUNCTIONS[f"rotellipsoid{d}"][1], FUNCTIONS[f"ellipsoid{d}"][1]
    assert rotated(x) != pytest.approx(separable(x))


def _run(sampler, seed, regret, function="f"):
    return {"sampler": sampler, "function": function, "seed": seed, "regret": regret}


def test_regrets_below_the_tie_fraction_of_the_startup_regret_tie():
    startup = [1000.0] * 10  # regret after the 10 start-up trials: 1000, floor 1
    rows = [
        _run("egp-auto", 0, startup + [0.5]),
        _run("gp", 0, startup + [0.001]),
        _run("tpe", 0, startup + [2.0]),
    ]
    assert regret.startup_regret(rows) == {"f": 1000.0}
    assert regret.wins(rows, "egp-auto", "gp") == (0, 1, 1)  # 0.5 and 0.001: both below 1
    assert regret.wins(rows, "egp-auto", "tpe") == (1, 0, 1)
    assert regret.wins(rows, "tpe", "gp") == (0, 0, 1)
    assert regret.versus(1.5, 1.2, 1.0) == 1 and regret.versus(0.9, 0.0, 1.0) == 0
    assert regret.TIE_FRACTION == 1e-3
