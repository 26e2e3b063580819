"""Acquisition functions: small objects with ``value`` and
``value_and_grad``, maximised by ``shared_core.optim``."""

from shared_core.acquisition.analytic import (
    LogExpectedImprovement,
    ThompsonSampling,
    UpperConfidenceBound,
    log_h,
)
from shared_core.acquisition.base import Acquisition

__all__ = [
    "Acquisition",
    "LogExpectedImprovement",
    "ThompsonSampling",
    "UpperConfidenceBound",
    "log_h",
]
