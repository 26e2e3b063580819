"""Conditional (tree-structured) benchmark problems, each defined once as a tree of parameters.

A problem's ``space`` is a tuple of root nodes: :class:`Float` and :class:`Int` leaves, and
:class:`Choice` nodes whose options each hold the nodes that exist only under that option. From
it come both the Optuna define-by-run objective (:func:`suggest` calls ``trial.suggest_*`` for
the parameters of the branch taken, and only for those) and the Ax parameter list
(:func:`ax_parameters`: a ``ChoiceParameterConfig`` per choice, its ``dependent_parameters`` the
names of each option's children), and both paths value a point with the same function
(``Problem.__call__`` on the active parameters, :func:`active`).

Problems:

- ``model-choice``: a scikit-learn model choice on ``load_breast_cancer`` (569 samples, 30
  features): an RBF SVC, a logistic regression (L1 or L2) or a histogram gradient boosting
  classifier of at most 50 iterations, each with its own hyperparameters; the value is the 3-fold
  cross-validated error (1 - mean accuracy over ``StratifiedKFold(3, shuffle=True,
  random_state=0)``). The optimum is unknown: its "regret" is the CV error itself. CPU seconds
  per evaluation, measured 2026-11-27 on one thread with the two cores shared by other
  processes: mean 0.06 (SVC), 0.05 (logistic regression), 0.17 (boosting), at most 0.45 (boosting
  with 50 iterations and 16 leaves); 6 s for the 60 evaluations of a random-search run, at most
  about 27 s for a run that boosts with 50 iterations at every trial.
- ``nested``: a synthetic function of 9 parameters with two levels of choices and a shared
  parameter; known minimum 0. The branch holding the minimum has the worst average value.
- ``wide``: a synthetic function of 16 parameters (a choice of three branches of 4-5 parameters
  each, two shared ones); known minimum 0.
- ``two-branch-a`` and ``two-branch-b``: a choice of two small branches (``a``: an integer and a
  log-scaled float; ``b``: a float and a 3-way choice), the better branch's minimum 0 and the
  other's 0.5; in ``two-branch-a`` branch ``a`` holds the minimum, in ``two-branch-b`` branch ``b``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from benchmarks.model_choice import cv_error


@dataclass(frozen=True)
class Float:
    """A float parameter on ``[low, high]`` (``log``: log-scaled)."""

    name: str
    low: float
    high: float
    log: bool = False


@dataclass(frozen=True)
class Int:
    """An integer parameter on ``[low, high]`` (``log``: log-scaled)."""

    name: str
    low: int
    high: int
    log: bool = False


@dataclass(frozen=True)
class Choice:
    """A categorical parameter: ``options`` maps each of its (string) values to the nodes that
    exist only when it takes that value."""

    name: str
    options: Mapping[str, tuple[Node, ...]]


Node = Float | Int | Choice
Space = tuple[Node, ...]


def suggest(trial, space: Space) -> dict[str, Any]:
    """The define-by-run walk: ``trial.suggest_*`` for each node of ``space`` in tree order,
    descending only into the options taken; returns the suggested (active) parameters."""
    out: dict[str, Any] = {}
    for node in space:
        if isinstance(node, Float):
            out[node.name] = trial.suggest_float(node.name, node.low, node.high, log=node.log)
        elif isinstance(node, Int):
            out[node.name] = trial.suggest_int(node.name, node.low, node.high, log=node.log)
        else:
            value = trial.suggest_categorical(node.name, list(node.options))
            out[node.name] = value
            out.update(suggest(trial, node.options[value]))
    return out


def active(space: Space, params: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters of ``params`` that are active under its choices (tree order); ``KeyError``
    if an active one is missing."""
    out: dict[str, Any] = {}
    for node in space:
        out[node.name] = params[node.name]
        if isinstance(node, Choice):
            out.update(active(node.options[params[node.name]], params))
    return out


def names(space: Space) -> list[str]:
    """Every parameter name of ``space`` (all branches), in tree order."""
    out: list[str] = []
    for node in space:
        out.append(node.name)
        if isinstance(node, Choice):
            for children in node.options.values():
                out += names(children)
    return out


def ax_parameters(space: Space) -> list:
    """Ax ``Client.configure_experiment`` parameters of ``space``: a ``RangeParameterConfig``
    per float or int, a ``ChoiceParameterConfig`` per choice with ``dependent_parameters`` (each
    option's direct children); every node of every branch, in tree order."""
    from ax import ChoiceParameterConfig, RangeParameterConfig

    out: list = []
    for node in space:
        if isinstance(node, Choice):
            out.append(
                ChoiceParameterConfig(
                    name=node.name,
                    values=list(node.options),
                    parameter_type="str",
                    is_ordered=False,
                    dependent_parameters={
                        value: [child.name for child in children]
                        for value, children in node.options.items()
                        if children
                    }
                    or None,
                )
            )
            for children in node.options.values():
                out += ax_parameters(children)
        else:
            out.append(
                RangeParameterConfig(
                    name=node.name,
                    bounds=(node.low, node.high),
                    parameter_type="float" if isinstance(node, Float) else "int",
                    scaling="log" if node.log else None,
                )
            )
    return out


