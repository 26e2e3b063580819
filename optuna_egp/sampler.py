"""One Optuna sampler for every core algorithm, and the preconfigured ``EGPTSSampler``.

The adapter turns the study's trials into :class:`shared_core.interface.Observations`, calls the
algorithm and decodes its candidate. Everything it needs is read from the storage on every call, so
any number of threads or processes can share one study, and a restarted worker continues where the
others are. Running trials whose worker died are presumed dead after a while (``running_trial_timeout``).

Model sharing (``share_model=True``): after each model-based suggestion the algorithm's fitted state
(for EGP: kernel weights, and hyperparameters plus output transform when they changed) is written to
the new trial's system attributes; a worker that starts without a fitted model builds it from the
newest stored state instead of fitting hyperparameters from scratch.

Heartbeats (RDB storage with ``heartbeat_interval``): Optuna starts a trial's heartbeat thread only once
``study.ask`` has returned, and ``fail_stale_trials`` never fails a trial that has no heartbeat, so a
worker killed while its trial is being created leaves that trial RUNNING for good. The sampler gives such
a trial (another process's, older than the heartbeat interval, with no parameter and no claim yet) one
heartbeat, once in the whole study, so it is failed by the heartbeat like any other.

Writing a running trial's attributes and heartbeat needs the study's storage, the one private Optuna
access of this package (:func:`_study_storage`).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import math
import numbers
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import optuna
from optuna.distributions import BaseDistribution
from optuna.samplers import BaseSampler, RandomSampler
from optuna.search_space import IntersectionSearchSpace
from optuna.storages import BaseStorage
from optuna.study import Study, StudyDirection
from optuna.trial import FrozenTrial, TrialState

from optuna_egp._space import CompletedTrialEncodings, decode_params, encode_trials, has_all_params, to_core_space
from shared_core.algorithms.bore import BOREAlgorithm
from shared_core.algorithms.egp import ACQUISITIONS, EGPAlgorithm
from shared_core.interface import UNKNOWN_SOURCE, Algorithm, Observations
from shared_core.models.kernels import KernelSpec
from shared_core.optim.acquisition_optimizer import matches_any
from shared_core.threads import check_max_threads, limited_threads
from shared_core.validation import check_bool, check_int

__all__ = ["BORESampler", "CoreSampler", "EGPTSSampler", "MODEL_KEY", "WEIGHTS_KEY"]

# Trial system attributes written with share_model=True.
MODEL_KEY = "egp_samplers:model"  # {"space": hash, "columns": [...], "model": state without weights}, when it changed
WEIGHTS_KEY = "egp_samplers:weights"  # the ensemble's kernel weights after the suggestion, every model-based trial
VIEW_KEY = "egp_samplers:view"  # what a multi-agent algorithm conditioned on: {"agent", "sources", "n_observed", ...}
CLAIM_KEY = "egp_samplers:claim"  # {"space": hash, "x": encoded point}, written as soon as a point is chosen
HEARTBEAT_GIVEN_KEY = "egp_samplers:heartbeat_given"  # a trial that got a heartbeat from another process
MAX_RECORD_CHARS = 60_000  # larger model records are not written (MySQL's TEXT holds 64 KB)

# The "auto" rule for running trials: once STALE_MIN_COMPLETED trials have completed, a trial running
# longer than STALE_FACTOR times the STALE_QUANTILE of their durations, and at least STALE_MIN_SECONDS
# (trials asked in a batch wait for each other's suggestions), is presumed dead.
STALE_FACTOR = 10.0
STALE_QUANTILE = 0.9
STALE_MIN_COMPLETED = 5
STALE_MIN_SECONDS = 30.0

# Two running trials (of any workers) closer than this in the encoded space (the unit box: 0.1% of a range)
# count as one point, and the later choice moves; see CoreSampler._claim. Acquisition maxima found by
# different workers from the same data agree to about 1e-6.
MIN_CONCURRENT_DISTANCE = 1e-3
MAX_CLAIM_DRAWS = 4  # points drawn for one trial at most (the last one is kept even if it is taken)
ALGORITHM_DRAWS = 2  # of which by the algorithm; later ones are random points nobody has taken
CLAIM_WAIT_SECONDS = 5.0  # longest wait for a later trial to settle on or move off the same point
CLAIM_POLL_SECONDS = 0.02

# Under Optuna's library logger, so that optuna.logging.set_verbosity and its handler apply to our warnings.
_logger = optuna.logging.get_logger(f"optuna.{__name__}")


class CoreSampler(BaseSampler):
    """Optuna sampler around any core algorithm (``suggest(space, obs, n, rng)``).

    Relative sampling on the intersection search space of completed trials; parameters outside it
    (conditional or dynamic ones) go to ``independent_sampler``. Completed trials are observations,
    running trials are pending points; failed and pruned trials are ignored. Single objective only.
    Constraints are not modelled yet: ``constraints_func`` is refused, and the first trial of a study that
    carries constraint values (``trial.set_constraint``) gets a warning that they are not used for sampling.

    Args:
        algorithm: the core algorithm.
        seed: seed of the sampler's ``numpy.random.Generator`` and of the default independent sampler.
        n_startup_trials: completed trials before the algorithm is used. Their points are drawn at
            random (uniformly, like ``RandomSampler``, but away from other trials' points) or, if
            ``independent_sampler`` is given, by it.
        independent_sampler: sampler for parameters outside the relative search space (default
            :class:`~optuna.samplers.RandomSampler` with ``seed``); if given, it also does the start-up.
        warn_independent_sampling: log a warning (once per parameter) when a parameter is sampled
            independently after the start-up phase.
        max_threads: BLAS/OpenMP/PyTorch threads while the sampler computes (default 1: with several
            worker processes per machine, more threads only compete for the same cores); the previous
            limits are restored afterwards. ``None`` leaves the thread pools alone. While a suggestion
            is computed the limit holds for the whole process, including other ``n_jobs`` threads.
        running_trial_timeout: when a running trial stops counting as pending. ``"auto"`` (default):
            once 5 trials have completed, a trial running longer than 10 times the 90th percentile of
            their durations, and at least 30 s, is presumed dead (its worker was killed); a number:
            that many seconds;
            ``None``: running trials always count. Ages use the trials' start times, so the workers'
            clocks must agree (as for Optuna's own timestamps).
        share_model: record the algorithm's fitted model in the study (trial system attributes
            ``MODEL_KEY`` and ``WEIGHTS_KEY``) and start from the newest recorded model when this
            sampler has none yet, so a new or restarted worker skips the hyperparameter fit (default
            True; algorithms without a ``model_state`` method ignore it).
        constraints_func: not supported yet (``ValueError`` if given): no algorithm models constraints.
    """

    def __init__(
        self,
        algorithm: Algorithm,
        *,
        seed: int | None = None,
        n_startup_trials: int = 10,
        independent_sampler: BaseSampler | None = None,
        warn_independent_sampling: bool = True,
        max_threads: int | None = 1,
        running_trial_timeout: float | str | None = "auto",
        share_model: bool = True,
        constraints_func: Callable[[FrozenTrial], Sequence[float]] | None = None,
    ) -> None:
        if constraints_func is not None:
            raise ValueError(_constraints_refusal(type(self).__name__, constraints_func))
        if not isinstance(algorithm, Algorithm):
            raise ValueError(f"algorithm must have a suggest(space, obs, n, rng) method, got {algorithm!r}")
        n_startup_trials = check_int("n_startup_trials", n_startup_trials, minimum=0)
        if independent_sampler is not None and not isinstance(independent_sampler, BaseSampler):
            raise ValueError(f"independent_sampler must be an Optuna sampler, got {independent_sampler!r}")
        seed = None if seed is None else check_int("seed", seed, minimum=0)
        self._max_threads = check_max_threads(max_threads)
        self._running_trial_timeout = _check_timeout(running_trial_timeout)
        self._share_model = check_bool("share_model", share_model)
        self._recorded_model: dict[str, Any] = {}  # study name -> the last model state this sampler wrote
        # Trials this process is running (never presumed dead by running_trial_timeout).
        self._in_flight: set[tuple[str, int]] = set()
        self._algorithm = algorithm
        self._rng = np.random.default_rng(seed)
        self._n_startup_trials = n_startup_trials
        self._independent_sampler = independent_sampler or RandomSampler(seed=seed)
        self._warn_independent_sampling = check_bool("warn_independent_sampling", warn_independent_sampling)
        self._warned: set[str] = set()
        self._threads_warned = False
        self._search_space = IntersectionSearchSpace()
        self._encodings = CompletedTrialEncodings()
        self._lock = threading.Lock()
        # Suggestions whose parameters may not be in the storage yet (Optuna writes them when the
        # objective calls suggest_*): {(study name, trial number): (search space, encoded point)}.
        self._unwritten: dict[tuple[str, int], tuple[dict[str, BaseDistribution], np.ndarray]] = {}
        # Trials of this process that started during the start-up phase (never warned about).
        self._startup_trials: set[tuple[str, int]] = set()
        # Other processes' running trials this process gave a heartbeat (see _heartbeat_orphaned_trials).
        self._heartbeat_given: set[tuple[str, int]] = set()
        self._warned_topics: set[str] = set()  # _warn_once
        self._warn_lock = threading.Lock()  # _warn_once from after_trial, outside self._lock
        self._constraints_checked: dict[str, set[int]] = {}  # study name -> trials checked by _warn_if_constrained
        self._startup_in_sampler = independent_sampler is None  # start-up points then avoid running trials' ones

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_lock"], state["_encodings"], state["_warn_lock"]
        state["_in_flight"], state["_unwritten"] = set(), {}  # this process's running trials only
        state["_heartbeat_given"] = set()
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        defaults = {"_max_threads": 1, "_running_trial_timeout": "auto", "_share_model": True, "_recorded_model": {},
                    "_in_flight": set(), "_threads_warned": False,
                    "_heartbeat_given": set(), "_warned_topics": set(), "_constraints_checked": {},
                    "_startup_in_sampler": False}  # older pickles
        self.__dict__.update({**defaults, **state})
        self._lock = threading.Lock()
        self._warn_lock = threading.Lock()
        self._encodings = CompletedTrialEncodings()

    @property
    def algorithm(self) -> Algorithm:
        return self._algorithm

    def reseed_rng(self) -> None:
        with self._lock:
            self._rng = np.random.default_rng()
        self._independent_sampler.reseed_rng()

    def infer_relative_search_space(self, study: Study, trial: FrozenTrial) -> dict[str, BaseDistribution]:
        _check_single_objective(study, self)
        with self._lock:
            space = self._search_space.calculate(study)
        if not space and not study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
            space = _first_running_trial_space(study, trial)  # the first trials: workers starting together
        return {name: dist for name, dist in space.items() if not dist.single()}

    def sample_relative(
        self, study: Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution]
    ) -> dict[str, Any]:
        _check_single_objective(study, self)
        # One suggestion at a time, so each sees the ones before it as pending.
        with self._lock, limited_threads(self._max_threads) as capped:
            if not capped:
                self._warn_uncapped_threads()
            trials = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.RUNNING))
            self._warn_if_constrained(study, [t for t in trials if t.state == TrialState.COMPLETE])
            self._heartbeat_orphaned_trials(study, trials)
            # Only what the algorithm may learn from (e.g. an agent: its neighbourhood's trials).
            complete = self._visible([t for t in trials if t.state == TrialState.COMPLETE])
            if not search_space:
                if len(complete) < max(self._n_startup_trials, 1):
                    self._startup_trials.add((study.study_name, trial.number))
                return {}
            space = to_core_space(search_space)
            complete, X = self._encodings.encode(study, space, search_space, complete)  # X: (n, d)
            in_startup = len(complete) < max(self._n_startup_trials, 1)  # nothing (or too little) to model yet
            if in_startup:
                self._startup_trials.add((study.study_name, trial.number))
                if not self._startup_in_sampler:  # the user's independent_sampler does the start-up
                    return {}
            own = {number for name, number in set(self._in_flight) if name == study.study_name}  # copy: n_jobs threads
            alive = _alive_running_trials(trials, self._running_trial_timeout, _now(), own)
            X_pending, pending_trials = self._pending_points(study, trial, alive, search_space, space)

            def random_draw(taken):  # taken: (k, d) points to avoid besides the pending ones
                return _random_new_point(space, self._rng, np.vstack([X_pending, taken]), X)

            if in_startup:
                draw = random_draw
            else:
                sign = -1.0 if study.direction == StudyDirection.MAXIMIZE else 1.0
                obs = Observations(
                    X=X,
                    y=sign * np.array([t.value for t in complete], dtype=float),  # minimised
                    X_pending=X_pending,
                    source=self._sources(complete),
                    pending_source=self._sources(pending_trials),
                )
                if self._share_model:
                    self._offer_recorded_model(study, search_space)

                def draw(taken):  # taken: (k, d) points to count as pending too
                    extra = taken[~matches_any(taken, X_pending)]
                    return self._algorithm.suggest(space, obs.with_pending(extra) if len(extra) else obs, 1,
                                                   self._rng)[0]
            x = self._claim(study, trial, search_space, space, draw, random_draw,
                            known={t.number for t in trials} - {t.number for t in alive})
            self._unwritten[(study.study_name, trial.number)] = (search_space, x)
            if in_startup:
                return decode_params(space, search_space, x)
            if self._share_model:
                self._record_model(study, trial, search_space, space)
            self._record_view(study, trial)
        return decode_params(space, search_space, x)

    def _claim(self, study: Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution], space,
               draw, random_draw, known: set[int]) -> np.ndarray:
        """Choose ``trial``'s point with ``draw(taken)`` (``taken`` ``(k, d)``: points to count as pending
        too) so that no other running trial has it, nor a trial that completed after the data of the draw
        was read (``known``: the numbers of the trials that were completed, or presumed dead, then).

        Workers asking at the same moment see the same data, and an algorithm whose choice is
        deterministic given the data (an acquisition maximum) would hand them the same point. So the point
        is written to the trial (``CLAIM_KEY``) before it is returned, and then the running trials' points
        (claims, or parameters once written) are read back. Write-then-read means that of two trials
        choosing the same point at the same moment at least one sees the other: a trial that sees a
        conflict with an earlier trial (lower number), or with one that has settled (its parameters are
        written), draws again with that point taken; one that conflicts only with later, unsettled trials
        waits for them to move off or settle (they see this claim), for up to ``CLAIM_WAIT_SECONDS``.
        Several workers drawing again from the same data would again agree, so after ``ALGORITHM_DRAWS``
        draws the point is ``random_draw(taken)``: uniform among the points nobody has taken."""
        taken = np.zeros((0, space.dim))
        x = space.round_to_valid(draw(taken))[0]  # (d,), the encoding of the values it decodes to
        for n_draws in range(1, MAX_CLAIM_DRAWS + 1):
            try:
                _write_trial_attr(study, trial, CLAIM_KEY, {"space": _space_key(search_space), "x": x.tolist()},
                                  system=True)
            except Exception as err:  # without a claim there is no check; never a reason to fail the trial
                self._warn_once("claim", f"writing {CLAIM_KEY} to trial {trial.number} failed: {err!r}; "
                                "concurrent trials are not checked for a shared point")
                return x
            deadline = time.monotonic() + CLAIM_WAIT_SECONDS
            while True:
                others = self._other_points(study, trial, search_space, space, known)
                conflicts = [(t, p, settled) for t, p, settled in others
                             if np.linalg.norm(p - x) <= MIN_CONCURRENT_DISTANCE]
                later_deciding = all(t.number > trial.number and not settled for t, _, settled in conflicts)
                if not conflicts or not later_deciding or time.monotonic() > deadline:
                    break
                time.sleep(CLAIM_POLL_SECONDS)  # a later trial that has not decided: it sees this claim
            if not conflicts or n_draws == MAX_CLAIM_DRAWS:
                return x
            # Draw again with every point now known to be taken (the data may be seconds old by now): the
            # conflicting ones, and the others the algorithm may learn from (e.g. an agent: its neighbours').
            visible = {t.number for t in self._visible([t for t, _, _ in others])}
            new = [p for t, p, _ in others if t.number in visible or np.linalg.norm(p - x) <= MIN_CONCURRENT_DISTANCE]
            taken = np.unique(np.vstack([taken, *new]), axis=0)  # (k, d)
            x = space.round_to_valid(draw(taken) if n_draws < ALGORITHM_DRAWS else random_draw(taken))[0]
        return x

    def _other_points(self, study: Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution],
                      space, known: set[int]) -> list[tuple[FrozenTrial, np.ndarray, bool]]:
        """The other running and completed trials of ``study`` not in ``known``, in this search space, with
        their encoded ``(d,)`` points (their parameters once written, else their claims) and whether they
        had settled (``_settled``) when their point was read."""
        key, out = _space_key(search_space), []
        for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING, TrialState.COMPLETE)):
            if t.number == trial.number or t.number in known:
                continue
            settled = _settled(t, search_space)  # first: an in-memory trial's parameters may be written meanwhile
            if has_all_params(t, search_space):
                out.append((t, encode_trials(space, search_space, [t])[0], settled))
            elif (claimed := _claimed_point(t, key, space.dim)) is not None:
                out.append((t, claimed, settled))
        return out

    def _offer_recorded_model(self, study: Study, search_space: dict[str, BaseDistribution]) -> None:
        """Offer the algorithm the newest model recorded in ``study`` for this search space, if it
        wants one (it has no fitted model yet)."""
        wants = getattr(self._algorithm, "wants_model_state", None)
        if wants is None or not wants():
            return
        key = _space_key(search_space)
        source = getattr(self._algorithm, "model_source", None)  # e.g. an agent: only its own records
        name = getattr(self._algorithm, "source_attribute", None)
        for t in reversed(study.get_trials(deepcopy=False)):
            recorded = t.system_attrs.get(MODEL_KEY)
            if source is not None and (not isinstance(recorded, dict) or recorded.get("source") != source):
                continue  # recorded by another source (agent), or before records named theirs
            if not (isinstance(recorded, dict) and recorded.get("space") == key and isinstance(recorded.get("model"), dict)):
                continue
            if self._algorithm.offer_model_state(recorded["model"]):  # False: other kernels, invalid, ...
                self._recorded_model[study.study_name] = recorded["model"]  # not written again if adopted
                return

    def _record_model(self, study: Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution],
                      space) -> None:
        """Write the algorithm's model state to ``trial``: the weights always, the rest when it changed."""
        state = getattr(self._algorithm, "model_state", lambda: None)()
        if not state:
            return
        model = {k: v for k, v in state.items() if k != "weights"}
        writes = [(WEIGHTS_KEY, state["weights"])] if "weights" in state else []
        if self._recorded_model.get(study.study_name) != model:
            columns = [name for name, cols in space.columns.items() for _ in range(cols.stop - cols.start)]
            record = {"space": _space_key(search_space), "columns": columns, "model": model,
                      "source": getattr(self._algorithm, "model_source", None)}  # e.g. the agent that fitted it
            writes.append((MODEL_KEY, record))
        for key, value in writes:
            try:
                if key == MODEL_KEY and len(json.dumps(value)) > MAX_RECORD_CHARS:
                    self._warn_record_once(f"the model record of trial {trial.number} is larger than "
                                           f"{MAX_RECORD_CHARS} characters and is not written")
                    continue
                _write_trial_attr(study, trial, key, value, system=True)
            except Exception as err:  # recording is optional: never fail the trial for it
                self._warn_record_once(f"writing {key} to trial {trial.number} failed: {err!r}")
                return
        self._recorded_model[study.study_name] = model

    def _record_view(self, study: Study, trial: FrozenTrial) -> None:
        """Write what the algorithm conditioned on (``last_view``, e.g. an agent's neighbourhood) to ``trial``."""
        view = getattr(self._algorithm, "last_view", None)
        if view is None:
            return
        try:
            _write_trial_attr(study, trial, VIEW_KEY, view, system=True)
        except Exception as err:  # a record, never a reason to fail the trial
            self._warn_record_once(f"writing {VIEW_KEY} to trial {trial.number} failed: {err!r}")

    def _warn_once(self, topic: str, what: str, *, once: str = "once") -> None:
        """Log ``what`` the first time something about ``topic`` goes wrong in this sampler (``once``: how
        often the message says it is shown)."""
        with self._warn_lock:
            if topic in self._warned_topics:
                return
            self._warned_topics.add(topic)
        _logger.warning(f"{type(self).__name__}: {what}. This warning is shown {once}.")

    def _warn_if_constrained(self, study: Study, trials: Sequence[FrozenTrial]) -> None:
        """Warn, once per study, at the first of ``trials`` that carries constraint values: no algorithm
        models them yet, so the study is optimised as if it had none. Each trial is looked at once."""
        topic = f"constraints of study {study.study_name}"
        if topic in self._warned_topics:
            return
        checked = self._constraints_checked.setdefault(study.study_name, set())
        for t in trials:
            if t.number in checked:
                continue
            checked.add(t.number)
            names = sorted(_constraint_values(t))
            if names:
                self._warn_once(topic, f"trial {t.number} of study {study.study_name!r} has constraint values "
                                f"{names}, but this sampler does not model constraints yet: it optimises the "
                                "objective alone and may suggest infeasible points. Optuna's GPSampler and "
                                "TPESampler model constraints", once="once per study")
                self._constraints_checked.pop(study.study_name, None)
                return

    def _warn_record_once(self, what: str) -> None:
        self._warn_once("record", f"{what}; the trial runs on without it (a new worker then fits its model from "
                                  "scratch)")

    def _heartbeat_orphaned_trials(self, study: Study, trials: list[FrozenTrial]) -> None:
        """Give one heartbeat to each running trial of another process that may have died before its first
        one: older than the heartbeat interval, with no parameter and no claim (``study.optimize`` starts
        the heartbeat thread before the objective runs, and the objective writes parameters and claims; a
        trial killed in between has neither). Once per trial in the whole study (``HEARTBEAT_GIVEN_KEY``
        marks it), so a dead trial is not kept alive by new processes; ``fail_stale_trials`` then fails
        it after the grace period instead of never."""
        interval = _heartbeat_interval(study)
        if interval is None:
            return
        now, name = _now(), study.study_name
        for t in trials:
            orphan_like = (t.state == TrialState.RUNNING and not t.params and t.datetime_start is not None
                           and t.system_attrs.get(CLAIM_KEY) is None and t.system_attrs.get(HEARTBEAT_GIVEN_KEY) is None)
            if orphan_like and (name, t.number) not in self._in_flight and (name, t.number) not in self._heartbeat_given \
                    and _seconds_between(t.datetime_start, now) > interval:
                self._heartbeat_given.add((name, t.number))
                try:
                    _record_heartbeat(study, t)
                    _write_trial_attr(study, t, HEARTBEAT_GIVEN_KEY, True, system=True)
                except Exception as err:  # a safeguard, never a reason to fail a trial
                    self._warn_once("heartbeat", f"recording a heartbeat for trial {t.number} failed: {err!r}")

    def _warn_uncapped_threads(self) -> None:
        if not self._threads_warned:
            self._threads_warned = True
            _logger.warning(
                f"{type(self).__name__}(max_threads={self._max_threads}) could not cap the BLAS threads: "
                "another thread controls them (e.g. a threadpoolctl.threadpool_limits block around "
                "study.optimize(n_jobs=...)). Set OPENBLAS_NUM_THREADS or OMP_NUM_THREADS before starting "
                "Python instead. This warning is shown once."
            )

    def _pending_points(self, study, trial, alive, search_space, space) -> tuple[np.ndarray, list[FrozenTrial]]:
        """Encoded running trials ``(p, d)``, from the storage (parameters, or claims of trials whose
        parameters are not written yet) or from this sampler's own recent suggestions, and the trials they
        belong to."""
        running = {t.number: t for t in alive if t.number != trial.number}  # alive: running, not presumed dead
        written = {number for number, t in running.items() if has_all_params(t, search_space)}
        visible = {t.number for t in self._visible(list(running.values()))}  # e.g. an agent: its neighbourhood's
        stored = [t for number, t in running.items() if number in written and number in visible]
        rows, owners = [encode_trials(space, search_space, stored)], list(stored)
        for key in list(self._unwritten):
            name, number = key
            if name != study.study_name:
                continue
            if number not in running or number in written:
                del self._unwritten[key]  # finished, or its parameters are in the storage now
            elif self._unwritten[key][0] == search_space and number in visible:
                rows.append(self._unwritten[key][1][None])
                owners.append(running[number])
        space_key = _space_key(search_space)
        for number, t in running.items():  # other processes' suggestions whose parameters are not written yet
            claimed = _claimed_point(t, space_key, space.dim)
            if number not in written and number in visible and claimed is not None \
                    and (study.study_name, number) not in self._unwritten:
                rows.append(claimed[None])
                owners.append(t)
        return np.vstack(rows), owners

    def _visible(self, trials: list[FrozenTrial]) -> list[FrozenTrial]:
        """The trials whose source the algorithm may learn from (all, unless it names its sources)."""
        name = getattr(self._algorithm, "source_attribute", None)
        known_sources = getattr(self._algorithm, "known_sources", None)
        if name is None or known_sources is None:
            return trials
        known = known_sources()
        return [t for t in trials if _source_label(t, name) in known]

    def _sources(self, trials: list[FrozenTrial]) -> np.ndarray | None:
        """``(n,)`` source labels of ``trials`` from the attribute the algorithm names (-1 where a trial
        has none), or None when the algorithm asks for none."""
        name = getattr(self._algorithm, "source_attribute", None)
        if name is None:
            return None
        return np.array([_source_label(t, name) for t in trials], dtype=np.int64)

    def sample_independent(
        self, study: Study, trial: FrozenTrial, param_name: str, param_distribution: BaseDistribution
    ) -> Any:
        _check_single_objective(study, self)
        in_startup = (study.study_name, trial.number) in self._startup_trials
        if self._warn_independent_sampling and not in_startup and param_name not in self._warned:
            self._warned.add(param_name)
            _logger.warning(
                f"The parameter '{param_name}' in trial#{trial.number} is sampled independently by "
                f"{type(self._independent_sampler).__name__} instead of {type(self).__name__}: it is "
                "not in every completed trial (conditional or dynamic search space). "
                "This warning is shown once per parameter."
            )
        return self._independent_sampler.sample_independent(study, trial, param_name, param_distribution)

    def before_trial(self, study: Study, trial: FrozenTrial) -> None:
        if len(study.directions) > 1:  # reject the study before the objective runs; the new trial is failed
            study.tell(trial.number, state=TrialState.FAIL)
            _check_single_objective(study, self)
        self._in_flight.add((study.study_name, trial.number))
        for key in (MODEL_KEY, WEIGHTS_KEY, VIEW_KEY, CLAIM_KEY, HEARTBEAT_GIVEN_KEY):  # a retried trial inherits the dead trial's records
            if trial.system_attrs.get(key) is not None:
                _write_trial_attr(study, trial, key, None, system=True)
        self._independent_sampler.before_trial(study, trial)

    def after_trial(
        self, study: Study, trial: FrozenTrial, state: TrialState, values: Sequence[float] | None
    ) -> None:
        self._startup_trials.discard((study.study_name, trial.number))
        self._in_flight.discard((study.study_name, trial.number))
        self._warn_if_constrained(study, [trial])
        self._independent_sampler.after_trial(study, trial, state, values)


