"""Property-based tests: random search spaces and
objective values for every Optuna sampler and Ax method.

Search spaces draw every distribution kind (float, log float, stepped float, int, log int, stepped
int, categorical with choices of mixed types), single-point ranges included, optionally with a
conditional parameter; objective values draw NaN, +-inf, huge, constant and duplicate values;
constraint values (``trial.set_constraint``) are none, random (infinities included, a name missing
in some trials) or infeasible in every trial. Optuna studies with two or three objectives draw each
objective's values so, and random directions.
Properties: every suggestion is valid for its distribution, nothing raises, and the same seed gives
the same suggestions. Hypothesis runs derandomized (the same examples every run) with a bounded
number of examples; the deadline (per example) catches a sampler that hangs, not slow machines.
"""

from __future__ import annotations

import math
import warnings

import optuna
import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st
from optuna.distributions import (
    BaseDistribution,
    CategoricalDistribution,
    FloatDistribution,
    IntDistribution,
)

from optuna_egp import BORESampler, DistributedTSSampler, EGPTSSampler, STOBNTSSampler
from shared_core.interface import ModelsConstraints, MultiObjective
from shared_core.registry import methods_declaring


@pytest.fixture(autouse=True)
def _quiet_optuna():
    """Optuna's per-trial messages off during these tests only (set at import, it would hide
    the warnings other test modules check)."""
    verbosity = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    yield
    optuna.logging.set_verbosity(verbosity)


N_TRIALS = 6
FUZZ = settings(
    max_examples=8,
    deadline=60_000,
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

SAMPLERS = {
    "egp-ts": lambda seed: EGPTSSampler(seed=seed, n_startup_trials=2, n_features=64),
    "bore++": lambda seed: BORESampler(seed=seed, n_startup_trials=2, variant="bore++"),
    "bore": lambda seed: BORESampler(seed=seed, n_startup_trials=2, variant="bore"),
    "dts": lambda seed: DistributedTSSampler(
        seed=seed, n_startup_trials=2, agent_id=1, graph="star", n_agents=3
    ),
}

# --------------------------------------------------------------------------------------- strategies
_finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)
_mixed_choice = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), _finite, st.text(max_size=2)
)


@st.composite
def distributions(draw) -> BaseDistribution:
    kind = draw(
        st.sampled_from(
            ["float", "float-log", "float-step", "int", "int-log", "int-step", "categorical"]
        )
    )
    if kind == "float":
        low = draw(_finite)
        return FloatDistribution(low, low + draw(st.sampled_from([0.0, 1e-9, 1e-3, 1.0, 1e6])))
    if kind == "float-log":
        low = draw(st.sampled_from([1e-8, 1e-3, 1.0, 7.0]))
        return FloatDistribution(low, low * draw(st.sampled_from([1.0, 1.5, 1e3, 1e8])), log=True)
    if kind == "float-step":
        low, step = draw(_finite), draw(st.sampled_from([1e-3, 0.1, 0.25, 3.0]))
        return FloatDistribution(low, low + step * draw(st.integers(0, 20)), step=step)
    if kind == "int":
        low = draw(st.integers(-1000, 1000))
        return IntDistribution(low, low + draw(st.sampled_from([0, 1, 2, 10, 10**6])))
    if kind == "int-log":
        low = draw(st.integers(1, 100))
        return IntDistribution(low, low + draw(st.sampled_from([0, 1, 50, 10**5])), log=True)
    if kind == "int-step":
        low, step = draw(st.integers(-50, 50)), draw(st.integers(1, 5))
        return IntDistribution(low, low + step * draw(st.integers(0, 10)), step=step)
    choices = draw(
        st.lists(_mixed_choice, min_size=1, max_size=4, unique_by=lambda v: (type(v), repr(v)))
    )
    return CategoricalDistribution(choices)


