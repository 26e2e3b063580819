"""DEC-HBO's given structure: the ``groups`` a user passes, checked when the sampler is built and
resolved against the search space at the first model-based suggestion."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from shared_core.models.structure import Partition, canonical
from shared_core.search_space import SearchSpace

__all__ = ["checked_groups", "resolve_groups"]


def checked_groups(
    groups: Sequence[Sequence[str | int]] | None, max_size: int
) -> list[list[str | int]] | None:
    """``groups`` as lists, checked: non-empty groups of names or non-negative positions, at most
    ``max_size`` each, no parameter twice (the names are checked against the search space later,
    by :func:`resolve_groups`)."""
    if groups is None:
        return None
    problem = _groups_problem(groups, max_size)
    if problem:
        raise ValueError(f"groups={groups!r}: {problem}")
    return [[item if isinstance(item, str) else int(item) for item in group] for group in groups]


def _groups_problem(groups: object, max_size: int) -> str:
    """What is wrong with ``groups`` (``""``: nothing)."""
    if isinstance(groups, (str, bytes)) or not isinstance(groups, Sequence) or not groups:
        return "must be a non-empty list of groups, each a list of parameter names"
    flat = []
    for group in groups:
        if isinstance(group, (str, bytes)) or not isinstance(group, Sequence) or not group:
            return f"each group must be a non-empty list of parameters, got {group!r}"
        for item in group:
            is_position = isinstance(item, (int, np.integer)) and not isinstance(item, bool)
            if not (isinstance(item, str) or (is_position and item >= 0)):
                return f"a group holds parameter names or positions (integers >= 0), got {item!r}"
        if len(group) > max_size:
            return f"group {list(group)!r} has more than max_factor_size={max_size} parameters"
        flat += list(group)
    repeated = sorted({repr(item) for item in flat if flat.count(item) > 1})
    return f"parameters named more than once: {', '.join(repeated)}" if repeated else ""


def resolve_groups(groups: list[list[str | int]], space: SearchSpace) -> Partition:
    """The partition of ``space``'s parameters that ``groups`` give (names or positions);
    parameters in no group are factors of their own."""
    names = space.names
    unknown = [item for g in groups for item in g if not _known(item, names)]
    if unknown:
        raise ValueError(
            f"groups name parameters the study does not have: {unknown!r}; its parameters are "
            f"{names!r} (a conditional parameter counts once a completed trial has sampled it)"
        )
    indexed = [[names.index(i) if isinstance(i, str) else i for i in g] for g in groups]
    if len({i for g in indexed for i in g}) < sum(len(g) for g in indexed):
        raise ValueError(f"groups name a parameter twice (by name and position): {groups!r}")
    grouped = {i for g in indexed for i in g}
    return canonical(indexed + [[i] for i in range(len(names)) if i not in grouped])


def _known(item: str | int, names: list[str]) -> bool:
    return item in names if isinstance(item, str) else item < len(names)
