"""What the model learned, as a picture: kernel weights over trials and parameter relevance.

Run:  python examples/model_plot.py [out.png]
      (needs Matplotlib: python -m pip install -e ".[plot]")
A 4-parameter objective in which ``noise`` does not matter. EGPTSSampler records its ensemble in the
study (share_model=True, the default); plot_model reads it back: the left panel shows how the
posterior weight moves between kernels as trials come in (on a log scale, so the kernels that lost
show how far behind they are), the right one how relevant each parameter is to the ARD kernel (its
inverse lengthscale, normalised): ``noise`` should get almost none. The picture goes to out.png
(default ``model.png`` in the current folder).
"""

from __future__ import annotations

import math
import sys

import matplotlib

matplotlib.use("Agg")  # write a file; no display needed

import optuna

from optuna_egp import EGPTSSampler, model_history, plot_model


def objective(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", -5.0, 5.0)
    lr = trial.suggest_float("lr", 1e-5, 1e-1, log=True)
    act = trial.suggest_categorical("act", ["relu", "tanh", "gelu"])
    trial.suggest_float("noise", 0.0, 1.0)  # irrelevant
    return (
        (x - 1.0) ** 2 + (math.log10(lr) + 3.0) ** 2 + {"relu": 0.0, "tanh": 1.0, "gelu": 0.5}[act]
    )


def main() -> None:
    out = sys.argv[1] if len(sys.argv) > 1 else "model.png"
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(sampler=EGPTSSampler(seed=0, n_startup_trials=10))
    study.optimize(objective, n_trials=40)
    print(f"best value {study.best_value:.4f} at {study.best_params}")

    history = model_history(study)  # the numbers behind the picture (no Matplotlib needed)
    final = zip(history.kernel_names, history.weights[-1])  # weights after the last trial, (M,)
    print("final kernel weights: " + ", ".join(f"{k} {w:.2g}" for k, w in final))
    for kernel, shares in history.relevance().items():
        print(f"relevance ({kernel}): " + ", ".join(f"{p} {s:.3f}" for p, s in shares.items()))

    fig = plot_model(study)
    fig.savefig(out, dpi=120)
    print(f"saved {out}")


if __name__ == "__main__":
    main()
