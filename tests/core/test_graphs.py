"""Graph type and the three input formats: edge-list text, JSON, graph6."""

from __future__ import annotations

import json
import time

import networkx as nx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ramseygadgets.core.errors import GraphFormatError, GraphTooLargeError
from ramseygadgets.core.graphs import (
    DEFAULT_MAX_VERTICES,
    Graph,
    parse_edge_list,
    parse_graph,
    parse_graph6,
)


@st.composite
def graphs(draw, max_n: int = 12) -> Graph:
    n = draw(st.integers(0, max_n))
    pairs = [(u, v) for u in range(n) for v in range(u + 1, n)]
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True)) if pairs else []
    return Graph(n, tuple(chosen))


# ---------------------------------------------------------------------------------------------
# The graph type
# ---------------------------------------------------------------------------------------------
def test_edges_are_normalised_sorted_and_indexed() -> None:
    g = Graph(4, ((3, 1), (0, 2), (1, 0)))
    assert g.edges == ((0, 1), (0, 2), (1, 3))
    assert g.m == 3 and g.edge_id(3, 1) == 2 and g.edge_index[(0, 2)] == 1
    assert g.has_edge(2, 0) and not g.has_edge(2, 3)
    assert g.neighbors == ((1, 2), (0, 3), (0,), (1,))
    assert g.up_neighbors == ((1, 2), (3,), (), ())
    assert g.incident_edges[1] == (0, 2)
    assert g.adjacency[0] == 0b0110
    assert g.index_matrix[3][1] == 2 and g.index_matrix[1][3] == 2
    with pytest.raises(KeyError):
        g.edge_id(2, 3)


@pytest.mark.parametrize(
    "n, edges, words",
    [
        (3, ((1, 1),), "self-loop"),
        (3, ((0, 3),), "not within the vertices 0..2"),
        (3, ((-1, 2),), "not within"),
        (-1, (), "non-negative"),
    ],
)
def test_direct_construction_is_validated(n: int, edges: tuple, words: str) -> None:
    with pytest.raises(GraphFormatError, match=words):
        Graph(n, edges)


def test_from_edges_rejects_loops_duplicates_and_bad_labels() -> None:
    with pytest.raises(GraphFormatError, match="self-loop at vertex 2"):
        Graph.from_edges([(0, 1), (2, 2)])
    with pytest.raises(GraphFormatError, match="edge 0-1 is listed more than once"):
        Graph.from_edges([(0, 1), (1, 0)])
    assert Graph.from_edges([(0, 1), (1, 0)], allow_duplicates=True).m == 1
    for bad in (-1, 1.5, "x", None, True):
        with pytest.raises(GraphFormatError, match="non-negative integer"):
            Graph.from_edges([(0, bad)])
    with pytest.raises(GraphFormatError, match="pair of vertices"):
        Graph.from_edges([(0, 1, 2)])
    with pytest.raises(GraphTooLargeError, match="limit of 64"):
        Graph.from_edges([(0, 64)])
    with pytest.raises(GraphFormatError, match="n = 2 but an edge uses vertex 2"):
        Graph.from_edges([(0, 2)], n=2)
    assert Graph.from_edges([(0, 1)], n=5).n == 5  # isolated vertices through n


def test_connectivity_and_degrees() -> None:
    assert Graph(4, ((0, 1), (1, 2), (2, 3))).is_connected()
    assert not Graph(4, ((0, 1), (2, 3))).is_connected()
    assert Graph(0).is_connected() and Graph(1).is_connected()
    assert [Graph.complete(5).degree(v) for v in range(5)] == [4] * 5


@given(graphs())
def test_derived_structures_agree_with_networkx(g: Graph) -> None:
    nxg = g.to_networkx()
    assert nxg.number_of_nodes() == g.n and nxg.number_of_edges() == g.m
    for v in range(g.n):
        assert g.neighbors[v] == tuple(sorted(nxg[v]))
        assert {g.edges[i] for i in g.incident_edges[v]} == {tuple(sorted(e)) for e in nxg.edges(v)}
        assert bin(g.adjacency[v]).count("1") == nxg.degree(v)
    assert g.is_connected() == (g.n == 0 or nx.is_connected(nxg))


# ---------------------------------------------------------------------------------------------
# Formats
# ---------------------------------------------------------------------------------------------
TRIANGLE_PLUS = Graph(4, ((0, 1), (0, 2), (1, 2), (2, 3)))


@pytest.mark.parametrize(
    "text",
    [
        "0 1\n0 2\n1 2\n2 3",
        "0-1, 0-2, 1-2, 2-3",
        "0-1,0-2,1-2,2-3\n",
        "(0,1) (0,2) (1,2) (2,3)",
        "[0,1] [0,2] [1,2] [2,3]",
        "0 1  # comment\n\n0 2\n1 2\n# another\n2 3",
        "0\t1\r\n0 2\r\n1 2\r\n2 3",
        "0−1, 0–2, 1—2, 2-3",  # Unicode dashes
        "\ufeff0 1\n0 2\n1 2\n2 3",  # byte-order mark
        '{"edges": [[0, 1], [0, 2], [1, 2], [2, 3]]}',
        '{"edges": [[1, 0], [2, 0], [2, 1], [3, 2]], "n": 4}',
        "[[0, 1], [0, 2], [1, 2], [2, 3]]",
        TRIANGLE_PLUS.to_graph6(),
        ">>graph6<<" + TRIANGLE_PLUS.to_graph6(),
    ],
)
def test_every_format_reads_the_same_graph(text: str) -> None:
    assert parse_graph(text) == TRIANGLE_PLUS
    assert parse_graph(text.encode()) == TRIANGLE_PLUS


