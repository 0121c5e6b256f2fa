"""The degree bound (search/degrees.py): free degrees against brute force, its two lemmas on
brute-forced graphs, and the finder with and without it."""

from __future__ import annotations

import random
from itertools import combinations, compress, product

import numpy as np
import pytest
from pysat.solvers import Solver

from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.problem import Problem
from ramseygadgets.search import solve
from ramseygadgets.search.cegar import LayoutFinder
from ramseygadgets.search.degrees import (
    ReducibleEdges,
    _free,
    clique_through_clauses,
    endpoint_degree,
    endpoint_floors,
    isolation_degree,
    through_cliques,
)
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.search.spec import gadget_spec, layouts
from ramseygadgets.verification.bruteforce import good_coloring_masks
from ramseygadgets.verification.verifier import verify


def _free_by_brute_force(d: int, f: int, h: int, forced: bool | None) -> bool:
    """Every colouring (absent / red / blue per pair) of d (+1 forced) vertices that is good
    splits: R without a red K_{f−1}, B without a blue K_{h−1}, the forced vertex on its side."""
    size = d + (forced is not None)
    pairs = list(combinations(range(size), 2))
    for colours in product((0, 1, 2), repeat=len(pairs)):  # 0 absent, 1 red, 2 blue
        c = dict(zip(pairs, colours))

        def mono(vs, colour, k):
            return any(all(c[p] == colour for p in combinations(s, 2)) for s in combinations(vs, k))

        if mono(range(size), 1, f) or mono(range(size), 2, h):
            continue
        ok = False
        for mask in range(1 << d):
            r = [v for v in range(d) if mask >> v & 1] + ([d] if forced is True else [])
            b = [v for v in range(d) if not mask >> v & 1] + ([d] if forced is False else [])
            if not mono(r, 1, f - 1) and not mono(b, 2, h - 1):
                ok = True
                break
        if not ok:
            return False
    return True


@pytest.mark.parametrize(
    "d,f,h,forced",
    [(d, 3, 3, x) for d in (1, 2, 3) for x in (None, True, False)]
    + [(4, 3, 3, None), (4, 3, 4, None), (3, 3, 4, True), (3, 3, 4, False), (4, 3, 4, False)],
)
def test_free_degrees_agree_with_brute_force(d, f, h, forced):
    assert _free(d, f, h, forced) == _free_by_brute_force(d, f, h, forced)


def test_the_k3_k4_degrees():
    problem = Problem.make("K3", "K4", "red-determiner")
    assert isolation_degree(problem) == 5  # d = 6 is not free
    assert endpoint_degree(problem, red=False) == 3
    assert endpoint_degree(problem, red=True) == 2
    (layout,) = layouts(problem.gadget, 10)
    assert endpoint_floors(problem, layout, gadget_spec(problem, layout.designated)) == {
        0: 5,
        1: 5,
    }
    blue = Problem.make("K3", "K4", "blue-determiner")
    assert endpoint_floors(blue, layout, gadget_spec(blue, layout.designated)) == {0: 4, 1: 4}


def test_no_bound_without_complete_patterns():
    assert isolation_degree(Problem.make("K3", "K4-e", "red-determiner")) == 0
    assert isolation_degree(Problem.make("P3", "K3", "red-determiner")) == 0
    sender = Problem.make("K3", "K4", "positive-sender")
    lay = layouts(sender.gadget, 8)[0]
    assert endpoint_floors(sender, lay, gadget_spec(sender, lay.designated)) == {}


def _colourings(g: Graph, problem: Problem) -> set[frozenset[tuple[int, int]]]:
    """Every good colouring of ``g``, as its set of red edges (brute force over 2^m)."""
    masks = good_coloring_masks(g, problem.F, problem.H)
    red = (masks[:, None] >> np.arange(g.m)) & 1  # row: which edges the colouring makes red
    return {frozenset(compress(g.edges, row)) for row in red.tolist()}


