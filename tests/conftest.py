"""Test-session settings.

PyTorch runs BORE's tiny 2x32 network. With its default intra-op thread pool (2 threads on the CI
machines) small ops wait on the other thread, and as soon as another process is busy the network
is several times slower (the BORE seed test: 91 s with 2 threads next to a second test run,
11 s with 1 thread alone; a whole CI run next to one benchmark process took 29.5 min instead of
~6). Users get the same advice on the BORE page of the docs (docs/samplers/bore.md).

With ``EGP_TEST_FORBID_SKIPS=1`` in the environment (as in CI) a run that skipped any test fails,
and its summary lists the skipped tests with their reasons: a missing server or package then
shows as a failure instead of a green run that did not test it.
"""

import logging
import os

import optuna
import pytest

try:
    import torch
except ImportError:  # pragma: no cover - torch is in the test extra
    torch = None

if torch is not None:
    torch.set_num_threads(1)

FORBID_SKIPS = "EGP_TEST_FORBID_SKIPS"


# A skip whose reason says this is allowed in CI: a skip that says nothing about our code (a golden
# trace recorded with other releases of numpy, scipy, torch, Optuna or Ax than those installed).
ALLOWED_SKIP = "(allowed in CI)"


class ForbidSkips:
    """Fails a session that skipped a test (at collection or at run time) for a reason without
    ``ALLOWED_SKIP``: a session that would have passed exits with ``ExitCode.TESTS_FAILED``, and
    the terminal summary names each such skipped test with its reason."""

    def __init__(self) -> None:
        self.skipped: list[tuple[str, str]] = []  # (node id, reason)

    def _record(self, report: pytest.CollectReport | pytest.TestReport) -> None:
        if report.skipped and not hasattr(report, "wasxfail"):  # an xfail is reported skipped
            longrepr = report.longrepr  # (path, line, reason) for a skip
            reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
            if ALLOWED_SKIP not in reason:
                self.skipped.append((report.nodeid, reason))

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        self._record(report)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self._record(report)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        passing = (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED)  # all were skipped
        if self.skipped and session.exitstatus in passing:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if not self.skipped:
            return
        terminalreporter.section(f"{FORBID_SKIPS}=1: skipped tests fail the run", red=True)
        for nodeid, reason in self.skipped:
            terminalreporter.line(f"{nodeid}: {reason}", red=True)
        n = len(self.skipped)
        terminalreporter.line(
            f"{n} skipped test{'s' if n > 1 else ''}: provide what they need (packages, "
            f"servers), or unset {FORBID_SKIPS} to allow skips"
        )


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get(FORBID_SKIPS) == "1":
        config.pluginmanager.register(ForbidSkips(), "egp-forbid-skips")


@pytest.fixture
def postgres_study():
    """``make(name) -> url``: a new, empty study ``name`` on the test PostgreSQL server (``.ci/run``
    starts one and sets ``EGP_TEST_POSTGRES_URL``); the test is skipped without a server."""
    url = os.environ.get("EGP_TEST_POSTGRES_URL")
    if not url:
        pytest.skip(
            "EGP_TEST_POSTGRES_URL is not set (.ci/run starts a PostgreSQL server and sets it)"
        )
    pytest.importorskip("psycopg2")

    def make(name: str) -> str:
        try:
            optuna.delete_study(study_name=name, storage=url)
        except KeyError:
            pass
        optuna.create_study(study_name=name, storage=url)
        return url

    return make


class OptunaLog(logging.Handler):
    """The records that reach Optuna's library logger ``"optuna"``, each exactly once."""

    def __init__(self) -> None:
        super().__init__(level=logging.NOTSET)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def messages(self, containing: str) -> list[str]:
        """The messages that contain ``containing``, in the order they were logged."""
        return [r.getMessage() for r in self.records if containing in r.getMessage()]


@pytest.fixture
def optuna_log():
    """What Optuna's logger (and so this package's, which sits under it) logs during the test, at
    Optuna's verbosity set to WARNING (restored afterwards).

    A handler of its own on the ``"optuna"`` logger, not pytest's ``caplog``: Optuna's logger
    does not propagate, and whether ``caplog`` sees it depends on the pytest version (from 9.1 on
    it attaches to non-propagating loggers too, so with ``optuna.logging.enable_propagation()``
    every record is captured twice). This handler sees each record once on every version.
    """
    logger = logging.getLogger("optuna")
    verbosity = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.WARNING)  # whatever an earlier test left
    handler = OptunaLog()
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        optuna.logging.set_verbosity(verbosity)
