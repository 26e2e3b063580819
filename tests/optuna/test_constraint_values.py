"""Constraint values (``trial.set_constraint``, ``constraints_func``) are not modelled yet:
every sampler says so, once per study, instead of silently optimising a constrained study as
if it had none."""

import optuna
import pytest
from optuna.distributions import FloatDistribution
from optuna.trial import create_trial

from optuna_egp import BORESampler, DistributedTSSampler, EGPTSSampler
from optuna_egp._storage import OPTUNA4_CONSTRAINTS_KEY

SAMPLERS = {
    "egp": EGPTSSampler,
    "bore++": BORESampler,
    "dts": lambda **kw: DistributedTSSampler(agent_id=0, n_agents=1, **kw),
}
each_sampler = pytest.mark.parametrize("make", SAMPLERS.values(), ids=SAMPLERS.keys())
NOT_MODELLED = "does not model constraints yet"
# trial.set_constraint is Optuna 5's; on Optuna 4 constraint values come only from constraints_func
# (read through the same helper, tested in test_storage_access.py and by the add_trial test below).
needs_set_constraint = pytest.mark.skipif(
    not hasattr(optuna.Trial, "set_constraint"), reason="trial.set_constraint needs Optuna 5"
)


def _constrained_from(first: int):
    """Minimise (x-2)^2 + (y-2)^2; from trial ``first`` on,
    the trial also sets the constraint x + y - 2 <= 0."""

    def objective(trial):
        x, y = trial.suggest_float("x", 0, 3), trial.suggest_float("y", 0, 3)
        if trial.number >= first:
            trial.set_constraint("sum", x + y - 2)
        return (x - 2) ** 2 + (y - 2) ** 2

    return objective


@each_sampler
def test_constraints_func_is_refused_with_a_message_that_constraints_are_not_modelled(make):
    with pytest.raises(ValueError, match=f"{NOT_MODELLED}, so constraints_func is not supported"):
        make(constraints_func=lambda trial: [0.0])


@needs_set_constraint
@each_sampler
def test_the_first_trial_with_constraint_values_is_warned_about_once_per_study(make, optuna_log):
    sampler = make(seed=0, n_startup_trials=2)
    study = optuna.create_study(sampler=sampler)
    study.optimize(_constrained_from(3), n_trials=3)
    assert optuna_log.messages(NOT_MODELLED) == []  # no trial has constraint values yet
    # trial 3, the last one: warned when it is told
    study.optimize(_constrained_from(3), n_trials=1)
    warned = optuna_log.messages(NOT_MODELLED)
    assert len(warned) == 1 and "trial 3 " in warned[0] and "['sum']" in warned[0]
    study.optimize(_constrained_from(3), n_trials=3)
    assert len(optuna_log.messages(NOT_MODELLED)) == 1
    # the same sampler on another study warns again, once
    other = optuna.create_study(sampler=sampler)
    other.optimize(_constrained_from(0), n_trials=4)
    assert len(optuna_log.messages(NOT_MODELLED)) == 2


def test_a_constrained_trial_added_by_hand_is_warned_about_at_the_next_suggestion(optuna_log):
    """``study.add_trial`` does not pass through the sampler's ``after_trial``; the suggestion
    reads it. The values are stored as Optuna 4's ``constraints_func`` stores them (Optuna 5
    reads them too)."""
    study = optuna.create_study(sampler=EGPTSSampler(seed=0, n_startup_trials=2))
    study.add_trial(
        create_trial(
            params={"x": 0.5},
            distributions={"x": FloatDistribution(0, 1)},
            value=0.25,
            system_attrs={OPTUNA4_CONSTRAINTS_KEY: [1.0]},
        )
    )
    assert optuna_log.messages(NOT_MODELLED) == []
    study.optimize(lambda t: t.suggest_float("x", 0, 1) ** 2, n_trials=1)
    warned = optuna_log.messages(NOT_MODELLED)
    assert len(warned) == 1 and "trial 0 " in warned[0]


def test_an_unconstrained_study_gets_no_constraint_warning(optuna_log):
    study = optuna.create_study(sampler=EGPTSSampler(seed=0, n_startup_trials=2))
    study.optimize(lambda t: t.suggest_float("x", 0, 1) ** 2, n_trials=4)
    assert optuna_log.messages(NOT_MODELLED) == []
