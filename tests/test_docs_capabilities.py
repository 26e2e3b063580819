"""The capability tables of ``docs/design.md`` match the code: the protocol table lists every
capability of ``shared_core.capabilities`` with its members, and the method table states what
every registered algorithm declares."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from shared_core.interface import CAPABILITY_MEMBERS, DECLARATIONS, MultiAgent, declares
from shared_core.registry import algorithm_names, algorithm_options, make_algorithm

DESIGN = Path(__file__).resolve().parents[1] / "docs" / "design.md"
CAPABILITIES = [protocol.__name__ for protocol in CAPABILITY_MEMBERS]
# Smaller than the defaults, to keep the test fast (building the algorithms is all it needs).
CHEAP = {"dts": {"n_agents": 3, "agent_id": 1}}


def _tables() -> list[list[list[str]]]:
    """The Markdown tables of the page's "Optional capabilities" section: rows of cells."""
    text = DESIGN.read_text(encoding="utf-8")
    start = text.index("\n### Optional capabilities\n")
    section = text[start : text.index("\n### ", start + 1)]
    tables, rows = [], []
    for line in [*section.splitlines(), ""]:
        if line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif rows:
            tables.append([row for row in rows if not set("".join(row)) <= {"-"}])
            rows = []
    return tables


def _names(cell: str) -> list[str]:
    """The code spans of a cell, without quotes: ``'`"a"`, `"b"`'`` -> ``["a", "b"]``."""
    return [name.strip('"') for name in re.findall(r"`([^`]+)`", cell)]


def _has(algorithm: object, protocol: type) -> bool:
    """What the method table states: a declaration's value, or whether the protocol is met."""
    if protocol in DECLARATIONS:
        return declares(algorithm, protocol)
    return isinstance(algorithm, protocol)


def test_the_protocol_table_lists_every_capability_with_its_members():
    protocols, _ = _tables()
    header, *rows = protocols
    assert header == ["protocol", "members", "what the adapters do with it"]
    documented = {_names(row[0])[0]: row[1] for row in rows}
    assert list(documented) == CAPABILITIES
    for protocol, members in CAPABILITY_MEMBERS.items():
        listed = set(_names(documented[protocol.__name__])) - set(CAPABILITIES)
        assert listed == set(members), protocol
    assert "(and `ReadsSources`'s)" in documented[MultiAgent.__name__]


def test_the_method_table_states_what_every_registered_algorithm_declares():
    pytest.importorskip("torch")  # "bore" and STO-BNTS build networks
    _, methods = _tables()
    header, *rows = methods
    assert header[0] == "method" and [_names(cell)[0] for cell in header[1:]] == CAPABILITIES
    documented = {}
    for row in rows:
        assert set(row[1:]) <= {"yes", "no"}, row
        for method in _names(row[0]):
            assert method not in documented, f"{method} is listed twice"
            documented[method] = [cell == "yes" for cell in row[1:]]
    assert sorted(documented) == algorithm_names()
    for method, stated in documented.items():
        options = {"n_features": 64} if "n_features" in algorithm_options(method) else {}
        algorithm = make_algorithm(method, **options, **CHEAP.get(method, {}))
        assert stated == [_has(algorithm, p) for p in CAPABILITY_MEMBERS], method