_constraint_value = st.one_of(
    st.sampled_from([math.inf, -math.inf, 1e300, -1e300, 0.0, 1e-12]), _finite
)
_violation = st.one_of(st.sampled_from([math.inf, 1e300, 1e-12]), st.floats(1e-3, 1e3))


@st.composite
def constraint_values(draw) -> list[dict[str, float]]:
    """Each trial's constraint values by name: none, random (each name missing in some trials), or
    every trial infeasible (``c0`` violated, ``c1`` anything or missing)."""
    pattern = draw(st.sampled_from(["none", "random", "infeasible"]))
    if pattern == "none":
        return [{}] * N_TRIALS
    out = []
    for _ in range(N_TRIALS):
        values = {name: draw(_constraint_value) for name in ("c0", "c1") if draw(st.booleans())}
        if pattern == "infeasible":
            values["c0"] = draw(_violation)
        out.append(values)
    return out


@st.composite
def objective_values(draw) -> list[float]:
    """One objective's value in each trial: mixed (NaN, infinities, huge), finite, constant, or
    two values in turn (duplicates)."""
    special = st.sampled_from([math.nan, math.inf, -math.inf, 1e300, -1e300, 0.0, 1.0])
    pattern = draw(st.sampled_from(["mixed", "finite", "constant", "two values"]))
    if pattern == "constant":
        return [draw(st.one_of(special, _finite))] * N_TRIALS
    if pattern == "two values":  # duplicates
        a, b = draw(st.one_of(special, _finite)), draw(_finite)
        return [a if i % 2 else b for i in range(N_TRIALS)]
    each = st.one_of(special, _finite) if pattern == "mixed" else _finite
    return draw(st.lists(each, min_size=N_TRIALS, max_size=N_TRIALS))


@st.composite
def problems(
    draw,
) -> tuple[dict[str, BaseDistribution], bool, list[float], list[dict[str, float]]]:
    space = {f"p{i}": draw(distributions()) for i in range(draw(st.integers(1, 3)))}
    conditional = draw(st.booleans())
    return space, conditional, draw(objective_values()), draw(constraint_values())


@st.composite
def multi_objective_problems(
    draw,
) -> tuple[
    dict[str, BaseDistribution], bool, list[tuple[float, ...]], list[dict[str, float]], list[str]
]:
    """A problem of :func:`problems` with two or three objectives: each trial's values (a tuple;
    each objective drawn as one objective is) and the directions."""
    space, conditional, _, constraints = draw(problems())
    m = draw(st.integers(2, 3))
    columns = [draw(objective_values()) for _ in range(m)]
    directions = draw(st.lists(st.sampled_from(["minimize", "maximize"]), min_size=m, max_size=m))
    return space, conditional, list(zip(*columns)), constraints, directions


# Every kind in one space, conditional, with NaN, infinities, a huge value and a duplicate, and
# constraint values with infinities and missing names: always run.
EVERY_KIND = (
    {
        "f": FloatDistribution(-2.0, 3.0),
        "flog": FloatDistribution(1e-4, 10.0, log=True),
        "fstep": FloatDistribution(0.8, 42.8, step=3.0),
        "i": IntDistribution(-5, 5),
        "ilog": IntDistribution(1, 1000, log=True),
        "istep": IntDistribution(-9, 21, step=3),
        "c": CategoricalDistribution([None, True, 2, 0.5, "x"]),
        "single": IntDistribution(4, 4),
    },
    True,
    [1.0, math.nan, 2.5, -1e300, math.inf, 1.0],
    [{"c0": 1.0, "c1": -1.0}, {"c0": math.inf}, {}, {"c1": -math.inf}, {"c0": 0.0}, {"c1": 2.0}],
)


