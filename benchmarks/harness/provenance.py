"""Where a result row came from: commit, date, machine, Python and package versions.

:func:`provenance` is what ``results.ResultsFile.append`` adds to every row:

``commit``    short HEAD, ``+dirty`` if files outside ``benchmarks/results/`` differ from it
``date``      UTC, ISO 8601 to the second
``machine``   ``{"cpu_count", "platform", "machine"}``
``python``    the interpreter's version
``versions``  the installed versions of the packages in ``PACKAGES`` (missing ones left out)
``threads``   the thread settings (``threads.thread_settings``)
``code``      the folder of the imported ``optuna_egp`` (the code measured)

:func:`check_code` refuses to record rows when the imported ``shared_core`` or ``optuna_egp``
are not those of the checkout the commit is taken from (e.g. an editable install of another
checkout): the rows would name a commit whose code was not measured.

Rows written before provenance was recorded have no ``commit``: :func:`recorded` gives, for each
line of a results file, the commit that added the line to the file and that commit's date, an
upper bound of when the row was measured. :func:`same_code` says whether a commit's sampler code
(``SAMPLER_PACKAGES``; ``SAMPLER_CODE`` with the regret runner) runs as HEAD's: docstrings aside,
and with new modules and new top-level definitions allowed.
"""

from __future__ import annotations

import ast
import datetime
import functools
import importlib.metadata
import importlib.util
import os
import pathlib
import platform
import subprocess

from benchmarks.harness.threads import thread_settings

__all__ = [
    "PACKAGES",
    "ROOT",
    "SAMPLER_CODE",
    "SAMPLER_PACKAGES",
    "check_code",
    "code_without_docstrings",
    "commit",
    "machine",
    "only_additions",
    "only_definitions",
    "provenance",
    "recorded",
    "same_code",
    "utc_now",
    "versions",
]

ROOT = pathlib.Path(__file__).resolve().parents[2]
# Distribution names: ours, and those of the peers and of the numerics under both.
PACKAGES = (
    "egp-samplers",
    "numpy",
    "scipy",
    "optuna",
    "torch",
    "cmaes",
    "ax-platform",
    "botorch",
    "gpytorch",
)
# The paths (relative to ROOT) whose changes change what our samplers' rows measure: the
# packages and test functions, and with them the regret runner and the test functions only it
# uses for the regret tables.
# The plotting module draws what the samplers recorded; it takes no part in a suggestion.
SAMPLER_PACKAGES = (
    "shared_core",
    "optuna_egp",
    "ax_egp",
    "benchmarks/functions.py",
    ":(exclude)optuna_egp/visualization.py",
)
SAMPLER_CODE = (*SAMPLER_PACKAGES, "benchmarks/run.py", "benchmarks/ill_conditioned.py")


