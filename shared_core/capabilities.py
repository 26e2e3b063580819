"""What only some algorithms can do, and what each one declares it models.

Every capability is a runtime-checkable protocol; an adapter tests ``isinstance(algorithm, P)``
and uses the capability only then (:data:`CAPABILITY_MEMBERS` lists each one's members):

* :class:`SharesModelState`: its fitted model can be recorded in the study and adopted by a new
  worker (``model_state``, ``wants_model_state``, ``offer_model_state``)
* :class:`ReadsSources`: it is given each row's source label (``Observations.source``), read
  from the trial attribute ``source_attribute``
* :class:`MultiAgent`: one agent of several (distributed TS; also :class:`ReadsSources`): it
  learns from the trials of some sources only (``known_sources``), names the agent whose records
  it adopts (``model_source``), reports what it conditioned on (``last_view``), and an adapter
  that serves every agent may switch ``agent_id`` between suggestions (``n_agents`` of them)
* :class:`ModelsConstraints`: it declares ``models_constraints``: True if it models
  ``Observations.constraints``, False if it refuses them
* :class:`MultiObjective`: it declares ``multi_objective``: True if it models several
  objectives (``Observations.y`` ``(n, m)``), False if it refuses them

The last two are declarations, class attributes read without building the algorithm
(:func:`shared_core.registry.methods_declaring`); an algorithm without one refuses what it would
declare. What an algorithm refuses is refused once, with one message (:func:`refusal`), at the
first moment it can be known: the adapters refuse a study with several objectives, Ax outcome
constraints and Optuna's ``constraints_func`` before the first trial, and constraint values set
in a trial (``trial.set_constraint``) at the next trial, start-up trials included;
:func:`refuse_unmodelled` is the algorithms' own check, for callers that hand them observations
directly. Never a warning that the study goes on without them, followed by an error later.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from shared_core.observations import Observations

__all__ = [
    "CAPABILITY_MEMBERS",
    "DECLARATIONS",
    "ModelsConstraints",
    "MultiAgent",
    "MultiObjective",
    "ReadsSources",
    "SharesModelState",
    "check_capabilities",
    "declares",
    "models_constraints",
    "multi_objective",
    "refusal",
    "refuse_unmodelled",
]


@runtime_checkable
class SharesModelState(Protocol):
    """An algorithm whose fitted model can be shared between workers of one study: the
    adapter records ``model_state()`` with each suggestion and offers the newest record to a
    worker that has no model."""

    def model_state(self) -> dict[str, Any] | None:
        """The fitted model as JSON values (``"weights"``, if present, is recorded with every
        suggestion, the rest only when it changed); None before a fit."""
        ...

    def wants_model_state(self) -> bool:
        """Whether a recorded state would be used now (no model fitted yet, none offered)."""
        ...

    def offer_model_state(self, state: dict[str, Any]) -> bool:
        """Adopt ``state`` (another worker's :meth:`model_state`);
        False if it does not fit (kept nothing)."""
        ...


@runtime_checkable
class ReadsSources(Protocol):
    """An algorithm that is given each row's source: adapters fill ``Observations.source`` and
    ``pending_source`` from the trial attribute ``source_attribute`` (``-1`` where a trial has
    none)."""

    source_attribute: str  # the trial attribute holding each trial's source (e.g. its agent)


@runtime_checkable
class MultiAgent(ReadsSources, Protocol):
    """One agent of several, each learning from some sources only (distributed Thompson sampling).

    Adapters may leave out rows whose source is not in ``known_sources()`` before encoding them (the
    algorithm must not rely on it).
    """

    # the agent that suggests; an adapter serving every agent may set it between calls
    agent_id: int
    # what the last suggestion conditioned on (JSON values), for records
    last_view: dict[str, Any] | None

    @property
    def n_agents(self) -> int:
        """Number of agents."""
        ...

    @property
    def model_source(self) -> int:
        """The source whose recorded model states this agent may adopt
        (:class:`SharesModelState`)."""
        ...

    def known_sources(self) -> frozenset[int]:
        """The sources the current agent may learn from (always including ``UNKNOWN_SOURCE``)."""
        ...


@runtime_checkable
class ModelsConstraints(Protocol):
    """An algorithm's declaration about ``Observations.constraints``: with
    ``models_constraints = True`` its suggestions aim at the feasible region (feasible: every
    constraint value ``<= 0``); with False (or without the attribute) it refuses constraint values,
    and so do the adapters that serve it (module docstring)."""

    models_constraints: bool  # True if constraint values steer the suggestions


@runtime_checkable
class MultiObjective(Protocol):
    """An algorithm's declaration about several objectives: with ``multi_objective = True``, given
    ``Observations.y`` ``(n, m)`` with ``m >= 2``, its suggestions aim at the Pareto front (with
    ``reference_point`` where given); with False (or without the attribute) it refuses them, and so
    do the adapters that serve it, before the first trial."""

    multi_objective: bool  # True if it accepts y of shape (n, m), m >= 2


# What an algorithm may declare it models: protocol -> (its attribute, what it models).
DECLARATIONS: dict[type, tuple[str, str]] = {
    ModelsConstraints: ("models_constraints", "constraints"),
    MultiObjective: ("multi_objective", "several objectives"),
}


def declares(algorithm: object, protocol: type) -> bool:
    """Whether ``algorithm`` (an algorithm, or its class: the declaration is a class attribute)
    declares that it models what ``protocol`` (a key of :data:`DECLARATIONS`) names."""
    attribute, _ = DECLARATIONS[protocol]
    return isinstance(algorithm, protocol) and getattr(algorithm, attribute) is True


def models_constraints(algorithm: object) -> bool:
    """Whether ``algorithm`` (or its class) uses constraint values (:class:`ModelsConstraints`)."""
    return declares(algorithm, ModelsConstraints)


def multi_objective(algorithm: object) -> bool:
    """Whether ``algorithm`` (or its class) models several objectives (:class:`MultiObjective`)."""
    return declares(algorithm, MultiObjective)


def refusal(
    who: str,
    algorithm: object,
    protocol: type,
    found: str,
    alternatives: Sequence[str],
    *,
    kind: str = "",
    otherwise: str = "",
) -> str:
    """The one message of a refusal: ``who`` (a sampler, a method, the algorithm itself) does not
    model what ``protocol`` (a key of :data:`DECLARATIONS`) names; ``found`` says where the study
    has it; the declaration ``algorithm`` lacks; what to use instead: ``alternatives``, names of
    ``kind`` (e.g. ``"the method "``) that model it, then ``otherwise`` (more ways out, starting
    with ``", "``)."""
    attribute, what = DECLARATIONS[protocol]
    name = type(algorithm).__name__
    subject = "it" if who == name else f"its algorithm {name}"
    names = list(alternatives)
    if names:
        one_of = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
        instead = f"{kind}{one_of}, which model{'s' if len(names) == 1 else ''} {what}"
    else:
        instead = f"an algorithm that declares {attribute} = True"
    return (
        f"{who} does not model {what}: {found}, and {subject} does not declare {attribute} = True "
        f"(shared_core.interface.{protocol.__name__}). Use {instead}{otherwise}."
    )


def refuse_unmodelled(algorithm: object, obs: Observations) -> None:
    """``ValueError`` (:func:`refusal`) if ``obs`` has constraint values or several objectives
    and ``algorithm`` does not declare that it models them."""
    found = {
        ModelsConstraints: obs.n_constraints > 0
        and f"the observations have constraint values {list(obs.constraint_names)}",
        MultiObjective: obs.n_objectives > 1
        and f"the observations have {obs.n_objectives} objectives",
    }
    for protocol, what in found.items():
        if what and not declares(algorithm, protocol):
            # imported here: the registry imports every algorithm, and they import this module
            from shared_core.registry import methods_declaring

            methods = [repr(method) for method in methods_declaring(protocol)]
            name = type(algorithm).__name__
            raise ValueError(
                refusal(name, algorithm, protocol, what, methods, kind="the registered method ")
            )


# The members of each capability (MultiAgent's besides ReadsSources'), for check_capabilities.
CAPABILITY_MEMBERS: dict[type, tuple[str, ...]] = {
    SharesModelState: ("model_state", "wants_model_state", "offer_model_state"),
    ReadsSources: ("source_attribute",),
    MultiAgent: ("known_sources", "agent_id", "n_agents", "model_source", "last_view"),
    ModelsConstraints: ("models_constraints",),
    MultiObjective: ("multi_objective",),
}


def check_capabilities(algorithm: object) -> None:
    """Raise ``ValueError`` if ``algorithm`` has some members of a capability but is not an instance
    of it (a member missing, or provided only through ``__getattr__``, which ``isinstance`` does not
    see from Python 3.12 on): an adapter would otherwise ignore the capability without a word."""
    for protocol, members in CAPABILITY_MEMBERS.items():
        present = [m for m in members if hasattr(algorithm, m)]
        if present and not isinstance(algorithm, protocol):
            wanted = members + (("source_attribute",) if protocol is MultiAgent else ())
            missing = [m for m in wanted if not hasattr(algorithm, m)]
            raise ValueError(
                f"{type(algorithm).__name__} has {present} of the {protocol.__name__} capability "
                f"(shared_core.interface) but "
                + (f"not {missing}" if missing else "not as class members (isinstance fails)")
                + ": implement all of its members, or none"
            )