# Three objectives (one constant, one with NaN and infinities), mixed directions, constraint values
# with an infinity and a missing name, in a conditional mixed space: always run.
SEVERAL_OBJECTIVES = (
    {
        "f": FloatDistribution(-2.0, 3.0),
        "i": IntDistribution(-5, 5),
        "c": CategoricalDistribution([None, "x", 2]),
    },
    True,
    [(1.0, 5.0, 0.0), (math.nan, 5.0, 1.0), (math.inf, 5.0, -1.0), (-1.0, 5.0, 2.0)]
    + [(0.5, 5.0, -math.inf), (2.0, 5.0, 1e300)],
    [{"c0": 1.0}, {}, {"c0": -1.0, "c1": math.inf}, {"c1": -2.0}, {"c0": 0.0}, {"c0": -0.5}],
    ["minimize", "maximize", "maximize"],
)


# ------------------------------------------------------------------------------------------ helpers
def _suggest(trial: optuna.Trial, name: str, dist: BaseDistribution):
    if isinstance(dist, FloatDistribution):
        return trial.suggest_float(name, dist.low, dist.high, step=dist.step, log=dist.log)
    if isinstance(dist, IntDistribution):
        return trial.suggest_int(name, dist.low, dist.high, step=dist.step, log=dist.log)
    return trial.suggest_categorical(name, dist.choices)


def _objective(space, conditional, values, constraints):
    def objective(trial: optuna.Trial) -> float | tuple[float, ...]:
        for name, dist in space.items():
            _suggest(trial, name, dist)
        if conditional and trial.suggest_categorical("branch", ["a", "b"]) == "a":
            trial.suggest_float("only_in_a", 0.0, 1.0)
        if hasattr(trial, "set_constraint"):  # Optuna 5
            for name, value in constraints[trial.number].items():
                trial.set_constraint(name, value)
        return values[trial.number]

    return objective


def _valid(dist: BaseDistribution, value) -> bool:
    """Checked without Optuna's code: bounds, step grid and type; categoricals by type and value."""
    if isinstance(dist, CategoricalDistribution):
        return any(type(value) is type(c) and (value == c or value is c) for c in dist.choices)
    if isinstance(dist, IntDistribution):
        return (
            type(value) is int
            and dist.low <= value <= dist.high
            and (value - dist.low) % dist.step == 0
        )
    if not (type(value) is float and math.isfinite(value) and dist.low <= value <= dist.high):
        return False
    if dist.step is None:
        return True
    k = (value - dist.low) / dist.step
    return abs(k - round(k)) < 1e-6


def _run(
    make, seed, space, conditional, values, constraints, directions=None
) -> list[optuna.trial.FrozenTrial]:
    """The study's trials. The sampler's own (relative) suggestions are checked as they are made:
    Optuna silently replaces an invalid relative value by an independent sample, which would hide
    it."""
    sampler = make(seed)
    sample_relative = sampler.sample_relative

    def checked_sample_relative(study, trial, search_space):
        params = sample_relative(study, trial, search_space)
        for name, value in params.items():
            assert _valid(search_space[name], value), (name, search_space[name], value)
        return params

    sampler.sample_relative = checked_sample_relative
    study = optuna.create_study(sampler=sampler, directions=directions)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        study.optimize(_objective(space, conditional, values, constraints), n_trials=N_TRIALS)
    return study.trials


def _check_trials(trials, space, conditional) -> None:
    assert len(trials) == N_TRIALS
    for t in trials:
        # FAIL: a NaN value
        assert t.state in (
            optuna.trial.TrialState.COMPLETE,
            optuna.trial.TrialState.FAIL,
        )
        assert t.state == optuna.trial.TrialState.COMPLETE or t.values is None
        for name, dist in space.items():
            assert _valid(dist, t.params[name]), (name, dist, t.params[name])
        if conditional:
            assert t.params["branch"] in ("a", "b")
            assert ("only_in_a" in t.params) == (t.params["branch"] == "a")
            if "only_in_a" in t.params:
                assert 0.0 <= t.params["only_in_a"] <= 1.0


def _same(a, b) -> bool:
    return type(a) is type(b) and (
        a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b))
    )


