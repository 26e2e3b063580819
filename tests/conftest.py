"""Test-session settings.

PyTorch runs BORE's tiny 2x32 network. With its default intra-op thread pool (2 threads on the CI
machines) small ops wait on the other thread, and as soon as another process is busy the network
is several times slower (the BORE seed test: 91 s with 2 threads next to a second test run,
11 s with 1 thread alone; a whole CI run next to one benchmark process took 29.5 min instead of
~6). Users get the same advice in the README.
"""

import os

import optuna
import pytest

try:
    import torch
except ImportError:  # pragma: no cover - torch is in the test extra
    torch = None

if torch is not None:
    torch.set_num_threads(1)


@pytest.fixture
def postgres_study():
    """``make(name) -> url``: a new, empty study ``name`` on the test PostgreSQL server (``.ci/run`` starts
    one and sets ``EGP_TEST_POSTGRES_URL``); the test is skipped without a server."""
    url = os.environ.get("EGP_TEST_POSTGRES_URL")
    if not url:
        pytest.skip("EGP_TEST_POSTGRES_URL is not set (.ci/run starts a PostgreSQL server and sets it)")
    pytest.importorskip("psycopg2")

    def make(name: str) -> str:
        try:
            optuna.delete_study(study_name=name, storage=url)
        except KeyError:
            pass
        optuna.create_study(study_name=name, storage=url)
        return url

    return make
