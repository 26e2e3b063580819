"""Named algorithms, so that every adapter serves every algorithm without new adapter code.

``make_algorithm("egp-ts", n_features=256)`` builds an object with the
:class:`~shared_core.interface.Algorithm` interface; a new algorithm becomes available to the Ax
adapter (``ax_egp.generation_strategy(method=...)``) by calling :func:`register_algorithm`.
Options must be JSON values (numbers, strings, booleans, lists) so that Ax's JSON storage can save
them; kernels are therefore given by name (``"rbf"``, ``"matern52-ard"``, ...; one parser,
:func:`shared_core.models.kernels.parse_kernels`, serves the registry, the samplers and BORE).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from shared_core.algorithms.bore import BOREAlgorithm
from shared_core.algorithms.distributed import DistributedTSAlgorithm
from shared_core.algorithms.egp import EGPAlgorithm
from shared_core.interface import Algorithm

__all__ = ["algorithm_names", "make_algorithm", "register_algorithm"]

_FACTORIES: dict[str, Callable[..., Algorithm]] = {}


def register_algorithm(name: str, factory: Callable[..., Algorithm]) -> None:
    """Make ``factory(**options)`` available as method ``name`` (replaces an existing entry)."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"algorithm name must be a non-empty string, got {name!r}")
    _FACTORIES[name] = factory


def algorithm_names() -> list[str]:
    return sorted(_FACTORIES)


def make_algorithm(name: str, **options: Any) -> Algorithm:
    """Build the algorithm registered as ``name`` with ``options``."""
    if name not in _FACTORIES:
        raise ValueError(f"unknown method {name!r}; valid methods: {algorithm_names()}")
    return _FACTORIES[name](**options)


def _egp(acquisition: str) -> Callable[..., Algorithm]:
    def factory(**options: Any) -> Algorithm:
        if "acquisition" in options:
            raise ValueError(f"the acquisition is chosen by the method name ('egp-ts', 'egp-ei' or 'egp-auto'), "
                             f"got acquisition={options['acquisition']!r}")
        return EGPAlgorithm(acquisition=acquisition, **options)

    return factory


register_algorithm("egp-ts", _egp("ts"))
register_algorithm("egp-ei", _egp("ei"))
register_algorithm("egp-auto", _egp("auto"))


def _bore(variant: str) -> Callable[..., Algorithm]:
    def factory(**options: Any) -> Algorithm:
        if "variant" in options:
            raise ValueError(f"the variant is chosen by the method name ('bore++' or 'bore'), got variant={options['variant']!r}")
        return BOREAlgorithm(variant=variant, **options)

    return factory


register_algorithm("bore++", _bore("bore++"))
register_algorithm("bore", _bore("bore"))
register_algorithm("dts", lambda **options: DistributedTSAlgorithm(**options))
