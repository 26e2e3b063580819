"""Diagnostic: BoTorch SingleTaskGP + LogEI + optimize_acqf in the same loop as core_loop.py.

Usage:  python benchmarks/diagnostics/botorch_loop.py
        (CENTER=1 adds the box centre to the start)
Hartmann-6, 5 scrambled-Sobol start points (same seeds as core_loop.py), 40 trials, 10 seeds.
"""

import os
import sys
import warnings

import numpy as np
import torch

warnings.filterwarnings("ignore")
os.environ.setdefault("OMP_NUM_THREADS", "1")
torch.set_num_threads(1)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import multiprocessing as mp

from botorch.acquisition import LogExpectedImprovement
from botorch.fit import fit_gpytorch_mll
from botorch.models import SingleTaskGP
from botorch.models.transforms import Standardize
from botorch.optim import optimize_acqf
from functions import FUNCTIONS
from gpytorch.mlls import ExactMarginalLogLikelihood
from scipy.stats import qmc


def run(seed):
    _, f, fmin = FUNCTIONS["hartmann6"]
    X = qmc.Sobol(6, scramble=True, seed=seed).random(5)
    X = np.vstack([np.full((1, 6), 0.5), X]) if os.environ.get("CENTER") else X
    y = np.array([f(x) for x in X])
    torch.manual_seed(seed)
    while len(y) < 40:
        m = SingleTaskGP(
            torch.tensor(X), torch.tensor(-y)[:, None], outcome_transform=Standardize(1)
        )
        fit_gpytorch_mll(ExactMarginalLogLikelihood(m.likelihood, m))
        acq = LogExpectedImprovement(m, best_f=float((-y).max()))
        x, _ = optimize_acqf(
            acq,
            bounds=torch.tensor([[0.0] * 6, [1.0] * 6], dtype=torch.float64),
            q=1,
            num_restarts=int(os.environ.get("NR", 20)),
            raw_samples=int(os.environ.get("RS", 1024)),
        )
        x = x.numpy()[0]
        X = np.vstack([X, x])
        y = np.append(y, f(x))
    return seed, y.min() - fmin


if __name__ == "__main__":
    with mp.get_context("spawn").Pool(2) as p:
        rs = sorted(r for _, r in p.imap_unordered(run, range(10)))
    print("botorch logEI median", np.median(rs), np.round(rs, 4))
