"""The CEGAR finder and solve(): exact answers, minimality proofs, soundness of every lemma."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from ramseygadgets.core.gadgets import Candidate, GadgetType
from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.catalog import Problem, all_problems, get_problem
from ramseygadgets.problems.solutions import load_solutions
from ramseygadgets.search import SearchError, find_solution, solve
from ramseygadgets.search.cegar import KnCopies, LayoutFinder
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.search.spec import layouts
from ramseygadgets.verification.bruteforce import brute_force_verify
from ramseygadgets.verification.verifier import verify


@pytest.fixture(scope="module")
def solved() -> dict[str, object]:
    return {p.id: solve(p) for p in all_problems()}


def test_solve_proves_every_shipped_minimum(solved):
    shipped = load_solutions()
    assert len(solved) == 70
    for pid, result in solved.items():
        assert result.status == "found", pid
        assert result.lower_bound == result.n, f"{pid}: vertex count not proven minimal"
        assert result.edges_minimal, pid
        assert verify(result.problem, result.candidate).correct, pid
        assert (result.n, result.m) == (shipped[pid].n, shipped[pid].m), pid
        # the level below the answer was decided as "none" (the UNSAT proof)
        assert [lv.outcome for lv in result.levels][-2:] == [
            "none",
            "found",
        ] or result.n == result.levels[0].n


def test_minimal_sizes_agree_with_the_paper(solved):
    sizes = {pid: r.n for pid, r in solved.items()}
    assert max(sizes.values()) == 10
    assert min(sizes.values()) == 4
    assert sum(n >= 8 for n in sizes.values()) == 8
    assert sizes["k13_k4_red_determiner"] == 10 and sizes["k13_k4_blue_determiner"] == 10


def test_find_solution_decides_one_vertex_count():
    p = get_problem("p3_k3_red_determiner")
    below = find_solution(p, 4, SearchOptions(minimize_edges=False))
    assert below.status == "none-up-to-limit" and below.candidate is None and below.lower_bound == 5
    at = find_solution(p, 5, SearchOptions(minimize_edges=False))
    assert at.status == "found" and at.n == 5 and verify(p, at.candidate).correct
    above = find_solution(p, 7, SearchOptions(minimize_edges=True))  # solutions are monotone in n
    assert above.status == "found" and above.n == 7 and above.edges_minimal
    assert above.m == solve(p).m  # extra vertices never help with edges: isolated vertices


def test_none_up_to_limit_reports_the_proven_bound():
    result = solve("k13_k4_red_determiner", SearchOptions(max_vertices=8))
    assert result.status == "none-up-to-limit" and result.candidate is None
    assert result.lower_bound == 9
    assert "not found within limits" in result.describe()


def test_timeout_gives_a_clear_result():
    problem = Problem.make("K3", "K4", "negative-sender")  # none up to 13, a minute at 12
    result = solve(problem, SearchOptions(timeout=0.5, min_vertices=11, max_vertices=14))
    assert result.status == "timeout"
    assert result.seconds < 5
    assert "time limit" in result.describe()


def test_bad_limits_are_refused():
    with pytest.raises(SearchError):
        solve("p3_k3_red_determiner", SearchOptions(max_vertices=0))
    with pytest.raises(SearchError):
        solve("p3_k3_red_determiner", SearchOptions(timeout=-1))


def test_pairs_outside_the_catalog():
    for F, H, gadget in (
        ("P3", "C5", "blue-determiner"),
        ("K1,3", "P5", "positive-sender"),
        ("K1,4", "K3", "variable-gadget"),
    ):
        problem = Problem.make(F, H, gadget)
        result = solve(problem, SearchOptions(max_vertices=9, timeout=60))
        assert result.status == "found", problem.title
        assert verify(problem, result.candidate).correct


# Problems that take well under a second; every gadget type and both F.
SEEDED = [
    "p3_k3_red_determiner",
    "p3_k3_blue_determiner",
    "p3_k13_red_determiner",
    "p3_c4_negative_sender",
    "p3_c4_clause_gadget",
    "p3_c4_variable_gadget",
    "p3_k4e_clause_gadget",
    "p3_k4_blue_determiner",
    "k13_k3_positive_sender",
    "k13_k3_clause_gadget",
    "k13_k3_variable_gadget",
    "k13_p4_negative_sender",
    "k13_p4_variable_gadget",
    "k13_c4_positive_sender",
    "k13_c4_negative_sender",
    "k13_tk3_clause_gadget",
    "k13_k4e_variable_gadget",
    "k13_k4_clause_gadget",
    "p3_p4_positive_sender",
    "k13_k4e_red_determiner",
]


def test_random_symmetry_seeds_never_yield_a_rejected_graph():
    """Different variable orders: the same minimal (n, m), and every answer passes both verifiers."""
    rng = random.Random(20240601)
    shipped = load_solutions()
    runs = 0
    for pid in SEEDED:
        problem = get_problem(pid)
        for _ in range(6):
            result = solve(problem, SearchOptions(seed=rng.randrange(1 << 30)))
            runs += 1
            assert verify(problem, result.candidate).correct, pid
            assert (result.n, result.m) == (shipped[pid].n, shipped[pid].m), pid
            graph, designated = result.candidate.graph, result.candidate.designated
            if graph.m <= 11:
                assert brute_force_verify(
                    graph, problem.F, problem.H, problem.gadget, designated
                ), pid
    assert runs == 120


def _all_graphs_with(n: int, required: tuple[tuple[int, int], ...]):
    kn = Graph.complete(n)
    optional = [e for e in kn.edges if e not in required]
    for r in range(len(optional) + 1):
        for extra in combinations(optional, r):
            yield Graph(n, tuple(required) + extra)


@pytest.mark.parametrize(
    "pid,n",
    [
        ("p3_k3_red_determiner", 5),
        ("p3_k3_negative_sender", 5),
        ("p3_p4_red_determiner", 5),
        ("k13_p4_blue_determiner", 5),
        ("k13_p4_variable_gadget", 5),
        ("p3_k4e_clause_gadget", 5),
        ("p3_c4_variable_gadget", 4),
    ],
)
def test_every_lemma_holds_for_every_solution(pid, n):
    """Brute force over all graphs on n vertices: no lemma the finder learns excludes a solution."""
    problem = get_problem(pid)
    kn = Graph.complete(n)
    for layout in layouts(problem.kind, n):
        finder = LayoutFinder(problem, n, layout, copies=KnCopies(problem, n), record_lemmas=True)
        best = finder.find()
        while best is not None:  # minimise edges too: more lemmas
            best = finder.find(max_edges=best.m - 1)
        lemmas = finder.model.lemmas
        finder.close()
        solutions = [
            g
            for g in _all_graphs_with(n, layout.designated.edges)
            if verify(problem, Candidate(g, layout.designated)).correct
        ]
        for g in solutions:
            mask = sum(1 << kn.edge_id(u, v) for u, v in g.edges)
            for lemma in lemmas:
                assert any(copy & ~mask == 0 for copy in lemma), (pid, layout.name, g)
        if solutions:
            assert lemmas is not None


def _same_roles(gadget: GadgetType, a, b) -> bool:
    """Designated items a and b are interchangeable under the gadget definition's own symmetries."""
    if gadget in (GadgetType.RED_DETERMINER, GadgetType.BLUE_DETERMINER):
        return a.edges == b.edges
    if gadget in (GadgetType.POSITIVE_SENDER, GadgetType.NEGATIVE_SENDER):
        return set(a.edges) == set(b.edges)
    if gadget is GadgetType.CLAUSE:
        return set(a.vertices) == set(b.vertices)
    return set(a.vertices[:2]) == set(b.vertices[:2]) and a.vertices[2] == b.vertices[2]


