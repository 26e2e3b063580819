"""Ray Tune with an egp-samplers sampler: ``OptunaSearch(sampler=EGPTSSampler())``, 4 trials at
a time, on a search space with a branch.

Run:  python examples/ray_tune.py [sampler] [trials]
      sampler: EGPTSSampler (default), BORESampler, DECHBOSampler, STOBNTSSampler or
      DistributedTSSampler; trials: default 30
Needs:  python -m pip install "egp-samplers[ray]"   (Ray Tune)

Ray Tune asks ``OptunaSearch`` for a configuration whenever it can start a trial; the searcher
asks its Optuna study, which asks our sampler in this process. ``ConcurrencyLimiter`` keeps at
most 4 trials running; each needs half a CPU here (``tune.with_resources``), so 4 run at once on 2
CPUs. The trials Ray is running are the study's running trials: the sampler takes them as pending
points and suggests away from them. One process asks, so ``DistributedTSSampler`` is one agent
here. Ray's results folder is a temporary folder, removed at the end.
"""

from __future__ import annotations

import sys
import tempfile
import time

import optuna
import ray
from ray import tune
from ray.tune.search import ConcurrencyLimiter
from ray.tune.search.optuna import OptunaSearch

import optuna_egp

SAMPLERS = (
    "EGPTSSampler",
    "BORESampler",
    "DECHBOSampler",
    "STOBNTSSampler",
    "DistributedTSSampler",
)
MAX_CONCURRENT = 4


def space(trial: optuna.Trial) -> None:
    """A define-by-run space: ``y_a`` or ``y_b`` exists as ``kind`` says."""
    trial.suggest_float("x", -3.0, 3.0)
    kind = trial.suggest_categorical("kind", ["a", "b"])
    trial.suggest_float(f"y_{kind}", -3.0, 3.0)


def train(config: dict) -> dict:
    """The "training run": a short wait, then the loss (minimum 0 at x = 1, kind = a, y_a = -1)."""
    time.sleep(0.1)
    y = config["y_a"] if config["kind"] == "a" else config["y_b"]
    return {"loss": (config["x"] - 1.0) ** 2 + (y + 1.0) ** 2 + (config["kind"] == "b") * 0.5}


def make_sampler(name: str) -> optuna.samplers.BaseSampler:
    if name == "DistributedTSSampler":  # one process asks: one agent
        return optuna_egp.DistributedTSSampler(agent_id=0, n_agents=1, seed=0)
    return getattr(optuna_egp, name)(seed=0)


def main(sampler_name: str, n_trials: int) -> None:
    search = OptunaSearch(
        space=space, metric="loss", mode="min", sampler=make_sampler(sampler_name)
    )
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        with tempfile.TemporaryDirectory() as folder:
            tuner = tune.Tuner(
                tune.with_resources(train, {"cpu": 2 / MAX_CONCURRENT}),
                tune_config=tune.TuneConfig(
                    search_alg=ConcurrencyLimiter(search, max_concurrent=MAX_CONCURRENT),
                    num_samples=n_trials,
                    reuse_actors=True,  # one actor runs one trial after another
                ),
                run_config=tune.RunConfig(storage_path=folder, verbose=0),
            )
            best = tuner.fit().get_best_result(metric="loss", mode="min")
    finally:
        ray.shutdown()
    shown = {k: round(v, 3) if isinstance(v, float) else v for k, v in best.config.items()}
    print(f"{sampler_name} in Ray Tune, {n_trials} trials, {MAX_CONCURRENT} at a time")
    print(f"best loss {best.metrics['loss']:.4f} at {shown}")
    print("(the minimum is 0 at x = 1, kind = 'a', y_a = -1)")


def parse_args(argv: list[str]) -> tuple[str, int]:
    if len(argv) > 2:
        raise ValueError(f"at most 2 arguments (sampler, trials), got {argv}")
    name = argv[0] if argv else "EGPTSSampler"
    if name not in SAMPLERS:
        raise ValueError(f"sampler must be one of {SAMPLERS}, got {name!r}")
    n_trials = int(argv[1]) if len(argv) > 1 else 30
    if n_trials < 1:
        raise ValueError(f"trials must be at least 1, got {n_trials}")
    return name, n_trials


if __name__ == "__main__":
    main(*parse_args(sys.argv[1:]))