def _git(*args: str, cwd: pathlib.Path = ROOT) -> subprocess.CompletedProcess | None:
    try:
        return subprocess.run(
            ["git", "--no-optional-locks", *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return None


def _git_out(*args: str) -> str:
    done = _git(*args)
    return done.stdout.strip() if done is not None and done.returncode == 0 else ""


@functools.lru_cache(maxsize=1)
def commit() -> str:
    """Short HEAD, ``+dirty`` if tracked or untracked files outside ``benchmarks/results/``
    changed (computed once per process: rows written by one run share it)."""
    head = _git_out("rev-parse", "--short", "HEAD") or "unknown"
    dirty = _git_out("status", "--porcelain", "--", ".", ":(exclude)benchmarks/results")
    return head + ("+dirty" if dirty else "")


def utc_now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def machine() -> dict:
    return {
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "machine": platform.machine(),
    }


def versions(packages: tuple[str, ...] = PACKAGES) -> dict[str, str]:
    """``{distribution: version}`` of the installed ones among ``packages``."""
    out = {}
    for name in packages:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            pass
    return out


def _code_folder(module: str) -> pathlib.Path | None:
    """The folder of ``module`` as it is (or would be) imported, without importing it."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        return None
    return pathlib.Path(spec.origin).resolve().parent


@functools.lru_cache(maxsize=1)
def check_code() -> str:
    """The folder of the imported ``optuna_egp``; raise ``RuntimeError`` if ``shared_core`` or
    ``optuna_egp`` is imported from outside ``ROOT`` (the checkout whose commit rows record)."""
    for module in ("shared_core", "optuna_egp"):
        folder = _code_folder(module)
        if folder is None or not folder.is_relative_to(ROOT):
            raise RuntimeError(
                f"{module} is imported from {folder}, not from {ROOT}, whose commit the results "
                "would record: run the benchmarks from the root of the checkout that holds the "
                f"code to measure (or install it with pip install -e {ROOT})"
            )
    return str(_code_folder("optuna_egp"))


def provenance() -> dict:
    return {
        "commit": commit(),
        "date": utc_now(),
        "machine": machine(),
        "python": platform.python_version(),
        "versions": versions(),
        "threads": thread_settings(),
        "code": check_code(),
    }


def recorded(path: str | pathlib.Path) -> list[dict | None]:
    """For each line of ``path``: ``{"commit", "date"}`` of the git commit that added the line
    (short hash, UTC date of the commit), or ``None`` if the line is not committed or the file
    is not in a git repository. One ``git blame`` per version of the file."""
    path = pathlib.Path(path).resolve()
    try:
        stat = path.stat()
    except OSError:
        return []
    return _blame(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=64)
def _blame(path: pathlib.Path, mtime_ns: int, size: int) -> list[dict | None]:
    done = _git("blame", "--line-porcelain", "--", path.name, cwd=path.parent)
    if done is None or done.returncode != 0:
        return []
    out: list[dict | None] = []
    sha, when = "", 0
    for line in done.stdout.split("\n"):
        if line.startswith("\t"):  # the line's content ends its entry
            committed = sha.strip("0") != ""
            out.append({"commit": sha[:7], "date": _utc_date(when)} if committed else None)
            sha = ""
        elif not sha:
            sha = line.split(" ", 1)[0]
        elif line.startswith("committer-time "):
            when = int(line.split()[1])
    return out


def _utc_date(seconds: int) -> str:
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).date().isoformat()


@functools.cache
def same_code(commit: str, paths: tuple[str, ...] = SAMPLER_PACKAGES) -> bool:
    """Whether the code in ``paths`` at ``commit`` runs as HEAD's: no file removed or renamed,
    every added file a Python module of definitions only (:func:`only_definitions`), and every
    changed file a Python file whose syntax tree, docstrings left out, is HEAD's or grew only by
    new definitions (:func:`only_additions`): a new algorithm, a new module plus its import and
    registration, leaves the other samplers' rows current. ``False`` for a ``+dirty`` commit (its
    uncommitted edits are unknown) and for a commit git does not know."""
    if not commit or commit == "unknown" or commit.endswith("+dirty"):
        return False
    done = _git("diff", "--name-status", "--no-renames", commit, "HEAD", "--", *paths)
    if done is None or done.returncode != 0:
        return False
    for line in done.stdout.splitlines():
        status, path = line.split("\t", 1)
        if not path.endswith(".py"):
            return False
        head = _source("HEAD", path)
        if status == "A" and only_definitions(head):
            continue
        if status != "M" or not only_additions(_source(commit, path), head):
            return False
    return True


def _source(commit: str, path: str) -> str | None:
    """``path`` at ``commit``; ``None`` if it cannot be read."""
    done = _git("show", f"{commit}:{path}")
    return None if done is None or done.returncode != 0 else done.stdout


# Decorators that only build what they decorate (a new definition with another decorator could
# register or patch something at import).
_PLAIN_DECORATORS = {"dataclass", "cache", "lru_cache", "runtime_checkable", "final"}


def only_additions(old: str | None, new: str | None) -> bool:
    """Whether Python source ``new`` is ``old`` plus new definitions, docstrings and
    ``__all__`` aside (each name of a multi-name import counts as its own statement). A new
    definition is a function or class (plain decorators only), an import, or a call
    ``register_algorithm("<name>", ...)`` of a name ``old`` does not register; each must bind no
    name ``old`` binds. Anything else added (a statement that runs code, rebinds or deletes a
    name, a module ``__getattr__``), and any change inside an old statement, is a change: then
    the code paths of ``old`` may not run as before. ``False`` if either does not parse."""
    old_body, new_body = _statements(old), _statements(new)
    if old_body is None or new_body is None:
        return False
    old_dumps = [ast.dump(node) for node in old_body]
    added, i = [], 0
    for node in new_body:
        if i < len(old_dumps) and ast.dump(node) == old_dumps[i]:
            i += 1
        else:
            added.append(node)
    old_names = {name for node in old_body for name in _bound_names(node)}
    old_names |= {_registered(node) for node in old_body} - {None}
    return i == len(old_dumps) and all(_is_definition(node, old_names) for node in added)


def only_definitions(source: str | None) -> bool:
    """Whether a new module ``source`` holds only definitions: functions and classes (plain
    decorators), imports, assignments of names (its own constants), ``__all__`` and docstrings;
    importing it then changes no other module."""
    body = _statements(source)
    return body is not None and all(
        _is_definition(node, set()) or _assigns_names(node) for node in body
    )


def _is_definition(node: ast.stmt, taken: set[str | None]) -> bool:
    """Whether top-level ``node`` defines something new: a function or class with plain
    decorators, an import, or a registration, binding no name of ``taken``."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        plain = all(_decorator_name(d) in _PLAIN_DECORATORS for d in node.decorator_list)
        return plain and node.name != "__getattr__" and node.name not in taken
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return not set(_bound_names(node)) & taken
    name = _registered(node)
    return name is not None and name not in taken


def _assigns_names(node: ast.stmt) -> bool:
    """Whether ``node`` assigns to plain names only (``A = ...``, ``A, B = ...``)."""
    if not isinstance(node, (ast.Assign, ast.AnnAssign)):
        return False
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    names = [e for t in targets for e in (t.elts if isinstance(t, ast.Tuple) else [t])]
    return all(isinstance(e, ast.Name) for e in names)


def _decorator_name(node: ast.expr) -> str | None:
    node = node.func if isinstance(node, ast.Call) else node
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)


