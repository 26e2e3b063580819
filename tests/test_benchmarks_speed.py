"""The timing benchmarks' modules import nothing heavy: ``speed imports`` times ``import optuna``
and ``import optuna_egp`` in a fresh worker of ``benchmarks.speed``, which must start clean."""

from __future__ import annotations

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_the_speed_worker_starts_without_optuna_torch_or_scipy():
    heavy = ("optuna", "optuna_egp", "shared_core", "ax", "torch", "scipy", "pandas")
    code = (
        "import sys, benchmarks.speed, benchmarks.speed_imports; "
        f"print([m for m in {heavy!r} if m in sys.modules])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"
