"""Diagnostic: where BORE++ SVGD particles land (synchronous batch of 8, default sharpness),
for beta = 3 and 0, after 50 random points.

Usage:  python benchmarks/diagnostics/bore_particles.py hartmann6     (or branin, ...)
Prints the acquisition at 8 joint particles vs random points, and distances to the nearest good
trial.
"""

import sys

import numpy as np

sys.path.insert(
    0,
    __import__("os").path.join(
        __import__("os").path.dirname(__import__("os").path.abspath(__file__)), ".."
    ),
)
from functions import FUNCTIONS

from shared_core.algorithms.bore import BOREAlgorithm, quantile_labels
from shared_core.search_space import FloatParam, SearchSpace

fn = sys.argv[1]
bounds, f, fmin = FUNCTIONS[fn]
d = len(bounds)
space = SearchSpace({f"x{i}": FloatParam(0.0, 1.0) for i in range(d)})
rng = np.random.default_rng(0)
X = rng.random((50, d))
y = np.array([f(bounds[:, 0] + x * (bounds[:, 1] - bounds[:, 0])) for x in X])
for beta in (3.0, 0.0):
    alg = BOREAlgorithm(beta=beta)
    z = quantile_labels(y, 0.25)
    alg.classifier.fit(X, z, rng)
    a = alg.classifier.acquisition
    R = rng.random((20000, d))
    aR = a(R)
    P = alg._move(alg.classifier, space, alg._draw(alg.classifier, space, 8, rng), np.zeros((0, d)))
    Xg = X[z == 1]

    def dist_good(Q, Xg=Xg):
        return np.min(np.linalg.norm(Q[:, None] - Xg[None], axis=-1), axis=1)

    print(
        fn,
        "beta",
        beta,
        f"a: random median {np.median(aR):.2f}, 99% {np.quantile(aR, 0.99):.2f}, "
        f"max {aR.max():.2f} | particles {np.round(a(P), 2)}",
    )
    print(
        "   dist to nearest good point: particles",
        np.round(dist_good(P), 2),
        f"random median {np.median(dist_good(R[:2000])):.2f}",
    )