def _first_running_trial_space(study: Study, trial: FrozenTrial) -> dict[str, BaseDistribution]:
    """The distributions (sorted by name) of the other running trial that has written the most
    parameters (the first such); ``{}`` if none has. Used before any trial has completed: the search
    space is then known only from the trials that are running (define-by-run), and without one every
    parameter is sampled independently, blind to the other workers' points. A trial still writing its
    parameters gives part of the space; the rest is sampled independently."""
    others = [t for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)) if t.number != trial.number]
    fullest = max(others, key=lambda t: len(t.distributions), default=None)
    return dict(sorted(fullest.distributions.items())) if fullest is not None else {}


def _settled(trial: FrozenTrial, search_space: dict[str, BaseDistribution]) -> bool:
    """Whether ``trial`` has chosen its point: it has written a parameter of ``search_space`` that was not
    fixed in advance (enqueued), every parameter of ``search_space`` was fixed in advance (it never
    chooses), or it has finished."""
    fixed = trial.system_attrs.get("fixed_params") or {}
    if trial.state != TrialState.RUNNING or all(name in fixed for name in search_space):
        return True
    return any(name in search_space and name not in fixed for name in trial.params)


def _claimed_point(trial: FrozenTrial, space_key: str, dim: int) -> np.ndarray | None:
    """The ``(d,)`` point ``trial`` claimed in the search space ``space_key`` (see ``CoreSampler._claim``),
    or None if it has no valid claim there."""
    claim = trial.system_attrs.get(CLAIM_KEY)
    if not (isinstance(claim, dict) and claim.get("space") == space_key):
        return None
    x = claim.get("x")
    valid = isinstance(x, list) and len(x) == dim and all(
        isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(v) for v in x)
    return np.asarray(x, dtype=float) if valid else None


