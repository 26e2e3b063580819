"""Which trials a multi-agent algorithm may learn from, and each trial's source (agent) label."""

from __future__ import annotations

import numbers

import numpy as np
from optuna.trial import FrozenTrial

from shared_core.interface import UNKNOWN_SOURCE, Algorithm, MultiAgent, ReadsSources

__all__ = ["source_label", "sources", "visible"]


def source_label(trial: FrozenTrial, name: str) -> int:
    """The integer user attribute ``name`` of ``trial``, or -1 (unknown) if it has none."""
    value = trial.user_attrs.get(name)
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    return UNKNOWN_SOURCE


def visible(algorithm: Algorithm, trials: list[FrozenTrial]) -> list[FrozenTrial]:
    """The trials whose source ``algorithm`` may learn from: all, unless it is a :class:`MultiAgent`
    (then those of its ``known_sources()``, e.g. an agent's neighbourhood)."""
    if not isinstance(algorithm, MultiAgent):
        return trials
    known = algorithm.known_sources()
    return [t for t in trials if source_label(t, algorithm.source_attribute) in known]


def sources(algorithm: Algorithm, trials: list[FrozenTrial]) -> np.ndarray | None:
    """``(n,)`` source labels of ``trials`` (-1 where a trial has none) for an algorithm that
    :class:`ReadsSources`; None for the others, which ask for none."""
    if not isinstance(algorithm, ReadsSources):
        return None
    return np.array([source_label(t, algorithm.source_attribute) for t in trials], dtype=np.int64)