@dataclass(frozen=True)
class Problem:
    """A conditional minimisation problem.

    Args:
        space: the root nodes.
        evaluate: ``params -> value`` on the active parameters.
        n_trials: the benchmark's number of trials.
        optimum: the known minimum; ``None``: unknown, regret is the value itself.
        best_point: the active parameters of a point attaining ``optimum`` (``{}`` if unknown).
        tie_tolerance: differences of final regret below this are ties in the report.
        description: what the problem is, for the report.
    """

    space: Space
    evaluate: Callable[[dict[str, Any]], float]
    n_trials: int
    optimum: float | None
    best_point: dict[str, Any] = field(default_factory=dict)
    tie_tolerance: float = 0.0
    description: str = ""

    def __call__(self, params: Mapping[str, Any]) -> float:
        """The value at ``params`` (the active parameters are read; others are ignored)."""
        return float(self.evaluate(active(self.space, params)))

    def objective(self, trial) -> float:
        """The Optuna define-by-run objective."""
        return self(suggest(trial, self.space))

    def regret(self, values) -> list[float]:
        """Best value so far minus the optimum (the best value itself if it is unknown), after
        each trial of ``values`` (trial order)."""
        best = np.minimum.accumulate(np.asarray(values, dtype=float))
        return (best - (self.optimum or 0.0)).tolist()


# ----------------------------------------------------------------------------- model-choice
# CV error is a mean of three fold accuracies on folds of 190, 190 and 189 samples: distinct
# errors differ by at least about 1 / 570, so final errors closer than half of 1 / 569 are the
# same error (up to rounding) and count as ties.
CV_TIE_TOLERANCE = 0.5 / 569
MODEL_CHOICE: Space = (
    Choice(
        "classifier",
        {
            "svc": (
                Float("svc_C", 1e-2, 1e3, log=True),
                Float("svc_gamma", 1e-5, 1.0, log=True),
            ),
            "logreg": (
                Float("logreg_C", 1e-3, 1e3, log=True),
                Choice("logreg_penalty", {"l1": (), "l2": ()}),
            ),
            "hgb": (
                Float("hgb_learning_rate", 1e-2, 1.0, log=True),
                Int("hgb_max_iter", 10, 50),
                Int("hgb_max_leaf_nodes", 4, 16, log=True),
                Int("hgb_min_samples_leaf", 5, 40),
            ),
        },
    ),
)


# ----------------------------------------------------------------------------- nested
NESTED: Space = (
    Float("x", 0.0, 1.0),
    Choice(
        "family",
        {
            "a": (Float("a_lr", 1e-4, 1e-1, log=True), Int("a_width", 1, 64)),
            "b": (
                Choice(
                    "b_mode",
                    {
                        "p": (Float("bp_u", 0.0, 1.0), Float("bp_v", 0.0, 1.0)),
                        "q": (Float("bq_w", -2.0, 2.0),),
                    },
                ),
            ),
            "c": (Float("c_z", 0.0, 10.0),),
        },
    ),
)


def nested(p: dict[str, Any]) -> float:
    """``(x - 0.73)^2`` plus the branch's term. ``a``: a broad bowl in ``log10(a_lr)`` and
    ``a_width``, minimum 0.3 (the best average); ``b``/``p``: a bowl of minimum 0.15;
    ``b``/``q``: a narrow well of depth 1 down to 0 at ``bq_w = 1.3`` (the minimum; branch
    ``b`` has the worst average); ``c``: a shallow parabola, minimum 0.45."""
    value = (p["x"] - 0.73) ** 2
    family = p["family"]
    if family == "a":
        lr = (math.log10(p["a_lr"]) + 3.3) / 3
        return value + 0.3 + 0.5 * lr**2 + 0.3 * ((p["a_width"] - 41) / 63) ** 2
    if family == "c":
        return value + 0.45 + 0.02 * (p["c_z"] - 2.7) ** 2
    if p["b_mode"] == "p":
        return value + 0.15 + 1.5 * ((p["bp_u"] - 0.2) ** 2 + (p["bp_v"] - 0.85) ** 2)
    return value + 1.0 - math.exp(-(((p["bq_w"] - 1.3) / 0.35) ** 2))


