"""Optuna's reusable sampler test suites, run on EGPTSSampler, BORESampler and
DistributedTSSampler (several objectives: ``MultiObjectiveSamplerTestCase``), and on a
``CoreSampler`` whose algorithm models one objective (``SingleOnlySamplerTestCase``: it refuses a
study with several).

The suites of Optuna 5.0 have no constrained-study cases; constraint values in the samplers are
tested in ``test_constraint_values.py`` and by the fuzz table (``tests/test_fuzz.py``). Studies with
several objectives are tested in ``test_multi_objective.py``.
"""

import pytest
from optuna.testing.pytest_samplers import (
    BasicSamplerTestCase,
    MultiObjectiveSamplerTestCase,
    RelativeSamplerTestCase,
    SingleOnlySamplerTestCase,
)

from optuna_egp import BORESampler, CoreSampler, DistributedTSSampler, EGPTSSampler
from shared_core import BOREAlgorithm


class TestEGPTSSampler(
    BasicSamplerTestCase, RelativeSamplerTestCase, MultiObjectiveSamplerTestCase
):
    @pytest.fixture
    def sampler(self):
        # n_startup_trials=1: the relative-sampling cases call sample_relative after one trial
        return lambda: EGPTSSampler(seed=0, n_startup_trials=1)


# These cases call sample_relative 10-11 times on trials left RUNNING, so from the second
# call on every suggestion is an SVGD particle moved with the earlier ones frozen. With
# BORESampler's 1000 SVGD steps they took ~4 s each, 41 cases: ~2.5 of the class's ~3 min (2
# busy cores). They check parameter types and bounds, which do not depend on the budget, so
# they run the same algorithm with a small one (~1 s each). BORESampler's own budget with
# running trials is covered by tests/optuna/test_sampler.py.
_PENDING_HEAVY = {"test_sample_relative_numerical", "test_sample_relative_mixed"}


class TestBORESampler(BasicSamplerTestCase, RelativeSamplerTestCase, MultiObjectiveSamplerTestCase):
    @pytest.fixture
    def sampler(self, request):
        if request.node.originalname in _PENDING_HEAVY:
            # bore++ with BORESampler's defaults except the SVGD and acquisition-optimiser budgets
            return lambda: CoreSampler(
                BOREAlgorithm(svgd_steps=20, n_raw=64, n_starts=2), seed=0, n_startup_trials=1
            )
        return lambda: BORESampler(seed=0, n_startup_trials=1)  # default variant: bore++


class TestDistributedTSSampler(MultiObjectiveSamplerTestCase):
    """Several objectives only: the basic and relative cases of one agent are those of a GP
    Thompson sampler, run above for EGPTSSampler."""

    @pytest.fixture
    def sampler(self):
        return lambda: DistributedTSSampler(
            seed=0, n_startup_trials=1, agent_id=0, graph="ring", n_agents=3
        )


class _SingleObjective:
    """An algorithm that models one objective (no ``multi_objective``): random points."""

    def suggest(self, space, obs, n_suggestions, rng):
        return space.sample(rng, n_suggestions)  # (n, d)


class TestSingleObjectiveCoreSampler(SingleOnlySamplerTestCase):
    @pytest.fixture
    def sampler(self):
        return lambda: CoreSampler(_SingleObjective(), seed=0, n_startup_trials=1)
