"""Thread counts of the BLAS, OpenMP and torch pools, in one place. Their pools read the variables
once, at the first import of numpy, scipy or torch, so ``benchmarks/__init__.py`` calls
:func:`pin_threads` before any of them; processes started from there inherit the variables.
Default one thread per process; ``EGP_BENCH_THREADS=N`` sets every count, ``=default`` removes
them (one thread per core); otherwise a variable already set is kept. Imports nothing heavy.
"""

from __future__ import annotations

import os
import sys

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def pin_threads(n: int | None = None) -> None:
    """Set ``THREAD_VARS`` for this process and its children: ``n`` threads per pool; ``None``:
    ``EGP_BENCH_THREADS`` if set, else keep each variable already set and set the others to 1."""
    if n is None and os.environ.get("EGP_BENCH_THREADS") == "default":
        for var in THREAD_VARS:
            os.environ.pop(var, None)
        return
    if n is None and "EGP_BENCH_THREADS" in os.environ:
        n = int(os.environ["EGP_BENCH_THREADS"])
    if n is not None and n < 1:
        raise ValueError(f"thread count must be at least 1, got {n!r}")
    for var in THREAD_VARS:
        if n is not None:
            os.environ[var] = str(n)
        else:
            os.environ.setdefault(var, "1")


def threads() -> int:
    """The thread count of this process's pools (``OMP_NUM_THREADS``)."""
    return int(os.environ.get("OMP_NUM_THREADS", "1"))


def pin_torch() -> None:
    """torch's intra-op pool to :func:`threads` (imports torch); left at torch's default when
    the thread variables are not set (``EGP_BENCH_THREADS=default``)."""
    import torch

    if "OMP_NUM_THREADS" in os.environ:
        torch.set_num_threads(threads())


def thread_settings() -> dict:
    """The thread variables as set, and torch's count if torch is loaded, for a result row."""
    out: dict = {var: os.environ.get(var) for var in THREAD_VARS}
    torch = sys.modules.get("torch")
    if torch is not None:
        out["torch"] = torch.get_num_threads()
    return out
