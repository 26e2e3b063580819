"""Thread counts of the BLAS, OpenMP and torch pools, in one place.

numpy's BLAS and OpenMP read ``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS`` and ``MKL_NUM_THREADS``
once, when their pools start (at the first import of numpy, scipy or torch); setting them later
changes nothing in the running process. So ``benchmarks/__init__.py`` calls :func:`pin_threads`:
``python -m benchmarks.<module>`` imports the package before the module, hence before numpy, and
every process started from there (``multiprocessing`` with ``spawn``, ``python -m
benchmarks.<module> worker``) inherits the variables. torch has its own pool: :func:`pin_torch`
sets it, and the sampler factory calls it for the samplers that use torch.

Default: one thread per process (the runs go in parallel processes, one per core).
``EGP_BENCH_THREADS=N`` sets every count to ``N``; ``EGP_BENCH_THREADS=default`` removes the
variables (the libraries' own defaults, one thread per core); without it, a variable already set
in the environment is kept (a benchmark that measures threading sets it for its own worker
processes, see ``workers.worker_env``). This module imports nothing heavy.
"""

from __future__ import annotations

import os
import sys

__all__ = ["THREAD_VARS", "pin_threads", "pin_torch", "thread_settings", "threads"]

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def pin_threads(n: int | None = None) -> None:
    """Set ``THREAD_VARS`` for this process and its children.

    Args:
        n: threads per pool; ``None``: ``EGP_BENCH_THREADS`` if set (overriding the variables;
            ``default`` removes them), else keep each variable already set and set the others
            to 1.
    """
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
