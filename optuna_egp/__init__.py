"""Optuna samplers of the egp-samplers suite."""

from optuna_egp.sampler import BORESampler, CoreSampler, EGPTSSampler
from shared_core import __version__

__all__ = ["BORESampler", "CoreSampler", "EGPTSSampler", "__version__"]
