"""Which parameters interact: a partition read off a full GP's posterior mean, the start of
DEC-HBO's structure chain.

A sum of functions of disjoint groups of parameters has zero mixed partial derivatives
``d^2 f / dx_i dx_j`` between parameters of different groups. So the magnitude of a fitted
model's mixed partials, averaged over the data, ranks pairs of parameters by how strongly they
interact; merging the strongest pairs first into groups of at most ``max_size`` parameters gives a
partition. The model is one Matérn-5/2 GP with a lengthscale per encoded column (MAP
hyperparameters, :func:`~shared_core.models.gp.fit_hyperparameters`): it needs no structure, and
one fit costs a fraction of an additive GP's over the same trials.

The chain started from a random partition cannot find the groups among many parameters within a
few hundred moves; started here, it refines a partition that is already close (design decisions:
"DEC-HBO at 20-100 parameters").

Glossary (shapes in comments): n observations, d encoded columns, p parameters, b points.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from shared_core.models.gp import ExactPosterior, fit_hyperparameters
from shared_core.models.kernels import KernelSpec
from shared_core.models.structure import Partition, canonical

__all__ = ["interaction_partition", "interaction_strengths", "mean_cross_partials"]

MAX_POINTS = 100  # data points the mixed partials are averaged over
_SPEC = KernelSpec("matern52", ard=True)


def mean_cross_partials(
    post: ExactPosterior, P: np.ndarray, param_columns: Sequence[np.ndarray]
) -> np.ndarray:
    """How strongly each pair of parameters interacts in a Matérn-5/2 ARD posterior's mean
    ``mu(x) = sum_n alpha_n amp kbar(r2(x, x_n))``: ``(p, p)``, zero diagonal, the mean over the
    points ``P`` ``(b, d)`` of ``|d^2 mu / dx_i dx_j|`` for parameters of one column each. A
    parameter of several columns (a categorical's one-hot columns) has its block centred first,
    derivatives along differences of choices (moves that stay among the choices), and a pair's
    value is the Frobenius norm of its block: a categorical's strength does not grow with its
    number of choices.

    With ``u_ni = (x_i - x_ni) / ls_i^2``, ``d^2 kbar / dx_i dx_j = 4 kbar''(r2) u_ni u_nj`` for
    ``i != j``, and for the Matérn-5/2 ``kbar''(r2) = (25 / 12) exp(-sqrt(5 r2))``."""
    if post.spec.form != "matern52" or not post.spec.ard:
        raise ValueError(f"mean_cross_partials needs a Matérn-5/2 ARD posterior, got {post.spec}")
    h = post.hyper
    d = post.X.shape[1]
    ls2 = np.asarray(h.ls, dtype=float) ** 2  # (d,)
    blocks = [np.asarray(c) for c in param_columns if len(c) > 1]
    of_param = np.zeros((d, len(param_columns)))  # (d, p): 1 where a column is the parameter's
    for j, columns in enumerate(param_columns):
        of_param[columns, j] = 1.0
    out = np.zeros((len(param_columns),) * 2)
    for x in P:
        diff = x - post.X  # (n, d)
        r = np.sqrt(np.sum(diff * diff / ls2, axis=1))  # (n,)
        weight = post.alpha * h.amp * (25.0 / 3.0) * np.exp(-math.sqrt(5.0) * r)  # (n,)
        U = diff / ls2  # (n, d)
        H = (U * weight[:, None]).T @ U  # (d, d) signed mixed partials
        for b in blocks:  # T H T, T centring the block's columns
            H[:, b] -= H[:, b].mean(axis=1, keepdims=True)
            H[b, :] -= H[b, :].mean(axis=0, keepdims=True)
        out += np.abs(H) if not blocks else np.sqrt(of_param.T @ (H * H) @ of_param)
    np.fill_diagonal(out, 0.0)
    return out / max(len(P), 1)


def interaction_strengths(
    X: np.ndarray,
    y: np.ndarray,
    param_columns: Sequence[np.ndarray],
    rng: np.random.Generator,
    noise: float | None = None,
) -> np.ndarray:
    """``(p, p)`` how strongly each pair of parameters interacts in a GP fitted to ``(X (n, d),
    y (n,))``: :func:`mean_cross_partials` at the data points, ``MAX_POINTS`` of them drawn by
    ``rng`` where there are more. ``noise``: the GP's noise variance, fixed (else fitted)."""
    post = ExactPosterior(_SPEC, fit_hyperparameters(_SPEC, X, y, noise=noise), X, y)
    rows = (
        np.arange(len(X))
        if len(X) <= MAX_POINTS
        else rng.choice(len(X), size=MAX_POINTS, replace=False)
    )
    return mean_cross_partials(post, X[rows], param_columns)


def interaction_partition(strength: np.ndarray, max_size: int) -> Partition:
    """Groups of at most ``max_size`` parameters from the ``(p, p)`` symmetric ``strength``:
    pairs in decreasing strength (ties by position) join their groups where the joined group
    fits; pairs of zero strength stay apart."""
    p = len(strength)
    group = [{i} for i in range(p)]  # group[i]: the set parameter i is in (shared)
    upper = np.triu_indices(p, 1)
    for k in np.argsort(-strength[upper], kind="stable"):
        i, j = int(upper[0][k]), int(upper[1][k])
        if not strength[i, j] > 0.0:  # zero (or NaN): no evidence of an interaction
            break
        if group[i] is group[j] or len(group[i]) + len(group[j]) > max_size:
            continue
        joined = group[i] | group[j]
        for m in joined:
            group[m] = joined
    return canonical([sorted(g) for g in {id(g): g for g in group}.values()])