def _meets(good: np.ndarray, g: Graph, condition) -> np.ndarray:
    """Which colourings (bitmasks, bit i = edge i red) give each edge of ``condition`` its
    colour."""
    red = sum(1 << g.edge_id(*a.edge) for a in condition if a.red)
    blue = sum(1 << g.edge_id(*a.edge) for a in condition if not a.red)
    return ((good & red) == red) & ((good & blue) == 0)


def _random_graphs(n: int, count: int, seed: int, p: float):
    rng = random.Random(seed)
    for _ in range(count):
        yield Graph(n, tuple(e for e in Graph.complete(n).edges if e == (0, 1) or rng.random() < p))


def test_every_good_colouring_extends_over_a_vertex_of_degree_at_most_d():
    """The isolation lemma's core, (K3, K4), D = 5: for a vertex v of degree ≤ 5 every good
    colouring of G − v is the restriction of one of G (brute force on random graphs)."""
    problem = Problem.make("K3", "K4", "red-determiner")
    free = isolation_degree(problem)
    checked = 0
    for g in _random_graphs(7, 60, 3, 0.6):
        if g.m > 14:
            continue
        for v in range(2, g.n):
            if not 0 < g.degree(v) <= free:
                continue
            rest = Graph(g.n, tuple(e for e in g.edges if v not in e))
            restricted = {frozenset(e for e in c if v not in e) for c in _colourings(g, problem)}
            assert _colourings(rest, problem) == restricted, (g, v)
            checked += 1
    assert checked > 10


def test_every_good_colouring_extends_over_an_edge_in_at_most_two_triangles():
    """The edge rule's core, (K3, K4): for an edge uv with ≤ 2 common neighbours every good
    colouring of G − uv is the restriction of one of G (brute force on random graphs)."""
    problem = Problem.make("K3", "K4", "red-determiner")
    checked = 0
    for g in _random_graphs(7, 40, 11, 0.65):
        if g.m > 14:
            continue
        colourings = _colourings(g, problem)
        for u, v in g.edges:
            common = sum(1 for w in range(g.n) if g.has_edge(u, w) and g.has_edge(v, w))
            if (u, v) == (0, 1) or common > 2:
                continue
            rest = Graph(g.n, tuple(e for e in g.edges if e != (u, v)))
            restricted = {c - {(u, v)} for c in colourings}
            assert _colourings(rest, problem) == restricted, (g, (u, v))
            checked += common == 2
    assert checked > 5


def test_the_edge_rule_names_an_edge_in_too_few_triangles():
    problem = Problem.make("K3", "K4", "red-determiner")
    (layout,) = layouts(problem.gadget, 6)
    kn = Graph.complete(6)
    x = list(range(1, kn.m + 1))
    rule = ReducibleEdges.make(problem, layout, kn, x)
    assert rule is not None and rule.need == 3
    full = (1 << kn.m) - 1
    assert rule(full) is None  # in K6 every edge lies in 4 triangles
    without = full & ~(1 << kn.edge_id(2, 3)) & ~(1 << kn.edge_id(2, 4))
    clause = rule(without)
    assert clause is not None and clause[0] < 0
    t = -clause[0] - 1
    u, v = kn.edges[t]
    assert (u, v) != (0, 1)
    assert sorted(clause[1:]) == sorted(
        kn.edge_id(*e) + 1 for e in ((2, 3), (2, 4)) if u in e or v in e
    )
    assert ReducibleEdges.make(Problem.make("K3", "K4-e", "red-determiner"), layout, kn, x) is None


def _plain_edge_rule(rule: ReducibleEdges, edge_mask: int) -> list[int] | None:
    """The edge rule as the plain Python loop over K_n's edges it was before it was compiled."""
    adj = [0] * rule.n
    for t, (u, v) in enumerate(rule.edges):
        if edge_mask >> t & 1:
            adj[u] |= 1 << v
            adj[v] |= 1 << u
    for t, (u, v) in enumerate(rule.edges):
        if not edge_mask >> t & 1 or t in rule.skip or (adj[u] & adj[v]).bit_count() >= rule.need:
            continue
        clause = [-rule.x[t]]
        for end, other in ((u, v), (v, u)):
            for w in range(rule.n):
                if w != other and w != end and not adj[end] >> w & 1:
                    clause.append(rule.x[rule.ids[(min(end, w), max(end, w))]])
        return clause
    return None


