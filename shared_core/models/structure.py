"""Additive structure: disjoint partitions of the parameters into factors, and their posterior
samples by Markov chain Monte Carlo on the marginal likelihood (Hoang, Hoang, Ouyang & Low,
"Decentralized high-dimensional Bayesian optimization with factor graphs", AAAI 2018,
Appendix B, after Gardner, Guo, Weinberger, Garnett & Grosse, "Discovering and exploiting
additive structure for Bayesian optimization", AISTATS 2017).

A partition is a tuple of groups, each a sorted tuple of parameter indices (positions in the
search space); factor size counts parameters, so a categorical parameter's one-hot columns stay in
one factor (:func:`partition_columns` maps parameters to encoded columns).

The chain (Metropolis-Hastings): a move takes one parameter, chosen uniformly, out of its group
and puts it into another group with room (fewer than ``max_size`` parameters) or into a new group
of its own (unless it is alone already), chosen uniformly among those targets. The proposal is
symmetric (the moved parameter has as many targets after the move as before: its old group, or a
group of its own, replaces its new one), so a move is accepted with probability
``min(1, p(y | U') / p(y | U))``, ``p(y | U)`` the additive GP's log marginal likelihood plus log
prior of its hyperparameters and their normalising constants, at hyperparameters the caller chooses
(fitted per partition: a MAP approximation of the evidence, without an Occam factor for the
hyperparameters; or, as DEC-HBO's sampler does, inherited from the chain's last fitted state). The
``k`` samples are taken at even intervals from the second half of the chain, so a partition the
chain dwells in counts more; they are correlated draws of one short chain, not independent ones.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

__all__ = [
    "Partition",
    "canonical",
    "inherited_amplitudes",
    "partition_columns",
    "random_partition",
    "sample_partitions",
]

Partition = tuple[tuple[int, ...], ...]


def canonical(groups: Sequence[Sequence[int]]) -> Partition:
    """``groups`` as a :data:`Partition`: each group sorted, empty groups dropped, groups ordered
    by their first parameter."""
    return tuple(sorted(tuple(sorted(int(p) for p in g)) for g in groups if len(g)))


def partition_columns(
    partition: Partition, param_columns: Sequence[np.ndarray]
) -> tuple[np.ndarray, ...]:
    """The encoded columns of each group: ``param_columns[p]`` holds parameter ``p``'s columns."""
    return tuple(np.concatenate([param_columns[p] for p in group]) for group in partition)


def inherited_amplitudes(amps: np.ndarray, old: Partition, new: Partition) -> np.ndarray:
    """``(G_new,)`` a signal variance per group of ``new`` from ``amps`` ``(G_old,)``, those of
    ``old``'s groups: the mean over its parameters of their old groups' (a group the chain did not
    change keeps its own)."""
    of_param = {p: float(amps[i]) for i, group in enumerate(old) for p in group}
    return np.array([np.mean([of_param[p] for p in group]) for group in new])


def random_partition(n_params: int, max_size: int, rng: np.random.Generator) -> Partition:
    """The parameters in random order, cut into consecutive groups of ``max_size`` (the last may
    be smaller): the chain's first state."""
    order = rng.permutation(n_params)
    return canonical([order[i : i + max_size].tolist() for i in range(0, n_params, max_size)])


def _targets(partition: Partition, param: int, max_size: int) -> list[int]:
    """Where ``param`` may move: the indices of the other groups with room, and ``-1`` (a new
    group of its own) unless it is alone already."""
    home = next(i for i, g in enumerate(partition) if param in g)
    out = [i for i, g in enumerate(partition) if i != home and len(g) < max_size]
    return out + ([-1] if len(partition[home]) > 1 else [])


def _moved(partition: Partition, param: int, target: int) -> Partition:
    groups = [[p for p in g if p != param] for g in partition]
    if target == -1:
        groups.append([param])
    else:
        groups[target].append(param)
    return canonical(groups)


def sample_partitions(
    n_params: int,
    max_size: int,
    evidence: Callable[[Partition], float],
    rng: np.random.Generator,
    *,
    k: int,
    steps: int,
    start: Partition | None = None,
    on_accept: Callable[[Partition], float] | None = None,
) -> list[Partition]:
    """``k`` partitions of ``n_params`` parameters into groups of at most ``max_size``, sampled by
    the chain of the module docstring from ``start`` (default :func:`random_partition`) for
    ``steps`` moves; ``evidence(partition)`` is its log evidence (called once per partition
    visited: cache it there if it is costly); ``on_accept(state)``, if given, is called at each
    accepted move and returns the state's log evidence anew (after a refit there)."""
    state = start if start is not None else random_partition(n_params, max_size, rng)
    log_p = evidence(state)
    chain = [state]
    for _ in range(steps):
        param = int(rng.integers(n_params))
        targets = _targets(state, param, max_size)
        if not targets:  # every other group is full and the parameter is alone
            chain.append(state)
            continue
        proposal = _moved(state, param, targets[int(rng.integers(len(targets)))])
        log_q = evidence(proposal)
        if np.log(rng.random()) < log_q - log_p:  # symmetric proposal (module docstring)
            state, log_p = proposal, log_q
            if on_accept is not None:
                log_p = on_accept(state)
        chain.append(state)
    tail = chain[len(chain) // 2 :]
    picks = np.linspace(0, len(tail) - 1, k).round().astype(int)
    return [tail[i] for i in picks]
