"""What a sampler's algorithm does not declare it models (``shared_core.capabilities``) is refused
at the first moment the sampler can know, with one ``ValueError`` that names the sampler and the
samplers to use instead, and no warning before it: ``constraints_func`` when the sampler is built,
several objectives at the first trial, and constraint values (``trial.set_constraint``) at the
trial after the first completed one that carries them, start-up trials included.

The samplers tested are the named samplers whose algorithms do not declare the capability, read
from the declarations (a new such sampler joins with no change here), and ``CoreSampler`` around
an algorithm that declares nothing.
"""

from __future__ import annotations

import warnings

import optuna
import pytest
from optuna.distributions import FloatDistribution
from optuna.trial import TrialState, create_trial

from optuna_egp import CoreSampler, DistributedTSSampler, _storage
from optuna_egp.named_samplers import NAMED_SAMPLERS
from shared_core.interface import DECLARATIONS, ModelsConstraints, MultiObjective, declares
from shared_core.registry import algorithm_class

needs_set_constraint = pytest.mark.skipif(
    not hasattr(optuna.Trial, "set_constraint"), reason="trial.set_constraint needs Optuna 5"
)
SAMPLERS = (*NAMED_SAMPLERS, DistributedTSSampler)
# Options that keep the samplers fast (the refusals come before any model is fitted).
CHEAP = {
    "STOBNTSSampler": {"width": 8, "max_steps": 5, "n_raw": 32, "n_starts": 1},
    "DECHBOSampler": {"n_structures": 1, "mcmc_steps": 2, "n_raw": 32, "n_starts": 1},
    "DistributedTSSampler": {"agent_id": 0, "n_agents": 1},
}


class _Undeclared:
    """An algorithm that declares nothing: it refuses constraint values and several objectives."""

    def suggest(self, space, obs, n, rng):
        return space.sample(rng, n)


def _models(sampler_class, protocol) -> bool:
    return all(declares(algorithm_class(method), protocol) for method in sampler_class.METHODS)


def _refusing(protocol) -> list:
    """``(sampler name, factory)`` of the samplers whose algorithms do not declare ``protocol``."""
    named = [
        (s.__name__, lambda s=s, **kw: s(**CHEAP.get(s.__name__, {}), **kw))
        for s in SAMPLERS
        if not _models(s, protocol)
    ]
    return [*named, ("CoreSampler", lambda **kw: CoreSampler(_Undeclared(), **kw))]


def _instead(protocol) -> list[str]:
    """The samplers a refusal of ``protocol`` names instead: those whose algorithms model it."""
    return [s.__name__ for s in SAMPLERS if _models(s, protocol)]


def _cases(protocol):
    refusing = _refusing(protocol)
    return pytest.mark.parametrize("name, make", refusing, ids=[n for n, _ in refusing])


def _assert_refusal(message: str, name: str, protocol: type, found: str) -> None:
    attribute, what = DECLARATIONS[protocol]
    assert message.startswith(f"{name} does not model {what}: {found}"), message
    assert f"does not declare {attribute} = True" in message, message
    instead = _instead(protocol)
    assert instead and f"Use {', '.join(instead[:-1])} or {instead[-1]}, which" in message, message


def _x(trial):
    return trial.suggest_float("x", 0.0, 1.0)


def _constrained_from(first, calls):
    """Objective of ``x``; from trial ``first`` on, the trial sets the constraint x - 0.5 <= 0.
    ``calls``: the numbers of the trials whose objective ran."""

    def objective(trial):
        calls.append(trial.number)
        x = _x(trial)
        if trial.number >= first:
            trial.set_constraint("half", x - 0.5)
        return x

    return objective


