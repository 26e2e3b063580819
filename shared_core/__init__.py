"""Framework-free numerics of the egp-samplers suite (never imports optuna or ax)."""

from shared_core.algorithms.bore import BOREAlgorithm
from shared_core.algorithms.egp import EGPAlgorithm
from shared_core.interface import Algorithm, Observations, clean_targets
from shared_core.models.kernels import KernelSpec, default_dictionary, lengthscale_grid_dictionary
from shared_core.search_space import CategoricalParam, FloatParam, IntParam, SearchSpace

__all__ = [
    "Algorithm",
    "BOREAlgorithm",
    "CategoricalParam",
    "EGPAlgorithm",
    "FloatParam",
    "IntParam",
    "KernelSpec",
    "Observations",
    "SearchSpace",
    "clean_targets",
    "default_dictionary",
    "lengthscale_grid_dictionary",
]
