"""Good colorings through PySAT, against brute-force enumeration of all 2^m colorings."""

from __future__ import annotations

import random
import time
from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ramseygadgets.colorings.red_blue import Coloring, GoodColorings
from ramseygadgets.core.errors import ColoringLimitExceeded, GraphTooLargeError
from ramseygadgets.core.graphs import Graph
from ramseygadgets.core.patterns import get_pattern
from ramseygadgets.verification.bruteforce import good_coloring_masks, red_degrees

F_NAMES = ("P3", "K1,3")
H_NAMES = ("P3", "K3", "K1,3", "P4", "TK3", "C4", "K4-e", "K4")


def random_case(rng: random.Random, max_edges: int = 12) -> tuple[Graph, str, str]:
    while True:
        n = rng.randint(2, 8)
        g = Graph(
            n,
            tuple(
                e for e in combinations(range(n), 2) if rng.random() < rng.choice((0.3, 0.5, 0.8))
            ),
        )
        if g.m <= max_edges:
            return g, rng.choice(F_NAMES), rng.choice(H_NAMES)


def mask_of(c: Coloring) -> int:
    return sum(1 << i for i, r in enumerate(c.red) if r)


CASES = [random_case(random.Random(seed)) for seed in range(150)]


@pytest.mark.parametrize("g, f, h", CASES[:150])
def test_count_colorings_and_forced_edges_match_brute_force(g: Graph, f: str, h: str) -> None:
    F, H = get_pattern(f), get_pattern(h)
    good = good_coloring_masks(g, F, H)
    with GoodColorings(g, F, H) as sat:
        assert sat.is_good() == (good.size > 0)
        assert sat.count(cap=10**6) == (good.size, True)
        listed = [mask_of(c) for c in sat.iter_colorings()]
        assert len(listed) == len(set(listed)) and set(listed) == set(good.tolist())
        forced = sat.forced_edges()
        if good.size:
            always_red = {g.edges[i] for i in range(g.m) if all(x >> i & 1 for x in good.tolist())}
            always_blue = {
                g.edges[i] for i in range(g.m) if not any(x >> i & 1 for x in good.tolist())
            }
        else:
            always_red = always_blue = set()
        assert set(forced.red) == always_red and set(forced.blue) == always_blue


@given(st.integers(0, 10**6), st.integers(1, 60))
def test_count_cap_reports_lower_bounds_exactly(seed: int, cap: int) -> None:
    g, f, h = random_case(random.Random(seed), max_edges=10)
    total = good_coloring_masks(g, get_pattern(f), get_pattern(h)).size
    with GoodColorings(g, get_pattern(f), get_pattern(h)) as sat:
        assert sat.count(cap) == ((total, True) if total <= cap else (cap, False))


def test_free_edges_are_in_every_coloring_and_counted() -> None:
    # a triangle with a pendant path, plus a disjoint edge: for (P3, K3) the disjoint edge 4-5
    # lies in no copy of P3 or K3, so it is free and doubles the count
    g = Graph(6, ((0, 1), (0, 2), (1, 2), (2, 3), (4, 5)))
    F, H = get_pattern("P3"), get_pattern("K3")
    with GoodColorings(g, F, H) as sat:
        assert sat.free_edges == [(4, 5)]
        assert sat.constrained == (True, True, True, True, False)
        colorings = list(sat.iter_colorings())
        assert all(len(c.red) == g.m for c in colorings)
        assert {c.color_of(4, 5) for c in colorings} == {"red", "blue"}
        count, exact = sat.count()
        assert exact and count == len(colorings) == good_coloring_masks(g, F, H).size
        assert count == 2 * sum(1 for c in colorings if c.color_of(4, 5) == "red")
        assert (4, 5) not in sat.forced_edges().red + sat.forced_edges().blue
        # free edges count in red degrees
        red_free = next(c for c in colorings if c.color_of(4, 5) == "red")
        assert red_free.red_degree(4) == 1 and red_free.red_degree(5) == 1


