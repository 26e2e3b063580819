"""Diagnostic: our MAP RBF-ARD fit vs BoTorch SingleTaskGP on the same Hartmann-6 data.

Usage:  python benchmarks/diagnostics/gp_fit_vs_botorch.py
Prints fitted lengthscales, amplitude and noise for n = 5 (scrambled Sobol), 10 and 20 (uniform)
points, 3 seeds.
"""

import sys
import warnings

import numpy as np
import torch

warnings.filterwarnings("ignore")
sys.path.insert(
    0,
    __import__("os").path.join(
        __import__("os").path.dirname(__import__("os").path.abspath(__file__)), ".."
    ),
)
from botorch.fit import fit_gpytorch_mll
from botorch.models import SingleTaskGP
from botorch.models.transforms import Standardize
from functions import FUNCTIONS
from gpytorch.mlls import ExactMarginalLogLikelihood
from scipy.stats import qmc

from shared_core.models.gp import fit_hyperparameters
from shared_core.models.kernels import KernelSpec

_, f, _ = FUNCTIONS["hartmann6"]
for n in (5, 10, 20):
    for seed in range(3):
        X = (
            qmc.Sobol(6, scramble=True, seed=seed).random(n)
            if n <= 5
            else np.random.default_rng(seed).random((n, 6))
        )
        y = np.array([f(x) for x in X])
        ys = (y - y.mean()) / y.std()
        h = fit_hyperparameters(KernelSpec("rbf", ard=True), X, ys)
        m = SingleTaskGP(
            torch.tensor(X), torch.tensor(-y)[:, None], outcome_transform=Standardize(1)
        )
        fit_gpytorch_mll(ExactMarginalLogLikelihood(m.likelihood, m))
        ls = (
            m.covar_module.lengthscale.detach().numpy().ravel()
            if hasattr(m.covar_module, "lengthscale")
            else m.covar_module.base_kernel.lengthscale.detach().numpy().ravel()
        )
        print(n, seed, "ours ls", np.round(h.ls, 2), f"amp {h.amp:.2f} noise {h.noise:.1e}")
        print(
            n,
            seed,
            "bt   ls",
            np.round(ls, 2),
            f"noise {m.likelihood.noise.item():.1e}",
            type(m.covar_module).__name__,
        )