@pytest.fixture
def silent(optuna_log):
    """Fails the test if the samplers log a warning or Python warns: a refusal comes alone."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    logged = [r.getMessage() for r in optuna_log.records if r.name.startswith("optuna.optuna_egp")]
    assert not logged, logged
    assert not any("objective alone" in m for m in optuna_log.messages("")), optuna_log.records
    assert not caught, [str(w.message) for w in caught]


# ------------------------------------------------------------------------------ constraints_func
@_cases(ModelsConstraints)
def test_constraints_func_is_refused_when_the_sampler_is_built(name, make, silent):
    def constraints_func(trial):
        return [0.0]

    with pytest.raises(ValueError) as raised:
        make(constraints_func=constraints_func)
    _assert_refusal(
        str(raised.value), name, ModelsConstraints, f"constraints_func={constraints_func!r}"
    )


# ----------------------------------------------------------------------------- constraint values
@needs_set_constraint
@pytest.mark.parametrize("first", [0, 2])
@_cases(ModelsConstraints)
def test_constraint_values_are_refused_at_the_next_trial_even_in_the_start_up_phase(
    name, make, first, silent
):
    """The trial that sets the first constraint value completes; the next trial is failed
    before its objective runs, though every trial is a start-up trial (10 of them)."""
    study = optuna.create_study(sampler=make(seed=0, n_startup_trials=10))
    calls = []
    with pytest.raises(ValueError) as raised:
        study.optimize(_constrained_from(first, calls), n_trials=8)
    _assert_refusal(
        str(raised.value),
        name,
        ModelsConstraints,
        f"trial {first} of study {study.study_name!r} has constraint values ['half']",
    )
    states = [t.state for t in study.trials]
    assert states == [TrialState.COMPLETE] * (first + 1) + [TrialState.FAIL]
    assert calls == list(range(first + 1))


@needs_set_constraint
@_cases(ModelsConstraints)
def test_a_refused_study_stays_refused_and_other_studies_run_on(name, make, silent):
    """Ask and tell: every later ask is refused (and its trial failed); the same sampler runs a
    study without constraint values."""
    sampler = make(seed=0, n_startup_trials=2)
    study = optuna.create_study(sampler=sampler)
    trial = study.ask()
    trial.set_constraint("c", _x(trial) - 0.5)
    study.tell(trial, 1.0)
    for _ in range(2):
        with pytest.raises(ValueError, match=r"trial 0 of study .* has constraint values \['c'\]"):
            study.ask()
    assert [t.state for t in study.trials] == [TrialState.COMPLETE] + [TrialState.FAIL] * 2
    other = optuna.create_study(sampler=sampler)
    other.optimize(_x, n_trials=3)
    assert all(t.state == TrialState.COMPLETE for t in other.trials)


@_cases(ModelsConstraints)
def test_constraint_values_of_a_trial_added_by_hand_are_refused_at_the_next_trial(
    name, make, silent
):
    """``study.add_trial`` does not pass through the sampler; the next ask reads the stored values
    (as another sampler's ``constraints_func`` writes them, which Optuna 4 and 5 read)."""
    study = optuna.create_study(sampler=make(seed=0))
    study.optimize(_x, n_trials=2)  # no constraint values: nothing refused
    study.add_trial(
        create_trial(
            params={"x": 0.5},
            distributions={"x": FloatDistribution(0.0, 1.0)},
            value=0.25,
            system_attrs={_storage.CONSTRAINTS_FUNC_KEY: [1.0]},
        )
    )
    with pytest.raises(ValueError) as raised:
        study.optimize(_x, n_trials=2)
    _assert_refusal(
        str(raised.value),
        name,
        ModelsConstraints,
        f"trial 2 of study {study.study_name!r} has constraint values ['0']",
    )
    assert [t.state for t in study.trials][3:] == [TrialState.FAIL]


# ----------------------------------------------------------------------------- several objectives
@_cases(MultiObjective)
def test_several_objectives_are_refused_at_the_first_trial_before_its_objective_runs(
    name, make, silent
):
    study = optuna.create_study(directions=["minimize", "maximize"], sampler=make(seed=0))
    calls = []

    def objective(trial):
        calls.append(trial.number)
        return _x(trial), 1.0

    with pytest.raises(ValueError) as raised:
        study.optimize(objective, n_trials=3)
    found = f"study {study.study_name!r} has 2 objectives (directions ['MINIMIZE', 'MAXIMIZE'])"
    _assert_refusal(str(raised.value), name, MultiObjective, found)
    assert calls == [] and [t.state for t in study.trials] == [TrialState.FAIL]
