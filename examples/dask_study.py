"""An Optuna study on a Dask cluster: every Dask worker runs ``study.optimize`` with an
egp-samplers sampler, the study kept by the scheduler (optuna-integration's ``DaskStorage``).

Run:  python examples/dask_study.py [sampler] [trials per worker]
      sampler: EGPTSSampler (default), BORESampler, DECHBOSampler, STOBNTSSampler or
      DistributedTSSampler; trials per worker: default 15
Needs:  python -m pip install "egp-samplers[dask]"   (dask.distributed and optuna-integration)

A ``LocalCluster`` of 2 worker processes stands in for a real cluster; with one, pass its
scheduler's address to ``Client`` instead. ``DaskStorage()`` keeps the study in the scheduler's
memory (give it a storage URL, e.g. ``DaskStorage("postgresql://...")``, to keep it in a
database). Each task loads the study with its own sampler: ``DistributedTSSampler`` gets its own
agent there. Every worker sees the trials the others are running as pending, so the two do not
evaluate the same point.
"""

from __future__ import annotations

import sys
import tempfile
import warnings

import dask
import optuna
from dask.distributed import Client, LocalCluster
from optuna_integration import DaskStorage

import optuna_egp

N_WORKERS = 2
SAMPLERS = (
    "EGPTSSampler",
    "BORESampler",
    "DECHBOSampler",
    "STOBNTSSampler",
    "DistributedTSSampler",
)


def objective(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", -3.0, 3.0)
    kind = trial.suggest_categorical("kind", ["a", "b"])  # a branch: y_a or y_b
    y = trial.suggest_float(f"y_{kind}", -3.0, 3.0)
    return (x - 1.0) ** 2 + (y + 1.0) ** 2 + (0.0 if kind == "a" else 0.5)


def make_sampler(name: str, worker: int) -> optuna.samplers.BaseSampler:
    if name == "DistributedTSSampler":  # one agent per worker
        return optuna_egp.DistributedTSSampler(agent_id=worker, n_agents=N_WORKERS, seed=worker)
    return getattr(optuna_egp, name)(seed=worker)


def optimize(storage: DaskStorage, sampler_name: str, worker: int, n_trials: int) -> None:
    """One Dask task: this worker's share of the trials."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = make_sampler(sampler_name, worker)
    study = optuna.load_study(study_name="dask-demo", storage=storage, sampler=sampler)
    study.optimize(objective, n_trials=n_trials)


def main(sampler_name: str, n_trials: int) -> None:
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    # Dask's spill and lock files go to a temporary folder, removed at the end
    with (
        tempfile.TemporaryDirectory() as folder,
        dask.config.set({"temporary-directory": folder}),
        LocalCluster(n_workers=N_WORKERS, threads_per_worker=1, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        storage = DaskStorage(client=client)
        study = optuna.create_study(study_name="dask-demo", storage=storage)
        futures = [
            client.submit(optimize, storage, sampler_name, worker, n_trials, pure=False)
            for worker in range(N_WORKERS)
        ]
        for future in futures:
            future.result()  # raises what the task raised
        trials = study.get_trials()
        # how each trial's point was chosen: the claim the sampler wrote (docs/engines.md)
        by = [(t.system_attrs.get("egp_samplers:claim") or {}).get("by") for t in trials]
        print(f"{sampler_name} on {N_WORKERS} Dask workers: {len(trials)} trials")
        print(f"{by.count('model')} suggested by the model, after the random start-up trials")
        print(f"best value {study.best_value:.4f} at {study.best_params}")
        print("(the minimum is 0 at x = 1, kind = 'a', y_a = -1)")


def parse_args(argv: list[str]) -> tuple[str, int]:
    if len(argv) > 2:
        raise ValueError(f"at most 2 arguments (sampler, trials per worker), got {argv}")
    name = argv[0] if argv else "EGPTSSampler"
    if name not in SAMPLERS:
        raise ValueError(f"sampler must be one of {SAMPLERS}, got {name!r}")
    n_trials = int(argv[1]) if len(argv) > 1 else 15
    if n_trials < 1:
        raise ValueError(f"trials per worker must be at least 1, got {n_trials}")
    return name, n_trials


if __name__ == "__main__":
    main(*parse_args(sys.argv[1:]))
