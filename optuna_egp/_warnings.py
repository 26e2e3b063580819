"""Warnings of the samplers, each shown once, through Optuna's logger; the stack level of a
Python warning that names the user's line."""

from __future__ import annotations

import inspect
import threading
from typing import Any

import optuna

__all__ = ["OnceWarnings", "caller_stacklevel", "logger", "threads_not_capped"]

# Under Optuna's library logger, so that optuna.logging.set_verbosity
# and its handler apply to our warnings.
logger = optuna.logging.get_logger("optuna.optuna_egp")


class OnceWarnings:
    """Logs a warning the first time it is given a
    topic, and never again for that topic (thread-safe).

    Args:
        owner: the name the messages start with (the sampler's class name).
    """

    def __init__(self, owner: str) -> None:
        self.owner = owner
        self.topics: set[str] = set()
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        return {"owner": self.owner, "topics": set(self.topics)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        # re-creates the lock, which cannot be pickled
        type(self).__init__(self, state["owner"])
        self.topics = set(state["topics"])

    def __contains__(self, topic: str) -> bool:
        return topic in self.topics

    def warn(self, topic: str, what: str, *, once: str = "once", named: bool = True) -> None:
        """Log ``"<owner>: <what>. This warning is shown <once>."`` (without ``"<owner>: "`` if not
        ``named``: ``what`` names the sampler itself) unless ``topic`` was warned about."""
        with self._lock:
            if topic in self.topics:
                return
            self.topics.add(topic)
        prefix = f"{self.owner}: " if named else ""
        logger.warning(f"{prefix}{what}. This warning is shown {once}.")


def threads_not_capped(owner: str, max_threads: int | None) -> str:
    """The warning that ``owner(max_threads=...)`` could not cap the BLAS threads."""
    return (
        f"{owner}(max_threads={max_threads}) could not cap the BLAS threads: another thread "
        "controls them (e.g. a threadpoolctl.threadpool_limits block around "
        "study.optimize(n_jobs=...)). Set OPENBLAS_NUM_THREADS or OMP_NUM_THREADS before starting "
        "Python instead"
    )


def caller_stacklevel() -> int:
    """The ``stacklevel`` for a ``warnings.warn`` in the function that calls this one which points
    at the first frame outside this package (the user's line, whatever constructors it went
    through)."""
    frame = inspect.currentframe()
    frame = frame.f_back if frame is not None else None  # the function that warns: level 1
    level = 1
    while frame is not None and frame.f_globals.get("__name__", "").startswith("optuna_egp."):
        frame = frame.f_back
        level += 1
    return level
