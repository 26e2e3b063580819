"""The Optuna sampler that serves every core algorithm:
trials -> ``Observations`` -> algorithm -> decode.

:class:`CoreSampler` holds the Optuna hooks. Everything it needs is read from the storage on
every call, so any number of threads or processes can share one study, and a restarted worker
continues where the others are. Each other role has a module of its own, handed the suggestion's
:class:`RelativeSpace`: claims against concurrent duplicates (``_claims``), pending points
(``_pending``), running trials presumed dead (``_timeouts``), heartbeats for orphaned trials
(``_heartbeats``), model records (``_records``), multi-agent visibility (``_agents``), constraint
values: read for the algorithm, written by ``constraints_func``, or warned about for an algorithm
that does not model them (``_constraints``), warnings shown once (``_warnings``); every private
Optuna access is in ``_storage``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, cast

import numpy as np
from optuna.distributions import BaseDistribution
from optuna.samplers import BaseSampler, RandomSampler
from optuna.study import Study, StudyDirection
from optuna.trial import FrozenTrial, TrialState

from optuna_egp import _agents, _storage
from optuna_egp._claims import CLAIM_KEY, claim_point, random_new_point
from optuna_egp._conditional import (
    ModelledDistributions,
    TrialPresence,
    conditions_of,
    projected_value,
)
from optuna_egp._constraints import (
    CompletedTrialConstraints,
    ConstraintNotice,
    check_constraints_func,
    write_constraints_func_values,
)
from optuna_egp._heartbeats import HEARTBEAT_GIVEN_KEY, heartbeat_orphaned_trials
from optuna_egp._pending import UnwrittenSuggestions, pending_points
from optuna_egp._records import MODEL_KEY, VIEW_KEY, WEIGHTS_KEY, ModelRecords, record_view
from optuna_egp._space import CompletedTrialEncodings, RelativeSpace
from optuna_egp._timeouts import alive_running_trials, check_timeout, now
from optuna_egp._warnings import OnceWarnings
from shared_core.interface import Algorithm, Observations, check_capabilities, multi_objective
from shared_core.optim.acquisition_optimizer import matches_any
from shared_core.search_space import SearchSpace
from shared_core.threads import check_max_threads, limited_threads
from shared_core.validation import check_bool, check_int

__all__ = ["CoreSampler"]

# The system attributes a retried trial inherits from
# the dead trial it repeats, cleared before it runs.
_TRIAL_RECORDS = (MODEL_KEY, WEIGHTS_KEY, VIEW_KEY, CLAIM_KEY, HEARTBEAT_GIVEN_KEY)


class CoreSampler(BaseSampler):
    """Optuna sampler around any core algorithm (``suggest(space, obs, n, rng)``).

    Relative sampling on the parameters of the completed trials: every parameter suggested in every
    completed trial, or in at least ``max(5, 10 %)`` of them (``optuna_egp._conditional``). In a
    conditional (define-by-run) space a parameter that some trials lack is modelled with its
    activity (a trial without it encodes it as inactive; its parent parameter is inferred from the
    trials), and a suggestion holds only the parameters active at the model's point, so the
    objective's ``suggest_*`` calls take the model's values for the branch it takes. A name
    suggested with different ranges in different branches is modelled on their union, and its
    value moved into the range the objective asks for. Rarer parameters go to
    ``independent_sampler``. Completed trials are observations, running trials are pending points;
    failed and pruned trials are ignored.

    Several objectives (``optuna.create_study(directions=[...])``): an algorithm that models them
    (``multi_objective = True``, :class:`~shared_core.interface.MultiObjective`) gets
    ``Observations.y`` of shape ``(n, m)``, column ``i`` the values of objective ``i``, negated for
    a maximised one, and no reference point (the algorithm infers it from the observed front). A
    study with one objective gets ``y`` of shape ``(n,)``. Optuna fails a trial whose value is NaN
    in any objective, so it is never observed; ``+-inf`` in one objective is observed. For an
    algorithm that models one objective, a study with several is a ``ValueError`` naming the
    sampler and the number of objectives, at the first trial, before the objective runs (that
    trial is failed).

    Constraints: a trial's constraint values (``trial.set_constraint``, or ``constraints_func``)
    reach the algorithm with the objective values, one objective or several
    (``Observations.constraints``, one column per name: the sorted union of the names over the
    completed trials it sees, NaN where a trial lacks one). Only completed trials train the
    models, as in Optuna's ``GPSampler``: the constraint values of pruned and failed trials are not
    used. A trial is feasible when every value it has is ``<= 0`` (a trial with none is feasible),
    the rule of ``study.best_trial`` (and of ``study.best_trials``). An algorithm that does not
    model constraints (without ``models_constraints = True``,
    :class:`~shared_core.interface.ModelsConstraints`) refuses ``constraints_func``, and the first
    trial of a study that carries constraint values gets a warning that they are not used.

    Args:
        algorithm: the core algorithm.
        seed: seed of the sampler's ``numpy.random.Generator`` and of the default independent
            sampler.
        n_startup_trials: completed trials before the algorithm is used. Their points are drawn at
            random (uniformly, like ``RandomSampler``, but away from other trials' points) or, if
            ``independent_sampler`` is given, by it.
        independent_sampler: sampler for parameters outside the relative search space (default
            :class:`~optuna.samplers.RandomSampler` with ``seed``); if given, it also does the
            start-up.
        warn_independent_sampling: log a warning (once per study) when a parameter is sampled
            independently after the start-up phase.
        max_threads: BLAS/OpenMP/PyTorch threads while the sampler computes (default 1: with several
            worker processes per machine, more threads only compete for the same cores); the
            previous limits are restored afterwards. ``None`` leaves the thread pools alone. While a
            suggestion is computed the limit holds for the whole process, including other ``n_jobs``
            threads.
        running_trial_timeout: when a running trial stops counting as pending. ``"auto"`` (default):
            once 5 trials have completed, a trial running longer than 10 times the 90th percentile
            of their durations, and at least 30 s, is presumed dead (its worker was killed); a
            number: that many seconds; ``None``: running trials always count. Ages use the trials'
            start times, so the workers' clocks must agree (as for Optuna's own timestamps).
        share_model: record the algorithm's fitted model in the study (trial system attributes
            ``MODEL_KEY`` and ``WEIGHTS_KEY``) and start from the newest recorded model when this
            sampler has none yet, so a new or restarted worker skips the hyperparameter fit (default
            True; algorithms that are not :class:`~shared_core.interface.SharesModelState` ignore
            it).
        constraints_func: a function that takes a trial (``FrozenTrial``) and returns its
            constraint values (a sequence of floats; feasible when all are ``<= 0``), as in
            Optuna's samplers: called after each completed or pruned trial, and its values written
            where they write them (names ``"0"``, ``"1"``, ...; NaN is a ``ValueError``).
            Deprecated on Optuna 5 as theirs is (a ``FutureWarning``): ``trial.set_constraint`` in
            the objective does the same. ``ValueError`` if it is not callable or the algorithm does
            not model constraints.
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
        # study name -> trials checked for constraints
        self._constraint_notice = ConstraintNotice(self._algorithm)

    def __getstate__(self) -> dict[str, Any]:
        process = {
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
            "_constraint_notice",
        }
        return {k: v for k, v in self.__dict__.items() if k not in process}

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
        self._check_objectives(study)
        complete = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
        with self._lock:
            space = self._search_space.calculate(study, complete)
        if not space and not complete:
            # the first trials: workers starting together
            space = _first_running_trial_space(study, trial)
        return {name: dist for name, dist in space.items() if not dist.single()}

    def sample_relative(
        self, study: Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution]
    ) -> dict[str, Any]:
        self._check_objectives(study)
        with self._lock, limited_threads(self._max_threads) as capped:
            if not capped:
                self._warnings.warn(
                    "threads",
                    f"{type(self).__name__}(max_threads={self._max_threads}) could not cap the "
                    "BLAS threads: another thread controls them (e.g. a "
                    "threadpoolctl.threadpool_limits block around study.optimize(n_jobs=...)). Set "
                    "OPENBLAS_NUM_THREADS or OMP_NUM_THREADS before starting Python instead",
                    named=False,
                )
            trials = study.get_trials(
                deepcopy=False, states=(TrialState.COMPLETE, TrialState.RUNNING)
            )
            complete = [t for t in trials if t.state == TrialState.COMPLETE]
            self._constraint_notice.check(study, complete, self._warnings)
            heartbeat_orphaned_trials(
                study, trials, self._in_flight, self._heartbeat_given, self._warnings.warn
            )
            # Only what the algorithm may learn from (e.g. an agent: its neighbourhood's trials).
            complete = self._visible(complete)
            if not search_space:
                if len(complete) < max(self._n_startup_trials, 1):
                    self._startup_trials.add((study.study_name, trial.number))
                return {}
            space = self._relative_space(study, search_space, complete)
            # X: (n, d)
            complete, X = self._encodings.encode(study, space, complete)
            # nothing (or too little) to model yet
            in_startup = len(complete) < max(self._n_startup_trials, 1)
            if in_startup:
                self._startup_trials.add((study.study_name, trial.number))
                if not self._startup_in_sampler:  # the user's independent_sampler does the start-up
                    return {}
            # copy: n_jobs threads
            own = {number for name, number in set(self._in_flight) if name == study.study_name}
            alive = alive_running_trials(trials, self._running_trial_timeout, now(), own)
            X_pending, pending_trials = pending_points(
                study.study_name, trial, alive, space, self._unwritten, self._visible
            )
            random_draw = partial(self._random_draw, space.core, X_pending, X)
            draw = random_draw
            if not in_startup:
                obs = self._observations(study, complete, X, X_pending, pending_trials)
                if self._share_model:
                    self._records.offer_recorded(self._algorithm, study, space)
                draw = partial(self._algorithm_draw, space.core, obs)
            known = {t.number for t in trials} - {t.number for t in alive}
            x = claim_point(
                study, trial, space, draw, random_draw, known, self._visible, self._warnings.warn
            )
            self._unwritten.add(study.study_name, trial.number, space, x)
            if not in_startup:
                if self._share_model:
                    self._records.write(self._algorithm, study, trial, space, self._warn_record)
                record_view(self._algorithm, study, trial, self._warn_record)
            params = space.decode(x)
            self._relative_values[(study.study_name, trial.number)] = params
        return params

    def _relative_space(
        self, study: Study, distributions: dict[str, BaseDistribution], complete: list[FrozenTrial]
    ) -> RelativeSpace:
        """The space of a suggestion: ``distributions`` (the modelled parameters), those that some
        ``complete`` trials lack, and the conditions that explain when they are active."""
        present, values = self._presence.matrices(study, distributions, complete)
        in_every_trial = cast(np.ndarray, present.all(axis=0)).tolist()  # (p,)
        optional = frozenset(name for name, full in zip(distributions, in_every_trial) if not full)
        if not optional:
            return RelativeSpace(distributions)
        return RelativeSpace(distributions, conditions_of(present, values, distributions), optional)

    def _observations(
        self,
        study: Study,
        complete: list[FrozenTrial],
        X: np.ndarray,
        X_pending: np.ndarray,
        pending_trials: list[FrozenTrial],
    ) -> Observations:
        """The algorithm's data: completed ``X`` ``(n, d)`` with their values (minimised: ``(n,)``
        for one objective, ``(n, m)`` for ``m`` objectives) and constraint values ``(n, k)``,
        pending points."""
        names, constraints = self._constraints.matrix(study, complete)
        return Observations(
            X=X,
            y=_minimised_values(study, complete),
            X_pending=X_pending,
            source=_agents.sources(self._algorithm, complete),
            pending_source=_agents.sources(self._algorithm, pending_trials),
            constraints=constraints,
            constraint_names=names,
        )

    def _algorithm_draw(
        self, space: SearchSpace, obs: Observations, taken: np.ndarray
    ) -> np.ndarray:
        """The algorithm's ``(d,)`` suggestion, with the
        ``(k, d)`` points ``taken`` counted as pending too."""
        extra = taken[~matches_any(taken, obs.X_pending)]
        return self._algorithm.suggest(
            space, obs.with_pending(extra) if len(extra) else obs, 1, self._rng
        )[0]

    def _random_draw(
        self, space: SearchSpace, X_pending: np.ndarray, X: np.ndarray, taken: np.ndarray
    ) -> np.ndarray:
        """A random ``(d,)`` point that is neither pending ``(p, d)``, taken ``(k, d)`` nor
        (if possible) observed ``(n, d)``."""
        return random_new_point(space, self._rng, np.vstack([X_pending, taken]), X)

    def _visible(self, trials: list[FrozenTrial]) -> list[FrozenTrial]:
        return _agents.visible(self._algorithm, trials)

    def _warn_record(self, what: str) -> None:
        self._warnings.warn(
            "record",
            f"{what}; the trial runs on without it (a new worker then fits its model from scratch)",
        )

    def _models_objectives(self, study: Study) -> bool:
        """Whether the algorithm models the study's number of objectives."""
        return len(study.directions) == 1 or multi_objective(self._algorithm)

    def _check_objectives(self, study: Study) -> None:
        """``ValueError`` for a study with several objectives if the algorithm models one."""
        if not self._models_objectives(study):
            directions = [d.name for d in study.directions]
            raise ValueError(
                f"{type(self).__name__} supports single-objective studies only with the algorithm "
                f"{type(self._algorithm).__name__}; this study has {len(directions)} objectives "
                f"(directions {directions}). An algorithm models several objectives if it has "
                "multi_objective = True (shared_core.interface.MultiObjective)."
            )

    def sample_independent(
        self,
        study: Study,
        trial: FrozenTrial,
        param_name: str,
        param_distribution: BaseDistribution,
    ) -> Any:
        self._check_objectives(study)
        modelled = self._relative_values.get((study.study_name, trial.number), {})
        if param_name in modelled:  # asked with a narrower range than the one modelled
            value = projected_value(param_distribution, modelled[param_name])
            if value is not None:
                return value
        in_startup = (study.study_name, trial.number) in self._startup_trials
        if self._warn_independent_sampling and not in_startup:
            self._warnings.warn(
                f"independent:{study.study_name}",
                f"The parameter '{param_name}' in trial#{trial.number} is sampled independently "
                f"by {type(self._independent_sampler).__name__} instead of {type(self).__name__}: "
                "it was suggested in too few completed trials to be modelled (fewer than "
                "max(5, 10 %) of them), or the model did not expect it on this branch; later "
                "parameters sampled independently in this study are not reported",
                once="once per study",
                named=False,
            )
        return self._independent_sampler.sample_independent(
            study, trial, param_name, param_distribution
        )

    def before_trial(self, study: Study, trial: FrozenTrial) -> None:
        # reject the study before the objective runs; the new trial is failed
        if not self._models_objectives(study):
            study.tell(trial.number, state=TrialState.FAIL)
            self._check_objectives(study)
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
        self._constraint_notice.check(study, [trial], self._warnings)
        self._independent_sampler.after_trial(study, trial, state, values)


