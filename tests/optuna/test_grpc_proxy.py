"""Worker processes of every named sampler through Optuna's gRPC storage proxy.

One proxy server (``optuna.storages.run_grpc_proxy_server``, in a process of its own) stands in
front of the test PostgreSQL server; worker processes reach the studies only through
``optuna.storages.GrpcStorageProxy``, as the workers of a large cluster would. The test process
itself never opens a gRPC channel (gRPC's threads do not survive a ``fork`` of the test process
by a later test): it creates the studies, waits for the server to report that it bound its port,
and checks the results on PostgreSQL directly.

Runs when EGP_TEST_POSTGRES_URL points at a server (``.ci/run`` starts one); skipped otherwise.
"""

import importlib.util
import multiprocessing as mp
import os
import socket
import time
import uuid
import warnings

import optuna
import pytest
from optuna.trial import TrialState

from optuna_egp import VIEW_KEY, WEIGHTS_KEY, BORESampler, DistributedTSSampler, EGPTSSampler
from optuna_egp.distributed import AGENT_ATTR
from shared_core.algorithms.bore import BOREAlgorithm
from shared_core.algorithms.distributed import DistributedTSAlgorithm
from shared_core.algorithms.egp import EGPAlgorithm
from tests.optuna._grpc_proxy_server import HOST, serve

N_WORKERS, TRIALS_PER_WORKER, N_STARTUP = 2, 3, 2
N_TRIALS = N_WORKERS * TRIALS_PER_WORKER
# Trials asked while fewer than N_STARTUP had completed are start-up trials: the first N_STARTUP,
# plus at most one running trial of each other worker. Every later one is suggested by the model.
MIN_MODEL_BASED = N_TRIALS - N_STARTUP - (N_WORKERS - 1)
SAMPLERS = {  # name -> the core algorithm it runs
    "EGPTSSampler": EGPAlgorithm,
    "BORESampler": BOREAlgorithm,
    "DistributedTSSampler": DistributedTSAlgorithm,
}
MODEL_BASED_ATTR = "model-based suggestions of worker {}"
SERVER_READY_SECONDS = 60.0
WORKER_SECONDS = 180.0  # for all the workers together
BIND_TRIES = 3


def _objective(trial: optuna.Trial) -> float:
    x, y = trial.suggest_float("x", -2.0, 2.0), trial.suggest_float("y", -1.0, 1.0)
    return (x - 0.5) ** 2 + y**2


def _sampler(name: str, worker: int) -> optuna.samplers.BaseSampler:
    """The sampler of one worker, at small settings (the models' quality is not under test)."""
    if name == "DistributedTSSampler":  # one agent per worker process
        return DistributedTSSampler(
            agent_id=worker,
            graph="complete",
            n_agents=N_WORKERS,
            n_features=64,
            seed=0,
            n_startup_trials=N_STARTUP,
        )
    if name == "BORESampler":
        return BORESampler(
            svgd_steps=100, n_raw=64, n_starts=2, seed=worker, n_startup_trials=N_STARTUP
        )
    return EGPTSSampler(
        n_features=64, n_raw=64, n_starts=2, seed=worker, n_startup_trials=N_STARTUP
    )


def _work(port: int, names: dict[str, str], worker: int) -> None:
    """A worker process: one worker of each sampler's study in turn (the processes start together,
    so each study has N_WORKERS workers at the same time), all through the proxy. Counts its
    model-based suggestions (calls of the sampler's core algorithm) and records the count in the
    study, also through the proxy."""
    warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    storage = optuna.storages.GrpcStorageProxy(host=HOST, port=port)
    storage.wait_server_ready(timeout=SERVER_READY_SECONDS)
    for sampler, algorithm_class in SAMPLERS.items():
        calls = _count_calls(algorithm_class)
        study = optuna.load_study(
            study_name=names[sampler], storage=storage, sampler=_sampler(sampler, worker)
        )
        study.optimize(_objective, n_trials=TRIALS_PER_WORKER)
        study.set_user_attr(MODEL_BASED_ATTR.format(worker), len(calls))
    storage.close()


