"""The named samplers are built from the registry: their signatures must not drift from it."""

import inspect
import pickle

import optuna
import pytest

from optuna_egp import (
    BORESampler,
    CoreSampler,
    DECHBOSampler,
    DistributedTSSampler,
    EGPTSSampler,
    STOBNTSSampler,
)
from optuna_egp.named_samplers import NAMED_SAMPLERS
from shared_core.registry import algorithm_names, algorithm_options

# sampler -> its own defaults where they differ from the registry's (its registry methods: METHODS)
NAMED = {
    EGPTSSampler: {"acquisition": "auto"},  # the method name's part
    BORESampler: {"variant": "bore++"},
    DECHBOSampler: {},
    STOBNTSSampler: {"variant": "network"},
    DistributedTSSampler: {"agent_id": None},  # None: from the environment (OPTUNA_EGP_AGENT_ID)
}


def test_every_registered_method_has_one_named_sampler():
    assert set(NAMED) == {*NAMED_SAMPLERS, DistributedTSSampler}
    served = [method for sampler in NAMED for method in sampler.METHODS]
    assert sorted(served) == algorithm_names()


def _defaults(parameters):
    return {name: p.default for name, p in parameters.items()}


@pytest.mark.parametrize("sampler", NAMED, ids=lambda s: s.__name__)
def test_a_named_samplers_signature_is_its_registry_options_and_core_samplers(sampler):
    own = NAMED[sampler]
    expected = {}
    for method in sampler.METHODS:
        expected.update(_defaults(algorithm_options(method)))
    core = _defaults(inspect.signature(CoreSampler).parameters)
    del core["algorithm"]
    expected.update(core)
    expected.update(own)
    parameters = inspect.signature(sampler).parameters
    assert _defaults(parameters) == expected
    assert all(p.kind == p.KEYWORD_ONLY for p in parameters.values())


@pytest.mark.parametrize(
    "make, options",
    [
        (EGPTSSampler, {"acquisition": "ts", "exact_limit": 50, "n_raw": 100, "n_starts": 3}),
        (
            BORESampler,
            {
                "variant": "bore++",
                "lam": 0.1,
                "svgd_steps": 20,
                "svgd_step_size": 0.05,
                "kernel": "rbf",
            },
        ),
    ],
    ids=["egp", "bore++"],
)
def test_every_option_reaches_the_algorithm(make, options):
    sampler = make(**options)
    for name, value in options.items():
        if name in ("acquisition", "variant"):
            assert getattr(sampler.algorithm, name) == value
        elif name == "kernel":  # the default is Matérn-5/2 ARD
            assert (
                sampler.algorithm.classifier.spec.form,
                sampler.algorithm.classifier.spec.ard,
            ) == ("rbf", False)
        elif name == "exact_limit":
            assert sampler.algorithm.model.exact_limit == value
        else:
            assert getattr(sampler.algorithm, name) == value


@pytest.mark.parametrize(
    "make",
    [
        lambda: EGPTSSampler(seed=1, n_raw=64),
        lambda: BORESampler(seed=1, lam=0.1),
        lambda: DistributedTSSampler(agent_id=1, n_agents=2, seed=1),
    ],
    ids=["egp", "bore++", "dts"],
)
def test_named_samplers_pickle_and_keep_working(make):
    sampler = pickle.loads(pickle.dumps(make()))
    study = optuna.create_study(sampler=sampler)
    study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=3)
    assert len(study.trials) == 3


def test_no_algorithm_option_shares_a_name_with_a_core_sampler_option():
    """A shared name would go to the algorithm only (``split_arguments``), never to CoreSampler."""
    from shared_core.registry import algorithm_names

    core = set(inspect.signature(CoreSampler).parameters)
    assert all(not (set(algorithm_options(m)) & core) for m in algorithm_names())
