"""Dask: optuna-integration's ``DaskStorage`` on a ``dask.distributed.LocalCluster`` of 2 worker
processes, each running ``study.optimize`` with one of our samplers, on a space with a branch."""

from __future__ import annotations

import warnings

import optuna
import pytest

from tests.engines.checks import SAMPLERS, check_engine_run
from tests.engines.problem import objective

distributed = pytest.importorskip("distributed")  # the dask extra
optuna_integration = pytest.importorskip("optuna_integration")

N_WORKERS, TRIALS_PER_WORKER = 2, 7

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    import dask

    folder = str(tmp_path_factory.mktemp("dask"))  # Dask's spill and lock files
    with (
        dask.config.set({"temporary-directory": folder}),
        distributed.LocalCluster(
            n_workers=N_WORKERS, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def _optimize(storage, study_name: str, sampler_name: str, worker: int) -> None:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = SAMPLERS[sampler_name](worker, N_WORKERS)
    study = optuna.load_study(study_name=study_name, storage=storage, sampler=sampler)
    study.optimize(objective, n_trials=TRIALS_PER_WORKER)


@pytest.mark.parametrize("sampler_name", SAMPLERS)
def test_every_sampler_runs_on_two_dask_workers(client, sampler_name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)  # DaskStorage's
        storage = optuna_integration.DaskStorage(client=client)
    study = optuna.create_study(storage=storage, study_name=sampler_name)
    futures = [
        client.submit(_optimize, storage, sampler_name, sampler_name, i, pure=False)
        for i in range(N_WORKERS)
    ]
    for future in futures:
        future.result(timeout=240)  # raises what the worker raised
    check_engine_run(study.get_trials(), N_WORKERS * TRIALS_PER_WORKER, N_WORKERS)
