"""Every Python block of the README and the docs runs as it is, as a script of its own (a user
copies it into a file) in a new empty working folder; the blocks of one page run one after the
other in one process, each with its own globals. A block that needs a server
(a PostgreSQL database) is a fragment: the line before it says so,
``<!-- fragment: needs a ... server -->``, and it is compiled only."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
_BLOCK = re.compile(r"^(?:(<!-- fragment: (.*?) -->)\n)?```python\n(.*?)^```", re.S | re.M)


def _blocks() -> list[tuple[str, str | None, str]]:
    """(page:line, the fragment's reason or None, the code) of every Python block."""
    out = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in _BLOCK.finditer(text):
            line = text[: match.start(3)].count("\n")  # the fence's line number (1-based)
            out.append((f"{page.relative_to(ROOT)}:{line}", match[2], match[3]))
    return out


BLOCKS = _blocks()


def test_blocks_are_found():
    # the README's two quick-start blocks and the samplers' pages, at least
    assert sum(name.startswith("README.md") for name, _, _ in BLOCKS) >= 2
    assert len(BLOCKS) >= 20


FRAGMENTS = [b for b in BLOCKS if b[1] is not None]


@pytest.mark.parametrize(("name", "reason", "code"), FRAGMENTS, ids=[b[0] for b in FRAGMENTS])
def test_a_fragment_needs_a_server_and_compiles(name, reason, code):
    assert "server" in reason, f"{name}: a fragment must need a server, says {reason!r}"
    compile(code, name, "exec")


RUNNABLE = [(n, c) for n, r, c in BLOCKS if r is None]
BY_PAGE = {
    page: [b for b in RUNNABLE if b[0].split(":")[0] == page]
    for page in dict.fromkeys(n.split(":")[0] for n, _ in RUNNABLE)
}


@pytest.mark.slow
@pytest.mark.parametrize("page", BY_PAGE)
def test_a_pages_blocks_run_as_scripts(tmp_path, page):
    """The page's blocks, each a script of its own run in a new empty folder, one after the other
    in one process (``tests/run_blocks.py``): a block that needs another's names fails."""
    files = []
    for i, (name, code) in enumerate(BY_PAGE[page]):
        files.append(tmp_path / f"block{i}.py")
        files[-1].write_text(f"# {name}\n{code}", encoding="utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(sys.path),  # this checkout's packages
        "HOME": str(tmp_path),  # what the blocks keep in the home folder (Ray: ~/ray_results)
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }
    done = subprocess.run(
        [sys.executable, "-m", "tests.run_blocks", str(tmp_path), *map(str, files)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    ran = re.findall(r"^--- (.*)$", done.stdout, re.M)
    failed = BY_PAGE[page][len(ran) - 1][0] if ran else page
    assert done.returncode == 0, f"{failed}\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    assert len(ran) == len(files)
