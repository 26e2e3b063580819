"""Optuna samplers of the egp-samplers suite."""

from optuna_egp.sampler import CoreSampler, EGPTSSampler

__all__ = ["CoreSampler", "EGPTSSampler"]