def _relabel(candidate: Candidate, perm) -> tuple[Graph, object]:
    from ramseygadgets.core.gadgets import Designated

    g = Graph(
        candidate.graph.n,
        tuple(tuple(sorted((perm[u], perm[v]))) for u, v in candidate.graph.edges),
    )
    d = candidate.designated
    return g, Designated(
        tuple(tuple(sorted((perm[u], perm[v]))) for u, v in d.edges),
        tuple(perm[x] for x in d.vertices),
    )


def _placements(solution: Candidate, target, n: int):
    """Vertex permutations that move the solution's designated vertices onto ``target``'s."""
    from itertools import permutations

    d = solution.designated
    source = sorted({x for e in d.edges for x in e} | set(d.vertices))
    goal = sorted({x for e in target.edges for x in e} | set(target.vertices))
    if len(source) != len(goal):
        return
    rest_from = [v for v in range(n) if v not in source]
    rest_to = [v for v in range(n) if v not in goal]
    for images in permutations(goal):
        for tail in permutations(rest_to):
            perm = [0] * n
            for a, b in zip(source + rest_from, list(images) + list(tail)):
                perm[a] = b
            yield perm


@pytest.mark.parametrize(
    "pid",
    [
        "k13_k3_red_determiner",
        "k13_c4_negative_sender",
        "k13_k3_clause_gadget",
        "k13_c4_variable_gadget",
        "p3_k4e_negative_sender",
        "p3_k4_blue_determiner",
    ],
)
def test_lemmas_hold_for_every_placement_of_known_solutions(pid):
    """Lemmas from seeded runs never exclude any relabelling of any solution those runs found."""
    problem = get_problem(pid)
    n = load_solutions()[pid].n
    lemmas: dict[str, list[list[int]]] = {}
    solutions: list[Candidate] = []
    for seed in (1, 2, 3):
        for layout in layouts(problem.kind, n):
            finder = LayoutFinder(problem, n, layout, seed=seed, record_lemmas=True)
            best = finder.find()
            while best is not None:
                solutions.append(Candidate(best, layout.designated))
                best = finder.find(max_edges=best.m - 1)
            lemmas.setdefault(layout.name, []).extend(finder.model.lemmas)
            finder.close()
    assert solutions and sum(map(len, lemmas.values())) >= 10
    kn = Graph.complete(n)
    checked = 0
    for layout in layouts(problem.kind, n):
        for solution in solutions:
            for perm in _placements(solution, layout.designated, n):
                graph, designated = _relabel(solution, perm)
                if not _same_roles(problem.gadget, designated, layout.designated):
                    continue
                mask = sum(1 << kn.edge_id(u, v) for u, v in graph.edges)
                for lemma in lemmas[layout.name]:
                    assert any(copy & ~mask == 0 for copy in lemma), (pid, n, layout.name)
                checked += 1
    assert checked >= len(solutions)


