import dataclasses
import itertools
import json

import numpy as np
import pytest

from shared_core.graphs import (
    CommunicationGraph,
    cliques,
    erdos_renyi_edges,
    graph_names,
    make_graph,
)

# ---- topologies ----------------------------------------------------------------------------------

TOPOLOGY_EDGES = [
    ("complete", 4, {(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)}),
    ("star", 4, {(0, 1), (0, 2), (0, 3)}),
    ("star", 1, set()),
    ("ring", 5, {(0, 1), (1, 2), (2, 3), (3, 4), (0, 4)}),
    ("ring", 3, {(0, 1), (1, 2), (0, 2)}),
    ("ring", 2, {(0, 1)}),  # M < 3: the line
    ("ring", 1, set()),
    ("line", 4, {(0, 1), (1, 2), (2, 3)}),
    ("grid", 6, {(0, 1), (1, 2), (3, 4), (4, 5), (0, 3), (1, 4), (2, 5)}),  # 2 x 3
    ("grid", 4, {(0, 1), (2, 3), (0, 2), (1, 3)}),  # 2 x 2
    ("grid", 5, {(0, 1), (1, 2), (2, 3), (3, 4)}),  # prime: 1 x 5, the line
    ("grid", 1, set()),
    ("disconnected", 3, set()),
]


@pytest.mark.parametrize("name, n, edges", TOPOLOGY_EDGES)
def test_topology_edges(name, n, edges):
    graph = make_graph(name, n)
    assert graph.n_agents == n
    assert graph.edges == frozenset(edges)


def test_grid_rows_are_largest_divisor_up_to_sqrt():
    graph = make_graph("grid", 12)  # 3 x 4: agent r * 4 + c
    assert graph.neighbours(5) == {1, 4, 6, 9}
    assert graph.neighbours(3) == {2, 7}
    assert len(graph.edges) == 3 * 3 + 2 * 4


def test_graph_names():
    assert graph_names() == [
        "complete",
        "star",
        "ring",
        "line",
        "grid",
        "disconnected",
        "erdos_renyi",
    ]


# ---- neighbourhoods and connectivity -------------------------------------------------------------


def test_neighbourhoods():
    star = make_graph("star", 4)
    assert star.neighbourhood(0) == frozenset({0, 1, 2, 3})
    assert star.neighbourhood(2) == frozenset({0, 2})
    assert star.neighbours(2) == frozenset({0})
    ring = make_graph("ring", 5)
    assert ring.neighbourhood(0) == {4, 0, 1}
    assert ring.neighbourhood(np.int64(3)) == {2, 3, 4}
    assert make_graph("disconnected", 3).neighbourhood(1) == {1}
    assert isinstance(ring.neighbourhood(0), frozenset)


@pytest.mark.parametrize("bad", [4, -1, 1.0, True, "0"])
def test_neighbourhood_rejects_bad_agent(bad):
    graph = make_graph("line", 4)
    with pytest.raises(ValueError, match=rf"0\.\.3, got {bad!r}"):
        graph.neighbourhood(bad)
    with pytest.raises(ValueError, match=rf"got {bad!r}"):
        graph.neighbours(bad)


def test_connectivity_and_components():
    for name in ("complete", "star", "ring", "line", "grid"):
        assert make_graph(name, 7).is_connected, name
    assert make_graph("disconnected", 1).is_connected
    assert not make_graph("disconnected", 2).is_connected
    graph = make_graph([(3, 4), (0, 2)], 6)
    assert not graph.is_connected
    assert graph.components == [
        frozenset({0, 2}),
        frozenset({1}),
        frozenset({3, 4}),
        frozenset({5}),
    ]
    assert make_graph("ring", 5).components == [frozenset(range(5))]


# ---- clique numbers ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, n, size",
    [
        ("complete", 1, 1),
        ("complete", 5, 5),
        ("star", 2, 2),
        ("star", 6, 2),
        ("star", 1, 1),
        ("ring", 3, 3),
        ("ring", 4, 2),
        ("ring", 5, 2),
        ("line", 4, 2),
        ("grid", 6, 2),
        ("grid", 9, 2),
        ("disconnected", 4, 1),
    ],
)
def test_largest_clique_size(name, n, size):
    graph = make_graph(name, n)
    assert graph.largest_clique_size == size
    assert graph.clique_numbers_exact


