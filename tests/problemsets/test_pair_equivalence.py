"""Two colours with one forbidden graph each: the multi-colour code gives exactly the core's
results on the same :class:`~ramseygadgets.problems.problem.Problem`: same CNF, same verdicts, same
minimal (n, m), same gadgets found inside every small graph."""

from __future__ import annotations

import random

import pytest

from ramseygadgets.colorings.multi import MultiColorings
from ramseygadgets.colorings.red_blue import GoodColorings
from ramseygadgets.colorings.spec import ColoringSpec
from ramseygadgets.core.gadgets import Candidate, Designated, GadgetKind
from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.catalog import all_problems, get_problem, paper_pairs
from ramseygadgets.problems.problem import Problem
from ramseygadgets.problems.solutions import load_solutions
from ramseygadgets.search.exhaustive import gadgets_in_graph, iter_graphs, nauty_available
from ramseygadgets.search.multi import solve_multi
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.verification.gadget_census import gadgets_in_graph_multi
from ramseygadgets.verification.verifier import verify

PAIR_PROBLEMS = [p for p in all_problems() if not p.kind.is_hardness]


def _random_graph(rng: random.Random, n: int, p: float) -> Graph:
    return Graph(n, tuple((u, v) for u in range(n) for v in range(u + 1, n) if rng.random() < p))


def test_the_52_determiner_and_sender_problems_map_to_the_same_ids():
    assert len(PAIR_PROBLEMS) == 52
    for p in PAIR_PROBLEMS:
        multi = Problem.of_colors(p.spec.to_json(), p.gadget_name)  # colours as pattern lists
        assert multi == p and multi.id == p.id and multi.title == p.title and p.is_pair
        assert Problem.from_json(p.to_json()) == p
        assert Problem.from_json({"colors": p.spec.to_json(), "gadget": p.gadget_name}) == p


def test_the_cnf_of_a_pair_is_literally_the_core_cnf():
    rng = random.Random(8)
    graphs = [s.candidate.graph for s in load_solutions().values()]
    graphs += [_random_graph(rng, rng.randint(3, 9), rng.random()) for _ in range(60)]
    for F, H in paper_pairs():
        spec = ColoringSpec.pair(F, H)
        for graph in graphs[::3]:
            assert (
                MultiColorings(graph, spec).clauses == GoodColorings(graph, spec.F, spec.H).clauses
            )


def test_verdicts_agree_with_the_core_on_every_shipped_solution_and_its_near_misses():
    rng = random.Random(70)
    compared = 0
    for p in PAIR_PROBLEMS:
        solution = load_solutions()[p.id].candidate
        candidates = [solution]
        graph = solution.graph
        for _ in range(6):  # other designated edges on the same graph
            picks = rng.sample(graph.edges, len(solution.designated.edges))
            candidates.append(Candidate(graph, Designated(tuple(picks))))
        for _ in range(3):  # the graph with one edge removed
            edges = list(graph.edges)
            keep = set(solution.designated.edges)
            drop = rng.choice([e for e in edges if e not in keep])
            candidates.append(
                Candidate(Graph(graph.n, tuple(e for e in edges if e != drop)), solution.designated)
            )
        for c in candidates:
            core, mine = verify(p, c), verify(p, c, encoding="colors")
            assert (mine.correct, mine.check) == (core.correct, core.check), (p.id, c)
            compared += 1
        assert verify(p, solution, encoding="colors").correct
    assert compared == 52 * 10


def test_verdicts_agree_on_random_candidates():
    rng = random.Random(3)
    for _ in range(400):
        p = rng.choice(PAIR_PROBLEMS)
        graph = _random_graph(rng, rng.randint(3, 8), rng.uniform(0.3, 0.9))
        if graph.m < 2:
            continue
        designated = Designated(tuple(rng.sample(graph.edges, len(p.kind.edge_names))))
        core, mine = (
            verify(p, graph, designated),
            verify(p, graph, designated, encoding="colors"),
        )
        assert (mine.correct, mine.check) == (core.correct, core.check)


def test_search_finds_the_shipped_minimum_for_every_pair_problem_up_to_six_vertices():
    shipped = load_solutions()
    small = [p for p in PAIR_PROBLEMS if shipped[p.id].n <= 6]
    assert len(small) >= 25
    for p in small:
        result = solve_multi(p, SearchOptions(max_vertices=shipped[p.id].n))
        assert (
            result.status == "found" and result.edges_minimal and result.lower_bound == result.n
        ), p.id
        assert (result.n, result.m) == (shipped[p.id].n, shipped[p.id].m), p.id


@pytest.mark.slow
def test_search_finds_the_shipped_minimum_for_all_52_pair_problems():
    shipped = load_solutions()
    for p in PAIR_PROBLEMS:
        result = solve_multi(p, SearchOptions(max_vertices=shipped[p.id].n))
        assert (result.n, result.m, result.lower_bound) == (
            shipped[p.id].n,
            shipped[p.id].m,
            shipped[p.id].n,
        ), p.id


@pytest.mark.skipif(not nauty_available(), reason="nauty (geng, listg) is not installed")
def test_gadgets_inside_every_graph_up_to_six_vertices_agree_with_the_core_scan():
    checked = 0
    for F, H in paper_pairs():
        spec = ColoringSpec.pair(F, H)
        problems = [
            Problem(spec, GadgetKind.DETERMINER, 0),
            Problem(spec, GadgetKind.DETERMINER, 1),
            Problem(spec, GadgetKind.POSITIVE_SENDER),
            Problem(spec, GadgetKind.NEGATIVE_SENDER),
        ]
        for n in range(2, 7):
            for graph in iter_graphs(n, 1, n * (n - 1) // 2, connected=False, min_degree=1):
                core = gadgets_in_graph(graph, spec.F, spec.H, [p.gadget for p in problems])
                mine = gadgets_in_graph_multi(graph, problems)
                checked += 1
                if core is None:
                    assert mine is None
                    continue
                assert set(core) == {p.gadget for p in problems if p.id in mine}, (F, H, graph)
                for p in problems:
                    if p.id in mine:
                        assert verify(get_problem(p.id), graph, mine[p.id]).correct
    assert checked == 13 * 155  # graphs on 2..6 vertices without isolated vertices: 1+2+7+23+122
