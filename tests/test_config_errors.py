"""Every public constructor and builder rejects a bad argument with a ``ValueError`` naming
the argument and showing the bad value (one row per argument and bad value); so does a study the
sampler cannot optimise, at its first trial."""

from __future__ import annotations

import math

import optuna
import pytest

from ax_egp import AlgorithmNode, generation_strategy
from optuna_egp import (
    BORESampler,
    CoreSampler,
    DECHBOSampler,
    DistributedTSSampler,
    EGPTSSampler,
    STOBNTSSampler,
)
from shared_core import (
    BOREAlgorithm,
    CategoricalParam,
    DistributedTSAlgorithm,
    EGPAlgorithm,
    FloatParam,
    IntParam,
    KernelSpec,
    SearchSpace,
)
from shared_core.graphs import make_graph


def _dts_sampler(**kwargs):
    return DistributedTSSampler(**{"agent_id": 0, "graph": "ring", "n_agents": 4, **kwargs})


def _dts_algorithm(**kwargs):
    return DistributedTSAlgorithm(**{"graph": "ring", "n_agents": 4, **kwargs})


class _ConstraintsFunc:
    """A ``constraints_func`` whose repr (shown in the message and the test id) is stable."""

    def __call__(self, trial):
        return [0.0]

    def __repr__(self):
        return "<the test's constraints_func>"


class _Unconstrained:
    """An algorithm that models neither constraints (no ``models_constraints``) nor several
    objectives (no ``multi_objective``)."""

    def suggest(self, space, obs, n, rng):
        return rng.random((n, space.dim))


def _study(**kwargs):
    """Run one trial of a study made with ``kwargs`` whose sampler's algorithm is
    ``_Unconstrained``."""
    study = optuna.create_study(sampler=CoreSampler(_Unconstrained(), seed=0), **kwargs)
    study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=1)


# Bad values shared by several builders: (argument, bad values).
SAMPLER_COMMON = [
    ("seed", [-1, 1.5, "0", True]),
    ("n_startup_trials", [-1, 1.5, "3", True]),
    ("independent_sampler", ["random", 3]),
    ("warn_independent_sampling", ["yes", 1]),
    ("max_threads", [0, -1, 1.5, "2", True]),
    ("running_trial_timeout", [0, -1, math.inf, math.nan, "soon", True]),
    ("constraints_func", [3, "c <= 0"]),  # not callable
]
EGP_OPTIONS = [
    ("kernels", ["nope", [], [3], ["rbf", "cubic"]]),
    ("n_features", [0, -5, 2.5, "512"]),
    ("fantasize_pending", ["yes", 1]),
    ("warp_outputs", ["no", 0]),
]
BORE_OPTIONS = [
    ("variant", ["bore+++", 3]),
    ("gamma", [0, 1, -0.1, math.nan, "0.25"]),
    ("beta", [-1, math.nan, math.inf, "3"]),
    ("batch_size", [0, -1, 1.5]),
    ("sharpness", [0, -1, math.nan]),
    ("max_points", [0, -1, 2.5]),
]
DEC_HBO_OPTIONS = [
    ("max_factor_size", [0, -1, 1.5, "3"]),
    ("groups", [[], [[]], "x0", [["x0", "x0"]], [["a", "b", "c", "d", "e", "f", "g"]], [[1.5]]]),
    ("n_structures", [0, 1.5]),
    ("mcmc_steps", [-1, 1.5]),
    ("beta_scale", [-1, math.nan, math.inf, "0.1"]),
    ("delta", [0, 1, math.nan]),
    ("max_sum_iterations", [0, 2.5]),
    ("damping", [1, -0.1, math.nan]),
    ("kernel", ["linear", 3]),
    ("warp_outputs", ["no", 0]),
    ("n_raw", [0, 2.5]),
    ("n_starts", [0, "4"]),
]
STO_BNTS_OPTIONS = [
    ("variant", ["nn", 3]),
    ("width", [0, 1.5, "64"]),
    ("depth", [0, -1]),
    ("activation", ["sigmoid", 3]),
    ("beta", [0, -1, math.nan]),
    ("bias_std", [-1, math.nan, math.inf]),
    ("noise_var", [0, -1, math.nan]),
    ("max_steps", [0, 2.5]),
    ("max_points", [0, -1]),
    ("warp_outputs", ["no", 0]),
    ("n_raw", [0, 2.5]),
    ("n_starts", [0, "4"]),
]
GRAPH_OPTIONS = [
    ("agent_id", [-1, 4, 1.5, "0"]),
    ("graph", ["torus", 3]),
    ("n_agents", [0, -1, 2.5]),
    ("graph_seed", [-1, 1.5, "0"]),
    ("surrogate", ["nn", 3]),
]

