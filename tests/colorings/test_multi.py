"""One problem model for any number of colours: three-colour problems (ids, titles, records,
lookup, errors) and their verdicts, cross-checked against the c^m brute force."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from ramseygadgets.colorings.spec import ColoringSpec
from ramseygadgets.core.errors import UnknownProblemError
from ramseygadgets.core.gadgets import Designated, GadgetKind
from ramseygadgets.core.graphs import Graph
from ramseygadgets.core.patterns import get_pattern
from ramseygadgets.problems.catalog import Problem, all_problems, get_problem, parse_colored_problem
from ramseygadgets.verification.bruteforce_multi import brute_force_verify_multi, good_colorings
from ramseygadgets.verification.verifier import verify

#: (P3, P3, C4)-green-determiner, minimal (found by solve_multi, proven by test_three_colors).
GREEN = Graph(6, ((0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (1, 2), (1, 3), (1, 4), (1, 5)))


def test_three_color_ids_titles_and_records():
    p = Problem.of_colors("P3 | P3 | C4", "green-determiner")
    assert (p.c, p.color_names, p.determined_color) == (3, ("red", "blue", "green"), 2)
    assert p.id == "p3__p3__c4_green_determiner"
    assert p.title == "(P3, P3, C4)-green-determiner" and p.tier == "easy"
    assert p.to_json() == {
        "id": "p3__p3__c4_green_determiner",
        "colors": ["P3", "P3", "C4"],
        "gadget": "green-determiner",
        "tier": "easy",
        "title": "(P3, P3, C4)-green-determiner",
    }
    assert Problem.from_json(p.to_json()) == p
    # generate's multicolor.jsonl spelling: one list per colour
    assert (
        Problem.from_json({"colors": [["P3"], ["P3"], ["C4"]], "gadget": "green_determiner"}) == p
    )
    sender = Problem.of_colors(["K1,3", "P3", "K3"], "negative-sender")
    assert sender.id == "k13__p3__k3_negative_sender" and sender.determined_color is None
    assert sender.title == "(K1,3, P3, K3)-negative-sender" and sender.tier == "hard"


def test_two_colors_are_the_same_problems_unchanged():
    for p in all_problems():
        assert Problem.of_colors([p.F, p.H], p.gadget) == p
        assert Problem.from_json(p.to_json()) == p
        assert set(p.to_json()) == {"id", "colors", "F", "H", "gadget", "tier", "title"}
        assert (p.c, p.is_pair, p.gadget_name) == (2, True, p.gadget.value)
        assert Problem.of_colors(p.spec, p.gadget_name) == p
    p = get_problem("k13_k4_red_determiner")
    assert (p.id, p.title) == ("k13_k4_red_determiner", "(K1,3, K4)-red-determiner")


def test_lookup_by_id_or_title_and_the_spec_form_agree():
    p = Problem.of_colors(["K1,3", "P3", "K3"], "blue-determiner")
    assert get_problem(p.id) == p and get_problem(p.title) == p
    assert get_problem("(k1,3,P3 , K3) - blue-determiner") == p
    assert parse_colored_problem("k13_k4_red_determiner") is None  # two colours: not this form
    assert Problem.of_colors(ColoringSpec.parse("K1,3 | P3 | K3"), "blue-determiner") == p
    assert Problem(p.spec, GadgetKind.DETERMINER, 1) == p


@pytest.mark.parametrize(
    "text, message",
    [
        ("p3__p3__k3_clause_gadget", "clause-gadget is defined for two colours only"),
        ("(P3, P3, K3)-purple-determiner", "unknown gadget type 'purple-determiner' for 3 colours"),
        ("(P3, P3, K9x)-green-determiner", "unknown pattern 'K9x'"),
    ],
)
def test_unusable_three_color_problems_are_one_clear_error(text, message):
    with pytest.raises(UnknownProblemError, match="problem .*" + message.replace("(", r"\(")):
        get_problem(text)


def test_hardness_gadgets_and_bad_color_counts_are_refused():
    with pytest.raises(ValueError, match="defined for two colours only"):
        Problem.of_colors("K1,3 | K3 | K3", "variable-gadget")
    with pytest.raises(ValueError, match="2 to 8 colours"):
        Problem.of_colors(["P3"] * 9, "positive-sender")
    p3 = get_pattern("P3")
    with pytest.raises(ValueError, match="other gadgets do not"):
        Problem(ColoringSpec.of(p3, p3, p3), GadgetKind.POSITIVE_SENDER, 2)
    with pytest.raises(ValueError, match="colour 3 is not one of the spec's 3 colours"):
        Problem(ColoringSpec.of(p3, p3, p3), GadgetKind.DETERMINER, 3)


def test_pattern_sets_per_color_are_problems_too():
    """A colour may forbid several patterns (generate --spec): same class, same verifier."""
    p = Problem.from_json({"colors": [["P3"], ["K3", "C4"], ["K4"]], "gadget": "red-determiner"})
    assert not p.is_pair and not p.spec.is_simple and p.c == 3
    assert p.to_json()["colors"] == ["P3", ["K3", "C4"], "K4"]
    assert Problem.from_json(p.to_json()) == p
    assert p.title == "(red: {P3}; blue: {K3, C4}; green: {K4})-red-determiner"
    with pytest.raises(ValueError, match="several patterns in one colour"):
        _ = p.patterns


def _random_graph(rng: random.Random, n: int, m: int) -> Graph:
    return Graph(n, tuple(sorted(rng.sample(list(combinations(range(n), 2)), m))))


@pytest.mark.parametrize(
    "colors", ["P3 | P3 | C4", "P3 | K1,3 | K3", "K3 | P3 | P4", "P3 | P3 | P3 | K3"]
)
def test_verdicts_agree_with_the_brute_force(colors):
    """verify (SAT) and brute_force_verify_multi (all c^m colourings) on random candidates of
    every gadget type; a counterexample names each edge's colour and is a good coloring."""
    rng = random.Random(colors)
    c = len(colors.split("|"))
    gadgets = [f"{name}-determiner" for name in ("red", "blue", "green", "yellow")[:c]]
    problems = [
        Problem.of_colors(colors, g) for g in gadgets + ["positive-sender", "negative-sender"]
    ]
    seen = {True: 0, False: 0}
    for _trial in range(60):
        n = rng.randint(3, 6)
        m = rng.randint(2, min(9 if c == 3 else 7, n * (n - 1) // 2))
        graph = _random_graph(rng, n, m)
        good = good_colorings(graph, problems[0].spec)
        for p in problems:
            picks = rng.sample(graph.edges, len(p.kind.edge_names))
            designated = Designated(tuple(picks))
            verdict = verify(p, graph, designated)
            assert verdict.correct == brute_force_verify_multi(p, graph, designated), (
                p.title,
                graph,
                designated,
                verdict.reason,
            )
            seen[verdict.correct] += 1
            if verdict.witness is not None:
                row = tuple(verdict.witness.colors)
                assert any(tuple(r) == row for r in good.tolist())
                assert set(verdict.witness.to_json()) == set(p.color_names)
    assert seen[False] > 0
    # and a real solution
    green = Problem.of_colors("P3 | P3 | C4", "green-determiner")
    assert verify(green, GREEN, Designated(((0, 1),))).correct
    assert brute_force_verify_multi(green, GREEN, Designated(((0, 1),)))


def test_a_three_color_counterexample_names_the_colors():
    red = Problem.of_colors("P3 | P3 | C4", "red-determiner")
    verdict = verify(red, GREEN, Designated(((0, 1),)))
    assert not verdict.correct and verdict.check == "gadget"
    assert "edge e = 0-1 is green in some good coloring" in verdict.reason
    assert verdict.to_json()["witness"]["green"]
    bad = verify(red, Graph.complete(6), Designated(((0, 1),)))
    assert bad.check == "good" and "(P3, P3, C4)" in bad.reason