def test_a_twelve_vertex_minimum_beyond_enumeration():
    """(K1,4, K4)-variable gadget: no solution on 11 vertices, one on 12 (about 3 s)."""
    problem = Problem.make("K1,4", "K4", "variable-gadget")
    result = solve(problem, SearchOptions(timeout=120))
    assert result.status == "found" and result.n == 12 and result.lower_bound == 12
    assert verify(problem, result.candidate).correct


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_eleven_and_thirteen_vertex_minima():
    for F, H, gadget, n in (
        ("P3", "K6", "red-determiner", 11),
        ("K1,3", "K5", "red-determiner", 13),
    ):
        problem = Problem.make(F, H, gadget)
        result = solve(problem, SearchOptions(max_vertices=13, timeout=600))
        assert result.status == "found" and result.n == n and result.lower_bound == n, problem.title
        assert verify(problem, result.candidate).correct


@pytest.mark.parametrize("engine", ["lazy", "eager"])
def test_a_reset_finder_restricted_by_unit_clauses_answers_as_with_assumptions(engine):
    """What a cube runs (:meth:`LayoutFinder.reset`, then the cube and the edge bound as unit
    clauses) finds what the same restriction as assumptions finds, and nothing kept leaks over."""
    problem = get_problem("p3_k3_red_determiner")
    n = 5
    layout = layouts(problem.kind, n)[0]
    with LayoutFinder(problem, n, layout, engine=engine) as finder:
        best = finder.find()
        assert best is not None
        fewest = best.m
        while (smaller := finder.find(max_edges=fewest - 1)) is not None:
            fewest = smaller.m
        for cap, expect in ((fewest - 1, False), (fewest, True)):
            finder.reset()
            finder.restrict([], max_edges=cap)
            found = finder.find()
            assert (found is not None) is expect
            assert found is None or found.m <= cap
        t = finder.kn.edge_id(*layout.designated.edges[0])
        finder.reset()
        finder.restrict([(t, False)])  # a designated edge absent: no graph at all
        assert finder.find() is None
        finder.reset()  # and the restriction is gone again
        assert finder.find() is not None
