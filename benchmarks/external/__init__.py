"""External peers: HEBO and SMAC3, run on the suite in an environment of their own
(docs/benchmarks/index.md, "External peers"). ``python -m benchmarks.external setup`` makes
``.venv-peers/`` from ``requirements.txt``; :func:`run_cell` runs one suite cell there
(``benchmarks.external.worker``) and returns its row, which ``benchmarks.run`` stores in the peer
cache, keyed by the versions installed there (``harness.peer_env``).
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

from benchmarks.harness import peer_env
from benchmarks.harness.samplers import EXTERNAL, PEERS
from benchmarks.harness.workers import run_worker

REQUIREMENTS = pathlib.Path(__file__).with_name("requirements.txt")
MODES = ("seq", "async")  # the suite's modes the worker drives


def check(name: str, mode: str) -> None:
    """Fail early, with a clear message, if the external peer ``name`` cannot run in ``mode`` or
    its environment is missing."""
    if name not in EXTERNAL:
        raise ValueError(f"{name!r} is not an external peer; external peers: {', '.join(EXTERNAL)}")
    if mode not in MODES:
        raise ValueError(
            f"external peer {name!r} runs in modes {', '.join(MODES)} only, not {mode!r}"
        )
    peer_env.python()


def run_cell(job: dict) -> dict:
    """The row of one suite cell (``benchmarks.run``'s job: ``sampler``, ``function``, ``seed``,
    ``mode``, ``workers``, ``n_trials``, ...) run by the worker in the peers' environment."""
    check(job["sampler"], job["mode"])
    return run_worker("external.worker", "run", json.dumps(job), python=peer_env.python())


def setup(venv: pathlib.Path | None = None) -> dict[str, str]:
    """Make the peers' environment (a virtual environment of this interpreter's Python) and install
    ``REQUIREMENTS`` into it; return the versions of the peers' packages there."""
    venv = venv or peer_env.VENV
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install"]
    subprocess.run([*pip, "-r", str(REQUIREMENTS)], check=True)
    # pip finds no pymoo 0.6.0 (HEBO's acquisition optimiser) wheel for Python 3.11 and builds it
    # without its compiled modules (its isolated build has neither Cython nor numpy): build it again
    # with those of the environment, compiled as its wheels are.
    rebuild = ["--no-build-isolation", "--no-deps", "--force-reinstall", "--no-cache-dir"]
    subprocess.run([*pip, *rebuild, _pinned("pymoo")], check=True)
    names = tuple(sorted({d for peer in EXTERNAL for d in PEERS[peer]}))
    return peer_env.installed_versions(names, venv)


def _pinned(distribution: str) -> str:
    """The requirement line of ``distribution`` in ``REQUIREMENTS``."""
    for line in REQUIREMENTS.read_text().splitlines():
        if line.split("==")[0].strip().lower() == distribution:
            return line.strip()
    raise ValueError(f"{distribution} is not pinned in {REQUIREMENTS}")