@pytest.mark.parametrize(
    "name, n, cover",
    [
        ("complete", 1, 1),
        ("complete", 6, 1),
        ("star", 5, 4),
        ("star", 2, 1),
        ("ring", 5, 3),
        ("ring", 6, 3),
        ("ring", 3, 1),
        ("line", 4, 2),
        ("line", 5, 3),
        ("grid", 6, 3),
        ("disconnected", 1, 1),
        ("disconnected", 5, 5),
    ],
)
def test_clique_cover_number(name, n, cover):
    assert make_graph(name, n).clique_cover_number == cover


def _complement(graph):
    return CommunicationGraph(
        graph.n_agents, set(itertools.combinations(range(graph.n_agents), 2)) - graph.edges
    )


def test_clique_cover_beyond_its_lower_bounds():
    # Grötzsch graph (Mycielskian of C5): 11 vertices, triangle-free, chromatic number 4,
    # independence 5. Its complement has clique cover 4, but the lower bounds (independence
    # 2, ceil(11 / 5) = 3) give 3.
    c5 = [(i, (i + 1) % 5) for i in range(5)]
    edges = (
        c5
        + [(i + 5, j) for i, j in c5]
        + [(j + 5, i) for i, j in c5]
        + [(i + 5, 10) for i in range(5)]
    )
    groetzsch = CommunicationGraph(11, edges)
    assert groetzsch.largest_clique_size == 2
    complement = _complement(groetzsch)
    assert complement.largest_clique_size == 5
    assert complement.clique_cover_number == 4


def _brute_force_clique_numbers(graph):
    n, adjacency = graph.n_agents, graph.adjacency_matrix()

    def is_clique(agents):
        return all(adjacency[i, j] for i, j in itertools.combinations(agents, 2))

    largest = max(
        r for r in range(1, n + 1) for s in itertools.combinations(range(n), r) if is_clique(s)
    )
    for k in range(1, n + 1):  # clique cover = colouring of the complement with k colours
        for colours in itertools.product(range(k), repeat=n):
            if all(
                colours[i] != colours[j] or adjacency[i, j]
                for i, j in itertools.combinations(range(n), 2)
            ):
                return largest, k


def _random_small_graph(rng) -> CommunicationGraph:
    """1-6 agents, each edge present with a probability drawn per graph."""
    n, p = int(rng.integers(1, 7)), rng.uniform()
    return CommunicationGraph(
        n, [e for e in itertools.combinations(range(n), 2) if rng.random() < p]
    )


def test_exact_clique_numbers_match_brute_force_and_bound_the_greedy_ones():
    rng = np.random.default_rng(0)
    for _ in range(40):
        graph = _random_small_graph(rng)
        assert (
            graph.largest_clique_size,
            graph.clique_cover_number,
        ) == _brute_force_clique_numbers(graph), graph
        assert cliques.greedy_clique_size(graph._adjacency) <= graph.largest_clique_size
        assert cliques.greedy_clique_cover(graph._adjacency) >= graph.clique_cover_number


def test_inclusion_exclusion_cover_matches_brute_force_without_bounds():
    rng = np.random.default_rng(1)
    for _ in range(25):
        graph = _random_small_graph(rng)
        n = graph.n_agents
        cover = cliques._smallest_cover_size(graph._adjacency, 1, n + 1)
        assert cover == _brute_force_clique_numbers(graph)[1], graph


def test_clique_cover_between_its_lower_bounds_and_the_greedy_cover():
    # lower bounds 3, greedy cover 5, exact 4 (brute
    # force): only the inclusion-exclusion step finds it
    edges = [
        (0, 1),
        (0, 2),
        (1, 3),
        (1, 4),
        (1, 5),
        (2, 4),
        (2, 7),
        (3, 4),
        (3, 5),
        (3, 7),
        (3, 8),
        (4, 5),
        (4, 6),
        (4, 8),
        (5, 6),
        (6, 8),
        (7, 8),
    ]
    graph = CommunicationGraph(9, edges)
    assert cliques.greedy_clique_cover(graph._adjacency) == 5
    assert graph.clique_cover_number == 4 == _brute_force_clique_numbers(graph)[1]


