"""The clique bound (the least complete graph without a good colouring, the finder without it) and the exists backend on large levels."""

from __future__ import annotations

from itertools import combinations
from math import comb

import pytest

from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.problem import Problem
from ramseygadgets.search import exists, find_solution, solve
from ramseygadgets.search import multi as multi_search
from ramseygadgets.search.cegar import LayoutFinder
from ramseygadgets.search.cliques import (
    MAX_CLIQUE_CLAUSES,
    arrowing_clique,
    clique_free_clauses,
)
from ramseygadgets.search.dataset import METHOD, search_method
from ramseygadgets.search.minimal import solve_minimal
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.search.oracle import (
    DEFAULT_SEARCH_SOLVER,
    LARGE_LEVEL,
    LARGE_LEVEL_SOLVER,
    ORACLE_SOLVER,
    finder_solver,
)
from ramseygadgets.search.spec import layouts
from ramseygadgets.verification import bruteforce_multi as multi_bruteforce
from ramseygadgets.verification.bruteforce import good_coloring_masks

PAIRS = [("K3", "K3"), ("K3", "P3"), ("C4", "C4"), ("P3", "K4-e"), ("K1,3", "C4"), ("K1,3", "P4")]


def _colorable_by_brute_force(problem: Problem, r: int) -> bool:
    """Whether K_r has a good colouring, over all c^m colourings (independent of SAT)."""
    kr = Graph.complete(r)
    if problem.is_pair:
        return len(good_coloring_masks(kr, problem.F, problem.H)) > 0
    return len(multi_bruteforce.good_colorings(kr, problem.spec)) > 0


@pytest.mark.parametrize("pair", PAIRS)
def test_the_least_arrowing_clique_agrees_with_brute_force(pair):
    problem = Problem.make(*pair, "red-determiner")
    r = arrowing_clique(problem, 6)
    assert r is not None, pair  # each of these has R(F, H) ≤ 6
    assert not _colorable_by_brute_force(problem, r), pair
    assert _colorable_by_brute_force(problem, r - 1), pair


def test_three_colors_whose_classes_are_matchings():
    """Each colour avoids P3, so K_r needs a proper 3-edge-colouring: K4 has one, K5 not."""
    problem = Problem.of_colors("P3 | P3 | P3", "red-determiner")
    assert arrowing_clique(problem, 8) == 5
    assert _colorable_by_brute_force(problem, 4) and not _colorable_by_brute_force(problem, 5)


def test_classical_ramsey_numbers():
    assert arrowing_clique(Problem.make("K3", "K3", "positive-sender"), 10) == 6
    assert arrowing_clique(Problem.make("K3", "K4", "red-determiner"), 12) == 9
    assert arrowing_clique(Problem.make("K3", "K4-e", "red-determiner"), 12) == 7


def test_no_bound_below_the_ramsey_number_or_without_enough_conflicts():
    problem = Problem.make("K3", "K4", "blue-determiner")
    assert arrowing_clique(problem, 8) is None  # K8 has a good colouring
    assert arrowing_clique(problem, 9, conflicts=1) is None  # undecided: no bound, still exact


def test_one_clause_per_vertex_set_and_none_beyond_the_cap():
    var = {(u, v): 1 + u * 20 + v for u in range(20) for v in range(u + 1, 20)}
    clauses = clique_free_clauses(7, 4, lambda u, v: var[u, v])
    assert len(clauses) == comb(7, 4)
    for clause, vs in zip(clauses, combinations(range(7), 4)):
        assert clause == [-var[e] for e in combinations(vs, 2)]
    too_many = next(k for k in range(3, 20) if comb(20, k) > MAX_CLIQUE_CLAUSES)
    assert clique_free_clauses(20, too_many, lambda u, v: var[u, v]) == []


@pytest.fixture
def without_bound(monkeypatch):
    def switch_off() -> None:
        for module in (exists, multi_search):
            monkeypatch.setattr(module, "arrowing_clique", lambda problem, n: None)

    return switch_off


