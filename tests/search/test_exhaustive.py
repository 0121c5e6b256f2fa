"""The independent exhaustive cross-check (nauty geng + verifier) against the CEGAR finder."""

from __future__ import annotations

import networkx as nx
import pytest

from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.problems.catalog import all_problems, get_problem
from ramseygadgets.problems.solutions import load_solutions
from ramseygadgets.search import solve
from ramseygadgets.search.exhaustive import (
    exhaustive_minimums,
    gadgets_in_graph,
    iter_graphs,
    nauty_available,
)
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.verification.verifier import verify

pytestmark = pytest.mark.skipif(
    not nauty_available(), reason="nauty (geng, listg) is not installed"
)


@pytest.mark.parametrize("n", [4, 5, 6])
def test_geng_lists_each_connected_graph_once(n):
    """Against networkx's graph atlas (all graphs up to 7 vertices)."""
    atlas = [g for g in nx.graph_atlas_g() if g.number_of_nodes() == n and nx.is_connected(g)]
    ours = list(iter_graphs(n, 0, n * (n - 1) // 2))
    assert len(ours) == len(atlas)
    by_edges = {}
    for g in ours:
        by_edges.setdefault(g.m, []).append(g.to_networkx())
    for g in atlas:
        assert any(nx.is_isomorphic(g, h) for h in by_edges[g.number_of_edges()])
    parts = [sum(1 for _ in iter_graphs(n, 0, n * (n - 1) // 2, res=r, mod=3)) for r in range(3)]
    assert sum(parts) == len(ours)


def test_every_shipped_solution_is_found_inside_its_graph():
    for pid, solution in load_solutions().items():
        problem = get_problem(pid)
        found = gadgets_in_graph(solution.candidate.graph, problem.F, problem.H, [problem.gadget])
        assert found is not None and problem.gadget in found, pid
        assert verify(
            problem, Candidate(solution.candidate.graph, found[problem.gadget])
        ).correct, pid


def test_exhaustive_scan_agrees_with_the_finder_up_to_six_vertices():
    problems = [p for p in all_problems() if load_solutions()[p.id].n <= 6]
    assert len(problems) >= 30
    scanned = exhaustive_minimums(problems, 6)
    for p in problems:
        finder = solve(p)
        assert (scanned[p.id].n, scanned[p.id].m) == (finder.n, finder.m), p.id


def test_exhaustive_scan_reports_none_below_the_minimum():
    p = get_problem("k13_k3_red_determiner")  # minimal: 7 vertices
    scanned = exhaustive_minimums([p], 6)
    assert scanned[p.id].candidate is None and scanned[p.id].searched_up_to == 6


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_exhaustive_scan_agrees_with_the_finder_for_all_70_up_to_nine_vertices():
    scanned = exhaustive_minimums(all_problems(), 9, jobs=2)
    for p in all_problems():
        finder = solve(p)
        expected = (finder.n, finder.m) if finder.n <= 9 else (None, None)
        assert (scanned[p.id].n, scanned[p.id].m) == expected, p.id
        if finder.n > 9:
            assert scanned[p.id].searched_up_to == 9


@pytest.mark.slow
@pytest.mark.timeout(3600)  # about 6 minutes on 2 idle cores: 11.7 million graphs
def test_exhaustive_scan_confirms_the_ten_vertex_k13_k4_minima():
    """(K1,3, K4) problems needing 10 vertices: none on 9 (previous test), and on 10 the scan's
    first hit has exactly the finder's edge count."""
    big = [
        p
        for p in all_problems()
        if p.pair == ("K1,3", "K4") and solve(p, SearchOptions(max_vertices=10)).n == 10
    ]
    assert {p.gadget.value for p in big} >= {"red-determiner", "blue-determiner"}
    results = {p.id: solve(p) for p in big}
    scanned = exhaustive_minimums(
        big,
        10,
        jobs=2,
        min_vertices={p.id: 10 for p in big},
        max_edges={p.id: results[p.id].m for p in big},
    )
    for p in big:
        assert (scanned[p.id].n, scanned[p.id].m) == (10, results[p.id].m), p.id
