"""The feasibility-model comparison (``benchmarks.feasibility_models``): its Laplace mode is the
fixed point of Rasmussen & Williams' Newton iteration, and a run scores every model."""

import numpy as np
from scipy.special import log_ndtr

from benchmarks import feasibility_models as fm
from shared_core.models.kernels import kernel_matrix


def test_the_laplace_mode_is_the_fixed_point_of_newtons_method():
    X = np.random.default_rng(0).random((30, 2))
    t = np.where(fm.PROBLEMS["disc2"][1](X), 1.0, -1.0)
    K = kernel_matrix(fm.SPEC, X, X, np.full(2, 0.3), 4.0)
    g, W, evidence = fm.laplace(K, t)
    # at the mode g = K grad log p(t | g) (Rasmussen & Williams 2006, eq. 3.17)
    grad = t * np.exp(-0.5 * (t * g) ** 2 - 0.5 * np.log(2 * np.pi) - log_ndtr(t * g))
    np.testing.assert_allclose(g, K @ grad, atol=1e-6)
    assert np.all(W > 0) and np.isfinite(evidence)


def test_a_run_scores_every_model():
    row = fm.run_one({"problem": "halfplane2", "n": 20, "seed": 0})
    assert set(row["scores"]) == set(fm.MODELS)
    for scores in row["scores"].values():
        assert 0 <= scores["brier"] <= 1 and 0 <= scores["error"] <= 1 and scores["log_loss"] > 0
    # seed 0 has failed and feasible points; far inside the feasible set both read "feasible"
    assert 0 < row["n_failed"] < 20
    assert (
        row["scores"]["latent-gp"]["p_far"] < 0.5 and row["scores"]["probit-laplace"]["p_far"] < 0.5
    )
    assert fm.summarise([row])[0] == "20 labelled points:"
