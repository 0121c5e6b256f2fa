"""Issue 14.1: problems on small graphs are named, never given by graph6 alone.

Every problem whose F and H have at most 5 vertices (all pairs of connected graphs on 3 to 5
vertices) has an id, a title and prompts free of graph6; graphs outside the names table get a
readable id and their explicit vertex and edge list with its size in the prompt.
"""

from __future__ import annotations

import re

import pytest

from ramseygadgets.core.patterns import Pattern, canonical_graph6, get_pattern
from ramseygadgets.problems.catalog import Problem
from ramseygadgets.problemsets import plan_problem_set
from ramseygadgets.prompts import build_prompt
from ramseygadgets.search.exhaustive import nauty_available

SMALL = "connected:3,connected:4,connected:5"


def _graph6_spellings(pattern: Pattern) -> set[str]:
    return {canonical_graph6(pattern.graph), pattern.graph.to_graph6()}


def _contains_token(text: str, token: str) -> bool:
    return (
        re.search(rf"(?<![\w@?~^`{{|}}\[\]\\]){re.escape(token)}(?![\w@?~^`{{|}}\[\]\\])", text)
        is not None
    )


def _prompt_text(problem: Problem, setting: str) -> str:
    prompt = build_prompt(problem, setting)
    return "\n".join(str(m["content"]) for m in prompt.messages)


@pytest.mark.skipif(not nauty_available(), reason="nauty (geng) is not installed")
def test_no_graph6_in_any_id_title_or_prompt_of_a_problem_on_at_most_5_vertices() -> None:
    plan = plan_problem_set([SMALL], [SMALL])
    assert len(plan.problems) > 1000
    for problem in plan.problems:
        assert isinstance(problem, Problem)
        codes = _graph6_spellings(problem.F) | _graph6_spellings(problem.H)
        assert re.fullmatch(r"[a-z0-9_]+", problem.id), problem.id
        texts = [problem.id, problem.title, _prompt_text(problem, "zero-shot")]
        if problem.F.name == "K3" and problem.H.name == "bull":  # one full multiround prompt
            texts.append(_prompt_text(problem, "multiround"))
        for text in texts:
            assert not any(_contains_token(text, code) for code in codes), (problem.id, codes)
        assert f"{problem.F.name}, " in texts[2] and f"{problem.H.name}, " in texts[2]


def test_named_graphs_in_ids_and_prompts() -> None:
    problem = Problem.make("K1,3", "0-1,0-2,1-2,1-3,2-4", "red-determiner")  # the bull by edges
    assert (
        problem.id == "k13_bull_red_determiner" and problem.title == "(K1,3, bull)-red-determiner"
    )
    text = _prompt_text(problem, "zero-shot")
    assert (
        "H = bull, a triangle with a pendant edge at each of two of its vertices. It has 5 vertices and 5 edges"
        in text
    )


def test_graphs_outside_the_table_get_a_readable_id_and_an_explicit_edge_list() -> None:
    big = get_pattern("0-1,1-2,2-3,3-4,4-5,5-6,6-0,0-2,0-3")  # 7 vertices, 9 edges, no family
    problem = Problem.make("P3", big, "positive-sender")
    assert re.fullmatch(r"p3_n7m9-[0-9a-f]{10}_positive_sender", problem.id)
    text = _prompt_text(problem, "zero-shot")
    edges = ", ".join(f"[{u}, {v}]" for u, v in big.graph.edges)
    assert (
        f"H = {big.name}, the graph with 7 vertices and 9 edges: on the vertices 0..6 its edges are {edges}."
        in text
    )
    k33 = Problem.make("K1,3", "K3,3", "red-determiner")
    assert (
        k33.id == "k13_k33_red_determiner"
        and "the graph with 6 vertices and 9 edges" in _prompt_text(k33, "zero-shot")
    )
