"""Pattern names, spellings, families and patterns given as edge lists or graph6."""

from __future__ import annotations

import re

import networkx as nx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ramseygadgets.core.errors import UnknownPatternError
from ramseygadgets.core.graphs import Graph
from ramseygadgets.core.patterns import (
    MAX_PATTERN_VERTICES,
    PAPER_PATTERNS,
    canonical_graph6,
    get_pattern,
)


def isomorphic(a: Graph, b: Graph) -> bool:
    return nx.is_isomorphic(a.to_networkx(), b.to_networkx())


EXPECTED = {  # name: (n, m, degree sequence) of the paper's eight patterns
    "P3": (3, 2, [1, 1, 2]),
    "K1,3": (4, 3, [1, 1, 1, 3]),
    "K3": (3, 3, [2, 2, 2]),
    "P4": (4, 3, [1, 1, 2, 2]),
    "TK3": (4, 4, [1, 2, 2, 3]),
    "C4": (4, 4, [2, 2, 2, 2]),
    "K4-e": (4, 5, [2, 2, 3, 3]),
    "K4": (4, 6, [3, 3, 3, 3]),
}


@pytest.mark.parametrize("name", list(EXPECTED))
def test_paper_patterns_have_the_right_shape(name: str) -> None:
    p = get_pattern(name)
    n, m, degrees = EXPECTED[name]
    assert (p.name, p.graph.n, p.graph.m) == (name, n, m)
    assert sorted(p.graph.degree(v) for v in range(n)) == degrees
    assert p.graph.is_connected()
    assert p.slug.isalnum() and p.slug == p.slug.lower()


@pytest.mark.parametrize(
    "spelling, name",
    [
        ("K1_3", "K1,3"),
        ("K1,3", "K1,3"),
        ("k1,3", "K1,3"),
        ("K1 3", "K1,3"),
        ("claw", "K1,3"),
        ("CLAW", "K1,3"),
        ("K1,2", "P3"),
        ("p3", "P3"),
        ("cherry", "P3"),
        ("triangle", "K3"),
        ("C3", "K3"),
        ("paw", "TK3"),
        ("tk3", "TK3"),
        ("K4e", "K4-e"),
        ("K4-e", "K4-e"),
        ("K4−e", "K4-e"),
        ("K4–e", "K4-e"),
        ("K4_e", "K4-e"),
        ("diamond", "K4-e"),
        ("square", "C4"),
        ("K3e", "P3"),
        (" K4 ", "K4"),
        ("0-1,1-2,2-0", "K3"),
        ("0 1\n1 2\n2 3\n3 0", "C4"),
        ("Bw", "K3"),
        ("C~", "K4"),
        ('{"edges": [[0,1],[0,2],[0,3]]}', "K1,3"),
        ("3-0, 0-1, 1-2, 2-3, 0-2", "K4-e"),
    ],
)
def test_spellings_and_isomorphic_inputs_resolve_to_the_paper_pattern(
    spelling: str, name: str
) -> None:
    assert get_pattern(spelling).name == name
    assert get_pattern(spelling) == get_pattern(name)


@pytest.mark.parametrize(
    "spec, n, m, star",
    [
        ("P5", 5, 4, None),
        ("C6", 6, 6, None),
        ("K5", 5, 10, None),
        ("K1,4", 5, 4, 4),
        ("K1_4", 5, 4, 4),
        ("K3,3", 6, 9, None),
        ("W5", 6, 10, None),
        ("Petersen", 10, 15, None),
        ("K_12", 12, 66, None),
        ("K5-e", 5, 9, None),
        ("K1,11", 12, 11, 11),
        ("P12", 12, 11, None),
    ],
)
def test_families(spec: str, n: int, m: int, star: int | None) -> None:
    p = get_pattern(spec)
    assert (p.graph.n, p.graph.m, p.star_k) == (n, m, star)
    assert p.graph.is_connected()


def test_star_k_detects_stars_only() -> None:
    assert get_pattern("P3").star_k == 2 and get_pattern("K1,3").star_k == 3
    assert all(
        get_pattern(name).star_k is None for name in ("K3", "P4", "TK3", "C4", "K4-e", "K4", "P5")
    )
    assert get_pattern("0-1,0-2,0-3,0-4").star_k == 4 and get_pattern("0-1,0-2,0-3,0-4").is_star


def test_custom_patterns_get_one_readable_name_whatever_the_labelling() -> None:
    a = get_pattern("0-1,1-2,2-3,3-4,4-0")  # C5 given by hand, two labellings
    b = get_pattern("0-2,2-4,4-1,1-3,3-0")
    assert a == b == get_pattern("C5") and (a.name, a.slug) == ("C5", "c5")
    house = get_pattern("0-1,1-2,2-3,3-0,0-4,1-4")
    assert (house.name, house.slug) == ("house", "house")
    assert get_pattern(house.graph.to_graph6()) == house
    k33 = get_pattern("0-3,0-4,0-5,1-3,1-4,1-5,2-3,2-4,2-5")
    assert (k33.name, k33.slug) == ("K3,3", "k33")


