"""The Optuna sampler that serves every core algorithm. ``sample_relative`` reads one way: trials
-> ``Observations`` -> the claim step's points to avoid -> the algorithm's suggestion -> decode.

:class:`CoreSampler` holds the Optuna hooks and reads everything from the storage on every call, so
threads and processes can share one study. Each other role has a module: modelled parameters
(``_conditional``), observations (``_observations``), pending points (``_pending``), presumed-dead
trials (``_timeouts``), claims (``_claims``), heartbeats (``_heartbeats``), model records
(``_records``), agents (``_agents``), constraint values (``_constraints``), refusals
(``_refusals``), failed trials (``_failures``), independent sampling (``_independent``), warnings
(``_warnings``), and every private Optuna access (``_storage``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np
from optuna.distributions import BaseDistribution
from optuna.samplers import BaseSampler, RandomSampler
from optuna.study import Study
from optuna.trial import FrozenTrial, TrialState

from optuna_egp import _agents, _storage
from optuna_egp._claims import CLAIM_KEY, Claim, random_new_point
from optuna_egp._conditional import (
    ModelledDistributions,
    TrialPresence,
    first_running_trial_space,
)
from optuna_egp._constraints import (
    CompletedTrialConstraints,
    check_constraints_func,
    write_constraints_func_values,
)
from optuna_egp._failures import FAILURE_KEY, failed_points, mark_failed
from optuna_egp._heartbeats import HEARTBEAT_GIVEN_KEY, heartbeat_orphaned_trials
from optuna_egp._independent import independent_value
from optuna_egp._observations import observations, partly_encoded
from optuna_egp._pending import UnwrittenSuggestions, pending_points
from optuna_egp._records import MODEL_KEY, VIEW_KEY, WEIGHTS_KEY, ModelRecords, record_view
from optuna_egp._refusals import Refusals
from optuna_egp._space import CompletedTrialEncodings
from optuna_egp._timeouts import alive_running_trials, check_timeout, now
from optuna_egp._warnings import OnceWarnings, threads_not_capped
from shared_core.interface import Algorithm, Observations, check_capabilities
from shared_core.optim.acquisition_optimizer import matches_any
from shared_core.search_space import SearchSpace
from shared_core.threads import check_max_threads, limited_threads
from shared_core.validation import check_bool, check_int

__all__ = ["CoreSampler"]

# The system attributes a retried trial inherits from
# the dead trial it repeats, cleared before it runs.
_TRIAL_RECORDS = (MODEL_KEY, WEIGHTS_KEY, VIEW_KEY, CLAIM_KEY, HEARTBEAT_GIVEN_KEY, FAILURE_KEY)
# What belongs to one process and is not pickled (_init_process_state makes it).
_PROCESS_STATE = frozenset(
    {
        "_lock",
        "_search_space",
        "_presence",
        "_relative_values",
        "_encodings",
        "_unwritten",
        "_in_flight",
        "_startup_trials",
        "_heartbeat_given",
        "_constraints",
        "_refusals",
    }
)


class CoreSampler(BaseSampler):
    """Optuna sampler around any core algorithm (``suggest(space, obs, n, rng)``).

    Relative sampling on the parameters suggested in every completed trial, or in at least two of
    them; rarer ones go to ``independent_sampler``. In a conditional (define-by-run) space a
    parameter that some trials lack is modelled with its activity (its parent inferred from the
    trials), a suggestion holds the parameters active at the model's point, and a name suggested
    with different ranges is modelled on their union (``optuna_egp._conditional``). Completed
    trials are observations, running trials pending points, trials that failed at their point
    infeasible points (``model_failures``); pruned trials are ignored.

    Several objectives (``optuna.create_study(directions=[...])``): an algorithm that models them
    (``multi_objective = True``, :class:`~shared_core.interface.MultiObjective`) gets
    ``Observations.y`` of shape ``(n, m)``, column ``i`` the values of objective ``i``, negated for
    a maximised one, and no reference point (the algorithm infers it from the observed front). A
    study with one objective gets ``y`` of shape ``(n,)``. Optuna fails a trial whose value is NaN
    in any objective, so it is never observed; ``+-inf`` in one objective is observed.

    Constraints: a trial's constraint values (``trial.set_constraint``, or ``constraints_func``)
    reach the algorithm with the objective values, one objective or several
    (``Observations.constraints``, one column per name: the sorted union of the names over the
    completed trials it sees, NaN where a trial lacks one). As in Optuna's ``GPSampler``, the
    constraint values of pruned and failed trials are not used (a failed trial's point is:
    ``model_failures``). A trial is feasible when every value it has is ``<= 0`` (a trial with none
    is feasible), the rule of ``study.best_trial`` (and of ``study.best_trials``).

    What the algorithm does not declare it models (:mod:`shared_core.capabilities`) is refused with
    one ``ValueError`` naming the samplers to use instead, as soon as the sampler can know
    (``_refusals``): ``constraints_func`` here, several objectives at the first trial, constraint
    values at the trial after the first completed one that carries them (start-up trials included;
    that trial is failed before its objective runs).

    Args:
        algorithm: the core algorithm.
        seed: seed of the sampler's ``numpy.random.Generator`` and the default independent sampler.
        n_startup_trials: completed trials before the algorithm is used. Their points are drawn at
            random (uniformly, like ``RandomSampler``, but away from other trials' points) or, if
            ``independent_sampler`` is given, by it.
        independent_sampler: sampler for parameters outside the relative search space and, if
            given, for the start-up (default :class:`~optuna.samplers.RandomSampler` with ``seed``).
        warn_independent_sampling: log a warning (once per study) when a parameter is sampled
            independently after the start-up phase.
        max_threads: BLAS/OpenMP/PyTorch threads while the sampler computes (default 1: with several
            worker processes per machine, more threads only compete for the same cores), restored
            afterwards; ``None`` leaves the thread pools alone. The limit holds for the whole
            process while a suggestion is computed, other ``n_jobs`` threads included.
        running_trial_timeout: when a running trial stops counting as pending. ``"auto"`` (default):
            once 5 trials have completed, a trial running longer than 10 times the 90th percentile
            of their durations, and at least 30 s, is presumed dead (its worker was killed); a
            number: that many seconds; ``None``: running trials always count. Ages use the trials'
            start times, so the workers' clocks must agree (as for Optuna's own timestamps).
        share_model: record the fitted model in the study (system attributes ``MODEL_KEY``,
            ``WEIGHTS_KEY``) and start from the newest recorded one when this sampler has none, so
            a new worker skips the hyperparameter fit (default True; ignored by algorithms that
            are not :class:`~shared_core.interface.SharesModelState`).
        constraints_func: a function of a trial (``FrozenTrial``) returning its constraint values
            (floats; feasible when all are ``<= 0``), as in Optuna's samplers: called after each
            completed or pruned trial, its values written where theirs are (names ``"0"``, ``"1"``,
            ...; NaN is a ``ValueError``). Deprecated on Optuna 5 as theirs (a ``FutureWarning``):
            ``trial.set_constraint`` does the same. ``ValueError`` if it is not callable or the
            algorithm does not model constraints.
        model_failures: learn where trials fail (default True): a trial whose objective raised or
            returned NaN is an infeasible point, kept off (not a trial whose worker died:
            ``optuna_egp._failures``). False: failed trials are ignored, as Optuna's samplers do.
    """

    # The registry methods a named sampler (a subclass) serves; CoreSampler serves any algorithm.
    METHODS: ClassVar[tuple[str, ...]] = ()

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
        model_failures: bool = True,
    ) -> None:
        if not isinstance(algorithm, Algorithm):
            raise ValueError(
                f"algorithm must have a suggest(space, obs, n, rng) method, got {algorithm!r}"
            )
        check_capabilities(algorithm)
        if independent_sampler is not None and not isinstance(independent_sampler, BaseSampler):
            raise ValueError(
                f"independent_sampler must be an Optuna sampler, got {independent_sampler!r}"
            )
        seed = None if seed is None else check_int("seed", seed, minimum=0)
        self._algorithm = algorithm
        self._rng = np.random.default_rng(seed)
        self._n_startup_trials = check_int("n_startup_trials", n_startup_trials, minimum=0)
        self._independent_sampler = independent_sampler or RandomSampler(seed=seed)
        # start-up points then avoid running trials' ones
        self._startup_in_sampler = independent_sampler is None
        self._warn_independent_sampling = check_bool(
            "warn_independent_sampling", warn_independent_sampling
        )
        self._max_threads = check_max_threads(max_threads)
        self._running_trial_timeout = check_timeout(running_trial_timeout)
        self._share_model = check_bool("share_model", share_model)
        self._model_failures = check_bool("model_failures", model_failures)
        # pickled with the sampler: the warnings given, the model records written
        self._warnings = OnceWarnings(type(self).__name__)
        self._records = ModelRecords()
        # last: its FutureWarning only for a sampler that is made
        self._constraints_func = check_constraints_func(
            type(self).__name__, algorithm, constraints_func
        )
        self._init_process_state()

    def _init_process_state(self) -> None:
        """What belongs to this process and is not pickled: locks, caches, this process's trials."""
        # one suggestion at a time, so each sees the ones before it as pending
        self._lock = threading.Lock()
        self._search_space = ModelledDistributions()
        self._presence = TrialPresence()  # per completed trial: its parameters of the space
        # (study name, trial number) -> the model's values of the trial's modelled parameters
        self._relative_values: dict[tuple[str, int], dict[str, Any]] = {}
        self._encodings = CompletedTrialEncodings()
        self._unwritten = UnwrittenSuggestions()
        # (study name, trial number) of: this process's running trials (never presumed
        # dead), those that started in the start-up phase (never warned about), other
        # processes' trials given a heartbeat.
        self._in_flight: set[tuple[str, int]] = set()
        self._startup_trials: set[tuple[str, int]] = set()
        self._heartbeat_given: set[tuple[str, int]] = set()
        self._constraints = CompletedTrialConstraints()  # read once per completed trial
        self._refusals = Refusals(type(self).__name__, self._algorithm)  # checked once per trial

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in _PROCESS_STATE}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._init_process_state()

    @property
    def algorithm(self) -> Algorithm:
        return self._algorithm

    def reseed_rng(self) -> None:
        with self._lock:
            self._rng = np.random.default_rng()
        self._independent_sampler.reseed_rng()

    def infer_relative_search_space(
        self, study: Study, trial: FrozenTrial
    ) -> dict[str, BaseDistribution]:
        self._refusals.check_objectives(study)
        complete = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
        with self._lock:
            space = self._search_space.calculate(study, complete)
        if not space and not complete:
            # the first trials: workers starting together
            space = first_running_trial_space(study, trial)
        return {name: dist for name, dist in space.items() if not dist.single()}

    def sample_relative(
        self, study: Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution]
    ) -> dict[str, Any]:
        self._refusals.check_objectives(study)
        key = (study.study_name, trial.number)
        with self._lock, limited_threads(self._max_threads) as capped:
            if not capped:
                message = threads_not_capped(type(self).__name__, self._max_threads)
                self._warnings.warn("threads", message, named=False)
            states = (TrialState.COMPLETE, TrialState.RUNNING, TrialState.FAIL)
            trials = study.get_trials(deepcopy=False, states=states[: 2 + self._model_failures])
            failed = [t for t in trials if t.state == TrialState.FAIL]  # to learn from
            trials = [t for t in trials if t.state != TrialState.FAIL]
            heartbeat_orphaned_trials(
                study, trials, self._in_flight, self._heartbeat_given, self._warnings.warn
            )
            # 1. The completed trials the algorithm may learn from (an agent: its
            # neighbourhood's), encoded on the suggestion's space; too few: the start-up phase.
            complete = self._visible([t for t in trials if t.state == TrialState.COMPLETE])
            if not search_space:
                if len(complete) < max(self._n_startup_trials, 1):
                    self._startup_trials.add(key)
                return {}
            space = self._presence.relative_space(study, search_space, complete)
            complete, X = self._encodings.encode(study, space, complete)  # X: (n, d)
            # trials whose encoded point stands for many configurations (a rare branch): a new
            # trial may take it again; judged on what the sampler models, not on ``search_space``
            # (a wrapper such as PartialFixedSampler leaves its fixed parameters out of it), on
            # every completed trial as infer_relative_search_space (its cached tally)
            every = [t for t in trials if t.state == TrialState.COMPLETE]
            modelled = self._search_space.calculate(study, every)
            repeatable = np.array([partly_encoded(t, modelled) for t in complete], dtype=bool)
            in_startup = len(complete) < max(self._n_startup_trials, 1)
            if in_startup:
                self._startup_trials.add(key)
                if not self._startup_in_sampler:  # the user's independent_sampler does the start-up
                    return {}
            # 2. The running trials (not presumed dead) as pending points.
            own = {number for name, number in set(self._in_flight) if name == study.study_name}
            alive = alive_running_trials(trials, self._running_trial_timeout, now(), own)
            X_pending, pending_trials = pending_points(
                study.study_name, trial, alive, space, self._unwritten, self._visible
            )
            obs = None  # in the start-up phase: random points
            if not in_startup:
                X_failed = failed_points(study, failed, space, self._encodings, self._visible)
                obs = observations(
                    study,
                    self._algorithm,
                    complete,
                    X,
                    X_pending,
                    pending_trials,
                    self._constraints,
                    repeatable,
                    X_failed,
                )
                if self._share_model:
                    self._records.offer_recorded(self._algorithm, study, space)
            # 3. The claim step and the suggestion: the claim returns the points that concurrent
            # trials have taken (none at first), and the suggestion is made away from them, until
            # the claimed point is this trial's. The algorithm suggests (in the start-up phase, and
            # for a claim's last draws: a random point that nobody has taken).
            known = {t.number for t in trials} - {t.number for t in alive}
            claim = Claim(
                study, trial, space, known, self._visible, self._warnings.warn, X[repeatable]
            )
            avoid: np.ndarray | None = claim.taken  # (k, d), none yet
            while avoid is not None:
                data = obs if claim.algorithm_draws else None  # None: a random point
                x = _suggestion(
                    self._algorithm, self._rng, space.core, data, X_pending, X[~repeatable], avoid
                )
                by = "model" if data is not None else "start-up" if in_startup else "random"
                avoid = claim.stake(x, by)
            # 4. Records of the suggestion, and its parameters.
            self._unwritten.add(study.study_name, trial.number, space, x)
            if not in_startup:
                if self._share_model:
                    self._records.write(self._algorithm, study, trial, space, self._warn_record)
                record_view(self._algorithm, study, trial, self._warn_record)
            params = space.decode(x)
            self._relative_values[key] = params
        return params

    def _visible(self, trials: list[FrozenTrial]) -> list[FrozenTrial]:
        return _agents.visible(self._algorithm, trials)

    def _warn_record(self, what: str) -> None:
        self._warnings.warn(
            "record",
            f"{what}; the trial runs on without it (a new worker then fits its model from scratch)",
        )

    def sample_independent(
        self,
        study: Study,
        trial: FrozenTrial,
        param_name: str,
        param_distribution: BaseDistribution,
    ) -> Any:
        self._refusals.check_objectives(study)
        key = (study.study_name, trial.number)
        warn = self._warn_independent_sampling and key not in self._startup_trials
        return independent_value(
            self._independent_sampler,
            study,
            trial,
            param_name,
            param_distribution,
            modelled=self._relative_values.get(key, {}),
            warnings=self._warnings if warn else None,
        )

    def before_trial(self, study: Study, trial: FrozenTrial) -> None:
        # Refuse a study the algorithm cannot model (several objectives, or a completed trial
        # with constraint values) before the objective runs; the new trial is failed.
        try:
            self._refusals.check(study)
        except ValueError:
            study.tell(trial.number, state=TrialState.FAIL)
            raise
        self._in_flight.add((study.study_name, trial.number))
        for key in _TRIAL_RECORDS:  # a retried trial inherits the dead trial's records
            if trial.system_attrs.get(key) is not None:
                _storage.write_system_attr(study, trial, key, None)
        self._independent_sampler.before_trial(study, trial)

    def after_trial(
        self, study: Study, trial: FrozenTrial, state: TrialState, values: Sequence[float] | None
    ) -> None:
        self._startup_trials.discard((study.study_name, trial.number))
        self._in_flight.discard((study.study_name, trial.number))
        self._relative_values.pop((study.study_name, trial.number), None)
        if self._constraints_func is not None:
            write_constraints_func_values(self._constraints_func, study, trial, state)
        mark_failed(study, trial, state)
        self._independent_sampler.after_trial(study, trial, state, values)


def _suggestion(
    algorithm: Algorithm,
    rng: np.random.Generator,
    space: SearchSpace,
    obs: Observations | None,
    X_pending: np.ndarray,
    X: np.ndarray,
    avoid: np.ndarray,
) -> np.ndarray:
    """The ``(d,)`` encoding of a valid point: ``algorithm``'s suggestion given ``obs``, with the
    ``(k, d)`` points to ``avoid`` counted as pending too; without ``obs``, a random point that is
    neither pending ``(p, d)``, to avoid, nor (if possible) an evaluated configuration ``X``
    ``(n, d)`` (``Observations.X_seen``)."""
    if obs is None:
        x = random_new_point(space, rng, np.vstack([X_pending, avoid]), X)
    else:
        extra = avoid[~matches_any(avoid, obs.X_pending)]
        x = algorithm.suggest(space, obs.with_pending(extra) if len(extra) else obs, 1, rng)[0]
    return space.round_to_valid(x)[0]  # the encoding of the values it decodes to