BUILDERS = {
    "EGPTSSampler": (
        EGPTSSampler,
        SAMPLER_COMMON + EGP_OPTIONS + [("acquisition", ["ucb", 3]), ("share_model", ["yes", 1])],
    ),
    "BORESampler": (BORESampler, SAMPLER_COMMON + BORE_OPTIONS),
    "DECHBOSampler": (DECHBOSampler, SAMPLER_COMMON[:-1] + DEC_HBO_OPTIONS),
    "STOBNTSSampler": (STOBNTSSampler, SAMPLER_COMMON[:-1] + STO_BNTS_OPTIONS),
    "DistributedTSSampler": (
        _dts_sampler,
        SAMPLER_COMMON + EGP_OPTIONS[1:] + GRAPH_OPTIONS + [("share_model", ["yes", 1])],
    ),
    "CoreSampler": (
        lambda **kw: CoreSampler(**{"algorithm": EGPAlgorithm(), **kw}),
        SAMPLER_COMMON + [("algorithm", ["egp-ts", None]), ("share_model", ["yes", 1])],
    ),
    # only an algorithm that models constraints takes constraints_func
    "CoreSampler(unconstrained algorithm)": (
        lambda **kw: CoreSampler(**{"algorithm": _Unconstrained(), **kw}),
        [("constraints_func", [_ConstraintsFunc()])],
    ),
    # several objectives (Optuna's names of the directions, as the message shows them)
    "optuna study(CoreSampler of one objective)": (
        _study,
        [("directions", [["MINIMIZE", "MAXIMIZE"], ["MAXIMIZE", "MINIMIZE", "MAXIMIZE"]])],
    ),
    "EGPAlgorithm": (
        EGPAlgorithm,
        EGP_OPTIONS + [("acquisition", ["ucb", 3]), ("exact_limit", [0, -1, 1.5])],
    ),
    "BOREAlgorithm": (BOREAlgorithm, BORE_OPTIONS),
    "DistributedTSAlgorithm": (_dts_algorithm, GRAPH_OPTIONS + EGP_OPTIONS[1:]),
    "generation_strategy": (
        generation_strategy,
        [
            ("method", ["nope", 3]),
            ("initialization_trials", [-1, 1.5, "5"]),
            ("seed", [-1, 1.5]),
            ("max_threads", [0, "2"]),
        ],
    ),
    "generation_strategy(egp-ts)": (lambda **kw: generation_strategy("egp-ts", **kw), EGP_OPTIONS),
    "generation_strategy(bore)": (lambda **kw: generation_strategy("bore", **kw), BORE_OPTIONS),
    "generation_strategy(dts)": (
        lambda **kw: generation_strategy("dts", **{"graph": "ring", "n_agents": 4, **kw}),
        [row for row in GRAPH_OPTIONS if row[0] != "agent_id"],
    ),
    "AlgorithmNode": (
        AlgorithmNode,
        [("method", ["nope", 3]), ("seed", [-1, 1.5]), ("max_threads", [0, "2"]), ("name", [3])],
    ),
    "make_graph": (
        lambda **kw: make_graph(**{"graph": "ring", "n_agents": 4, **kw}),
        [("graph", ["torus", "erdos_renyi:2", 3.5]), ("n_agents", [0, -1, 2.5])],
    ),
    "FloatParam": (
        lambda **kw: FloatParam(**{"low": 0.0, "high": 1.0, **kw}),
        [("high", [-1.0, math.inf]), ("step", [-1.0, 0.0])],
    ),
    "IntParam": (
        lambda **kw: IntParam(**{"low": 0, "high": 5, **kw}),
        [("high", [-1]), ("step", [0, -2])],
    ),
    "CategoricalParam": (CategoricalParam, [("choices", [()])]),
    "KernelSpec": (KernelSpec, [("form", ["cubic"])]),
    "SearchSpace": (SearchSpace, [("params", [{"x": 3}])]),
}
# the message names the bad entry and shows its value
SHOWN = {("SearchSpace", "params"): "params['x']"}

CASES = [
    pytest.param(builder, arg, bad, id=f"{builder}-{arg}={bad!r}")
    for builder, (_, rows) in BUILDERS.items()
    for arg, values in rows
    for bad in values
]


@pytest.mark.parametrize(("builder", "argument", "bad"), CASES)
def test_bad_argument_is_a_value_error_naming_it_and_its_value(builder, argument, bad):
    make = BUILDERS[builder][0]
    with pytest.raises(ValueError) as raised:
        make(**{argument: bad})
    message = str(raised.value)
    assert argument in message, message
    assert SHOWN.get((builder, argument), repr(bad)) in message, message
