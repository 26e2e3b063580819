"""The engines' test problem, importing nothing heavy: Ray Tune's actors import this module to
run the trainable, and every import costs each of them start-up time."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover - annotations only
    import optuna


def define_space(trial: optuna.Trial) -> None:
    """A define-by-run space with a branch: ``kind`` chooses which second parameter exists (Ray
    Tune's ``OptunaSearch(space=...)`` form)."""
    trial.suggest_float("x", -3.0, 3.0)
    kind = trial.suggest_categorical("kind", ["a", "b"])
    trial.suggest_float(f"y_{kind}", -3.0, 3.0)


def loss(config: dict[str, Any]) -> float:
    """Minimum 0 at ``kind="a", x=1, y_a=-1``; branch ``b`` is worse by 0.5 everywhere."""
    y = config["y_a"] if config["kind"] == "a" else config["y_b"]
    return (config["x"] - 1.0) ** 2 + (y + 1.0) ** 2 + (0.0 if config["kind"] == "a" else 0.5)


def objective(trial: optuna.Trial) -> float:
    define_space(trial)
    return loss(trial.params)


def trainable(config: dict[str, Any]) -> dict[str, float]:
    """Ray Tune's form of the objective: a training run, so that trials overlap."""
    time.sleep(0.1)
    return {"loss": loss(config)}
