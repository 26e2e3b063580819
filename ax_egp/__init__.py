"""Ax adapters of the egp-samplers suite (needs Ax: ``pip install -e ".[ax]"`` from a checkout).

``generation_strategy(method)`` gives a ``GenerationStrategy`` for ``ax.Client`` and
:class:`AlgorithmNode` is the node that serves every registered core algorithm. Importing this
package registers :class:`AlgorithmNode` with Ax's JSON storage, so ``Client.save_to_json_file`` /
``Client.load_from_json_file`` work as long as ``ax_egp`` is imported before loading (the same
goes for :class:`NextNodeSupportsExperiment`, the Sobol node's check of the experiment).
"""

try:
    from ax.storage.json_store.registry import CORE_DECODER_REGISTRY, CORE_ENCODER_REGISTRY
except ImportError as err:  # Ax is an optional dependency
    raise ImportError(
        'ax_egp needs Ax (the ax-platform package): python -m pip install -e ".[ax]" from a '
        'checkout of egp-samplers, python -m pip install "<path to the egp_samplers '
        'wheel>[ax]", or python -m pip install ax-platform'
    ) from err

from ax.storage.json_store.encoders import transition_criterion_to_dict

from ax_egp.node import AlgorithmNode
from ax_egp.strategy import NextNodeSupportsExperiment, generation_strategy
from shared_core import __version__
from shared_core.registry import algorithm_names, register_algorithm

__all__ = [
    "AlgorithmNode",
    "NextNodeSupportsExperiment",
    "__version__",
    "algorithm_names",
    "generation_strategy",
    "register_algorithm",
]


def _node_to_json(node: AlgorithmNode) -> dict:
    return {"__type": type(node).__name__, **node.json_kwargs()}


CORE_ENCODER_REGISTRY[AlgorithmNode] = _node_to_json  # exact-type lookup by Ax's encoder
CORE_DECODER_REGISTRY[AlgorithmNode.__name__] = AlgorithmNode  # rebuilt as AlgorithmNode(**kwargs)
# saved as its constructor arguments and rebuilt from them, as Ax's own transition criteria
CORE_ENCODER_REGISTRY[NextNodeSupportsExperiment] = transition_criterion_to_dict
CORE_DECODER_REGISTRY[NextNodeSupportsExperiment.__name__] = NextNodeSupportsExperiment
