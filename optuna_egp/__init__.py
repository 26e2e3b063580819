"""Optuna samplers of the egp-samplers suite."""

from optuna_egp._records import MODEL_KEY, VIEW_KEY, WEIGHTS_KEY
from optuna_egp.core_sampler import CoreSampler
from optuna_egp.distributed import DistributedTSSampler
from optuna_egp.named_samplers import BORESampler, DECHBOSampler, EGPTSSampler, STOBNTSSampler
from optuna_egp.visualization import model_history, plot_model
from shared_core import __version__

__all__ = [
    "BORESampler",
    "CoreSampler",
    "DECHBOSampler",
    "DistributedTSSampler",
    "EGPTSSampler",
    "STOBNTSSampler",
    "MODEL_KEY",
    "VIEW_KEY",
    "WEIGHTS_KEY",
    "__version__",
    "model_history",
    "plot_model",
]
