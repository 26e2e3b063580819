"""The code stays in modules by role: no module of the product or the benchmarks over 400 lines,
no class of the product over 300, and no import circle among the benchmark modules (a page
module that imports the page assembler, which imports it back)."""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PRODUCT = ("shared_core", "optuna_egp", "ax_egp")
MAX_MODULE_LINES, MAX_CLASS_LINES = 400, 300


def _modules(*folders: str) -> list[pathlib.Path]:
    return sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py"))


@pytest.mark.parametrize("folder", [*PRODUCT, "benchmarks"])
def test_no_module_over_400_lines(folder):
    long = {
        str(p.relative_to(ROOT)): n
        for p in _modules(folder)
        if (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert not long


def test_no_product_class_over_300_lines():
    long = {
        f"{p.relative_to(ROOT)}:{node.name}": node.end_lineno - node.lineno + 1
        for p in _modules(*PRODUCT)
        for node in ast.walk(ast.parse(p.read_text()))
        if isinstance(node, ast.ClassDef) and node.end_lineno - node.lineno + 1 > MAX_CLASS_LINES
    }
    assert not long


def _name(path: pathlib.Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def _imports(path: pathlib.Path, modules: set[str]) -> set[str]:
    """The benchmark modules ``path`` imports, at the top or inside functions."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("benchmarks"):
            out.add(node.module)
            out |= {f"{node.module}.{a.name}" for a in node.names} & modules
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("benchmarks")}
    return out & modules


def test_no_import_circle_among_the_benchmark_modules():
    paths = _modules("benchmarks")
    modules = {_name(p) for p in paths} - {"benchmarks"}  # the package's __init__ pins threads
    edges = {_name(p): _imports(p, modules) - {_name(p)} for p in paths}
    circles, state = [], {}

    def visit(module: str, path: list[str]) -> None:
        state[module] = "open"
        for other in sorted(edges.get(module, ())):
            if state.get(other) == "open":
                circles.append(path[path.index(other) :] + [other])
            elif other not in state:
                visit(other, [*path, other])
        state[module] = "done"

    for module in sorted(edges):
        if module not in state:
            visit(module, [module])
    assert not circles