def _first_running_trial_space(study: Study, trial: FrozenTrial) -> dict[str, BaseDistribution]:
    """The distributions (sorted by name) of the other running trial that has written the most
    parameters (the first such); ``{}`` if none has. Used before any trial has completed: the search
    space is then known only from the trials that are running (define-by-run), and without one every
    parameter is sampled independently, blind to the other workers' points. A trial still writing
    its parameters gives part of the space; the rest is sampled independently."""
    others = [
        t
        for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))
        if t.number != trial.number
    ]
    fullest = max(others, key=lambda t: len(t.distributions), default=None)
    return dict(sorted(fullest.distributions.items())) if fullest is not None else {}


def _minimised_values(study: Study, complete: list[FrozenTrial]) -> np.ndarray:
    """The values of the ``complete`` trials, each objective minimised (a maximised one negated):
    ``(n,)`` for one objective, ``(n, m)`` for ``m`` objectives (``y[:, i]`` is objective ``i``).
    Optuna fails a trial with a NaN value, so none is NaN; ``+-inf`` stays (the algorithm's
    ``Observations.cleaned`` clips it)."""
    if len(study.directions) == 1:
        sign = -1.0 if study.direction == StudyDirection.MAXIMIZE else 1.0
        return sign * np.array([t.value for t in complete], dtype=float)
    signs = np.array([-1.0 if d == StudyDirection.MAXIMIZE else 1.0 for d in study.directions])
    # (n, m)
    values = np.array([t.values for t in complete], dtype=float).reshape(
        len(complete), len(study.directions)
    )
    return values * signs
