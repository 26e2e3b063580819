"""The examples: the fast ones run (in a fresh working folder, with a temporary folder of their own
that must be empty afterwards), every one keeps its temporary files in a ``TemporaryDirectory``
block, and the quickstart's conclusion is computed from its results."""

import ast
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SCRIPTS = sorted(EXAMPLES.glob("*.py"))


def _run(tmp_path: Path, script: str, *args: str) -> str:
    """Run an example as a user would; the working and temporary folders must stay empty."""
    cwd, tmp = tmp_path / "cwd", tmp_path / "tmp"
    cwd.mkdir()
    tmp.mkdir()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(sys.path),  # this checkout's packages
        "TMPDIR": str(tmp),  # where tempfile puts its files and folders
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert list(cwd.iterdir()) == [], "left in the working folder"
    assert list(tmp.iterdir()) == [], "left in the temporary folder"
    return done.stdout


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.name for s in SCRIPTS])
def test_temporary_files_live_in_a_temporary_directory_block(script):
    """``tempfile.mkdtemp()`` and friends leave their files behind; ``with
    tempfile.TemporaryDirectory() as folder:`` removes them, even when the script fails."""
    tree = ast.parse(script.read_text())
    in_with = {
        id(item.context_expr)
        for node in ast.walk(tree)
        if isinstance(node, ast.With)
        for item in node.items
    }
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "tempfile"
        ):
            assert node.func.attr == "TemporaryDirectory" and id(node) in in_with, (
                f"{script.name}, line {node.lineno}: tempfile.{node.func.attr} outside a "
                "'with tempfile.TemporaryDirectory() as folder:' block"
            )


def _quickstart():
    spec = importlib.util.spec_from_file_location("quickstart", EXAMPLES / "quickstart.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("egp", "tpe", "leader", "wins"),
    [
        ([-3.0, -3.2, -2.0], [-2.5, -2.9, -3.1], "EGPTSSampler", "2 of them (TPESampler: 1)"),
        ([-2.0, -2.9, -3.3], [-3.1, -3.0, -2.8], "TPESampler", "2 of them (EGPTSSampler: 1)"),
    ],
)
def test_quickstart_conclusion_follows_the_results(capsys, egp, tpe, leader, wins):
    _quickstart().report([0, 1, 2], {"EGPTSSampler": egp, "TPESampler": tpe})
    out = capsys.readouterr().out
    assert f"Over 3 seeds {leader} reached the lower median best value" in out
    assert out.rstrip().endswith(f"the lower best value on {wins}.")


@pytest.mark.slow
def test_quickstart_runs_and_reports_what_it_measured(tmp_path):
    out = _run(tmp_path, "quickstart.py", "3", "1")  # seed 3 only: one study per sampler
    assert "Hartmann-6" in out and "40 trials per study, seeds 3-3: 2 studies" in out
    row = re.search(r"^\s+3\s+(-\d+\.\d+)\s+(-\d+\.\d+)\s+(\w+)$", out, re.MULTILINE)
    egp, tpe = float(row[1]), float(row[2])
    assert -3.32237 <= min(egp, tpe)  # no value below the minimum of Hartmann-6
    lower = "EGPTSSampler" if egp < tpe else "TPESampler"
    assert row[3] == lower
    assert f"Over 1 seed {lower} reached the lower median best value" in out


@pytest.mark.slow
def test_model_plot_writes_the_picture_where_asked(tmp_path):
    out_png = tmp_path / "model.png"
    out = _run(tmp_path, "model_plot.py", str(out_png))
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "final kernel weights: rbf " in out