def _random_new_point(space, rng: np.random.Generator, pending: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """A uniform random ``(d,)`` point of ``space`` that is not a pending ``(p, d)`` point, nor (if
    possible) an observed ``(n, d)`` one: the start-up phase's draw (as RandomSampler's, but aware of the
    other workers' points, which matters on small discrete spaces)."""
    candidates = space.sample(rng, 64, low_discrepancy=False)  # (64, d)
    for avoid in (np.vstack([pending, observed]), pending):
        fresh = candidates[~matches_any(candidates, avoid)]
        if len(fresh):
            return fresh[0]
    return candidates[0]


def _constraint_values(trial: FrozenTrial) -> dict[str, float]:
    """``trial``'s constraint values by name (feasible when all are <= 0): ``FrozenTrial.constraints``
    (Optuna 5: ``trial.set_constraint`` and the deprecated ``constraints_func`` of Optuna's samplers), or on
    Optuna 4, which has no such property, the list its samplers' ``constraints_func`` stores in the system
    attribute ``"constraints"`` (named ``"0"``, ``"1"``, ... as Optuna 5 names them). The one place that
    knows where Optuna keeps constraint values (tested)."""
    constraints = getattr(trial, "constraints", None)
    if constraints is not None:
        return dict(constraints)
    values = trial.system_attrs.get("constraints")
    return {str(i): value for i, value in enumerate(values)} if isinstance(values, (list, tuple)) else {}


def _constraints_refusal(sampler_name: str, constraints_func: Any) -> str:
    """The error for ``constraints_func=...``, which no sampler of this package supports yet."""
    return (f"{sampler_name} does not model constraints yet, so constraints_func is not supported (got "
            f"{constraints_func!r}). Without it, {sampler_name} optimises the objective alone and may suggest "
            "infeasible points; constraint values set with trial.set_constraint are not used for sampling "
            "either (a warning says so). Optuna's GPSampler and TPESampler model constraints.")


def _study_storage(study: Study) -> BaseStorage:
    """The study's storage (``Study._storage``). Optuna's public API writes a trial's attributes only
    through ``optuna.trial.Trial`` (the objective's) and its heartbeat only from ``study.optimize``;
    samplers get a ``FrozenTrial``, so they write through the storage (by ``FrozenTrial._trial_id``), as
    Optuna's own samplers do. The one private Optuna access of this package (tested), used only by
    :func:`_write_trial_attr` and :func:`_record_heartbeat` below."""
    return study._storage


def _write_trial_attr(study: Study, trial: FrozenTrial, key: str, value: Any, *, system: bool) -> None:
    """Write a system or user attribute of a running trial."""
    if system:
        _study_storage(study).set_trial_system_attr(trial._trial_id, key, value)
    else:
        _study_storage(study).set_trial_user_attr(trial._trial_id, key, value)


def _record_heartbeat(study: Study, trial: FrozenTrial) -> None:
    """Record a heartbeat for a running trial (only storages with ``get_heartbeat_interval`` have one)."""
    _study_storage(study).record_heartbeat(trial._trial_id)


def _heartbeat_interval(study: Study) -> float | None:
    """Seconds between the heartbeats of ``study``'s trials; None if its storage has no heartbeat (only
    ``RDBStorage(heartbeat_interval=...)`` has one)."""
    interval = getattr(_study_storage(study), "get_heartbeat_interval", lambda: None)()
    return None if interval is None else float(interval)


def _space_key(search_space: dict[str, BaseDistribution]) -> str:
    """A hash of the search space: parameter names and distributions, in encoding order."""
    described = [[name, optuna.distributions.distribution_to_json(dist)] for name, dist in search_space.items()]
    return hashlib.sha256(json.dumps(described).encode()).hexdigest()


def _check_timeout(timeout: float | str | None) -> float | str | None:
    if timeout is None or timeout == "auto":
        return timeout
    ok = isinstance(timeout, numbers.Real) and not isinstance(timeout, bool) and 0 < timeout < math.inf
    if not ok:
        raise ValueError(f'running_trial_timeout must be "auto", None or a positive finite number of seconds, '
                         f"got {timeout!r}")
    return float(timeout)


def _now() -> datetime.datetime:
    """The current time, time-zone aware (Optuna's naive trial times are local times)."""
    return datetime.datetime.now().astimezone()


def _seconds_between(start: datetime.datetime, end: datetime.datetime) -> float:
    """``end - start`` in seconds; naive times are taken as local times (``timestamp()`` does so, across
    daylight-saving changes too)."""
    return end.timestamp() - start.timestamp()


def stale_after_seconds(trials: Sequence[FrozenTrial], timeout: float | str | None) -> float:
    """Seconds after its start at which a running trial stops counting as pending (``math.inf``: never).

    ``timeout="auto"``: ``STALE_FACTOR`` times the ``STALE_QUANTILE`` of the durations of the completed
    trials, at least ``STALE_MIN_SECONDS``, once ``STALE_MIN_COMPLETED`` have completed; a number is
    returned as it is.
    """
    if timeout is None:
        return math.inf
    if timeout != "auto":
        return float(timeout)
    durations = [
        _seconds_between(t.datetime_start, t.datetime_complete)
        for t in trials
        if t.state == TrialState.COMPLETE and t.datetime_start is not None and t.datetime_complete is not None
    ]
    durations = [s for s in durations if s > 0]  # trials added with create_trial() have no duration
    if len(durations) < STALE_MIN_COMPLETED:
        return math.inf
    return max(STALE_MIN_SECONDS, STALE_FACTOR * float(np.quantile(durations, STALE_QUANTILE)))


def _alive_running_trials(
    trials: Sequence[FrozenTrial], timeout: float | str | None, now: datetime.datetime, own: set[int] = frozenset()
) -> list[FrozenTrial]:
    """The running trials not presumed dead by the ``running_trial_timeout`` rule (``own``: numbers of
    trials this process runs, alive whatever their age)."""
    limit = stale_after_seconds(trials, timeout)
    running = [t for t in trials if t.state == TrialState.RUNNING]
    if math.isinf(limit):
        return running
    return [t for t in running
            if t.number in own or t.datetime_start is None or _seconds_between(t.datetime_start, now) <= limit]


def _source_label(trial: FrozenTrial, name: str) -> int:
    """The integer user attribute ``name`` of ``trial``, or -1 (unknown) if it has none."""
    value = trial.user_attrs.get(name)
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    return UNKNOWN_SOURCE


def _check_single_objective(study: Study, sampler: BaseSampler) -> None:
    if len(study.directions) > 1:
        raise ValueError(
            f"{type(sampler).__name__} supports single-objective studies only; this study has "
            f"{len(study.directions)} objectives ({[d.name for d in study.directions]})."
        )


class EGPTSSampler(CoreSampler):
    """Ensemble-GP Thompson sampling (EGP-TS, Lu et al. 2023) as an Optuna sampler.

    Example:
        >>> import optuna
        >>> from optuna_egp import EGPTSSampler
        >>> study = optuna.create_study(sampler=EGPTSSampler(seed=0))

    Args:
        seed: random seed (the sampler's generator and the default independent sampler).
        n_startup_trials: random trials before the model is used (default 10).
        kernels: kernel dictionary: names (``["rbf", "matern52-ard"]``; each of ``"rbf"``,
            ``"matern32"``, ``"matern52"``, optionally with ``"-ard"``) and/or
            :class:`shared_core.KernelSpec` objects, or ``"grid"`` (the paper's 11-lengthscale RBF grid);
            default the paper's RBF, RBF-ARD, Matérn-3/2 and Matérn-5/2.
        n_features: random Fourier features per GP (default 512).
        acquisition: ``"auto"`` (default: EGP-EI while nothing is running and there are fewer than
            10 completed trials per encoded dimension, where Thompson draws over-explore; EGP-TS with
            fantasies otherwise), ``"ts"`` Thompson sampling, or ``"ei"`` EGP-EI.
        fantasize_pending: condition each draw on running trials (kriging believer) so that
            concurrent workers get diverse suggestions (default True).
        warp_outputs: fit the GPs to power-warped objective values, which compresses heavy tails
            of bad values (default True; ``False`` gives plain standardisation).
        independent_sampler: sampler for start-up and for parameters outside the relative space.
        warn_independent_sampling: warn once per independently sampled parameter.
        max_threads: BLAS/OpenMP/PyTorch threads while the sampler computes (default 1; ``None``: no
            limit); see :class:`CoreSampler`.
        running_trial_timeout: when a running trial is presumed dead and stops counting as pending
            (default ``"auto"``: 10 times the 90th percentile of completed trials' durations, at least
            30 s); see :class:`CoreSampler`.
        share_model: record the fitted ensemble (kernel weights per trial; hyperparameters and output
            transform when refitted) in the study, and let a new or restarted worker start from the
            newest record instead of fitting hyperparameters (default True); see :class:`CoreSampler`
            and :func:`optuna_egp.plot_model`.
        constraints_func: not supported yet (``ValueError``): constraints are not modelled, and constraint
            values set with ``trial.set_constraint`` get a warning once per study; see :class:`CoreSampler`.
    """

    def __init__(
        self,
        *,
        seed: int | None = None,
        n_startup_trials: int = 10,
        kernels: Sequence[KernelSpec | str] | str | None = None,
        n_features: int = 512,
        acquisition: str = "auto",
        fantasize_pending: bool = True,
        warp_outputs: bool = True,
        independent_sampler: BaseSampler | None = None,
        warn_independent_sampling: bool = True,
        max_threads: int | None = 1,
        running_trial_timeout: float | str | None = "auto",
        share_model: bool = True,
        constraints_func: Callable[[FrozenTrial], Sequence[float]] | None = None,
    ) -> None:
        if acquisition not in ACQUISITIONS:
            raise ValueError(f"acquisition must be one of {ACQUISITIONS}, got {acquisition!r}")
        algorithm = EGPAlgorithm(
            kernels=kernels,
            acquisition=acquisition,
            n_features=n_features,
            fantasize_pending=fantasize_pending,
            warp_outputs=warp_outputs,
        )
        super().__init__(
            algorithm,
            seed=seed,
            n_startup_trials=n_startup_trials,
            independent_sampler=independent_sampler,
            warn_independent_sampling=warn_independent_sampling,
            max_threads=max_threads,
            running_trial_timeout=running_trial_timeout,
            share_model=share_model,
            constraints_func=constraints_func,
        )


class BORESampler(CoreSampler):
    """BORE++ / BORE (density-ratio BO; Oliveira et al. 2022, Tiao et al. 2021) as an Optuna sampler.

    Observations better than the ``gamma``-quantile are "good"; a classifier of good vs. bad points is
    the acquisition. With no running trial the suggestion is the acquisition's maximiser. With running
    trials (``n_jobs``, several processes on one storage, or ask/tell batches) each suggestion is one
    SVGD particle of ``p(x) ∝ acquisition(x)^sharpness`` whose companions are the running trials, held
    fixed, so concurrent suggestions spread over the promising region instead of piling onto one point.
    The particle starts at the acquisition's maximiser, and BORE++'s uncertainty already counts the
    running trials as (soon) observed.

    Example:
        >>> import optuna
        >>> from optuna_egp import BORESampler
        >>> study = optuna.create_study(sampler=BORESampler(seed=0))

    Args:
        variant: ``"bore++"`` (default: least-squares kernel classifier with UCB ``pi + beta sigma``)
            or ``"bore"`` (the original 2x32 network classifier; needs PyTorch,
            ``python -m pip install torch``).
        gamma: fraction of completed trials labelled good, in (0, 1) (default 0.25).
        beta: exploration weight of BORE++ (default 3; unused by ``"bore"``).
        batch_size: ``None`` (default): one SVGD particle per suggestion, companions derived from the
            running trials. An integer ``B``: ``B`` particles are drawn jointly (the paper's
            synchronous batch) and handed out to the next ``B`` suggestions of this process while no
            trial completes. Meant for synchronous batches (ask ``B`` trials, then tell them): with
            ``optimize(n_jobs=1)`` or asynchronous workers every completion starts a new batch, so
            each suggestion costs a ``B``-particle run and is a draw, not the acquisition's maximiser.
        sharpness: exponent ``k`` of the SVGD target ``acquisition(x)^k`` (default 10, both variants,
            also for ``batch_size``). The paper's target is ``k = 1``, nearly flat in 5-6 dimensions
            (the benchmarks compare the two).
        max_points: most completed trials the classifier is trained on (default 500; above that the
            ``max_points // 5`` best plus a random rest, labels from all trials), which bounds the cost per
            suggestion in long studies.
        seed: random seed (the sampler's generator and the default independent sampler).
        n_startup_trials: random trials before the classifier is used (default 10, as in the paper).
        independent_sampler: sampler for start-up and for parameters outside the relative space.
        warn_independent_sampling: warn once per independently sampled parameter.
        max_threads: BLAS/OpenMP/PyTorch threads while the sampler computes (default 1; ``None``: no
            limit); see :class:`CoreSampler`.
        running_trial_timeout: when a running trial is presumed dead and stops counting as pending
            (default ``"auto"``: 10 times the 90th percentile of completed trials' durations, at least
            30 s); see :class:`CoreSampler`.
        constraints_func: not supported yet (``ValueError``); see :class:`EGPTSSampler`.
    """

    def __init__(
        self,
        *,
        variant: str = "bore++",
        gamma: float = 0.25,
        beta: float = 3.0,
        batch_size: int | None = None,
        sharpness: float = 10.0,
        max_points: int = 500,
        seed: int | None = None,
        n_startup_trials: int = 10,
        independent_sampler: BaseSampler | None = None,
        warn_independent_sampling: bool = True,
        max_threads: int | None = 1,
        running_trial_timeout: float | str | None = "auto",
        constraints_func: Callable[[FrozenTrial], Sequence[float]] | None = None,
    ) -> None:
        algorithm = BOREAlgorithm(variant=variant, gamma=gamma, beta=beta, batch_size=batch_size, sharpness=sharpness,
                                  max_points=max_points)
        super().__init__(
            algorithm,
            seed=seed,
            n_startup_trials=n_startup_trials,
            independent_sampler=independent_sampler,
            warn_independent_sampling=warn_independent_sampling,
            max_threads=max_threads,
            running_trial_timeout=running_trial_timeout,
            constraints_func=constraints_func,
        )
