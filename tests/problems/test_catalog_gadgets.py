"""The 70-problem catalog, gadget types and reading candidate answers."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from ramseygadgets.core.errors import DesignatedItemError, GraphFormatError, UnknownProblemError
from ramseygadgets.core.gadgets import Candidate, Designated, GadgetType
from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.catalog import (
    POLYNOMIAL_PAIRS,
    Problem,
    all_problems,
    get_problem,
    paper_pairs,
)


def test_thirteen_pairs() -> None:
    pairs = paper_pairs()
    assert len(pairs) == 13 and len(set(pairs)) == 13
    assert all(f in ("P3", "K1,3") and f != h for f, h in pairs)
    assert ("P3", "K1,3") in pairs and ("K1,3", "P3") not in pairs  # counted once
    assert {h for f, h in pairs if f == "P3"} == {"K3", "K1,3", "P4", "TK3", "C4", "K4-e", "K4"}
    assert {h for f, h in pairs if f == "K1,3"} == {"K3", "P4", "TK3", "C4", "K4-e", "K4"}


def test_seventy_problems_26_easy_44_hard() -> None:
    problems = all_problems()
    assert len(problems) == 70
    tiers = Counter(p.tier for p in problems)
    assert tiers == {"easy": 26, "hard": 44}
    assert all(
        (p.tier == "easy") == (p.gadget in (GadgetType.RED_DETERMINER, GadgetType.BLUE_DETERMINER))
        for p in problems
    )
    per_pair = Counter(p.pair for p in problems)
    for pair in paper_pairs():
        assert per_pair[pair] == (4 if pair in POLYNOMIAL_PAIRS else 6)
    assert sum(1 for p in problems if p.gadget.is_hardness) == 18
    assert all(p.F.star_k is not None for p in problems if p.gadget.is_hardness)
    assert len(POLYNOMIAL_PAIRS) == 4


def test_ids_are_stable_readable_urlsafe_and_unique() -> None:
    ids = [p.id for p in all_problems()]
    assert len(set(ids)) == 70
    assert all(re.fullmatch(r"[a-z0-9]+_[a-z0-9]+_[a-z]+_[a-z]+", i) for i in ids)
    assert ids[:4] == [
        "p3_k3_red_determiner",
        "p3_k3_blue_determiner",
        "p3_k3_positive_sender",
        "p3_k3_negative_sender",
    ]
    assert (
        "k13_k4_red_determiner" in ids
        and "k13_k4e_variable_gadget" in ids
        and "p3_tk3_clause_gadget" not in ids
    )
    p = get_problem("k13_k4_red_determiner")
    assert (p.F.name, p.H.name, p.gadget, p.tier) == (
        "K1,3",
        "K4",
        GadgetType.RED_DETERMINER,
        "easy",
    )
    assert p.title == "(K1,3, K4)-red-determiner"
    assert p.to_json()["id"] == p.id and set(p.to_json()) >= {"id", "F", "H", "gadget", "tier"}


@pytest.mark.parametrize(
    "alias",
    [
        "k13_k4_red_determiner",
        "K13_K4_RED_DETERMINER",
        " k13_k4_red_determiner ",
        "K1,3-K4-red-determiner",
        "(K1,3, K4)-red-determiner",
    ],
)
def test_problem_lookup_by_id_or_title(alias: str) -> None:
    assert get_problem(alias).id == "k13_k4_red_determiner"


def test_unknown_problem_suggests_close_ids() -> None:
    with pytest.raises(UnknownProblemError, match="did you mean k13_k4_red_determiner") as info:
        get_problem("k13_k4_red_determiner_x")
    assert "\n" not in str(info.value) and "'" in str(info.value)
    with pytest.raises(UnknownProblemError, match="ramseygadgets problems"):
        get_problem("zzz")


def test_problems_outside_the_catalog() -> None:
    p = Problem.make("K1,4", "C5", "variable-gadget")
    assert p.F.star_k == 4 and p.id == "k14_c5_variable_gadget"
    with pytest.raises(ValueError, match="only for F = K1,k"):
        Problem.make("K3", "K4", "clause-gadget")
    assert Problem.make("K3", "K4", "red_determiner").gadget is GadgetType.RED_DETERMINER


def test_gadget_types() -> None:
    assert [g.value for g in GadgetType] == [
        "red-determiner",
        "blue-determiner",
        "positive-sender",
        "negative-sender",
        "clause-gadget",
        "variable-gadget",
    ]
    assert (
        GadgetType.parse("Clause") is GadgetType.CLAUSE
        and GadgetType.parse("positive_sender").slug == "positive_sender"
    )
    assert GadgetType.POSITIVE_SENDER.edge_names == (
        "e",
        "f",
    ) and GadgetType.RED_DETERMINER.edge_names == ("e",)
    assert GadgetType.VARIABLE.vertex_names == (
        "u1",
        "u2",
        "n1",
    ) and GadgetType.CLAUSE.vertex_names == ("i1", "i2", "i3")
    with pytest.raises(ValueError, match="unknown gadget type"):
        GadgetType.parse("sender")


def test_candidate_from_json_all_forms() -> None:
    c = Candidate.from_json({"edges": [[0, 1], [1, 2]], "e": [1, 0]}, GadgetType.RED_DETERMINER)
    assert c.graph == Graph(3, ((0, 1), (1, 2))) and c.designated.edges == ((0, 1),)
    s = Candidate.from_json(
        {"edges": [[0, 1], [1, 2]], "e": [0, 1], "f": [2, 1]}, GadgetType.NEGATIVE_SENDER
    )
    assert s.designated.edges == ((0, 1), (1, 2))
    v = Candidate.from_json({"edges": [[0, 1]], "vertices": [0, 1, 5]}, GadgetType.CLAUSE)
    assert v.graph.n == 6 and v.designated.vertices == (
        0,
        1,
        5,
    )  # isolated designated vertex 5 added
    named = Candidate.from_json({"edges": [[0, 1]], "u1": 0, "u2": 1, "n1": 2}, GadgetType.VARIABLE)
    assert named.designated.vertices == (0, 1, 2)
    assert Candidate.from_json(c.to_json(GadgetType.RED_DETERMINER), GadgetType.RED_DETERMINER) == c
    assert Candidate.from_json(v.to_json(GadgetType.CLAUSE) | {"n": 6}, GadgetType.CLAUSE) == v


@pytest.mark.parametrize(
    "data, gadget, error, words",
    [
        ([[0, 1]], GadgetType.RED_DETERMINER, GraphFormatError, "JSON object"),
        ({"e": [0, 1]}, GadgetType.RED_DETERMINER, GraphFormatError, 'no "edges"'),
        (
            {"edges": [[0, 1]]},
            GadgetType.RED_DETERMINER,
            DesignatedItemError,
            "missing the designated edge 'e'",
        ),
        (
            {"edges": [[0, 1]], "e": [0, 1]},
            GadgetType.POSITIVE_SENDER,
            DesignatedItemError,
            "edge 'f'",
        ),
        ({"edges": [[0, 1]], "e": "0-1"}, GadgetType.RED_DETERMINER, DesignatedItemError, "pair"),
        ({"edges": [[0, 1]], "e": [0, -1]}, GadgetType.RED_DETERMINER, DesignatedItemError, "pair"),
        (
            {"edges": [[0, 1]]},
            GadgetType.CLAUSE,
            DesignatedItemError,
            "missing the designated vertices",
        ),
        (
            {"edges": [[0, 1]], "vertices": [0, 1]},
            GadgetType.CLAUSE,
            DesignatedItemError,
            "exactly three",
        ),
        (
            {"edges": [[0, 1]], "vertices": [0, 1, -2]},
            GadgetType.CLAUSE,
            DesignatedItemError,
            "non-negative",
        ),
        (
            {"edges": [[0, 1]], "vertices": [0, 1, 99]},
            GadgetType.CLAUSE,
            DesignatedItemError,
            "limit of 64",
        ),
        (
            {"edges": [[0, 1]], "n": 2, "vertices": [0, 1, 5]},
            GadgetType.CLAUSE,
            DesignatedItemError,
            "not a vertex",
        ),
        ({"edges": "0-1", "e": [0, 1]}, GadgetType.RED_DETERMINER, GraphFormatError, "list"),
        (
            {"edges": [[0, 0]], "e": [0, 1]},
            GadgetType.RED_DETERMINER,
            GraphFormatError,
            "self-loop",
        ),
    ],
)
def test_candidate_from_json_errors(data, gadget: GadgetType, error: type, words: str) -> None:
    with pytest.raises(error, match=words):
        Candidate.from_json(data, gadget)


def test_designated_json_and_description() -> None:
    d = Designated(((0, 1), (2, 3)))
    assert d.to_json(GadgetType.POSITIVE_SENDER) == {"e": [0, 1], "f": [2, 3]}
    assert d.describe(GadgetType.POSITIVE_SENDER) == "e = 0-1, f = 2-3"
    assert Designated(vertices=(4, 5, 6)).describe(GadgetType.VARIABLE) == "u1 = 4, u2 = 5, n1 = 6"


def test_in_catalog_compares_the_whole_problem():
    from ramseygadgets.problems.catalog import Problem, all_problems, in_catalog

    assert all(in_catalog(p) for p in all_problems())
    assert not in_catalog(Problem.make("P3", "C5", "red-determiner"))
    assert not in_catalog(Problem.make("K1,4", "K4", "red-determiner"))