# ----------------------------------------------------------------------------- wide
WIDE: Space = (
    Float("lr", 1e-5, 1.0, log=True),
    Int("depth", 1, 12),
    Choice(
        "branch",
        {
            "r": tuple(Float(f"r{i}", 0.0, 1.0) for i in range(4)),
            "s": (*(Float(f"s{i}", -5.0, 5.0) for i in range(3)), Int("s3", 0, 20)),
            "t": tuple(Float(f"t{i}", 0.0, 1.0) for i in range(5)),
        },
    ),
)
_R_CENTRE = np.array([0.2, 0.8, 0.35, 0.65])
_S_CENTRE = np.array([1.5, -2.0, 3.0])
_T_CENTRE = np.array([0.1, 0.3, 0.5, 0.7, 0.9])


def wide(p: dict[str, Any]) -> float:
    """Shared terms ``0.05 (log10(lr) + 2.7)^2 / 7`` and ``0.1 ((depth - 9) / 11)^2``, plus
    the branch's: ``r``, a coupled bowl of minimum 0.1; ``s``, a bowl on ``[-5, 5]^3`` and an
    integer ``s3`` (optimum 14), minimum 0 (the global one); ``t``, a bowl of minimum 0.05."""
    value = 0.05 * (math.log10(p["lr"]) + 2.7) ** 2 / 7 + 0.1 * ((p["depth"] - 9) / 11) ** 2
    branch = p["branch"]
    if branch == "r":
        r = np.array([p[f"r{i}"] for i in range(4)]) - _R_CENTRE
        return value + 0.1 + float(r @ r) + 2.0 * float(r[0] * r[1]) ** 2
    if branch == "s":
        s = (np.array([p[f"s{i}"] for i in range(3)]) - _S_CENTRE) / 5
        return value + 2.0 * float(s @ s) + 0.5 * ((p["s3"] - 14) / 20) ** 2
    t = np.array([p[f"t{i}"] for i in range(5)]) - _T_CENTRE
    return value + 0.05 + 0.8 * float(t @ t)


# ----------------------------------------------------------------------------- two-branch
TWO_BRANCH: Space = (
    Choice(
        "model",
        {
            "a": (Int("n", 1, 10), Float("lr", 1e-4, 1e-1, log=True)),
            "b": (Float("u", 0.0, 1.0), Choice("kind", {"p": (), "q": (), "r": ()})),
        },
    ),
)


def two_branch(better: str) -> Callable[[dict[str, Any]], float]:
    """The two-branch function whose branch ``better`` holds the minimum 0; the other branch's
    minimum is 0.5. ``a``: a bowl in ``n`` (best 4) and ``log10(lr)`` (best -2.5); ``b``: a
    parabola in ``u`` (best 0.3) plus 0.1 unless ``kind`` is ``q``."""

    def evaluate(p: dict[str, Any]) -> float:
        if p["model"] == "a":
            value = 0.05 * (p["n"] - 4) ** 2 + 0.2 * (math.log10(p["lr"]) + 2.5) ** 2
        else:
            value = (p["u"] - 0.3) ** 2 + (0.0 if p["kind"] == "q" else 0.1)
        return value + (0.0 if p["model"] == better else 0.5)

    return evaluate


_TWO_BRANCH_BEST = {
    "a": {"model": "a", "n": 4, "lr": 10**-2.5},
    "b": {"model": "b", "u": 0.3, "kind": "q"},
}


PROBLEMS: dict[str, Problem] = {
    "model-choice": Problem(
        space=MODEL_CHOICE,
        evaluate=cv_error,
        n_trials=60,
        optimum=None,
        tie_tolerance=CV_TIE_TOLERANCE,
        description="3-fold CV error of an SVC, a logistic regression or a histogram gradient "
        "boosting classifier on scikit-learn's breast cancer data (2 to 5 parameters); regret: "
        "the CV error itself (the optimum is unknown)",
    ),
    "nested": Problem(
        space=NESTED,
        evaluate=nested,
        n_trials=60,
        optimum=0.0,
        best_point={"x": 0.73, "family": "b", "b_mode": "q", "bq_w": 1.3},
        description="synthetic: a choice of 3 branches, one holding a second "
        "choice, and a shared parameter; the best branch has the worst average",
    ),
    "wide": Problem(
        space=WIDE,
        evaluate=wide,
        n_trials=60,
        optimum=0.0,
        best_point={
            "lr": 10**-2.7,
            "depth": 9,
            "branch": "s",
            **{f"s{i}": float(c) for i, c in enumerate(_S_CENTRE)},
            "s3": 14,
        },
        description="synthetic: a choice of 3 branches of 4-5 parameters each "
        "and 2 shared parameters",
    ),
    **{
        f"two-branch-{better}": Problem(
            space=TWO_BRANCH,
            evaluate=two_branch(better),
            n_trials=40,
            optimum=0.0,
            best_point=_TWO_BRANCH_BEST[better],
            description=f"synthetic: a choice of 2 branches of 2 parameters each; branch "
            f"{better} holds the minimum 0, the other branch's minimum is 0.5",
        )
        for better in ("a", "b")
    },
}
