"""The options tables of the documentation match the code: every keyword of each sampler's
constructor (and of ``ax_egp.generation_strategy``) is listed with its default, and nothing else."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path
from typing import Any

import pytest

from optuna_egp import (
    BORESampler,
    DECHBOSampler,
    DistributedTSSampler,
    EGPTSSampler,
    STOBNTSSampler,
)
from shared_core.registry import algorithm_names, algorithm_options

DOCS = Path(__file__).resolve().parents[1] / "docs"
# A table row whose first two cells are code: | `name` | `default` | ...
_ROW = re.compile(r"^\| `(\*\*)?(\w+)` \| (?:`([^`]*)`)? *\|")


def _section(page: str, heading: str) -> str:
    """The text of ``page`` from the line ``heading`` to the next heading of the same level."""
    text = (DOCS / page).read_text(encoding="utf-8")
    level = heading.split(" ", 1)[0]
    start = text.index(f"\n{heading}\n")
    end = text.find(f"\n{level} ", start + 1)
    return text[start : end if end != -1 else len(text)]


def _documented(page: str, heading: str) -> dict[str, Any]:
    """``{option: default}`` of the options table under ``heading`` (``**options``: no default)."""
    rows = {}
    for line in _section(page, heading).splitlines():
        match = _ROW.match(line)
        if match:
            stars, name, default = match.groups()
            rows[name] = inspect.Parameter.empty if stars else ast.literal_eval(default)
    return rows


def _signature(function: Any) -> dict[str, Any]:
    return {name: p.default for name, p in inspect.signature(function).parameters.items()}


@pytest.mark.parametrize(
    ("page", "sampler"),
    [
        ("samplers/egp-ts.md", EGPTSSampler),
        ("samplers/bore.md", BORESampler),
        ("samplers/distributed-ts.md", DistributedTSSampler),
        ("samplers/dec-hbo.md", DECHBOSampler),
        ("samplers/sto-bnts.md", STOBNTSSampler),
    ],
)
def test_sampler_options_table_matches_the_signature(page: str, sampler: type) -> None:
    assert _documented(page, "## Options") == _signature(sampler)


def test_ax_arguments_table_matches_generation_strategy() -> None:
    ax_egp = pytest.importorskip("ax_egp")
    documented = _documented("ax.md", "## The generation strategy")
    signature = _signature(ax_egp.generation_strategy)
    assert documented == {**signature, "options": inspect.Parameter.empty}


def test_ax_methods_table_lists_each_methods_options() -> None:
    section = _section("ax.md", "### Methods and their options")
    rows = [line.split(" | ") for line in section.splitlines() if line.startswith('| `"')]
    listed = {}
    for methods, _, options in rows:
        for method in re.findall(r'`"([^"]+)"`', methods):
            listed[method] = set(re.findall(r"`(\w+)`", options))
    # every registered algorithm (each is an Ax method) has a row, so a new one fails here until it
    # is documented, with its options; an Ax trial's agent comes from its index, not from agent_id
    expected = set(algorithm_names())
    assert set(listed) == expected
    for method in expected:
        assert listed[method] == set(algorithm_options(method)) - {"agent_id"}, method
