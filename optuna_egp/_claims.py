"""Claims: concurrent workers never evaluate the same point.

Workers asking at the same moment see the same data, and an algorithm whose choice is
deterministic given the data (an acquisition maximum) would hand them the same point. So a
suggestion is written to its trial (``CLAIM_KEY``) before it is returned, and then the running
trials' points (claims, or parameters once written) are read back. Write-then-read means that
of two trials choosing the same point at the same moment at least one sees the other: a trial
that sees a conflict with an earlier trial (lower number), or with one that has settled (its
parameters are written), draws again with that point taken; one that conflicts only with
later, unsettled trials waits for them to move off or settle (they see this claim), for up to
``CLAIM_WAIT_SECONDS``. Several workers drawing again from the same data would again agree, so
after ``ALGORITHM_DRAWS`` draws the point is random among the points nobody has taken.
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Callable

import numpy as np
from optuna.study import Study
from optuna.trial import FrozenTrial, TrialState

from optuna_egp import _storage
from optuna_egp._space import RelativeSpace
from shared_core.optim.acquisition_optimizer import matches_any
from shared_core.search_space import SearchSpace

__all__ = ["CLAIM_KEY", "SUGGESTED_BY", "Claim", "claimed_point", "random_new_point", "settled"]

# {"space": hash, "x": encoded point, "by": one of SUGGESTED_BY}, written once a point is chosen
CLAIM_KEY = "egp_samplers:claim"
# how a claimed point was chosen: the algorithm's model, a random start-up point, or a random point
# nobody has taken (after ALGORITHM_DRAWS conflicting draws)
SUGGESTED_BY = ("model", "start-up", "random")

# Two running trials (of any workers) closer than this in the encoded space (the unit box:
# 0.1% of a range) count as one point, and the later choice moves. Acquisition maxima found
# by different workers from the same data agree to about 1e-6.
MIN_CONCURRENT_DISTANCE = 1e-3
MAX_CLAIM_DRAWS = 4  # points drawn for one trial at most (the last one is kept even if it is taken)
ALGORITHM_DRAWS = 2  # of which by the algorithm; later ones are random points nobody has taken
CLAIM_WAIT_SECONDS = 5.0  # longest wait for a later trial to settle on or move off the same point
CLAIM_POLL_SECONDS = 0.02

# a trial, its encoded (d,) point, whether it had settled
OtherPoint = tuple[FrozenTrial, np.ndarray, bool]


class Claim:
    """One trial's claim on its point, so that no other running trial has it, nor a trial that
    completed after the data of the suggestion was read.

    The sampler suggests a point, then :meth:`stake` claims it: None means the point is the
    trial's; otherwise it returns the points now known to be taken, and the sampler suggests
    again away from them (the algorithm while :attr:`algorithm_draws`, then a random point nobody
    has taken), up to ``MAX_CLAIM_DRAWS`` points.

    Args:
        study: the study.
        trial: the trial the point is for.
        space: the suggestion's space.
        known: the numbers of the trials that were completed, or presumed dead, when the data of
            the suggestion was read (their points are observations, not claims).
        visible: filters the trials the algorithm may learn from (e.g. an agent: its
            neighbourhood's).
        warn: ``warn(topic, message)`` warns once.
        shared: ``(r, d)`` points several trials may share: each stands for many configurations
            (``Observations.repeatable``), so a trial there conflicts with no other.
    """

    def __init__(
        self,
        study: Study,
        trial: FrozenTrial,
        space: RelativeSpace,
        known: set[int],
        visible: Callable[[list[FrozenTrial]], list[FrozenTrial]],
        warn: Callable[[str, str], None],
        shared: np.ndarray | None = None,
    ) -> None:
        self.study, self.trial, self.space, self.known = study, trial, space, known
        self.visible, self.warn = visible, warn
        self.shared = np.zeros((0, space.core.dim)) if shared is None else shared  # (r, d)
        self.taken = np.zeros((0, space.core.dim))  # (k, d) points known to be taken
        self.n_draws = 0  # points staked so far

    @property
    def algorithm_draws(self) -> bool:
        """Whether the next point is the algorithm's (the first ``ALGORITHM_DRAWS`` are)."""
        return self.n_draws < ALGORITHM_DRAWS

    def stake(self, x: np.ndarray, by: str) -> np.ndarray | None:
        """Claim the ``(d,)`` point ``x``, chosen ``by`` (one of :data:`SUGGESTED_BY`): write it to
        the trial, then read the other trials' points back. None if ``x`` is the trial's: no other
        trial has it, the claim could not be written, or it was the last point drawn. Otherwise
        ``(k, d)``, the points now known to be taken (the data may be seconds old by now): the
        conflicting ones, and the others the algorithm may learn from."""
        self.n_draws += 1
        study, trial, space = self.study, self.trial, self.space
        try:
            _storage.write_system_attr(
                study, trial, CLAIM_KEY, {"space": space.key, "x": x.tolist(), "by": by}
            )
        except Exception as err:  # without a claim there is no check; never a reason to fail
            self.warn(
                "claim",
                f"writing {CLAIM_KEY} to trial {trial.number} failed: {err!r}; "
                "concurrent trials are not checked for a shared point",
            )
            return None
        if matches_any(x[None], self.shared)[0]:
            return None
        deadline = time.monotonic() + CLAIM_WAIT_SECONDS
        while True:
            others = other_points(study, trial, space, self.known)
            conflicts = [
                (t, p, done)
                for t, p, done in others
                if np.linalg.norm(p - x) <= MIN_CONCURRENT_DISTANCE
            ]
            later_deciding = all(t.number > trial.number and not done for t, _, done in conflicts)
            if not conflicts or not later_deciding or time.monotonic() > deadline:
                break
            time.sleep(CLAIM_POLL_SECONDS)  # a later trial that has not decided: it sees this claim
        if not conflicts or self.n_draws == MAX_CLAIM_DRAWS:
            return None
        seen = {t.number for t in self.visible([t for t, _, _ in others])}
        new = [
            p
            for t, p, _ in others
            if t.number in seen or np.linalg.norm(p - x) <= MIN_CONCURRENT_DISTANCE
        ]
        self.taken = np.unique(np.vstack([self.taken, *new]), axis=0)  # (k, d)
        return self.taken


def other_points(
    study: Study, trial: FrozenTrial, space: RelativeSpace, known: set[int]
) -> list[OtherPoint]:
    """The other running and completed trials of ``study`` not in ``known``, in this search
    space, with their encoded ``(d,)`` points (their parameters once written, else their
    claims) and whether they had settled (:func:`settled`) when their point was read."""
    out = []
    for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING, TrialState.COMPLETE)):
        if t.number == trial.number or t.number in known:
            continue
        done = settled(t, space)  # first: an in-memory trial's parameters may be written meanwhile
        if space.written(t):
            out.append((t, space.encode([t])[0], done))
        elif (claimed := claimed_point(t, space)) is not None:
            out.append((t, claimed, done))
        elif space.holds(t):  # part of a conditional point, and no claim
            out.append((t, space.encode([t])[0], done))
    return out


