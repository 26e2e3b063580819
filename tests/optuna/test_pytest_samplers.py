"""Optuna's reusable sampler test suites, run on EGPTSSampler and BORESampler."""

import pytest
from optuna.testing.pytest_samplers import BasicSamplerTestCase, RelativeSamplerTestCase, SingleOnlySamplerTestCase

from optuna_egp import BORESampler, EGPTSSampler


class TestEGPTSSampler(BasicSamplerTestCase, RelativeSamplerTestCase, SingleOnlySamplerTestCase):
    @pytest.fixture
    def sampler(self):
        # n_startup_trials=1: the relative-sampling cases call sample_relative after one trial
        return lambda: EGPTSSampler(seed=0, n_startup_trials=1)


class TestBORESampler(BasicSamplerTestCase, RelativeSamplerTestCase, SingleOnlySamplerTestCase):
    @pytest.fixture
    def sampler(self):
        return lambda: BORESampler(seed=0, n_startup_trials=1)  # default variant: bore++