def _registered(node: ast.stmt) -> str | None:
    """The name of ``register_algorithm("<name>", ...)`` if ``node`` is that call."""
    call = node.value if isinstance(node, ast.Expr) else None
    if not (isinstance(call, ast.Call) and getattr(call.func, "id", None) == "register_algorithm"):
        return None
    first = call.args[0] if call.args else None
    return first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None


def _statements(source: str | None) -> list[ast.stmt] | None:
    """The top-level statements of ``source`` without docstrings and ``__all__``, multi-name
    imports split into one statement per name; ``None`` if it does not parse."""
    if source is None:
        return None
    try:
        tree = _DropDocstrings().visit(ast.parse(source))
    except SyntaxError:
        return None
    out: list[ast.stmt] = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)) and len(node.names) > 1:
            out += [_with_names(node, [alias]) for alias in node.names]
        elif "__all__" not in _bound_names(node):
            out.append(node)
    return out


def _with_names(node: ast.Import | ast.ImportFrom, names: list[ast.alias]) -> ast.stmt:
    if isinstance(node, ast.ImportFrom):
        return ast.ImportFrom(module=node.module, names=names, level=node.level)
    return ast.Import(names=names)


def _bound_names(node: ast.stmt) -> list[str]:
    """The names a simple top-level statement binds (assignment targets, definitions, imports)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in node.names]
    targets = {
        ast.Assign: lambda n: n.targets,
        ast.AnnAssign: lambda n: [n.target],
        ast.AugAssign: lambda n: [n.target],
    }.get(type(node))
    if targets is None:
        return []
    return [n.id for t in targets(node) for n in ast.walk(t) if isinstance(n, ast.Name)]


def code_without_docstrings(source: str) -> str | None:
    """The syntax tree of Python ``source`` without its docstrings (every statement that is only a
    string: module, class, function and attribute docstrings), dumped; comments, blank lines and
    line numbers are not in it. ``None`` if it does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    return ast.dump(_DropDocstrings().visit(tree))


class _DropDocstrings(ast.NodeTransformer):
    def visit_Expr(self, node: ast.Expr) -> ast.Expr | None:
        is_string = isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        return None if is_string else node
