"""``EGP_TEST_FORBID_SKIPS=1`` (tests/conftest.py) turns a run that skipped a test into a failure
that names the skipped test and its reason; without it a skip is only reported."""

import pytest

from tests import conftest

TESTS = """
import pytest

def test_runs():
    pass

def test_needs_a_server():
    pytest.skip("no server here")
"""


def _run(tmp_path, capsys, monkeypatch, tests=TESTS, name="test_demo"):
    """A pytest session on a small test file, with this suite's conftest as a plugin."""
    folder = tmp_path / name  # a folder and module name per session: modules stay imported
    folder.mkdir()
    (folder / "pytest.ini").write_text("[pytest]\n")  # not this repository's settings
    (folder / f"{name}.py").write_text(tests)
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")  # installed plugins cost seconds
    args = [str(folder), "-p", "no:cacheprovider", "--import-mode=importlib", "-q"]
    code = pytest.main(args, plugins=[conftest])
    return code, capsys.readouterr().out


@pytest.mark.slow
def test_without_the_variable_a_skip_passes(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv(conftest.FORBID_SKIPS, raising=False)
    code, out = _run(tmp_path, capsys, monkeypatch)
    assert code == pytest.ExitCode.OK, out
    assert "1 passed, 1 skipped" in out


@pytest.mark.slow
def test_with_the_variable_a_skip_fails_the_run_and_is_listed(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(conftest.FORBID_SKIPS, "1")
    code, out = _run(tmp_path, capsys, monkeypatch)
    assert code == pytest.ExitCode.TESTS_FAILED, out
    assert "EGP_TEST_FORBID_SKIPS=1: skipped tests fail the run" in out
    assert "test_demo.py::test_needs_a_server: Skipped: no server here" in out
    # a skip at collection (a missing package) counts too; a run without skips passes
    importorskip = 'import pytest\npytest.importorskip("no_such_module")\n'
    code, out = _run(tmp_path, capsys, monkeypatch, importorskip, "test_collection")
    assert code == pytest.ExitCode.TESTS_FAILED, out
    assert "test_collection.py: Skipped: could not import 'no_such_module'" in out
    # an expected failure is not a skip
    xfail = "import pytest\n@pytest.mark.xfail\ndef test_known_bug():\n    assert False\n"
    code, out = _run(tmp_path, capsys, monkeypatch, xfail, "test_ok")
    assert code == pytest.ExitCode.OK, out


@pytest.mark.slow
def test_a_skip_that_says_it_is_allowed_in_ci_does_not_fail_the_run(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(conftest.FORBID_SKIPS, "1")
    skip = f'pytest.skip("other release {conftest.ALLOWED_SKIP}")'
    allowed = f"import pytest\ndef test_other_release():\n    {skip}\n"
    code, out = _run(tmp_path, capsys, monkeypatch, allowed, "test_allowed")
    assert code == pytest.ExitCode.OK, out
