"""Pending points: the running trials' points, which
an algorithm keeps its new suggestions away from."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from optuna.trial import FrozenTrial

from optuna_egp._claims import claimed_point
from optuna_egp._space import RelativeSpace

__all__ = ["UnwrittenSuggestions", "pending_points"]


class UnwrittenSuggestions:
    """This process's suggestions whose parameters may not be in the storage yet (Optuna
    writes them when the objective calls ``suggest_*``):
    ``{(study name, trial number): (search space, encoded (d,) point)}``. Not thread-safe:
    the sampler holds its lock."""

    def __init__(self) -> None:
        self.points: dict[tuple[str, int], tuple[RelativeSpace, np.ndarray]] = {}

    def add(self, study_name: str, number: int, space: RelativeSpace, x: np.ndarray) -> None:
        self.points[(study_name, number)] = (space, x)

    def __contains__(self, key: tuple[str, int]) -> bool:
        return key in self.points


def pending_points(
    study_name: str,
    trial: FrozenTrial,
    alive: list[FrozenTrial],
    space: RelativeSpace,
    unwritten: UnwrittenSuggestions,
    visible: Callable[[list[FrozenTrial]], list[FrozenTrial]],
) -> tuple[np.ndarray, list[FrozenTrial]]:
    """Encoded running trials ``(p, d)`` other than ``trial``, and the trials they belong to: from
    the storage (parameters, or claims of other processes' trials whose parameters are not written
    yet, or in a conditional space the parameters written so far of a trial without a claim) or
    from this process's own recent suggestions (``unwritten``; entries of finished trials,
    or of trials whose parameters are now stored, are dropped). ``alive``: the running trials not
    presumed dead; ``visible`` filters the trials the algorithm may learn from."""
    running = {t.number: t for t in alive if t.number != trial.number}
    written = {number for number, t in running.items() if space.written(t)}
    seen = {t.number for t in visible(list(running.values()))}  # e.g. an agent: its neighbourhood's
    stored = [t for number, t in running.items() if number in written and number in seen]
    rows, owners = [space.encode(stored)], list(stored)
    for key in list(unwritten.points):
        name, number = key
        if name != study_name:
            continue
        if number not in running or number in written:
            del unwritten.points[key]  # finished, or its parameters are in the storage now
        elif unwritten.points[key][0].distributions == space.distributions and number in seen:
            rows.append(unwritten.points[key][1][None])
            owners.append(running[number])
    for (
        number,
        t,
    ) in running.items():  # other processes' suggestions whose parameters are not written yet
        if number in written or number not in seen or (study_name, number) in unwritten:
            continue
        claimed = claimed_point(t, space)
        if claimed is not None:
            rows.append(claimed[None])
            owners.append(t)
        elif space.holds(t):  # part of a conditional point, and no claim: what it has written
            rows.append(space.encode([t]))
            owners.append(t)
    return np.vstack(rows), owners
