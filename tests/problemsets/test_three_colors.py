"""Three colours, checked against the independent c^m brute force on small graphs."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ramseygadgets.colorings.multi import MultiColorings
from ramseygadgets.colorings.spec import ColoringSpec, SpecError
from ramseygadgets.core.gadgets import Designated, GadgetKind
from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.problem import Problem
from ramseygadgets.search.exhaustive import iter_graphs, nauty_available
from ramseygadgets.search.multi import solve_multi
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.verification.bruteforce_multi import brute_force_verify_multi, good_colorings
from ramseygadgets.verification.gadget_census import gadgets_in_graph_multi
from ramseygadgets.verification.verifier import verify

needs_nauty = pytest.mark.skipif(
    not nauty_available(), reason="nauty (geng, listg) is not installed"
)

#: red and blue are matchings, green avoids P4; red avoids P3, blue and green avoid P4.
SPECS = ("P3 | P3 | P4", "P3 | P4 | P4", "P3 | K3,C4 | P4")


def _problems(text: str) -> list[Problem]:
    spec = ColoringSpec.parse(text)
    out = [Problem(spec, GadgetKind.DETERMINER, k) for k in range(spec.c)]
    return out + [
        Problem(spec, GadgetKind.POSITIVE_SENDER),
        Problem(spec, GadgetKind.NEGATIVE_SENDER),
    ]


def _random_graph(rng: random.Random, n: int, p: float) -> Graph:
    return Graph(n, tuple((u, v) for u in range(n) for v in range(u + 1, n) if rng.random() < p))


def _brute_force_minimum(problem: Problem, max_n: int) -> tuple[int, int] | None:
    """Least (n, m) over all graphs (geng, any connectivity), every designation, c^m colourings."""
    for n in range(2, max_n + 1):
        best = None
        for graph in iter_graphs(n, 1, n * (n - 1) // 2, connected=False):
            if best is not None and graph.m >= best:
                continue
            good = good_colorings(graph, problem.spec)
            if len(good) == 0:
                continue
            if problem.kind is GadgetKind.DETERMINER:
                hit = any((good[:, i] == problem.color).all() for i in range(graph.m))
            else:
                same = problem.kind is GadgetKind.POSITIVE_SENDER
                hit = any(
                    len(set(good[:, i].tolist())) >= 2
                    and ((good[:, i] == good[:, j]) if same else (good[:, i] != good[:, j])).all()
                    for i in range(graph.m)
                    for j in range(graph.m)
                    if i != j
                )
            if hit:
                best = graph.m
        if best is not None:
            return (n, best)
    return None


def test_spec_parsing_names_and_twins():
    spec = ColoringSpec.parse("P3 | C4, K3 | P3")
    assert spec.c == 3 and [c.name for c in spec.colors] == ["red", "blue", "green"]
    assert [p.name for p in spec.colors[1].forbidden] == ["K3", "C4"]  # sorted canonically
    assert spec.twins(0) == [2] and spec.twins(1) == []
    assert not Problem.of_colors(spec, "red-determiner").is_possible_by_symmetry()
    assert Problem.of_colors(spec, "blue-determiner").is_possible_by_symmetry()
    assert spec.slug == "p3__k3-c4__p3"
    assert ColoringSpec.from_json(spec.to_json()) == spec
    assert not spec.is_pair and ColoringSpec.parse("P3 | K3").is_pair
    for bad in ("P3", "P3 | ", "P3 | Q7", "P3|P3|P3|P3|P3|P3|P3|P3|P3"):
        with pytest.raises(SpecError):
            ColoringSpec.parse(bad)
    with pytest.raises(SpecError):
        Problem.of_colors(spec, "purple-determiner")


def test_good_colorings_and_counts_match_brute_force_on_random_graphs():
    rng = random.Random(5)
    for _ in range(40):
        spec = ColoringSpec.parse(rng.choice(SPECS))
        graph = _random_graph(rng, rng.randint(3, 6), rng.uniform(0.3, 0.9))
        if graph.m > 11:
            continue
        brute = good_colorings(graph, spec)
        with MultiColorings(graph, spec) as sat:
            assert sat.count(cap=10**6) == (len(brute), True)
            listed = sorted(c.colors for c in sat.iter_colorings())
            assert listed == sorted(tuple(int(x) for x in row) for row in brute)
            colors = sat.edge_colors()
            for i in range(graph.m):
                assert colors[i] == set(brute[:, i].tolist())


def test_verifier_matches_brute_force_on_random_three_color_candidates():
    rng = random.Random(11)
    verdicts = {True: 0, False: 0}
    for _ in range(300):
        problem = rng.choice(_problems(rng.choice(SPECS)))
        graph = _random_graph(rng, rng.randint(3, 6), rng.uniform(0.4, 1.0))
        if graph.m < 2 or graph.m > 11:
            continue
        designated = Designated(tuple(rng.sample(graph.edges, len(problem.edge_names))))
        informed = (gadgets_in_graph_multi(graph, [problem]) or {}).get(problem.id)
        for choice in (designated, informed):
            if choice is None:
                continue
            fast = verify(problem, graph, choice).correct
            assert fast == brute_force_verify_multi(problem, graph, choice), (
                problem.id,
                graph,
                choice,
            )
            verdicts[fast] += 1
    # the random mix also holds planted solutions: every problem's minimal solution
    for text in SPECS:
        for problem in _problems(text):
            result = solve_multi(problem, SearchOptions(max_vertices=5))
            if result.found:
                assert brute_force_verify_multi(
                    problem, result.candidate.graph, result.candidate.designated
                )
                verdicts[True] += 1
    assert verdicts[True] >= 12 and verdicts[False] >= 100


@needs_nauty
@pytest.mark.parametrize("text", SPECS)
def test_search_minimum_equals_the_brute_force_minimum_over_all_graphs_up_to_five_vertices(text):
    for problem in _problems(text):
        if not problem.is_possible_by_symmetry():
            assert (
                solve_multi(problem, SearchOptions(max_vertices=5)).status == "none-up-to-limit"
            )  # symmetry: impossible
            continue
        result = solve_multi(problem, SearchOptions(max_vertices=5))
        expected = _brute_force_minimum(problem, 5)
        got = (result.n, result.m) if result.found else None
        assert got == expected, problem.id
        if result.found:
            assert result.edges_minimal and result.lower_bound == result.n


def test_a_three_color_example_has_the_expected_minimal_gadgets():
    """Red, blue and green all avoid P3 (proper 3-edge-colourings): a path of two edges is a
    negative sender, and positive senders need 4 vertices."""
    spec = ColoringSpec.parse("P3 | P3 | P3")
    negative = solve_multi(Problem(spec, GadgetKind.NEGATIVE_SENDER))
    assert (negative.n, negative.m) == (3, 2)
    positive = solve_multi(Problem(spec, GadgetKind.POSITIVE_SENDER))
    assert (positive.n, positive.m) == (4, 4)
    assert brute_force_verify_multi(
        positive.problem, positive.candidate.graph, positive.candidate.designated
    )


def test_negative_sender_without_the_exchange_symmetry_in_three_colors():
    """With three colours e may take two colours while f is always the third: e and f are not
    interchangeable, and the verifier does not treat them so."""
    spec = ColoringSpec.parse("P3 | P3 | P4")
    problem = Problem(spec, GadgetKind.NEGATIVE_SENDER)
    result = solve_multi(problem, SearchOptions(max_vertices=6))
    assert result.found and verify(problem, result.candidate).correct
    # gadgets found inside a graph are verified designations
    found = gadgets_in_graph_multi(result.candidate.graph, [problem])
    assert found and verify(problem, result.candidate.graph, found[problem.id]).correct


def test_unusable_designated_edges_are_one_clear_reason():
    problem = Problem.of_colors("P3 | P3 | P4", "green-determiner")
    verdict = verify(problem, Graph(3, ((0, 1), (1, 2))), Designated(((0, 2),)))
    assert not verdict.correct and verdict.check == "designated" and "not an edge" in verdict.reason
    sender = Problem.of_colors("P3 | P3 | P4", "negative-sender")
    verdict = verify(sender, Graph(3, ((0, 1), (1, 2))), Designated(((0, 1),)))
    assert verdict.check == "designated" and "negative-sender" in verdict.reason


def test_brute_force_refuses_huge_tables():
    with pytest.raises(ValueError):
        good_colorings(Graph.complete(7), ColoringSpec.parse("P3 | P3 | P4"))
    assert np.array_equal(
        good_colorings(Graph(2, ()), ColoringSpec.parse("P3|P3|P4")).shape, (1, 0)
    )
