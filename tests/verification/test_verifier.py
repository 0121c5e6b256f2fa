"""Verifier: designated-item rules, verdict fields, reasons and witnesses on hand-checked graphs."""

from __future__ import annotations

from itertools import combinations

import pytest

from ramseygadgets.colorings.red_blue import GoodColorings
from ramseygadgets.core.errors import InputError
from ramseygadgets.core.gadgets import Candidate, Designated, GadgetType
from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.catalog import Problem, get_problem
from ramseygadgets.problems.extended import three_color_entries
from ramseygadgets.problems.solutions import get_solution
from ramseygadgets.verification.verifier import (
    Verdict,
    check_designated,
    verify,
    verify_clause,
    verify_determiner,
    verify_sender,
)

K4 = Graph.complete(4)
TRIANGLE = Graph.complete(3)
PATH = Graph(4, ((0, 1), (1, 2), (2, 3)))


def test_k4_is_a_k13_k4_clause_gadget() -> None:
    # K1,3 forbidden in red: red degrees ≤ 2; K4 forbidden in blue: some edge red.  Every edge of
    # K4 touches 0, 1 or 2, so "0, 1, 2 all enforced" (no red edge there) means all blue: bad.
    problem = get_problem("k13_k4_clause_gadget")
    verdict = verify(problem, K4, Designated(vertices=(0, 1, 2)))
    assert verdict.correct and verdict.check == "ok" and verdict.witness is None
    assert "never all enforced" in verdict.reason
    # the same vertices as a variable gadget fail, with a witness coloring
    wrong = verify(get_problem("k13_k4_variable_gadget"), K4, Designated(vertices=(0, 1, 2)))
    assert not wrong.correct and wrong.check == "gadget"


def test_clause_gadget_with_an_isolated_vertex_misses_patterns() -> None:
    # (K1,3, K3) on a triangle 0-1-2 plus an isolated vertex 3, designated (0, 1, 3): 0 and 1 are
    # never both enforced (the triangle would be blue), and the isolated 3 is always enforced, so
    # "i1 enforced, i2 enforced, i3 not enforced" (the first pattern checked) never occurs.
    g = Graph(4, TRIANGLE.edges)
    verdict = verify(get_problem("k13_k3_clause_gadget"), g, Designated(vertices=(0, 1, 3)))
    assert not verdict.correct and verdict.check == "gadget" and verdict.witness is None
    assert verdict.reason == "no good coloring has i1 enforced, i2 enforced, i3 not enforced"
    assert verdict.details["missing_pattern"] == {"i1": True, "i2": True, "i3": False}
    assert verdict.to_json()["missing_pattern"] == verdict.details["missing_pattern"]
    # with the isolated vertex 3 among K4's designated vertices, all three can be enforced at once
    wrong = verify(
        get_problem("k13_k4_clause_gadget"), Graph(5, K4.edges), Designated(vertices=(0, 1, 4))
    )
    assert not wrong.correct and wrong.witness is not None
    assert all(wrong.witness.red_degree(v) == 0 for v in (0, 1, 4))


def test_determiner_witness_shows_the_edge_in_the_other_color() -> None:
    problem = get_problem("k13_k3_red_determiner")
    verdict = verify(problem, TRIANGLE, Designated(((0, 1),)))
    assert not verdict.correct and verdict.check == "gadget"
    assert verdict.reason == "edge e = 0-1 is blue in some good coloring, so it is not always red"
    assert verdict.witness is not None and verdict.witness.color_of(0, 1) == "blue"
    with GoodColorings(TRIANGLE, problem.F, problem.H) as sat:  # the witness is a good coloring
        red = [i + 1 if r else -(i + 1) for i, r in enumerate(verdict.witness.red)]
        assert sat.solve(red) is not None


