"""Bounded BLAS, OpenMP and PyTorch threads while a sampler computes.

NumPy's BLAS, OpenMP runtimes and PyTorch start one thread per core in every process. With more
worker processes than cores, every linear-algebra call then competes with all the others and a
suggestion gets many times slower. :func:`limited_threads` caps those pools (through
``threadpoolctl`` and ``torch.set_num_threads``) while the block runs and restores the previous
sizes afterwards.

What a limit reaches:

* The BLAS and PyTorch limits are process-wide while they hold: other threads of the process (e.g.
  the objectives of ``study.optimize(n_jobs=...)``) run with the capped pools during a suggestion.
  The OpenMP limit applies to the thread that enters the block, the one doing the sampler's work.
* A limit only lowers thread counts: a pool already smaller than ``max_threads`` is left as it is.
* Overlapping blocks from several threads: the first one sets its limit and restores the previous
  sizes when it leaves (a later block still inside then runs with the restored pools); the others
  change nothing. Restoring from the thread that set the limit matters for OpenBLAS (next point).
* threadpoolctl (3.8) lets one thread at a time control OpenBLAS's thread count: a limit set from
  another thread while a ``threadpool_limits`` block of the user's holds it does nothing. The block
  then reports that the limit did not apply; set ``OPENBLAS_NUM_THREADS`` (or ``OMP_NUM_THREADS``)
  before starting Python instead. Our own blocks hand the control back when they end.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from shared_core.validation import check_int

__all__ = ["check_max_threads", "limited_threads"]

_lock = threading.Lock()
_owner: threading.Thread | None = None  # the thread whose block set the current limit
_controller: Any = None  # threadpoolctl.ThreadpoolController of the libraries loaded so far
_modules_seen = -1  # len(sys.modules) when _controller scanned the libraries


def check_max_threads(max_threads: int | None) -> int | None:
    """``max_threads`` as an int >= 1, or None (no limit); ``ValueError`` otherwise."""
    return None if max_threads is None else check_int("max_threads", max_threads, minimum=1)


@contextmanager
def limited_threads(max_threads: int | None) -> Iterator[bool]:
    """Cap BLAS/OpenMP/PyTorch threads at ``max_threads`` inside the block (``None``: leave them).

    Yields False if this block set the limit and a BLAS library kept more than ``max_threads``
    threads (see the module docstring), True otherwise.
    """
    if max_threads is None:
        yield True
        return
    restore = _acquire(max_threads)
    try:
        yield restore is None or _blas_threads() <= max_threads
    finally:
        if restore is not None:
            _release(*restore)


def _acquire(max_threads: int) -> tuple[Any, int | None] | None:
    """Set the limits unless another thread's block holds them; what to restore, or None."""
    global _owner
    with _lock:
        if _owner is not None:
            return None
        _owner = threading.current_thread()
    limiter, torch_before = None, None
    try:
        torch: Any = sys.modules.get("torch")  # only if the process already uses PyTorch
        if torch is not None and hasattr(torch, "get_num_threads"):
            torch_before = torch.get_num_threads()  # before the OpenMP limit, which it follows
        pools = _thread_pools()
        # only lower counts
        larger = [lib["filepath"] for lib in pools.info() if lib["num_threads"] > max_threads]
        limiter = pools.select(filepath=larger).limit(limits=max_threads)
        # a context for threadpoolctl: its exit hands the control of the pools back
        limiter.__enter__()
        if torch_before is not None:
            torch.set_num_threads(min(max_threads, torch_before))
    except BaseException:
        _release(limiter, torch_before)  # undo what was set, free the limit for later blocks
        raise
    return limiter, torch_before


def _release(limiter: Any, torch_before: int | None) -> None:
    global _owner
    try:
        if limiter is not None:
            limiter.__exit__(None, None, None)  # restores the previous sizes
        if torch_before is not None:
            sys.modules["torch"].set_num_threads(torch_before)
    finally:
        with _lock:
            _owner = None


def _blas_threads() -> int:
    """The largest thread count of the loaded BLAS libraries (0 if none is loaded)."""
    return max(
        (lib["num_threads"] for lib in _thread_pools().info() if lib["user_api"] == "blas"),
        default=0,
    )


def _thread_pools() -> Any:
    """A ``threadpoolctl.ThreadpoolController``, scanned again when modules (and so perhaps thread
    pools, e.g. PyTorch's) were loaded since the last scan (a scan takes milliseconds)."""
    global _controller, _modules_seen
    if _controller is None or len(sys.modules) != _modules_seen:
        from threadpoolctl import ThreadpoolController  # imported on first use

        _controller, _modules_seen = ThreadpoolController(), len(sys.modules)
    return _controller
