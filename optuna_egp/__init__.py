"""Optuna samplers of the egp-samplers suite."""

from optuna_egp.sampler import BORESampler, CoreSampler, EGPTSSampler

__all__ = ["BORESampler", "CoreSampler", "EGPTSSampler"]