def test_forced_edge_is_a_determiner() -> None:
    # (P3, P4): red edges form a matching and no P4 is all blue.  On the path 0-1-2-3 the good
    # colorings are {0-1, 2-3}, {1-2}, {0-1}, {2-3} red: nothing is forced.  The determiner
    # verdicts must agree edge by edge with the solver's forced edges (found by a different route).
    problem = get_problem("p3_p4_red_determiner")
    for graph in (PATH, Graph(5, ((0, 1), (1, 2), (2, 3), (3, 4), (1, 3)))):
        with GoodColorings(graph, problem.F, problem.H) as sat:
            forced = sat.forced_edges()
        if graph == PATH:
            assert forced.red == () and forced.blue == ()
        for e in graph.edges:
            assert verify(problem, graph, Designated((e,))).correct == (e in forced.red)
            blue = verify(get_problem("p3_p4_blue_determiner"), graph, Designated((e,)))
            assert blue.correct == (e in forced.blue)


def test_not_good_graph() -> None:
    k6 = Graph.complete(6)
    verdict = verify(Problem.make("K3", "K3", "red-determiner"), k6, Designated(((0, 1),)))
    assert not verdict.correct and verdict.check == "good" and verdict.witness is None
    assert verdict.reason.startswith("G is not (K3, K3)-good")


@pytest.mark.parametrize(
    "gadget, designated, words",
    [
        (
            GadgetType.RED_DETERMINER,
            Designated(((0, 5),)),
            "designated edge e = 0-5 is not an edge",
        ),
        (GadgetType.RED_DETERMINER, Designated(((1, 1),)), "is not an edge"),
        (GadgetType.RED_DETERMINER, Designated(), "needs 1 designated edge"),
        (GadgetType.POSITIVE_SENDER, Designated(((0, 1),)), "needs 2 designated edge"),
        (GadgetType.NEGATIVE_SENDER, Designated(((0, 1), (0, 1))), "must be distinct edges"),
        (GadgetType.NEGATIVE_SENDER, Designated(((0, 1), (2, 3))), "f = 2-3 is not an edge"),
        (GadgetType.CLAUSE, Designated(vertices=(0, 1)), "needs 3 designated vertices"),
        (GadgetType.CLAUSE, Designated(vertices=(0, 1, 1)), "must be distinct"),
        (
            GadgetType.VARIABLE,
            Designated(vertices=(0, 1, 7)),
            "n1 = 7 is not a vertex of the graph",
        ),
    ],
)
def test_designated_items_are_checked_first(
    gadget: GadgetType, designated: Designated, words: str
) -> None:
    problem = Problem.make("K1,3", "K4", gadget)
    verdict = verify(problem, TRIANGLE, designated)
    assert not verdict.correct and verdict.check == "designated" and words in verdict.reason
    assert check_designated(TRIANGLE, gadget, designated) == verdict.reason


def test_verify_accepts_a_candidate_or_graph_and_items() -> None:
    problem = get_problem("k13_k4_clause_gadget")
    candidate = Candidate(K4, Designated(vertices=(2, 0, 1)))
    assert verify(problem, candidate) == verify(problem, K4, Designated(vertices=(2, 0, 1)))


def test_verdict_json_fields() -> None:
    verdict = verify(
        get_problem("k13_k3_positive_sender"),
        Graph(3, ((0, 1), (1, 2))),
        Designated(((0, 1), (1, 2))),
    )
    data = verdict.to_json()
    assert set(data) >= {"correct", "reason", "check", "witness"}
    assert data["correct"] is False and data["check"] == "gadget"
    assert data["witness"] is not None and set(data["witness"]) == {"red", "blue"}
    red, blue = data["witness"]["red"], data["witness"]["blue"]
    assert ([0, 1] in red) != ([1, 2] in red) and len(red) + len(
        blue
    ) == 2  # e and f differ in the witness
    assert Verdict(True, "fine").to_json() == {
        "correct": True,
        "reason": "fine",
        "check": "ok",
        "witness": None,
    }


