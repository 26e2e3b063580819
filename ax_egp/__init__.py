"""Ax adapters of the egp-samplers suite (needs ``pip install egp-samplers[ax]``).

``generation_strategy(method)`` gives a ``GenerationStrategy`` for ``ax.Client`` and
:class:`AlgorithmNode` is the node that serves every registered core algorithm. Importing this
package registers :class:`AlgorithmNode` with Ax's JSON storage, so ``Client.save_to_json_file`` /
``Client.load_from_json_file`` work as long as ``ax_egp`` is imported before loading.
"""

from ax.storage.json_store.registry import CORE_DECODER_REGISTRY, CORE_ENCODER_REGISTRY

from ax_egp.node import AlgorithmNode
from ax_egp.strategy import generation_strategy
from shared_core.registry import algorithm_names, register_algorithm

__all__ = ["AlgorithmNode", "algorithm_names", "generation_strategy", "register_algorithm"]


def _node_to_json(node: AlgorithmNode) -> dict:
    return {"__type": type(node).__name__, **node.json_kwargs()}


CORE_ENCODER_REGISTRY[AlgorithmNode] = _node_to_json  # exact-type lookup by Ax's encoder
CORE_DECODER_REGISTRY[AlgorithmNode.__name__] = AlgorithmNode  # rebuilt as AlgorithmNode(**kwargs)