# ------------------------------------------------------------------------------------------- Optuna
@pytest.mark.slow
@pytest.mark.parametrize("name", list(SAMPLERS))
def test_optuna_samplers_on_random_spaces_and_values(name):
    make = SAMPLERS[name]

    @settings(
        FUZZ, max_examples=4 if name == "bore" else FUZZ.max_examples
    )  # BORE trains a network per ask
    @given(problems())
    @example(EVERY_KIND)
    def check(problem):
        space, conditional, values, constraints = problem
        first = _run(make, 7, space, conditional, values, constraints)
        _check_trials(first, space, conditional)
        if hasattr(optuna.Trial, "set_constraint"):  # Optuna 5: the trials carry the values
            assert [t.constraints for t in first] == constraints
        again = _run(make, 7, space, conditional, values, constraints)
        assert [t.params.keys() for t in first] == [t.params.keys() for t in again]
        for t, u in zip(first, again):
            assert all(_same(t.params[k], u.params[k]) for k in t.params), (t.params, u.params)

    check()


# The same properties for STO-BNTS, which refuses constraint values: the problems without them. A
# narrow network and a short training (a model per ask); the robustness is the same at the defaults.
@pytest.mark.slow
@pytest.mark.parametrize("variant", ["network", "linear"])
def test_optuna_sto_bnts_on_random_spaces_and_values(variant):
    def make(seed):
        return STOBNTSSampler(
            seed=seed, n_startup_trials=2, variant=variant, width=16, max_steps=30, n_raw=128
        )

    @settings(FUZZ, max_examples=2)
    @given(problems())
    @example(EVERY_KIND)
    def check(problem):
        space, conditional, values, constraints = problem
        unconstrained = [{} for _ in constraints]
        first = _run(make, 7, space, conditional, values, unconstrained)
        _check_trials(first, space, conditional)
        again = _run(make, 7, space, conditional, values, unconstrained)
        for t, u in zip(first, again):
            assert t.params.keys() == u.params.keys()
            assert all(_same(t.params[k], u.params[k]) for k in t.params), (t.params, u.params)

    check()


# The same properties with several objectives. Each example costs a model per objective, so the
# table runs the fixed example and, for BORE++ (whose labels are its own), one drawn one; EGP-TS
# and distributed TS (which models as EGP-TS does) get drawn objectives in the Ax table. Not
# BORE's network variant (about 8 s for the fixed example alone), whose labels are BORE++'s.
@pytest.mark.slow
@pytest.mark.parametrize("name", [name for name in SAMPLERS if name != "bore"])
def test_optuna_samplers_with_several_objectives(name):
    make = SAMPLERS[name]

    @settings(FUZZ, max_examples=1, phases=FUZZ.phases if name == "bore++" else [Phase.explicit])
    @given(multi_objective_problems())
    @example(SEVERAL_OBJECTIVES)
    def check(problem):
        space, conditional, values, constraints, directions = problem
        first = _run(make, 7, space, conditional, values, constraints, directions)
        _check_trials(first, space, conditional)
        complete = [t for t in first if t.state == optuna.trial.TrialState.COMPLETE]
        assert [tuple(t.values) for t in complete] == [values[t.number] for t in complete]
        again = _run(make, 7, space, conditional, values, constraints, directions)
        for t, u in zip(first, again):
            assert t.params.keys() == u.params.keys()
            assert all(_same(t.params[k], u.params[k]) for k in t.params), (t.params, u.params)

    check()


# ----------------------------------------------------------------------------------------------- Ax
ax = pytest.importorskip("ax")

# The methods whose algorithms model what the drawn experiments have (outcome constraints, several
# objectives), by their declarations, but "egp-auto" (a switch between "egp-ei" and "egp-ts").
AX_METHODS = [
    method
    for method in methods_declaring(ModelsConstraints)
    if method in methods_declaring(MultiObjective) and method != "egp-auto"
]