def test_only_free_edges() -> None:
    g = Graph(6, ((0, 1), (2, 3), (4, 5)))  # a matching: no P3, no K3
    with GoodColorings(g, get_pattern("P3"), get_pattern("K3")) as sat:
        assert sat.clauses == [] and len(sat.free_edges) == 3
        assert sat.count() == (8, True)
        assert len(sat.all_colorings()) == 8
        assert sat.count(cap=5) == (5, False)


def test_all_colorings_limit_stops_with_a_clear_message() -> None:
    g = Graph(7, tuple((i, i + 1) for i in range(6)))  # a path: many good colorings
    with GoodColorings(g, get_pattern("K1,3"), get_pattern("P4")) as sat:
        total, exact = sat.count()
        assert exact and total > 10
        assert len(sat.all_colorings(limit=total)) == total
        with pytest.raises(ColoringLimitExceeded, match=r"more than 10 good colorings") as info:
            sat.all_colorings(limit=10)
        assert "limit" in str(info.value) and "\n" not in str(info.value)


def test_a_graph_that_is_not_good() -> None:
    k6 = Graph.complete(6)  # (K3, K3) Ramsey: every 2-colouring of K6 has a monochromatic triangle
    with GoodColorings(k6, get_pattern("K3"), get_pattern("K3")) as sat:
        assert not sat.is_good() and sat.solve() is None
        assert sat.count() == (0, True) and list(sat.iter_colorings()) == []
        assert sat.forced_edges().red == () and sat.forced_edges().blue == ()


@pytest.mark.parametrize("seed", range(40))
def test_red_degree_switch_matches_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    g, f, h = random_case(rng)
    F, H = get_pattern(f), get_pattern(h)
    good = good_coloring_masks(g, F, H)
    with GoodColorings(g, F, H) as sat:
        for _ in range(4):
            v = rng.randrange(g.n)
            low = rng.choice((None, 0, 1, 2, 3))
            high = rng.choice((None, 0, 1, 2, 3))
            switch = sat.red_degree_switch(v, at_least=low, at_most=high)
            degrees = red_degrees(g, good, v)
            expected = any(
                (low is None or d >= low) and (high is None or d <= high) for d in degrees.tolist()
            )
            found = sat.solve([switch])
            assert (found is not None) == expected
            if found is not None:
                d = found.red_degree(v)
                assert (low is None or d >= low) and (high is None or d <= high)
            assert (sat.solve() is not None) == (good.size > 0)  # the switch is off unless assumed


def test_coloring_accessors() -> None:
    g = Graph(3, ((0, 1), (0, 2), (1, 2)))
    c = Coloring(g, (True, False, True))
    assert c.red_edges == [(0, 1), (1, 2)] and c.blue_edges == [(0, 2)]
    assert c.color_of(2, 1) == "red" and c.red_degree(1) == 2 and c.red_degree(0) == 1
    assert c.to_json() == {"red": [[0, 1], [1, 2]], "blue": [[0, 2]]}
    assert c.describe() == "red: 0-1, 1-2; blue: 0-2"


def test_clause_semantics_and_variables() -> None:
    g = Graph(4, ((0, 1), (0, 2), (0, 3), (1, 2)))
    with GoodColorings(g, get_pattern("K1,3"), get_pattern("K3")) as sat:
        assert sat.var(0, 3) == g.edge_id(0, 3) + 1
        assert sat.f_copies == [(0, 1, 2)] and sat.h_copies == [(0, 1, 3)]
        assert sorted(map(sorted, sat.clauses)) == [[-3, -2, -1], [1, 2, 4]]


def test_huge_cnf_is_refused_before_it_is_built() -> None:
    k64 = Graph.complete(64)
    start = time.process_time()
    with pytest.raises(GraphTooLargeError, match=r"too large to check exactly") as info:
        GoodColorings(k64, get_pattern("K1,3"), get_pattern("P4"))
    assert "64 vertices" in str(info.value) and time.process_time() - start < 2.0
    k12 = Graph.complete(12)
    with pytest.raises(GraphTooLargeError, match="7,920 copies"):  # 1,980 stars + 5,940 paths
        GoodColorings(k12, get_pattern("K1,3"), get_pattern("P4"), max_clauses=100)
    assert (
        len(GoodColorings(k12, get_pattern("K1,3"), get_pattern("P4"), max_clauses=None).clauses)
        == 7920
    )
