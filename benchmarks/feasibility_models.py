"""Feasibility models compared: how well each predicts where a point fails, from labelled
uniform points of a problem with a failure region.

    python -m benchmarks.feasibility_models --seeds 10

Models (``+1`` labels a failed point, ``-1`` a feasible one; ``g`` the latent function, failed
where ``g > 0``):

* ``latent-gp``: GP regression on the labels (one Matern-5/2 ARD GP, MAP hyperparameters of
  ``shared_core``'s exact GP), ``P(failed) = Phi(mu / sigma)`` from the latent posterior, as a
  constraint-handling rule reads a constraint's posterior.
* ``failure-model``: the failure model the samplers fit, ``EGPAlgorithm``'s constraint model on
  the labels (``ConstraintModels.fit_outcome``: one Matern-5/2 ARD GP, standardised outputs, no
  warping), ``P(failed) = Phi((mu - t) / sigma)`` with ``t`` the label 0 on its scale.
  ``ensemble``: the same on ``EGPAlgorithm``'s default kernel dictionary, ``P(failed)`` the
  weighted mixture over its members.
* ``probit-laplace``: GP classification with the probit likelihood by the Laplace approximation
  (Rasmussen & Williams, "Gaussian processes for machine learning", 2006, Algorithms 3.1 and
  3.2), ``P(failed) = Phi(mu / sqrt(1 + sigma^2))``; lengthscales of ``latent-gp``'s fit, the
  signal variance of :data:`AMPLITUDES` with the largest Laplace evidence. ``probit-latent``:
  the same posterior read as ``latent-gp`` reads its own, ``Phi(mu / sigma)``.

Scores on ``N_TEST`` uniform test points: log loss, Brier score, error rate (at 0.5), and the
probability of failure at the test points farthest inside the feasible set (``p_far``: the
mean over the quarter of feasible test points farthest from any failed test point); the fit's
milliseconds.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from scipy.linalg import cho_solve, solve_triangular
from scipy.spatial import cKDTree
from scipy.special import log_ndtr, ndtr

from benchmarks.harness.results import RESULTS
from benchmarks.harness.runner import run_and_summarise
from benchmarks.harness.tables import markdown_table, provenance_line
from shared_core.models.gp import ExactPosterior, GPHyper, fit_hyperparameters, safe_cholesky
from shared_core.models.kernels import KernelSpec, default_dictionary, kernel_matrix

N_TEST = 3000
AMPLITUDES = (1.0, 4.0, 16.0)
NEWTON_STEPS, NEWTON_TOLERANCE = 50, 1e-8
SPEC = KernelSpec("matern52", ard=True)
CELL = ("problem", "n", "seed")
MODELS = ("latent-gp", "failure-model", "ensemble", "probit-laplace", "probit-latent")
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)

# name: (dimension, failed(X (b, d)) -> (b,) bool)
PROBLEMS = {
    "halfplane2": (2, lambda X: X[:, 0] + X[:, 1] > 1.2),
    "disc2": (2, lambda X: (X[:, 0] - 0.3) ** 2 + (X[:, 1] - 0.6) ** 2 < 0.09),
    "product6": (6, lambda X: 4 * X[:, 0] * X[:, 1] + X[:, 2] > 1.5),
    "corner6": (6, lambda X: (X[:, 3] > 0.7) & (X[:, 4] > 0.5)),
}


def _inverse_mills(z: np.ndarray) -> np.ndarray:
    """``phi(z) / Phi(z)``, stable for large negative ``z``."""
    return np.exp(-0.5 * z**2 - _LOG_SQRT_2PI - log_ndtr(z))


def laplace(K: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """The mode ``g^`` ``(n,)`` of ``p(g | t)`` by Newton's method (Algorithm 3.1), ``W`` ``(n,)``
    there and the log evidence (eq. 3.32)."""
    n, g, objective = len(t), np.zeros(len(t)), -math.inf
    for _ in range(NEWTON_STEPS):
        z = t * g
        r = _inverse_mills(z)
        W = np.maximum(r**2 + z * r, 1e-12)  # eq. 3.16
        sW = np.sqrt(W)
        L = safe_cholesky(np.eye(n) + sW[:, None] * K * sW[None, :])
        b = W * g + t * r
        a = b - sW * cho_solve((L, True), sW * (K @ b))
        g = K @ a
        new = float(-0.5 * a @ g + log_ndtr(t * g).sum())
        if new - objective < NEWTON_TOLERANCE:
            break
        objective = new
    z = t * g
    r = _inverse_mills(z)
    W = np.maximum(r**2 + z * r, 1e-12)
    sW = np.sqrt(W)
    L = safe_cholesky(np.eye(n) + sW[:, None] * K * sW[None, :])
    evidence = float(-0.5 * (t * r) @ g + log_ndtr(z).sum() - np.log(np.diag(L)).sum())
    return g, W, evidence


def probit_predict(X: np.ndarray, t: np.ndarray, base: GPHyper, Xq: np.ndarray):
    """Latent mean and variance ``(b,)`` at ``Xq`` of the Laplace posterior (Algorithm 3.2) of
    the amplitude with the largest evidence."""
    best = None
    for amp in AMPLITUDES:
        K = kernel_matrix(SPEC, X, X, base.ls, amp)
        g, W, evidence = laplace(K, t)
        if best is None or evidence > best[0]:
            best = (evidence, amp, g, W)
    _, amp, g, W = best
    sW = np.sqrt(W)
    L = safe_cholesky(np.eye(len(t)) + sW[:, None] * kernel_matrix(SPEC, X, X, base.ls, amp) * sW)
    kq = kernel_matrix(SPEC, Xq, X, base.ls, amp)  # (b, n)
    mean = kq @ (t * _inverse_mills(t * g))  # eq. 3.21
    v = solve_triangular(L, sW[:, None] * kq.T, lower=True, check_finite=False)  # (n, b)
    return mean, np.maximum(amp - np.einsum("nb,nb->b", v, v), 1e-12)  # eq. 3.24


def model_failure_probability(
    X: np.ndarray,
    t: np.ndarray,
    Xq: np.ndarray,
    rng: np.random.Generator,
    kernels: tuple[KernelSpec, ...] | None = None,
) -> np.ndarray:
    """``(b,)`` probability of failure at ``Xq`` of the samplers' failure model fitted to the
    labels ``t`` at ``X`` (``kernels``: fitted on these instead of its own): the mixture over
    its members."""
    from shared_core.algorithms.egp import EGPAlgorithm
    from shared_core.models.constraint_models import FAILED, ConstraintModels

    models = ConstraintModels(EGPAlgorithm().model)
    if kernels is not None:
        models.label_kernels = kernels
    model = models.fit_outcome(FAILED, X, t, rng, labels=True)
    threshold = float(model.y_std(np.zeros(1))[0])
    no_pending = np.zeros((0, X.shape[1]))
    out = np.zeros(len(Xq))
    for m, w in enumerate(model.weights):
        mean, var = model.conditioned_on_pending(m, no_pending).post.predict(Xq)
        out += w * ndtr((mean - threshold) / np.sqrt(var))
    return out


def _scores(p_failed: np.ndarray, failed: np.ndarray, far: np.ndarray) -> dict:
    p = np.clip(p_failed, 1e-9, 1 - 1e-9)
    y = failed.astype(float)
    return {
        "log_loss": float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean()),
        "brier": float(((p - y) ** 2).mean()),
        "error": float(((p > 0.5) != failed).mean()),
        "p_far": float(p[far].mean()),
    }


def run_one(job: dict) -> dict:
    d, region = PROBLEMS[job["problem"]]
    rng = np.random.default_rng(job["seed"])
    X, Xq = rng.random((job["n"], d)), rng.random((N_TEST, d))
    failed, failed_q = region(X), region(Xq)
    distance = cKDTree(Xq[failed_q]).query(Xq)[0] if failed_q.any() else np.ones(N_TEST)
    far = ~failed_q & (distance >= np.quantile(distance[~failed_q], 0.75))
    t = np.where(failed, 1.0, -1.0)
    start = time.perf_counter()
    base = fit_hyperparameters(SPEC, X, t)
    mean, var = ExactPosterior(SPEC, base, X, t).predict(Xq)
    latent_ms = 1000 * (time.perf_counter() - start)
    start = time.perf_counter()
    p_shipped = model_failure_probability(X, t, Xq, rng)
    shipped_ms = 1000 * (time.perf_counter() - start)
    start = time.perf_counter()
    p_ensemble = model_failure_probability(X, t, Xq, rng, kernels=default_dictionary())
    ensemble_ms = 1000 * (time.perf_counter() - start)
    start = time.perf_counter()
    p_mean, p_var = probit_predict(X, t, base, Xq)
    probit_ms = latent_ms + 1000 * (time.perf_counter() - start)
    models = {
        "latent-gp": (ndtr(mean / np.sqrt(var)), latent_ms),
        "failure-model": (p_shipped, shipped_ms),
        "ensemble": (p_ensemble, ensemble_ms),
        "probit-laplace": (ndtr(p_mean / np.sqrt(1 + p_var)), probit_ms),
        "probit-latent": (ndtr(p_mean / np.sqrt(p_var)), probit_ms),
    }
    scores = {m: {**_scores(p, failed_q, far), "fit_ms": ms} for m, (p, ms) in models.items()}
    # "sampler": whose failure model is scored (the rows' fingerprint)
    return {
        "bench": "feasibility_models",
        "sampler": "egp-auto",
        **job,
        "n_failed": int(failed.sum()),
        "scores": scores,
    }


def summarise(rows: list[dict]) -> list[str]:
    """A table per training size: mean scores over the seeds of each problem and model."""
    lines = []
    for n in sorted({r["n"] for r in rows}):
        body = []
        for problem in PROBLEMS:
            rs = [r for r in rows if r["n"] == n and r["problem"] == problem]
            for model in MODELS if rs else ():
                mean = {
                    k: np.mean([r["scores"][model][k] for r in rs]) for k in rs[0]["scores"][model]
                }
                cells = [f"{mean[k]:.3f}" for k in ("log_loss", "brier", "error", "p_far")]
                body.append([problem, model, *cells, f"{mean['fit_ms']:.0f}", str(len(rs))])
        header = ["problem", "model", "log loss", "Brier", "error", "p_far", "fit ms", "seeds"]
        lines += [f"{n} labelled points:", "", *markdown_table(header, body), ""]
    return lines + [provenance_line(rows), ""]


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.feasibility_models", description=__doc__)
    p.add_argument("--problems", default=",".join(PROBLEMS))
    p.add_argument("--sizes", default="20,60", help="labelled points, comma-separated")
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--out", default=str(RESULTS / "feasibility_models.jsonl"))
    a = p.parse_args(argv)
    problems = [name for name in a.problems.split(",") if name]
    if bad := sorted(set(problems) - set(PROBLEMS)):
        p.error(f"unknown problems {', '.join(bad)}; known: {', '.join(PROBLEMS)}")
    jobs = [
        # "sampler": whose failure model is scored (the rows' fingerprint; resumed runs match it)
        {"sampler": "egp-auto", "problem": problem, "n": int(n), "seed": seed}
        for seed in range(a.seeds)
        for problem in problems
        for n in a.sizes.split(",")
    ]
    run_and_summarise(
        jobs,
        run_one,
        out=a.out,
        cell=CELL,
        describe=lambda r: f"{r['problem']} n={r['n']} seed={r['seed']}",
        summarise=summarise,
    )


if __name__ == "__main__":
    main()
