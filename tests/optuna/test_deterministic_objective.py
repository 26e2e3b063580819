"""``deterministic_objective=True`` fixes the noise variance of every GP a sampler fits at the floor
(as GPSampler's option); without it the noise is fitted."""

from __future__ import annotations

import numpy as np
import optuna
import pytest

from optuna_egp import DECHBOSampler, DistributedTSSampler, EGPTSSampler
from shared_core.models.gp import NOISE_FLOOR

N_TRIALS = 14  # 10 start-up trials, then model-based suggestions (each fits the GPs)


def _noisy_objective(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", -2.0, 2.0)
    y = trial.suggest_float("y", -2.0, 2.0)
    # noise large next to the function's spread, so that a fitted noise is far above the floor
    noise = np.random.default_rng(trial.number).normal(scale=1.0)
    if trial.study.user_attrs.get("constrained"):
        trial.set_constraint("c", x + y - 1.0)
    return x**2 + y**2 + noise


def _fitted_noises(sampler) -> list[float]:
    """The noise variances of every GP the sampler's algorithm fitted."""
    algorithm = sampler._algorithm
    if isinstance(sampler, DECHBOSampler):
        return [h.noise for h in algorithm._hypers.values()]
    if isinstance(sampler, DistributedTSSampler):
        algorithm = algorithm._models[0]
    models = [algorithm.model, *algorithm.constraint_models.models.values()]
    return [m.hyper.noise for model in models for m in model.members]


SAMPLERS = {
    "egp-ts": lambda **kw: EGPTSSampler(seed=0, **kw),
    "dts": lambda **kw: DistributedTSSampler(agent_id=0, n_agents=1, seed=0, **kw),
    "dec-hbo": lambda **kw: DECHBOSampler(seed=0, **kw),
}


def _run(name: str, deterministic: bool, constrained: bool = False) -> list[float]:
    sampler = SAMPLERS[name](deterministic_objective=deterministic)
    study = optuna.create_study(sampler=sampler)
    study.set_user_attr("constrained", constrained)
    study.optimize(_noisy_objective, n_trials=N_TRIALS)
    return _fitted_noises(sampler)


@pytest.mark.parametrize("name", SAMPLERS)
def test_deterministic_objective_fixes_every_gps_noise_at_the_floor(name):
    noises = _run(name, deterministic=True, constrained=name != "dec-hbo")
    assert noises and np.allclose(noises, NOISE_FLOOR, rtol=1e-9)


@pytest.mark.parametrize("name", SAMPLERS)
def test_by_default_the_noise_is_fitted(name):
    # on values with unit noise the fitted variance is orders of magnitude above the floor
    assert min(_run(name, deterministic=False)) > 1e3 * NOISE_FLOOR


def test_the_constraint_models_are_fitted_too():
    # without it the first test could pass on the objective's models alone
    sampler = SAMPLERS["egp-ts"](deterministic_objective=True)
    study = optuna.create_study(sampler=sampler)
    study.set_user_attr("constrained", True)
    study.optimize(_noisy_objective, n_trials=N_TRIALS)
    assert sampler._algorithm.constraint_models.models


def test_a_non_boolean_is_a_value_error():
    with pytest.raises(ValueError, match="deterministic_objective"):
        EGPTSSampler(deterministic_objective="yes")  # type: ignore[arg-type]


def test_dec_hbos_interaction_gp_has_the_fixed_noise_too(monkeypatch):
    # the GP whose cross-partials start the structure chain is fitted apart from the additive ones
    from shared_core.models import interactions

    fitted, real = [], interactions.fit_hyperparameters

    def recording(*args, **kwargs):
        hyper = real(*args, **kwargs)
        fitted.append(hyper.noise)
        return hyper

    monkeypatch.setattr(interactions, "fit_hyperparameters", recording)
    # 3 parameters in factors of at most 2: the structure is sampled (a chain from that GP)
    sampler = DECHBOSampler(seed=0, max_factor_size=2, deterministic_objective=True)
    study = optuna.create_study(sampler=sampler)
    study.optimize(lambda t: sum(t.suggest_float(k, 0, 1) ** 2 for k in "abc"), n_trials=12)
    assert fitted and np.allclose(fitted, NOISE_FLOOR, rtol=1e-9)


def test_a_model_state_is_adopted_only_with_the_same_noise_setting():
    """A worker with ``deterministic_objective`` and one without never start from each other's
    recorded model (``share_model``): the noise of one is not the other's."""
    from shared_core.models.ensemble import EnsembleGP

    rng = np.random.default_rng(0)
    X = rng.random((12, 2))  # (n, d)
    y = np.sin(6 * X[:, 0]) + X[:, 1]
    states = {}
    for noise in (None, NOISE_FLOOR):
        model = EnsembleGP(noise=noise)
        model.fit(X, y, rng)
        states[noise] = model.state()
    for mine in (None, NOISE_FLOOR):
        for theirs in (None, NOISE_FLOOR):
            assert EnsembleGP(noise=mine).offer_state(states[theirs]) == (mine == theirs)
