"""The external peers' environment (``.venv-peers/`` at the repository root, made by ``python -m
benchmarks.external setup``): its python, and the versions of the distributions installed there
(the peer cache keys an external peer's rows by them)."""

from __future__ import annotations

import pathlib

from benchmarks.harness.provenance import ROOT
from benchmarks.harness.workers import run_worker

VENV = ROOT / ".venv-peers"
SETUP = "python -m benchmarks.external setup"


def python(venv: pathlib.Path | None = None) -> pathlib.Path:
    """The python of the peers' environment; ``RuntimeError`` (saying how to make it) if missing."""
    exe = (venv or VENV) / "bin" / "python"
    if not exe.exists():
        raise RuntimeError(
            f"the external peers' environment {exe.parent.parent} does not exist: make it with "
            f"`{SETUP}` (from the repository root)"
        )
    return exe


def installed_versions(distributions: tuple[str, ...], venv: pathlib.Path | None = None) -> dict:
    """``{distribution: version}`` of ``distributions`` as installed in the peers' environment."""
    return run_worker("external.worker", "versions", *distributions, python=python(venv))
