"""The process of the gRPC proxy server in test_grpc_proxy.py: Optuna's ``run_grpc_proxy_server``,
reporting when it has bound its port. A module of its own, so that the server's process imports
Optuna only (not the samplers and their dependencies, which the workers import meanwhile)."""

import logging
import warnings

import optuna

HOST = "127.0.0.1"  # one address: "localhost" may bind [::1] alone when 127.0.0.1's port is taken


class _Started(logging.Handler):
    """Sets an event when Optuna's gRPC server logs that it started, which it does once its port
    is bound (gRPC raises "Failed to bind" otherwise, and the process exits)."""

    def __init__(self, started) -> None:
        super().__init__()
        self.started = started

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("Server started at"):
            self.started.set()


def serve(url: str, port: int, started) -> None:
    """The proxy server's process: Optuna's ``run_grpc_proxy_server``, which sets ``started``."""
    warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
    optuna.logging.set_verbosity(optuna.logging.INFO)  # the default: it logs that it started
    logging.getLogger("optuna").addHandler(_Started(started))
    # get_storage, not RDBStorage: the server then caches finished trials (Optuna's advice)
    optuna.storages.run_grpc_proxy_server(optuna.storages.get_storage(url), host=HOST, port=port)
