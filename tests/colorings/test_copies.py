"""Copy enumeration: closed formulas on K_n, networkx subgraph monomorphisms, counting, labels."""

from __future__ import annotations

import random
import time
from itertools import combinations, permutations
from math import comb

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ramseygadgets.colorings.copies import (
    MAX_BITMASK_VERTICES,
    count_all_copies,
    count_copies,
    find_copies,
    generic_copies,
    symmetry_conditions,
)
from ramseygadgets.core.errors import GraphTooLargeError
from ramseygadgets.core.graphs import Graph
from ramseygadgets.core.patterns import get_pattern
from ramseygadgets.verification.bruteforce import copy_masks

NAMED = ("P3", "K1,3", "K3", "P4", "TK3", "C4", "K4-e", "K4")
OTHERS = ("K1,4", "P5", "C5", "K5-e", "0-1,1-2,2-3,3-0,0-4,1-4")  # generic enumerator
#: Patterns with large automorphism groups (|Aut|: 120, 10, 72, 12, 8): the generic enumerator's
#: symmetry conditions at work.
SYMMETRIC = ("K5", "W4", "K3,3", "C6", "gem")

CLOSED_FORMS = {
    "P3": lambda n: n * comb(n - 1, 2),
    "K1,3": lambda n: n * comb(n - 1, 3),
    "K3": lambda n: comb(n, 3),
    "P4": lambda n: 12 * comb(n, 4),
    "TK3": lambda n: 12 * comb(n, 4),
    "C4": lambda n: 3 * comb(n, 4),
    "K4-e": lambda n: 6 * comb(n, 4),
    "K4": lambda n: comb(n, 4),
}


def masks(copies: list[tuple[int, ...]]) -> list[int]:
    return [sum(1 << i for i in c) for c in copies]


@pytest.mark.parametrize("name", NAMED)
@pytest.mark.parametrize("n", range(4, 10))
def test_closed_formulas_on_complete_graphs(name: str, n: int) -> None:
    pattern, kn = get_pattern(name), Graph.complete(n)
    copies = find_copies(pattern, kn)
    assert len(copies) == CLOSED_FORMS[name](n)
    assert len(set(copies)) == len(copies)  # no duplicates
    assert count_copies(pattern, kn) == CLOSED_FORMS[name](n)


def random_graph(rng: random.Random, n: int, p: float) -> Graph:
    return Graph(n, tuple(e for e in combinations(range(n), 2) if rng.random() < p))


def assert_matches_networkx(name: str, g: Graph) -> None:
    pattern = get_pattern(name)
    copies = find_copies(pattern, g)
    assert all(list(c) == sorted(c) and len(c) == pattern.graph.m for c in copies)
    found = masks(copies)
    assert len(found) == len(set(found)), f"duplicate copies of {name}"
    assert set(found) == copy_masks(pattern, g), f"{name} copies differ from networkx on {g}"
    assert count_copies(pattern, g) == len(copies)


@pytest.mark.parametrize("name", NAMED + OTHERS + SYMMETRIC)
def test_equal_to_networkx_monomorphisms_on_random_graphs(name: str) -> None:
    rng = random.Random(name)
    for _ in range(40):
        assert_matches_networkx(name, random_graph(rng, rng.randint(0, 9), rng.random()))


@st.composite
def graphs(draw, max_n: int = 8) -> Graph:
    n = draw(st.integers(0, max_n))
    pairs = list(combinations(range(n), 2))
    return Graph(n, tuple(draw(st.lists(st.sampled_from(pairs), unique=True)) if pairs else ()))


@given(graphs(), st.sampled_from(NAMED + ("P5", "K1,4")))
def test_copies_property_equal_to_networkx(g: Graph, name: str) -> None:
    assert_matches_networkx(name, g)


@given(graphs(), st.sampled_from(NAMED))
def test_labels_give_the_same_copies_as_label_tuples(g: Graph, name: str) -> None:
    pattern = get_pattern(name)
    labels = [-(i + 1) for i in range(g.m)]
    as_labels = find_copies(pattern, g, labels=labels)
    back = sorted(tuple(sorted(-x - 1 for x in c)) for c in as_labels)
    assert back == sorted(find_copies(pattern, g))


def test_generic_enumerator_agrees_with_the_specialised_ones() -> None:
    rng = random.Random(7)
    for _ in range(30):
        g = random_graph(rng, rng.randint(4, 8), 0.6)
        for name in NAMED:
            pattern = get_pattern(name)
            assert sorted(generic_copies(g, pattern.graph)) == sorted(find_copies(pattern, g))