@pytest.mark.parametrize("n,gadget", [(7, "red-determiner"), (14, "negative-sender")])
def test_the_compiled_edge_rule_gives_the_plain_loops_clause(n, gadget):
    problem = Problem.make("K3", "K4", gadget)
    kn = Graph.complete(n)
    x = list(range(1, kn.m + 1))
    rng = random.Random(n)
    seen = set()
    for layout in layouts(problem.gadget, n):
        rule = ReducibleEdges.make(problem, layout, kn, x)
        assert rule is not None
        for density in (0.5, 0.8, 0.95, 1.0):
            for _ in range(60):
                mask = sum(1 << t for t in range(kn.m) if rng.random() < density)
                clause = rule(mask)
                assert clause == _plain_edge_rule(rule, mask), (layout.name, mask)
                seen.add(clause is None)
    assert seen == {True, False}  # both verdicts met


def test_the_edge_rule_wants_k_ns_edges_in_lexicographic_order():
    with pytest.raises(ValueError, match="lexicographic"):
        ReducibleEdges(4, (1, 2), [(0, 2), (0, 1), (0, 3), (1, 2), (1, 3), (2, 3)], [1] * 6, set())


@pytest.mark.parametrize("gadget,blue", [("red-determiner", True), ("blue-determiner", False)])
def test_a_graph_with_a_low_endpoint_has_a_good_colouring_with_e_either_colour(gadget, blue):
    """The endpoint floor's core, (K3, K4): deg(1) below the floor and a good colouring ⇒ a good
    colouring with e blue (red-determiner) or red (blue-determiner): not a determiner."""
    problem = Problem.make("K3", "K4", gadget)
    (layout,) = layouts(problem.gadget, 7)
    floor = endpoint_floors(problem, layout, gadget_spec(problem, layout.designated))[1]
    checked = 0
    for g in _random_graphs(7, 80, 5, 0.7):
        at_one = [e for e in g.edges if 1 in e and e != (0, 1)]
        g = Graph(7, tuple(e for e in g.edges if e not in at_one[floor - 2 :]))
        assert g.degree(1) < floor
        if g.m > 15:
            continue
        colourings = _colourings(g, problem)
        if colourings:
            assert any(((0, 1) in c) != blue for c in colourings), g
            assert not verify(problem, Candidate(g, layout.designated)).correct
            checked += 1
    assert checked > 10


@pytest.mark.parametrize(
    "F,H,gadget,n",
    [
        ("K3", "K3", "red-determiner", 8),
        ("K3", "K3", "blue-determiner", 8),
        ("K3", "K3", "positive-sender", 7),
        ("K3", "K3", "negative-sender", 7),
        ("K3", "K4", "red-determiner", 10),
        ("K3", "K4", "blue-determiner", 10),
    ],
)
def test_the_finder_with_and_without_the_bound_agrees(F, H, gadget, n, monkeypatch):
    problem = Problem.make(F, H, gadget)
    options = SearchOptions(max_vertices=n, engine="lazy")
    with_bound = solve(problem, options)
    monkeypatch.setattr(
        LayoutFinder.__init__,
        "__kwdefaults__",
        {
            **LayoutFinder.__init__.__kwdefaults__,
            "degree_bound": False,
        },
    )
    without = solve(problem, options)
    assert (with_bound.status, with_bound.n, with_bound.m, with_bound.lower_bound) == (
        without.status,
        without.n,
        without.m,
        without.lower_bound,
    )


def _clique_through(g: Graph, e: tuple[int, int], s: int) -> bool:
    edges = set(g.edges)
    rest = [w for w in range(g.n) if w not in e]
    return any(
        all(p in edges for p in combinations(sorted((*e, *others)), 2))
        for others in combinations(rest, s - 2)
    )


def _through(F: str, H: str, gadget: str, layout_index: int = 0) -> dict:
    problem = Problem.make(F, H, gadget)
    layout = layouts(problem.gadget, 8)[layout_index]
    return through_cliques(problem, layout, gadget_spec(problem, layout.designated))