def test_sender_needs_both_colors_of_e() -> None:
    # (P3, K3) on a triangle: exactly one edge is red in every good coloring (red matching, no
    # blue triangle), so e and f are never both red but e is red in some and blue in others.
    problem = get_problem("p3_k3_negative_sender")
    assert not verify(problem, TRIANGLE, Designated(((0, 1), (0, 2)))).correct  # both blue possible
    positive = verify(get_problem("p3_k3_positive_sender"), TRIANGLE, Designated(((0, 1), (0, 2))))
    assert not positive.correct and positive.witness is not None
    assert positive.witness.color_of(0, 1) != positive.witness.color_of(0, 2)


def test_type_functions_work_without_a_known_coloring() -> None:
    problem = get_problem("k13_k4_clause_gadget")
    with GoodColorings(K4, problem.F, problem.H) as sat:
        assert verify_clause(sat, Designated(vertices=(0, 1, 2))).correct
        assert not verify_determiner(sat, Designated(((0, 1),)), 0, ("red", "blue")).correct
        assert not verify_sender(sat, Designated(((0, 1), (2, 3))), True, ("red", "blue")).correct


def test_hardness_gadgets_need_a_star() -> None:
    from ramseygadgets.core.patterns import get_pattern

    with pytest.raises(ValueError, match="only for F = K1,k"):
        Problem.make(get_pattern("K3"), get_pattern("K4"), GadgetType.CLAUSE)


def test_variable_gadget_reasons_name_the_enforcer_degree() -> None:
    problem = get_problem("k13_k4_variable_gadget")
    for u1, u2, n1 in list(combinations(range(4), 3))[:2]:
        verdict = verify(problem, K4, Designated(vertices=(u1, u2, n1)))
        assert not verdict.correct and "red degree 2" in verdict.reason


def test_the_color_encoding_agrees_and_an_unknown_encoding_is_refused() -> None:
    """``encoding="colors"`` runs the determiner and sender checks on the c-colour encoding (the
    same verdict); the hardness gadgets stay on the two-colour one; a typo is a clear error."""
    problem = get_problem("p3_k3_red_determiner")
    solution = get_solution(problem.id).candidate
    assert verify(problem, solution, encoding="colors").correct
    clause = get_problem("k13_k4_clause_gadget")
    assert verify(clause, get_solution(clause.id).candidate, encoding="colors").correct
    with pytest.raises(ValueError, match="unknown encoding 'colour'"):
        verify(problem, solution, encoding="colour")


@pytest.mark.parametrize("solver", ["minisat22", "glucose4", "cadical153", "cadical195"])
def test_every_backend_gives_the_same_verdicts(solver: str) -> None:
    """The verifier's default backend (VERIFY_SOLVER) is a choice of speed only: two and three
    colours, right answers and the same graphs less an edge, the same verdict from each."""
    cases = [
        (get_problem(p), get_solution(p).candidate)
        for p in ("k13_k4_positive_sender", "p3_k3_red_determiner", "k13_k4_negative_sender")
    ]
    cases += [(e.problem, e.candidate) for e in three_color_entries()[:3]]
    tried: list[tuple[Problem, Candidate]] = []
    for problem, candidate in cases:
        graph = candidate.graph
        fewer = Graph(
            graph.n,
            [e for e in graph.edges if e not in candidate.designated.edges][1:]
            + list(candidate.designated.edges),
        )
        tried += [(problem, candidate), (problem, Candidate(fewer, candidate.designated))]
    verdicts = [verify(problem, candidate, solver=solver).correct for problem, candidate in tried]
    assert verdicts == [verify(problem, candidate).correct for problem, candidate in tried]
    assert verdicts[::2] == [True] * len(cases) and False in verdicts[1::2]


def test_an_unknown_backend_is_named() -> None:
    problem = get_problem("p3_k3_red_determiner")
    with pytest.raises(InputError, match="unknown SAT solver 'glucose5'; PySAT's names include"):
        verify(problem, get_solution(problem.id).candidate, solver="glucose5")