def test_greedy_clique_numbers_above_twenty_agents():
    assert make_graph("complete", 20).clique_numbers_exact
    complete = make_graph("complete", 21)
    assert not complete.clique_numbers_exact
    assert (complete.largest_clique_size, complete.clique_cover_number) == (21, 1)
    ring = make_graph("ring", 30)
    assert not ring.clique_numbers_exact
    assert (ring.largest_clique_size, ring.clique_cover_number) == (2, 15)
    disconnected = make_graph("disconnected", 25)
    assert (disconnected.largest_clique_size, disconnected.clique_cover_number) == (1, 25)
    # on a random graph the greedy numbers bound the exact
    # ones (computed by the exact routines directly)
    graph = make_graph("erdos_renyi:0.5", 22, seed=3)
    assert not graph.clique_numbers_exact
    assert graph.largest_clique_size <= cliques.max_clique_size(graph._adjacency)
    assert graph.clique_cover_number >= cliques.min_clique_cover(graph._adjacency)
    assert "LOWER bound" in CommunicationGraph.largest_clique_size.__doc__
    assert "UPPER bound" in CommunicationGraph.clique_cover_number.__doc__


# ---- Erdős–Rényi ---------------------------------------------------------------------------------


def test_erdos_renyi_is_reproducible_and_connected():
    first = make_graph("erdos_renyi:0.2", 12, seed=7)
    assert make_graph("erdos_renyi:0.2", 12, seed=7) == first
    assert make_graph("erdos_renyi:0.2", 12, seed=np.random.default_rng(7)) == first
    assert len({make_graph("erdos_renyi:0.2", 12, seed=s) for s in range(5)}) > 1
    for seed in range(10):
        assert make_graph("erdos_renyi:0.05", 15, seed=seed).is_connected
    # default p 0.3
    assert make_graph("erdos_renyi", 9, seed=1) == make_graph("erdos_renyi:0.3", 9, seed=1)
    assert make_graph("erdos_renyi:1", 5, seed=0) == make_graph("complete", 5)
    assert make_graph("erdos_renyi:0", 5, seed=0) == make_graph("line", 5)
    assert make_graph("erdos_renyi:0.5", 1, seed=0).edges == frozenset()


def test_erdos_renyi_follows_the_documented_draws():
    n, p = 8, 0.2
    joined = 0
    for seed in range(10):
        rng = np.random.default_rng(seed)
        rows, cols = np.triu_indices(n, 1)
        expected = {(int(i), int(j)) for i, j in zip(rows, cols) if rng.random() < p}
        components = [sorted(c) for c in CommunicationGraph(n, expected).components]
        for left, right in zip(components, components[1:]):
            a = int(rng.integers(len(left)))
            expected.add(tuple(sorted((left[a], right[int(rng.integers(len(right)))]))))
        joined += len(components) > 1
        assert make_graph(f"erdos_renyi:{p}", n, seed=seed).edges == expected
        assert set(erdos_renyi_edges(n, p, seed)) == expected
    assert joined >= 3  # the joining step was exercised


# ---- edge lists ----------------------------------------------------------------------------------


def test_edge_list_round_trip():
    for name in ("star", "ring", "grid", "complete"):
        graph = make_graph(name, 6)
        assert make_graph(graph.sorted_edges()) == graph
        assert make_graph(graph.edges, 6) == graph
        assert make_graph(np.array(graph.sorted_edges())) == graph  # (E, 2) array
    assert make_graph([(0, 1)], 4).n_agents == 4  # isolated agents 2, 3
    assert make_graph([], 3) == make_graph("disconnected", 3)


def test_edge_list_ignores_duplicates_and_order():
    graph = make_graph([(1, 0), (0, 1), [0, 1], (np.int64(2), 1)])
    assert graph.edges == {(0, 1), (1, 2)}
    assert graph.n_agents == 3
    # a 2 x 2 list that is not 0/1: edges
    assert make_graph([(0, 1), (2, 3)]).edges == {
        (0, 1),
        (2, 3),
    }