@st.composite
def ax_parameters(draw) -> list:
    """Ax parameter configurations of every kind: float/int ranges (linear, log, stepped),
    choices of one type each (Ax needs one type per parameter), a fixed single choice. One
    float range always comes first: Ax dedupes arms, and a discrete space with fewer points
    than trials sends its fallback generator into a very long rejection-sampling loop (Ax's
    behaviour, not checked here)."""
    from ax import ChoiceParameterConfig, RangeParameterConfig

    params = [RangeParameterConfig(name="always", parameter_type="float", bounds=(-1.0, 1.0))]
    for i in range(draw(st.integers(1, 3))):
        kind = draw(
            st.sampled_from(
                [
                    "float",
                    "float-log",
                    "float-step",
                    "int",
                    "int-log",
                    "str",
                    "int-choice",
                    "float-choice",
                    "bool",
                    "fixed",
                ]
            )
        )
        name = f"p{i}"
        if kind == "float":
            low = draw(_finite)
            params.append(
                RangeParameterConfig(
                    name=name,
                    parameter_type="float",
                    bounds=(low, low + draw(st.sampled_from([1e-3, 1.0, 1e6]))),
                )
            )
        elif kind == "float-log":
            # Ax refuses ranges narrower than about 1e-6 ("very small"), so the smallest low is 1e-3
            low = draw(st.sampled_from([1e-3, 1.0]))
            params.append(
                RangeParameterConfig(
                    name=name,
                    parameter_type="float",
                    scaling="log",
                    bounds=(low, low * draw(st.sampled_from([2.0, 1e6]))),
                )
            )
        elif kind == "float-step":
            low, step = draw(st.integers(-10, 10)), draw(st.sampled_from([0.25, 0.5]))
            params.append(
                RangeParameterConfig(
                    name=name,
                    parameter_type="float",
                    step_size=step,
                    bounds=(float(low), low + step * draw(st.integers(1, 8))),
                )
            )
        elif kind == "int":
            low = draw(st.integers(-100, 100))
            params.append(
                RangeParameterConfig(
                    name=name,
                    parameter_type="int",
                    bounds=(low, low + draw(st.sampled_from([1, 5, 10**5]))),
                )
            )
        elif kind == "int-log":
            low = draw(st.integers(1, 10))
            params.append(
                RangeParameterConfig(
                    name=name,
                    parameter_type="int",
                    scaling="log",
                    bounds=(low, low + draw(st.sampled_from([1, 1000]))),
                )
            )
        elif kind == "str":
            values = draw(
                st.lists(st.text(min_size=1, max_size=3), min_size=2, max_size=4, unique=True)
            )
            params.append(ChoiceParameterConfig(name=name, parameter_type="str", values=values))
        elif kind == "int-choice":
            values = draw(st.lists(st.integers(-5, 5), min_size=2, max_size=4, unique=True))
            params.append(
                ChoiceParameterConfig(
                    name=name, parameter_type="int", values=values, is_ordered=draw(st.booleans())
                )
            )
        elif kind == "float-choice":
            values = draw(st.lists(_finite, min_size=2, max_size=3, unique=True))
            params.append(
                ChoiceParameterConfig(
                    name=name, parameter_type="float", values=values, is_ordered=False
                )
            )
        elif kind == "bool":
            params.append(
                ChoiceParameterConfig(name=name, parameter_type="bool", values=[True, False])
            )
        else:
            params.append(ChoiceParameterConfig(name=name, parameter_type="str", values=["only"]))
    return params


def _ax_valid(config, value) -> bool:
    if hasattr(config, "bounds"):
        low, high = config.bounds
        kind = int if config.parameter_type == "int" else float
        if type(value) is not kind or not (low <= value <= high):
            return False
        step = getattr(config, "step_size", None)
        return step is None or abs((value - low) / step - round((value - low) / step)) < 1e-6
    return any(type(value) is type(v) and value == v for v in config.values)