def automorphisms(graph: Graph) -> list[tuple[int, ...]]:
    edges = {frozenset(e) for e in graph.edges}
    return [
        sigma
        for sigma in permutations(range(graph.n))
        if {frozenset((sigma[u], sigma[v])) for u, v in graph.edges} == edges
    ]


@pytest.mark.parametrize("name", ("P3", "K3", "C4", "K4", "P5") + SYMMETRIC)
def test_symmetry_conditions_keep_one_map_of_each_class(name: str) -> None:
    """Of the maps φ∘σ (σ in Aut(F), by brute force over all permutations), for random injective
    φ into 0..19, exactly one meets every condition φ(v) < φ(w)."""
    graph = get_pattern(name).graph
    group, conditions = automorphisms(graph), symmetry_conditions(graph)
    assert len(group) > 1 and conditions
    rng = random.Random(name)
    for _ in range(20):
        phi = rng.sample(range(20), graph.n)
        kept = [
            sigma for sigma in group if all(phi[sigma[v]] < phi[sigma[w]] for v, w in conditions)
        ]
        assert len(kept) == 1, (name, phi, kept)


def test_generic_enumerator_on_patterns_with_isolated_vertices() -> None:
    """A pattern graph with isolated vertices (``find_copies`` never asks for one, the enumerator
    takes any): the same edge sets as networkx's monomorphisms."""
    rng = random.Random(3)
    pattern = Graph(6, ((0, 1), (1, 2), (3, 4)))  # P3 + K2 + K1
    for _ in range(20):
        g = random_graph(rng, rng.randint(5, 8), 0.5)
        expected = {
            frozenset(g.edge_id(*e) for e in edges)
            for edges in _edge_images_by_networkx(g, pattern)
        }
        assert {frozenset(c) for c in generic_copies(g, pattern)} == expected


def _edge_images_by_networkx(g: Graph, pattern: Graph) -> list[list[tuple[int, int]]]:
    from networkx.algorithms.isomorphism import GraphMatcher

    images = []
    for mapping in GraphMatcher(
        g.to_networkx(), pattern.to_networkx()
    ).subgraph_monomorphisms_iter():
        inverse = {b: a for a, b in mapping.items()}
        images.append([(inverse[u], inverse[v]) for u, v in pattern.edges])
    return images


def test_generic_enumerator_stops_at_a_limit() -> None:
    k8, c5 = Graph.complete(8), get_pattern("C5")
    total = len(find_copies(c5, k8))
    assert total == 12 * comb(8, 5)
    assert len(generic_copies(k8, c5.graph, limit=50)) == 51
    assert count_copies(c5, k8, limit=50) == 51
    assert count_copies(c5, k8) == total


def test_counting_is_cheap_on_large_dense_graphs() -> None:
    k64 = Graph.complete(64)
    assert count_copies(get_pattern("P4"), k64) == 12 * comb(64, 4)
    assert count_copies(get_pattern("K4"), k64) == comb(64, 4)
    assert count_copies(get_pattern("TK3"), k64) == 12 * comb(64, 4)
    assert count_copies(get_pattern("C4"), k64) == 3 * comb(64, 4)


@pytest.mark.parametrize("name", ["K4", "C4"])
def test_counting_stops_at_a_limit_on_huge_dense_graphs(name: str) -> None:
    k400 = Graph.complete(400)  # 79,800 edges; a full K4 count would take seconds
    start = time.process_time()
    assert count_copies(get_pattern(name), k400, limit=1000) == 1001
    assert time.process_time() - start < 1.0


def test_star_counts_on_huge_sparse_graphs_need_no_bitmasks() -> None:
    n = MAX_BITMASK_VERTICES + 1
    path = Graph(n, tuple((v, v + 1) for v in range(n - 1)))
    assert count_all_copies([get_pattern("P3"), get_pattern("K1,3")], path, limit=10) == (
        n - 2,
        True,
    )
    assert "adjacency" not in path.__dict__
    with pytest.raises(GraphTooLargeError, match=r"50,001 vertices.*copies of K3"):
        count_all_copies([get_pattern("K3")], path, limit=10)


def test_fewer_edges_than_the_pattern_means_no_copies() -> None:
    assert find_copies(get_pattern("K4"), Graph(4, ((0, 1), (1, 2)))) == []
    assert find_copies(get_pattern("P3"), Graph(5)) == []