@pytest.mark.parametrize(
    "edges, n, message",
    [
        ([(0, 0)], None, r"self-loops.*\(0, 0\)"),
        ([(0, -1)], None, r"integers >= 0, got -1"),
        ([(0, 1.0)], None, r"integers >= 0, got 1\.0"),
        ([(0, True)], None, r"integers >= 0, got True"),
        ([(0, 1, 2)], None, r"pair.*\(0, 1, 2\)"),
        ([0, 1], None, r"pair.*got 0"),
        ([(0, 4)], 4, r"n_agents=4.*edge \(0, 4\).*agent 4"),
        ([], None, r"empty edge list needs n_agents"),
        ([(0, 1)], 0, r"n_agents must be an integer >= 1, got 0"),
    ],
)
def test_edge_list_errors(edges, n, message):
    with pytest.raises(ValueError, match=message):
        make_graph(edges, n)


def test_constructor_validates():
    assert CommunicationGraph(3, [(2, 0)]).edges == {(0, 2)}
    with pytest.raises(ValueError, match=r"uses agent 3, but n_agents=3"):
        CommunicationGraph(3, [(0, 3)])
    with pytest.raises(ValueError, match=r"n_agents must be an integer >= 1, got 2\.0"):
        CommunicationGraph(2.0, [])
    with pytest.raises(ValueError, match=r"sequence of pairs"):
        CommunicationGraph(2, "01")


# ---- adjacency matrices --------------------------------------------------------------------------


def test_adjacency_round_trip():
    for name in ("star", "ring", "grid", "disconnected"):
        graph = make_graph(name, 6)
        matrix = graph.adjacency_matrix()
        assert matrix.shape == (6, 6) and matrix.dtype == bool
        assert make_graph(matrix) == graph
        assert make_graph(matrix.astype(int).tolist(), 6) == graph
    assert make_graph([[0, 1], [1, 0]]) == make_graph("line", 2)
    assert make_graph([[False]]) == make_graph("disconnected", 1)
    assert make_graph(np.zeros((2, 2))) == make_graph("disconnected", 2)
    assert make_graph([[0, 1, 1], [1, 0, 0], [1, 0, 0]]).edges == {(0, 1), (0, 2)}


@pytest.mark.parametrize(
    "matrix, n, message",
    [
        (
            [[0, 1, 0], [0, 0, 0], [0, 0, 0]],
            None,
            r"symmetric, got 1 at \[0, 1\] but 0 at \[1, 0\]",
        ),
        ([[0, 1, 0], [1, 1, 0], [0, 0, 0]], None, r"zero diagonal.*got 1 at \[1, 1\]"),
        ([[0, 2, 0], [2, 0, 0], [0, 0, 0]], None, r"0/1 or bool, got 2 at \[0, 1\]"),
        ([[0, 0.5, 0], [0.5, 0, 0], [0, 0, 0]], None, r"0/1 or bool, got 0\.5 at \[0, 1\]"),
        (
            [[0, 1], [0, 0]],
            None,
            r"symmetric.*\(a 2 x 2 array-like of 0/1 is read as an adjacency matrix; give the "
            r"edge of two agents as \[\(0, 1\)\]\)",
        ),
        (
            np.zeros((3, 3)),
            4,
            r"n_agents=4 does not match the adjacency matrix, which has 3 agents",
        ),
    ],
)
def test_adjacency_errors(matrix, n, message):
    with pytest.raises(ValueError, match=message):
        make_graph(matrix, n)


# ---- networkx, CommunicationGraph, dicts -------------------------------------------------------


def test_networkx_round_trip():
    nx = pytest.importorskip("networkx")
    for name in ("star", "ring", "grid"):
        graph = make_graph(name, 6)
        assert make_graph(graph.to_networkx()) == graph
        assert make_graph(nx.Graph(graph.sorted_edges()), 6) == graph
    petersen = nx.petersen_graph()
    graph = make_graph(petersen)
    assert graph.n_agents == 10 and len(graph.edges) == 15
    assert graph.largest_clique_size == 2 and graph.clique_cover_number == 5
    isolated = nx.Graph()
    isolated.add_nodes_from([2, 0, 1])
    isolated.add_edge(2, 0)
    assert make_graph(isolated) == CommunicationGraph(3, [(0, 2)])


