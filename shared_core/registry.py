"""Named algorithms, so that every adapter serves every algorithm without new adapter code.

``make_algorithm("egp-ts", n_features=256)`` builds an object with the
:class:`~shared_core.interface.Algorithm` interface; a new algorithm becomes available to the Ax
adapter (``ax_egp.generation_strategy(method=...)``) by calling :func:`register_algorithm` (once
per name). What a method's algorithm declares it models is read from its class without building
it (:func:`algorithm_class`, :func:`methods_declaring`), so that a refusal can name the methods to
use instead. Options must be JSON values (numbers, strings, booleans, lists) so that Ax's JSON
storage can save them; kernels are therefore given by name (``"rbf"``, ``"matern52-ard"``, ...;
one parser, :func:`shared_core.models.kernels.parse_kernels`, serves the registry, the samplers
and BORE).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from shared_core.algorithms.bore import BOREAlgorithm
from shared_core.algorithms.dec_hbo import DECHBOAlgorithm
from shared_core.algorithms.distributed import DistributedTSAlgorithm
from shared_core.algorithms.egp import EGPAlgorithm
from shared_core.algorithms.stobnts import STOBNTSAlgorithm
from shared_core.capabilities import declares
from shared_core.interface import Algorithm

__all__ = [
    "Preset",
    "algorithm_class",
    "algorithm_names",
    "algorithm_options",
    "make_algorithm",
    "methods_declaring",
    "register_algorithm",
]

_FACTORIES: dict[str, Callable[..., Algorithm]] = {}


def register_algorithm(name: str, factory: Callable[..., Algorithm]) -> None:
    """Make ``factory(**options)`` available as method ``name``; a ``ValueError`` if ``name`` is
    registered already (an entry is never replaced: a method name means one algorithm)."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"algorithm name must be a non-empty string, got {name!r}")
    if name in _FACTORIES:
        raise ValueError(
            f"algorithm name {name!r} is registered already (for {_FACTORIES[name]!r}); "
            f"choose a name that is not one of {algorithm_names()}"
        )
    _FACTORIES[name] = factory


def algorithm_names() -> list[str]:
    """The registered method names, sorted (``"bore"``, ``"bore++"``, ``"dts"``, ...)."""
    return sorted(_FACTORIES)


def algorithm_options(name: str) -> dict[str, inspect.Parameter]:
    """The keyword options of the algorithm registered as ``name``, with their defaults (the
    factory's signature; a :class:`Preset`'s is its class's without the preset options)."""
    if name not in _FACTORIES:
        raise ValueError(f"unknown method {name!r}; valid methods: {algorithm_names()}")
    return dict(inspect.signature(_FACTORIES[name]).parameters)


def algorithm_class(name: str) -> type | None:
    """The class of the algorithm registered as ``name``: the factory itself when it is a class,
    a :class:`Preset`'s class; None for another factory (a function)."""
    if name not in _FACTORIES:
        raise ValueError(f"unknown method {name!r}; valid methods: {algorithm_names()}")
    factory = _FACTORIES[name]
    if isinstance(factory, Preset):
        factory = factory.algorithm_class
    return factory if isinstance(factory, type) else None


def methods_declaring(protocol: type) -> list[str]:
    """The registered methods, sorted, whose algorithm class declares that it models what
    ``protocol`` names (``ModelsConstraints``, ``MultiObjective``:
    :data:`~shared_core.capabilities.DECLARATIONS`), read without building them."""
    return [name for name in algorithm_names() if declares(algorithm_class(name), protocol)]


def make_algorithm(name: str, **options: Any) -> Algorithm:
    """Build the algorithm registered as ``name`` with ``options``."""
    if name not in _FACTORIES:
        raise ValueError(f"unknown method {name!r}; valid methods: {algorithm_names()}")
    return _FACTORIES[name](**options)


class Preset:
    """A factory of ``algorithm_class`` with some options fixed by the method name (e.g.
    ``"egp-ts"``: ``EGPAlgorithm(acquisition="ts")``); its signature is the class's without them.

    Args:
        algorithm_class: the algorithm.
        methods: the method names that choose the preset option, for the error when it is given
            anyway.
        preset: the options the method name fixes.
    """

    def __init__(
        self, algorithm_class: Callable[..., Algorithm], methods: str, **preset: Any
    ) -> None:
        self.algorithm_class, self.methods, self.preset = algorithm_class, methods, preset
        parameters = inspect.signature(algorithm_class).parameters.values()
        self.__signature__ = inspect.Signature([p for p in parameters if p.name not in preset])

    def __call__(self, **options: Any) -> Algorithm:
        for name in self.preset:
            if name in options:
                raise ValueError(
                    f"the {name} is chosen by the method name ({self.methods}), "
                    f"got {name}={options[name]!r}"
                )
        return self.algorithm_class(**self.preset, **options)


_EGP_METHODS = "'egp-ts', 'egp-ei' or 'egp-auto'"
register_algorithm("egp-ts", Preset(EGPAlgorithm, _EGP_METHODS, acquisition="ts"))
register_algorithm("egp-ei", Preset(EGPAlgorithm, _EGP_METHODS, acquisition="ei"))
register_algorithm("egp-auto", Preset(EGPAlgorithm, _EGP_METHODS, acquisition="auto"))
register_algorithm("bore++", Preset(BOREAlgorithm, "'bore++' or 'bore'", variant="bore++"))
register_algorithm("bore", Preset(BOREAlgorithm, "'bore++' or 'bore'", variant="bore"))
register_algorithm("dts", DistributedTSAlgorithm)
register_algorithm("dec-hbo", DECHBOAlgorithm)
register_algorithm(
    "sto-bnts", Preset(STOBNTSAlgorithm, "'sto-bnts' or 'sto-bnts-linear'", variant="network")
)
register_algorithm(
    "sto-bnts-linear", Preset(STOBNTSAlgorithm, "'sto-bnts' or 'sto-bnts-linear'", variant="linear")
)