def test_graphs_outside_table_and_families_get_a_generated_name_and_a_readable_spec() -> None:
    edges = "0-1,1-2,2-3,3-4,4-5,5-6,6-0,0-2,0-3"  # 7 vertices, 9 edges, no family
    relabelled = "6-5,5-4,4-3,3-2,2-1,1-0,0-6,6-4,6-3"
    p = get_pattern(edges)
    assert re.fullmatch(r"n7m9-[0-9a-f]{10}", p.name) and p.slug == p.name
    assert get_pattern(relabelled) == p
    assert get_pattern(p.spec) == p and p.spec == canonical_graph6(p.graph)
    with pytest.raises(UnknownPatternError, match="generated name"):
        get_pattern(p.name)


def test_every_name_reads_back_through_its_spec() -> None:
    for spec in ("K_12", "K11", "K3,3", "W6", "Petersen", "K12-e", "bull", "co-(P2∪P3)"):
        p = get_pattern(spec)
        assert get_pattern(p.spec) == p
    assert get_pattern("K_12").spec == "K_12"


def test_canonical_graph6_is_an_isomorphism_invariant() -> None:
    for _name, _slug, graph in PAPER_PATTERNS:
        relabelled = Graph(
            graph.n, tuple((graph.n - 1 - u, graph.n - 1 - v) for u, v in graph.edges)
        )
        assert canonical_graph6(relabelled) == canonical_graph6(graph)
    codes = {canonical_graph6(g) for _, _, g in PAPER_PATTERNS}
    assert len(codes) == 8


@pytest.mark.parametrize(
    "spec, words",
    [
        ("0-1,2-3", "must be connected"),  # disconnected
        ("0-1", "must be connected with at least 3 vertices"),  # too small
        ('{"edges": [[0,1],[1,2]], "n": 4}', "must be connected"),  # isolated vertex
        ("K2", "must be connected with at least 3 vertices"),
        ("P2", "must be connected with at least 3 vertices"),
        ("K1,1", "must be connected with at least 3 vertices"),
        ("K_0", "needs k ≥ 3"),
        ("K0,3", "unknown pattern"),
        ("K3,10", "too large"),
        ("", "empty pattern"),
        ("   ", "empty pattern"),
        ("hello", "unknown pattern"),
        ("K13e", "too large"),  # K13-e: 13 vertices
        ("K100000000", "too large"),
        ("P99999999999999999999", "too large"),
        ("K1,12", "too large"),
        ("K13x", "unknown pattern"),
        ("0-1,1-2,0-1", "unknown pattern"),
        ("0-13,1-13", "unknown pattern"),  # 14 vertices
    ],
)
def test_bad_patterns_are_rejected_with_a_clear_message(spec: str, words: str) -> None:
    with pytest.raises(UnknownPatternError, match=words) as info:
        get_pattern(spec)
    assert "\n" not in str(info.value)


def test_size_limit() -> None:
    assert get_pattern(f"P{MAX_PATTERN_VERTICES}").graph.n == MAX_PATTERN_VERTICES
    assert get_pattern("K11").graph.m == 55 and get_pattern("K10").graph.m == 45
    with pytest.raises(UnknownPatternError, match="too large"):
        get_pattern(f"C{MAX_PATTERN_VERTICES + 1}")


@pytest.mark.parametrize(
    "compact, star, complete",
    [
        ("K12", "K1,2", "K_12"),
        ("K13", "K1,3", "K_13"),
        ("k14", "K1,4", "K_14"),
        (" K19 ", "K1,9", "K_19"),
        ("K23", "K2,3", "K_23"),
        ("K111", "K1,11", "K_111"),
    ],
)
def test_compact_forms_with_two_readings_are_refused_with_both_spellings(
    compact: str, star: str, complete: str
) -> None:
    """Issue 16.11: ``K12`` meant K1,2 (P3) while ``K11`` meant the complete graph."""
    with pytest.raises(UnknownPatternError, match="ambiguous") as info:
        get_pattern(compact)
    message = str(info.value)
    assert f"write {star} for" in message and f"or {complete} for the complete graph" in message
    a, b = (int(x) for x in star[1:].split(","))
    assert get_pattern(star).graph.m == a * b  # the comma spelling is read as Ka,b
    assert get_pattern("K_12").graph.m == 66 and get_pattern("K_{12}") == get_pattern("K_12")


@given(
    st.one_of(
        st.text(max_size=20),
        st.text(st.sampled_from(list("KPC0123456789,-_ e~?@BwE")), max_size=12),
    )
)
def test_pattern_lookup_raises_only_unknown_pattern_errors(spec: str) -> None:
    try:
        pattern = get_pattern(spec)
    except UnknownPatternError as exc:
        assert str(exc) and "\n" not in str(exc)
    else:
        assert pattern.graph.is_connected() and 3 <= pattern.graph.n <= MAX_PATTERN_VERTICES