def test_the_bound_removes_the_k9_arrowing_proofs(without_bound):
    """(K3,K4) red-determiner on 10 vertices: without the bound every arrowing lemma the lazy
    engine learns is a K9 proved again; with it there are none, and the verdict is the same."""
    problem = Problem.make("K3", "K4", "red-determiner")
    bounded = find_solution(problem, 10, SearchOptions(engine="lazy", minimize_edges=False))
    without_bound()
    plain = find_solution(problem, 10, SearchOptions(engine="lazy", minimize_edges=False))
    assert bounded.status == plain.status == "none-up-to-limit"
    assert plain.levels[-1].arrowing > 0
    assert bounded.levels[-1].arrowing == 0


@pytest.mark.parametrize(
    "colors, gadget",
    [
        (("K3", "K4-e"), "blue-determiner"),  # lazy engine, R = 7 below the minimum
        (("K1,3", "C4"), "positive-sender"),  # eager engine (F a star), R = 6
        ("P3 | P3 | K1,3", "positive-sender"),  # three colours, R = 5
    ],
)
def test_the_bound_changes_no_minimum(colors, gadget, without_bound):
    problem = (
        Problem.of_colors(colors, gadget)
        if isinstance(colors, str)
        else Problem.make(*colors, gadget)
    )
    bounded = solve_minimal(problem, SearchOptions(max_vertices=9))
    without_bound()
    plain = solve_minimal(problem, SearchOptions(max_vertices=9))
    assert bounded.status == plain.status == "found", (bounded.status, plain.status)
    assert (bounded.n, bounded.m) == (plain.n, plain.m)
    assert bounded.lower_bound == plain.lower_bound


def test_large_levels_run_the_exists_part_on_cadical_unless_a_backend_is_named():
    """``auto`` (the default) runs MiniSat below LARGE_LEVEL vertices and CaDiCaL from there; a
    named backend stays, MiniSat included (once it could not be asked for at 13 vertices: its
    name was the default's)."""
    assert finder_solver(DEFAULT_SEARCH_SOLVER, LARGE_LEVEL - 1) == ORACLE_SOLVER
    assert finder_solver(DEFAULT_SEARCH_SOLVER, LARGE_LEVEL) == LARGE_LEVEL_SOLVER
    assert finder_solver("glucose4", LARGE_LEVEL + 1) == "glucose4"
    assert finder_solver(ORACLE_SOLVER, LARGE_LEVEL + 1) == ORACLE_SOLVER
    problem = Problem.make("K3", "K4", "red-determiner")
    layout = layouts(problem.kind, LARGE_LEVEL)[0]
    for solver, backend in (
        (DEFAULT_SEARCH_SOLVER, LARGE_LEVEL_SOLVER),
        (ORACLE_SOLVER, ORACLE_SOLVER),
    ):
        finder = LayoutFinder(problem, LARGE_LEVEL, layout, solver=solver)
        assert type(finder.model.solver.solver).__name__.lower() == backend
        finder.close()


def test_a_record_names_the_backends_its_levels_ran_on():
    assert search_method(LARGE_LEVEL - 1) == METHOD and ORACLE_SOLVER in METHOD
    assert LARGE_LEVEL_SOLVER in search_method(LARGE_LEVEL)


@pytest.mark.parametrize(
    "args", [("K3", "K4-e", "blue-determiner"), ("K3", "P4", "negative-sender")]
)
def test_cadical_as_the_exists_backend_gives_the_same_minimum(args):
    problem = Problem.make(*args)
    default = solve_minimal(problem, SearchOptions(max_vertices=9))
    cadical = solve(problem, SearchOptions(max_vertices=9, solver=LARGE_LEVEL_SOLVER))
    assert (default.n, default.m, default.lower_bound) == (
        cadical.n,
        cadical.m,
        cadical.lower_bound,
    )
