"""Fixtures of the core tests."""

import pytest

from shared_core.threads import limited_threads


@pytest.fixture
def one_blas_thread():
    """The algorithms run as the samplers run them, with one BLAS thread (``max_threads=1``): with
    a thread per core (CI unsets the thread variables), their small matrices cost about 25 times
    as long. Test modules that call algorithms use it for every test (``pytestmark``)."""
    with limited_threads(1):
        yield