def test_json_n_adds_isolated_vertices_and_bytes_must_be_utf8() -> None:
    assert parse_graph('{"edges": [[0, 1]], "n": 4}').n == 4
    assert parse_graph('{"edges": [], "n": 3}') == Graph(3)
    with pytest.raises(GraphFormatError, match="not UTF-8"):
        parse_graph(b"\xff\xfe0 1")


@given(graphs())
def test_round_trip_edge_list(g: Graph) -> None:
    if g.m == 0:
        return
    g = Graph(
        max(v for e in g.edges for v in e) + 1, g.edges
    )  # edge lists cannot carry isolated tail vertices
    assert parse_graph("\n".join(f"{u} {v}" for u, v in g.edges)) == g
    assert parse_graph(", ".join(f"{u}-{v}" for u, v in g.edges)) == g


@given(graphs())
def test_round_trip_json(g: Graph) -> None:
    assert parse_graph(json.dumps(g.to_json())) == g


@given(graphs())
def test_round_trip_graph6(g: Graph) -> None:
    if g.n == 0:
        return
    text = g.to_graph6()
    assert parse_graph6(text) == g
    if g.m or g.n > 1:
        assert parse_graph(text) == g


JUNK_ALPHABET = st.sampled_from(
    list("0123456789 -,;()[]{}#.\n\t:abcxyz\"'\\~?@_+−") + ["\x00", "é", "\ufeff"]
)


@given(st.one_of(st.text(JUNK_ALPHABET, max_size=60), st.text(max_size=40), st.binary(max_size=60)))
def test_parser_raises_only_graph_format_errors_on_junk(text) -> None:
    try:
        g = parse_graph(text)
    except GraphFormatError as exc:
        message = str(exc)
        assert message and "\n" not in message and "Traceback" not in message
    else:
        assert isinstance(g, Graph) and g.n <= DEFAULT_MAX_VERTICES


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers(-5, 100) | st.floats() | st.text(max_size=3),
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(st.sampled_from(["edges", "n", "x"]), inner, max_size=3)
        ),
        max_leaves=12,
    )
)
def test_json_parser_raises_only_graph_format_errors(data) -> None:
    try:
        text = json.dumps(data)
    except ValueError:
        return
    try:
        parse_graph(text)
    except GraphFormatError as exc:
        assert "\n" not in str(exc)


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "empty input"),
        ("   \n ", "empty input"),
        ("0 0", "self-loop"),
        ("0 1\n1 0", "listed more than once"),
        ("0 1\n0 1", "listed more than once"),
        ("-1 2", "negative vertex label"),
        ("0 -3", "negative vertex label"),
        ("0 1.5", "must be integers"),
        ("0 1 2", "odd number of vertex labels"),
        ("a b", "unexpected character 'a'"),
        ("0 99999999999999", "far too large"),
        ("0 64", "limit of 64"),
        ('{"edges": [[0, 1.5]]}', "non-negative integer"),
        ('{"edges": [[0, -1]]}', "non-negative integer"),
        ('{"edges": [[0, "x"]]}', "non-negative integer"),
        ('{"edges": [[0, 1e999]]}', "non-negative integer"),
        ('{"edges": [[0, ' + "9" * 5000 + "]]}", "malformed JSON"),
        ('{"edges": [[0, 1]], "n": 1}', "n = 1 but an edge uses vertex 1"),
        ('{"edges": [[0, 1]], "n": 1000}', "more than the limit"),
        ('{"edges": [[0, 1]]', "malformed JSON"),
        ('{"n": 3}', 'needs an "edges" field'),
        ('{"edges": 5}', "must be a list"),
        ("[1, 2]", "pair of vertices"),
        ("\x00\x01", "NUL bytes"),
        ("~~~", "graph6"),
        ("B", "graph6"),
    ],
)
def test_bad_inputs_name_the_problem(text: str, words: str) -> None:
    with pytest.raises(GraphFormatError, match=words):
        parse_graph(text)


def test_deep_json_nesting_is_a_format_error() -> None:
    with pytest.raises(GraphFormatError):
        parse_graph("[" * 100_000 + "]" * 100_000)
    with pytest.raises(GraphFormatError):
        parse_graph('{"edges": ' + "[" * 100_000 + "]" * 100_000 + "}")


def test_a_million_edges_are_refused_quickly() -> None:
    text = "\n".join(f"{i % 1000} {1000 + i // 1000}" for i in range(1_000_000))
    start = time.process_time()
    with pytest.raises(GraphTooLargeError, match="limit of 64"):
        parse_graph(text)
    with pytest.raises(GraphFormatError, match="more than once"):
        parse_edge_list("0 1\n" * 1_000_000)
    payload = json.dumps({"edges": [[i % 60, 61 + i // 60 % 3] for i in range(1_000_000)]})
    with pytest.raises(GraphFormatError, match="more than once"):
        parse_graph(payload)
    assert time.process_time() - start < 30.0  # a guard against a hang, not a benchmark


def test_limits_can_be_raised_or_lifted() -> None:
    assert parse_graph("0 100", max_vertices=200).n == 101
    assert parse_graph("0 100", max_vertices=None).n == 101
    with pytest.raises(GraphTooLargeError):
        parse_graph("0 10", max_vertices=10)
    big = Graph.complete(70)
    with pytest.raises(GraphTooLargeError, match="70 vertices"):
        parse_graph(big.to_graph6())
    assert parse_graph(big.to_graph6(), max_vertices=None) == big