def _count_calls(algorithm_class: type) -> list[int]:
    """Counts the calls of ``algorithm_class.suggest`` in this process (one item per call)."""
    suggest, calls = algorithm_class.suggest, []

    def counting_suggest(self, *args, **kwargs):
        calls.append(1)
        return suggest(self, *args, **kwargs)

    algorithm_class.suggest = counting_suggest
    return calls


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def _start(ctx, url: str, names: dict[str, str], processes: list) -> list:
    """Starts the proxy server on a free port and the workers, which import their modules while
    the server comes up (all again on another port if the server cannot bind its own); returns
    the workers once the server listens, or fails the test with the cause."""
    causes = []
    for _ in range(BIND_TRIES):
        port, started = _free_port(), ctx.Event()
        server = ctx.Process(target=serve, args=(url, port, started), daemon=True)
        workers = [ctx.Process(target=_work, args=(port, names, w)) for w in range(N_WORKERS)]
        for p in (server, *workers):
            p.start()
            processes.append(p)
        deadline = time.monotonic() + SERVER_READY_SECONDS
        while not started.wait(0.05) and server.is_alive():
            if time.monotonic() > deadline:
                pytest.fail(f"the gRPC proxy server did not start in {SERVER_READY_SECONDS:.0f} s")
        if started.is_set() and server.is_alive():
            return workers
        # e.g. a port taken since _free_port: "Failed to bind" (the traceback is in stderr)
        causes.append(f"port {port}: the server exited with code {server.exitcode}")
        _stop([server, *workers])  # the workers wait for a server that is not there
    pytest.fail(f"the gRPC proxy server did not start: {'; '.join(causes)} (see stderr)")


def _stop(processes: list) -> None:
    """Ends every process that is still running: terminate, then kill."""
    for p in processes:
        if p.is_alive():
            p.terminate()
    for p in processes:
        p.join(timeout=5)
        if p.is_alive():
            p.kill()
            p.join()


@pytest.mark.slow
@pytest.mark.postgres
def test_worker_processes_of_every_sampler_through_the_grpc_proxy(postgres_study):
    if not hasattr(optuna.storages, "GrpcStorageProxy"):
        pytest.skip(f"Optuna {optuna.__version__} has no gRPC storage proxy (Optuna >= 4.2 has)")
    if importlib.util.find_spec("grpc") is None:  # not imported here: see the module docstring
        pytest.skip('grpcio is not installed (python -m pip install -e ".[test]")')
    run = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"  # concurrent runs on one server stay apart
    names = {sampler: f"grpc-proxy-{run}-{sampler}" for sampler in SAMPLERS}
    url = ""
    processes: list = []
    try:
        for name in names.values():
            url = postgres_study(name)  # a new, empty study on the PostgreSQL server
        ctx = mp.get_context("spawn")  # a fresh interpreter: no state of the test process
        workers = _start(ctx, url, names, processes)
        deadline = time.monotonic() + WORKER_SECONDS  # one deadline for all the workers
        for p in workers:
            p.join(timeout=max(0.0, deadline - time.monotonic()))
        exit_codes = [p.exitcode for p in workers]
        assert exit_codes == [0] * N_WORKERS, "a worker crashed (or hung: None); see stderr"
        _check_studies(names, url)
    finally:
        _stop(processes)
        for name in names.values() if url else ():
            try:
                optuna.delete_study(study_name=name, storage=url)
            except KeyError:  # never created
                pass


def _check_studies(names: dict[str, str], url: str) -> None:
    for sampler, name in names.items():
        study = optuna.load_study(study_name=name, storage=url)
        trials = study.get_trials(deepcopy=False)
        assert len(trials) == N_TRIALS, sampler
        assert all(t.state == TrialState.COMPLETE for t in trials), sampler
        assert all(-2 <= t.params["x"] <= 2 and -1 <= t.params["y"] <= 1 for t in trials)
        model_based = [study.user_attrs[MODEL_BASED_ATTR.format(w)] for w in range(N_WORKERS)]
        # every worker's last trial came after its own N_STARTUP completed ones: model-based
        assert min(model_based) >= 1, (sampler, model_based)
        assert sum(model_based) >= MIN_MODEL_BASED, (sampler, model_based)
        if sampler == "EGPTSSampler":  # the ensemble's weights, on every model-based trial
            assert sum(WEIGHTS_KEY in t.system_attrs for t in trials) >= MIN_MODEL_BASED
        if sampler == "DistributedTSSampler":  # each trial's agent, and what its model saw
            assert sorted(t.user_attrs[AGENT_ATTR] for t in trials) == sorted(
                list(range(N_WORKERS)) * TRIALS_PER_WORKER
            )
            views = [t for t in trials if VIEW_KEY in t.system_attrs]
            assert len(views) >= MIN_MODEL_BASED
            assert all(t.system_attrs[VIEW_KEY]["agent"] == t.user_attrs[AGENT_ATTR] for t in views)
