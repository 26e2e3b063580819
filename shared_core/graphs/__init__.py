"""Communication graphs of distributed Thompson sampling (Zerefa, Ren, Ma, Li, "Distributed Thompson
sampling under constrained communication", 2024).

M agents ``0..M-1`` sit on an undirected graph; agent ``i`` conditions its model on the data of its
neighbourhood ``N(i) ∪ {i}``. The paper's regret bound depends on the size of the largest complete
subgraph (clique); the clique cover number (fewest cliques that partition the agents) is also
reported.

* ``graph.py``: :class:`CommunicationGraph`: neighbourhoods, components, clique numbers,
  conversions
* ``specs.py``: :func:`make_graph` from a topology name (:func:`graph_names`), an edge list, an
  adjacency matrix or a ``networkx.Graph``; :func:`erdos_renyi_edges`
* ``cliques.py``: largest clique and minimum clique cover: exact for at most
  :data:`EXACT_CLIQUE_MAX_AGENTS` agents, greedy bounds above
* ``edges.py``: checking and normalising edges ``(i, j)``
"""

from shared_core.graphs.cliques import EXACT_CLIQUE_MAX_AGENTS
from shared_core.graphs.edges import Edge as Edge  # public, outside __all__: re-exported by "as"
from shared_core.graphs.graph import CommunicationGraph
from shared_core.graphs.specs import DEFAULT_EDGE_PROBABILITY as DEFAULT_EDGE_PROBABILITY
from shared_core.graphs.specs import erdos_renyi_edges, graph_names, make_graph

__all__ = [
    "EXACT_CLIQUE_MAX_AGENTS",
    "CommunicationGraph",
    "erdos_renyi_edges",
    "graph_names",
    "make_graph",
]
