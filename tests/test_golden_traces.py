"""Golden traces: seeded suggestions of every sampler
and Ax method, recorded in ``tests/golden/traces.json``.

They pin behaviour across refactorings: the same code on the same library versions must
suggest exactly the same points. Suggestions depend on floating-point details of numpy,
scipy and torch, so on other versions of those libraries the traces are skipped (with the
versions named), not compared loosely; the fixtures are re-recorded
(``python -m tests.golden.scenarios --record``) only by a commit that says why.
"""

import json

import pytest

from tests.conftest import ALLOWED_SKIP
from tests.golden.scenarios import TRACES, library_versions, public_version, run, scenarios

STORED = json.loads(TRACES.read_text())


def _libraries_of(name: str) -> list[str]:
    """The libraries whose versions scenario ``name``'s suggestions depend on."""
    libraries = ["numpy", "scipy", "optuna"]
    if name.startswith(("ax/", "optuna/bore/", "optuna/sto-bnts/")):
        libraries.append("torch")  # BORE's and STO-BNTS's networks; Ax's Sobol and models
    if name.startswith("ax/"):
        libraries += ["ax-platform", "botorch"]
    return libraries


def test_every_scenario_has_a_stored_trace():
    assert set(scenarios()) <= set(STORED["traces"])


@pytest.mark.parametrize("name", sorted(STORED["traces"]))
def test_suggestions_match_the_golden_trace(name):
    if name.startswith("ax/"):
        pytest.importorskip("ax")
    if name.startswith(("optuna/bore/", "ax/bore/", "optuna/sto-bnts/", "ax/sto-bnts")):
        pytest.importorskip("torch")
    now = library_versions()
    differ = {
        lib: (STORED["libraries"][lib], now[lib])
        for lib in _libraries_of(name)
        if now[lib] != public_version(STORED["libraries"][lib])
    }
    if differ:
        pytest.skip(
            f"recorded with other library versions (recorded, installed): {differ} {ALLOWED_SKIP}"
        )
    assert run(name) == STORED["traces"][name]
