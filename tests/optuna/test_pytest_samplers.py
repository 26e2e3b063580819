"""Optuna's reusable sampler test suites, run on EGPTSSampler."""

import pytest
from optuna.testing.pytest_samplers import BasicSamplerTestCase, RelativeSamplerTestCase, SingleOnlySamplerTestCase

from optuna_egp import EGPTSSampler


class TestEGPTSSampler(BasicSamplerTestCase, RelativeSamplerTestCase, SingleOnlySamplerTestCase):
    @pytest.fixture
    def sampler(self):
        # n_startup_trials=1: the relative-sampling cases call sample_relative after one trial
        return lambda: EGPTSSampler(seed=0, n_startup_trials=1)