def settled(trial: FrozenTrial, space: RelativeSpace) -> bool:
    """Whether ``trial`` has chosen its point: it has written a parameter of ``space`` that
    was not fixed in advance (enqueued), every parameter of ``space`` was fixed in advance
    (it never chooses), or it has finished."""
    fixed = _storage.enqueued_params(trial)
    if trial.state != TrialState.RUNNING or all(name in fixed for name in space.distributions):
        return True
    return any(name in space.distributions and name not in fixed for name in trial.params)


def claimed_point(trial: FrozenTrial, space: RelativeSpace) -> np.ndarray | None:
    """The ``(d,)`` point ``trial`` claimed in ``space`` (see
    :class:`Claim`), or None if it has no valid claim there."""
    claim = trial.system_attrs.get(CLAIM_KEY)
    if not (isinstance(claim, dict) and claim.get("space") == space.key):
        return None
    x = claim.get("x")
    valid = (
        isinstance(x, list)
        and len(x) == space.core.dim
        and all(
            isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(v) for v in x
        )
    )
    return np.asarray(x, dtype=float) if valid else None


def random_new_point(
    space: SearchSpace, rng: np.random.Generator, pending: np.ndarray, observed: np.ndarray
) -> np.ndarray:
    """A uniform random ``(d,)`` point of ``space`` that is not a pending ``(p, d)`` point, nor (if
    possible) an observed ``(n, d)`` one: the start-up phase's draw (as RandomSampler's, but aware
    of the other workers' points, which matters on small discrete spaces)."""
    candidates = space.sample(rng, 64, low_discrepancy=False)  # (64, d)
    for avoid in (np.vstack([pending, observed]), pending):
        fresh = candidates[~matches_any(candidates, avoid)]
        if len(fresh):
            return fresh[0]
    return candidates[0]
