"""Diagnostic: our core EGP loop on a function from 5 scrambled-Sobol start points.

Usage:  python benchmarks/diagnostics/core_loop.py "base;k=rbf-ard;nowarp;center" hartmann6 10 40
Variants (joined by +): k=<kernel list, e.g. rbf-ard or matern52-ard>, nowarp, rand (uniform start),
center (add the box centre, as Ax does), bic (Occam penalty on the eq. 9 weights), acq=<ts|ei|auto>.
Prints median and sorted final regrets per variant. Compared with botorch_loop.py (same start
points) on Hartmann-6, where Ax's default beats our Ax strategies (README, Ax table); not part of
CI.
"""

import os
import sys

import numpy as np

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import multiprocessing as mp

from functions import FUNCTIONS
from scipy.stats import qmc


def run(args):
    variant, fn, seed, nt = args
    from scipy.special import logsumexp

    import shared_core.models.ensemble as ens
    from shared_core.algorithms.egp import EGPAlgorithm
    from shared_core.interface import Observations
    from shared_core.search_space import FloatParam, SearchSpace

    opts = dict(v.split("=") for v in variant.split("+") if "=" in v)
    flags = set(v for v in variant.split("+") if "=" not in v)
    if "bic" in flags:
        orig = ens.EnsembleGP._refit

        def _refit(self, X, y, rng):
            orig(self, X, y, rng)
            pen = []
            for m in self.members:
                k = len(m.hyper.ls) + 2
                pen.append(-0.5 * k * np.log(len(X)))
            lw = self.log_w + np.array(pen)
            self.log_w = lw - logsumexp(lw)

        ens.EnsembleGP._refit = _refit
    bounds, f, fmin = FUNCTIONS[fn]
    d = len(bounds)
    kw = {}
    if "k" in opts:
        from shared_core.models.kernels import KernelSpec

        kw["kernels"] = tuple(
            KernelSpec(n.replace("-ard", ""), ard=n.endswith("-ard")) for n in opts["k"].split(",")
        )
    if "nowarp" in flags:
        kw["warp_outputs"] = False
    alg = EGPAlgorithm(acquisition=opts.get("acq", "ei"), **kw)
    space = SearchSpace({f"x{i}": FloatParam(0.0, 1.0) for i in range(d)})
    rng = np.random.default_rng(seed)
    if "rand" in flags:
        X = rng.random((5, d))
    else:
        X = qmc.Sobol(d, scramble=True, seed=seed).random(5)
    if "center" in flags:
        X = np.vstack([np.full((1, d), 0.5), X])
    lo, hi = bounds[:, 0], bounds[:, 1]

    def ev(x):
        return f(lo + x * (hi - lo))

    y = np.array([ev(x) for x in X])
    while len(y) < nt:
        x = alg.suggest(space, Observations(X, y), 1, rng)[0]
        X = np.vstack([X, x])
        y = np.append(y, ev(x))
    w = np.round(alg.model.weights, 2)
    return variant, fn, seed, float(y.min() - fmin), w.tolist()


if __name__ == "__main__":
    variants = sys.argv[1].split(";")
    fns = sys.argv[2].split(",")
    seeds = int(sys.argv[3])
    nt = int(sys.argv[4]) if len(sys.argv) > 4 else 40
    jobs = [(v, fn, s, nt) for s in range(seeds) for fn in fns for v in variants]
    res = {}
    with mp.get_context("spawn").Pool(2) as p:
        for v, fn, s, r, w in p.imap_unordered(run, jobs):
            res.setdefault((v, fn), []).append(r)
            if os.environ.get("V"):
                print(v, fn, s, round(r, 4), w, flush=True)
    for (v, fn), rs in sorted(res.items()):
        print(
            f"{fn:10s} {v:40s} median {np.median(rs):.4g} mean {np.mean(rs):.4g} ",
            np.round(sorted(rs), 4),
            flush=True,
        )
