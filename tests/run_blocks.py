"""Run Python files as scripts, one after the other in this process, each in a new empty working
folder: ``python -m tests.run_blocks FOLDER FILE...``. ``runpy.run_path`` gives each its own
globals and makes it ``__main__`` (so that Dask and Ray pickle its functions by value), as
``python FILE`` would; the imports they share are paid once (Ax takes seconds)."""

from __future__ import annotations

import os
import runpy
import sys
import tempfile
from pathlib import Path


def main(folder: str, files: list[str]) -> None:
    hub = Path(__file__).resolve().parent.parent / "hub"
    for file in files:
        cwd = Path(tempfile.mkdtemp(dir=folder))
        (cwd / "hub").symlink_to(hub)  # the OptunaHub block loads the checkout's package
        os.chdir(cwd)
        print(f"--- {file}", flush=True)
        runpy.run_path(file, run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