def test_the_through_rule_names_the_bad_colours_clique():
    assert _through("K3", "K4", "blue-determiner") == {(0, 1): 3}
    assert _through("K3", "K4", "red-determiner") == {(0, 1): 4}
    # only the flipped-to colour's pattern must be complete: K3 for (K3, K4−e)'s blue-determiner
    assert _through("K3", "K4-e", "blue-determiner") == {(0, 1): 3}
    assert _through("K3", "K4-e", "red-determiner") == {}
    assert _through("P3", "K3", "blue-determiner") == {}
    # senders: each designated edge in a K_f and a K_h (both witnesses flip to both bad ones)
    for gadget in ("positive-sender", "negative-sender"):
        for index in (0, 1):
            designated = layouts(Problem.make("K3", "K4", gadget).gadget, 8)[index].designated
            assert _through("K3", "K4", gadget, index) == dict.fromkeys(designated.edges, 4)
        assert _through("K3", "K4-e", gadget) == dict.fromkeys(((0, 1), (1, 2)), 3)
    assert _through("K1,3", "K3", "clause") == {}


@pytest.mark.parametrize("s", [3, 4])
def test_the_edge_through_clauses_hold_exactly_when_e_lies_in_a_clique(s):
    n, e = 6, (0, 1)
    pairs = list(Graph.complete(n).edges)
    var = {p: i + 1 for i, p in enumerate(pairs)}
    clauses, _ = clique_through_clauses(n, e, s, lambda u, v: var[(u, v)], len(pairs))
    with Solver(name="minisat22", bootstrap_with=clauses) as solver:
        for g in _random_graphs(n, 150, 11 + s, 0.6):
            present = set(g.edges)
            assumptions = [var[p] if p in present else -var[p] for p in pairs]
            assert solver.solve(assumptions=assumptions) == _clique_through(g, e, s), g


@pytest.mark.parametrize(
    "F,H,gadget,edge,s",
    [
        ("K3", "K4", "blue-determiner", (0, 1), 3),
        ("K3", "K4", "red-determiner", (0, 1), 4),
        ("K3", "K3", "red-determiner", (0, 1), 3),
        ("K3", "K4", "positive-sender", (1, 2), 4),
        ("K3", "K4", "negative-sender", (0, 1), 4),
        ("K3", "K3", "negative-sender", (1, 2), 3),
    ],
)
def test_a_designated_edge_in_no_clique_of_its_rule_makes_no_gadget(F, H, gadget, edge, s):
    """The rule's core on brute-forced graphs: with ``edge`` in no K_s, some witness can be
    re-coloured into a bad good colouring, so the verifier rejects the graph."""
    problem = Problem.make(F, H, gadget)
    layout = layouts(problem.gadget, 7)[0]
    assert through_cliques(problem, layout, gadget_spec(problem, layout.designated))[edge] == s
    designated = set(layout.designated.edges)
    checked = 0
    for g in _random_graphs(7, 150, 17, 0.75):
        g = Graph(7, tuple(sorted(set(g.edges) | designated)))
        while _clique_through(g, edge, s):  # drop an edge of a K_s through it, off the items
            g = Graph(7, tuple(x for x in g.edges if x != _breakable(g, edge, s, designated)))
        if g.m > 15:
            continue
        good = good_coloring_masks(g, problem.F, problem.H)  # brute force over 2^m …
        if good.size:
            bad = gadget_spec(problem, layout.designated).bad
            assert any(_meets(good, g, condition).any() for condition in bad), g  # … meets one
            assert not verify(problem, Candidate(g, layout.designated)).correct, g  # … and SAT
            checked += 1
    assert checked > 10


def _breakable(g: Graph, edge: tuple[int, int], s: int, keep: set) -> tuple[int, int]:
    """An edge of a K_s through ``edge`` that is not in ``keep``."""
    rest = [w for w in range(g.n) if w not in edge]
    for others in combinations(rest, s - 2):
        clique = sorted((*edge, *others))
        inside = list(combinations(clique, 2))
        if all(p in set(g.edges) for p in inside):
            return next(p for p in inside if p not in keep)
    raise AssertionError("no K_s through the edge")