def test_networkx_errors():
    nx = pytest.importorskip("networkx")
    with pytest.raises(ValueError, match="undirected.*DiGraph"):
        make_graph(nx.DiGraph([(0, 1)]))
    with pytest.raises(ValueError, match="undirected and not a multigraph.*MultiGraph"):
        make_graph(nx.MultiGraph([(0, 1)]))
    with pytest.raises(ValueError, match=r"self-loops.*\(1, 1\) of the networkx graph"):
        make_graph(nx.Graph([(0, 1), (1, 1)]))
    with pytest.raises(
        ValueError, match=r"n_agents=3 does not match the networkx graph, which has 2 agents"
    ):
        make_graph(nx.Graph([(0, 1)]), 3)
    with pytest.raises(ValueError, match="at least one node"):
        make_graph(nx.Graph())
    with pytest.raises(ValueError, match=r"agent ids 0..1, got \[0, 'a'\]"):
        make_graph(nx.Graph([(0, "a")]))
    # agent 0 is missing
    with pytest.raises(ValueError, match=r"agent ids 0..3, got \[1, 2, 3, 4\]"):
        make_graph(nx.path_graph([1, 2, 3, 4]))


def test_networkx_not_imported_by_the_module():
    import subprocess
    import sys

    code = (
        "import sys, shared_core.graphs as g; g.make_graph('ring', 5).clique_cover_number; "
        "print('networkx' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


def test_communication_graph_passes_through():
    graph = make_graph("star", 4)
    assert make_graph(graph) is graph
    assert make_graph(graph, 4) is graph
    with pytest.raises(
        ValueError, match=r"n_agents=5 does not match the CommunicationGraph, which has 4 agents"
    ):
        make_graph(graph, 5)


def test_dict_equality_hash_repr_and_immutability():
    graph = make_graph("ring", 4)
    description = graph.to_dict()
    assert description == {"n_agents": 4, "edges": [[0, 1], [0, 3], [1, 2], [2, 3]]}
    assert CommunicationGraph.from_dict(json.loads(json.dumps(description))) == graph
    assert make_graph(description["edges"], description["n_agents"]) == graph
    with pytest.raises(ValueError, match="exactly the keys"):
        CommunicationGraph.from_dict({"n_agents": 4})
    same = CommunicationGraph(4, [(3, 0), (1, 0), (2, 1), (3, 2)])
    assert same == graph and hash(same) == hash(graph) and len({same, graph}) == 1
    assert graph != make_graph("ring", 5) and graph != CommunicationGraph(5, graph.edges)
    assert repr(graph) == "CommunicationGraph(n_agents=4, edges=[(0, 1), (0, 3), (1, 2), (2, 3)])"
    assert eval(repr(graph), {"CommunicationGraph": CommunicationGraph}) == graph
    with pytest.raises(dataclasses.FrozenInstanceError):
        graph.n_agents = 5


# ---- names: errors -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec, n, message",
    [
        (
            "hypercube",
            4,
            r"unknown graph 'hypercube'; valid names: \['complete', 'star', 'ring', 'line', "
            r"'grid', 'disconnected', 'erdos_renyi'\]",
        ),
        ("ring:3", 4, r"unknown graph 'ring:3'"),
        ("erdos_renyi:", 4, r"unknown graph 'erdos_renyi:'"),
        ("ring", None, r"graph 'ring' needs n_agents.*got n_agents=None"),
        ("ring", 0, r"n_agents must be an integer >= 1, got 0"),
        ("star", 2.5, r"n_agents must be an integer >= 1, got 2\.5"),
        ("complete", True, r"n_agents must be an integer >= 1, got True"),
        ("erdos_renyi:abc", 4, r"must be a number in \[0, 1\], got 'abc'"),
        ("erdos_renyi:1.5", 4, r"p must be a finite number in \[0, 1\], got 1\.5"),
        ("erdos_renyi:nan", 4, r"p must be a finite number in \[0, 1\], got nan"),
    ],
)
def test_name_errors(spec, n, message):
    with pytest.raises(ValueError, match=message):
        make_graph(spec, n, seed=0)


@pytest.mark.parametrize("spec", [3.5, None, {"n_agents": 2, "edges": []}, b"ring"])
def test_unsupported_spec(spec):
    with pytest.raises(
        ValueError, match=r"a graph must be a topology name .*got " + type(spec).__name__
    ):
        make_graph(spec, 3)