# Ax objectives: (expression, objective thresholds). ``bonus`` falls by 1 per trial and ``extra`` is
# constant; a threshold is an outcome constraint on an objective's metric.
AX_OBJECTIVES = [
    ("-loss", []),
    ("-loss + 0.5 * bonus", []),  # scalarized: one objective
    ("-loss, bonus", ["bonus >= -3"]),  # two objectives, a threshold
    ("-loss, bonus, -extra", []),  # three, one constant, no thresholds
]


def _ax_run(method, params, values, constraints, objective, seed) -> list[dict]:
    """Ax ``Client`` batches of 2 with the drawn objective values and constraint values: an outcome
    constraint ``name <= 0`` for every constraint name drawn; ``objective``: a row of
    ``AX_OBJECTIVES``. Ax takes finite data only, and its Sobol node waits for data of every
    metric of the optimization config (``DataRequiredError``), so a trial without a value for a
    constraint reports 0 and an infinite value is reported as ``+-1e300``."""
    from ax import Client

    from ax_egp import generation_strategy

    options = {"graph": "ring", "n_agents": 3} if method == "dts" else {}
    expression, thresholds = objective
    client = Client(random_seed=seed)
    client.configure_experiment(parameters=params)
    names = sorted(set().union(*constraints))
    client.configure_optimization(
        objective=expression,
        outcome_constraints=[f"{name} <= 0" for name in names] + thresholds or None,
    )
    client.set_generation_strategy(
        generation_strategy(method, initialization_trials=2, seed=seed, **options)
    )
    seen, it, constraint_it = [], iter(values), iter(constraints)
    for _ in range(N_TRIALS // 2):  # batches of 2 (a tiny space may give fewer trials)
        for index, p in client.get_next_trials(max_trials=2).items():
            seen.append(p)
            value, given = next(it, 0.0), next(constraint_it, {})
            if math.isfinite(value):
                data = {"loss": value, "bonus": 1.0 - len(seen), "extra": 0.0}
                data = {name: v for name, v in data.items() if name in expression}
                data |= {name: _finite_or_huge(given.get(name, 0.0)) for name in names}
                client.complete_trial(index, raw_data=data)
            else:  # Ax takes finite data only: a non-finite result is a failed trial
                client.mark_trial_failed(index)
    return seen


def _finite_or_huge(value: float) -> float:
    return value if math.isfinite(value) else math.copysign(1e300, value)


@pytest.mark.slow
@pytest.mark.parametrize("method", AX_METHODS)
def test_ax_methods_on_random_spaces_and_values(method):

    @settings(FUZZ, max_examples=2 if method == "bore" else 4)
    @given(ax_parameters(), problems().map(lambda p: (p[2], p[3])), st.sampled_from(AX_OBJECTIVES))
    def check(params, values_and_constraints, objective):
        values, constraints = values_and_constraints
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            first = _ax_run(method, params, values, constraints, objective, seed=3)
            again = _ax_run(method, params, values, constraints, objective, seed=3)
        for p in first:
            for config in params:
                assert _ax_valid(config, p[config.name]), (config, p[config.name])
        assert len(first) == len(again)
        assert all(
            set(p) == set(q) and all(_same(p[k], q[k]) for k in p) for p, q in zip(first, again)
        )

    check()


def test_validity_check_rejects_invalid_values():
    """The checker itself: off-grid, out-of-range and wrongly-typed values fail."""
    assert not _valid(FloatDistribution(0, 1, step=0.25), 0.3)
    assert not _valid(FloatDistribution(0, 1), 1.5)
    assert not _valid(IntDistribution(0, 10, step=2), 3)
    assert not _valid(IntDistribution(0, 10), 3.0)
    assert not _valid(CategoricalDistribution([1, "1"]), True)
    assert _valid(CategoricalDistribution([None, 1.5]), None)
    assert _same(math.nan, math.nan) and not _same(1, 1.0) and not _same(True, 1)
