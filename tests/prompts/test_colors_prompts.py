"""Prompts, parser and coloring tool for problems with three or more colours: the k-colour
definitions in every setting, the tool's report against the brute force, two colours unchanged."""

from __future__ import annotations

import re

import pytest

from ramseygadgets.answers import format_answer, parse_answer
from ramseygadgets.core.gadgets import Candidate, Designated
from ramseygadgets.core.graphs import Graph
from ramseygadgets.harness.multiround import multiround_step
from ramseygadgets.problems.catalog import Problem, get_problem
from ramseygadgets.prompts import build_prompt, settings_for
from ramseygadgets.tools.coloring import COUNT_CAP, TOOL_SPEC, run_coloring_tool, tool_spec
from ramseygadgets.verification.bruteforce import copy_masks
from ramseygadgets.verification.bruteforce_multi import good_colorings
from ramseygadgets.verification.verifier import verify

GREEN = Problem.of_colors("P3 | P3 | C4", "green-determiner")
SOLUTION = Candidate(
    Graph(6, ((0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (1, 2), (1, 3), (1, 4), (1, 5))),
    Designated(((0, 1),)),
)

#: The k-colour definitions every prompt of GREEN states.
DEFINITIONS = (
    "There are 3 colors, red, blue and green. Each color has one forbidden graph:",
    "- red: P3, the path on 3 vertices",
    "- green: C4, the cycle on 4 vertices.",
    "A coloring of a graph G gives every edge of G exactly one of the 3 colors red, blue and green.",
    "A coloring of G is (P3, P3, C4)-good if, for every color, G contains no copy of that color's "
    "forbidden graph in that color: no red copy of P3, no blue copy of P3 and no green copy of C4.",
    "A graph G is (P3, P3, C4)-good if it has at least one (P3, P3, C4)-good coloring.",
)


def text_of(prompt) -> str:
    return "\n".join(m["content"] for m in prompt.messages)


def test_settings_of_a_three_color_problem():
    assert settings_for(GREEN) == ["zero-shot", "structural-hint", "multiround"]
    assert settings_for(GREEN, min_vertices=6) == [
        "zero-shot",
        "structural-hint",
        "size-hint",
        "multiround",
    ]
    star = Problem.of_colors(
        "K1,3 | K3 | C4", "blue-determiner"
    )  # no example hint: two colours only
    assert "example-hint" not in settings_for(star, min_vertices=5)


@pytest.mark.parametrize("setting", ["zero-shot", "structural-hint", "size-hint", "multiround"])
@pytest.mark.parametrize("tool_mode", ["text", "native"])
def test_every_setting_states_the_k_color_definitions(setting, tool_mode):
    prompt = build_prompt(GREEN, setting, tool_mode=tool_mode, min_vertices=6)
    text = text_of(prompt)
    for sentence in DEFINITIONS:
        assert sentence in text
    assert (
        "A (P3, P3, C4)-green-determiner is a (P3, P3, C4)-good graph G together with a "
        "designated edge e of G such that e is green in every (P3, P3, C4)-good coloring of G."
    ) in text
    assert "Construct a (P3, P3, C4)-green-determiner:" in text
    assert "red/blue" not in text and "F = " not in text and "H = " not in text
    if setting == "structural-hint":
        assert "an edge that lies in no copy of C4 in G can always be colored green" in text
    if setting == "size-hint":
        assert "exactly 6 vertices" in text
    if setting == "multiround":
        assert "which edges have the same color in every good coloring" in text
        if tool_mode == "native":
            assert prompt.tools == [tool_spec(GREEN)] and prompt.tools != [TOOL_SPEC]
            assert "F,H" not in prompt.tools[0]["function"]["description"]


@pytest.mark.parametrize("kind", ["positive-sender", "negative-sender"])
def test_sender_definitions_for_k_colors(kind):
    text = text_of(build_prompt(Problem.of_colors("P3 | P3 | C4", kind), "zero-shot"))
    relation = "the same color" if kind == "positive-sender" else "different colors"
    assert f"in every (P3, P3, C4)-good coloring of G, the edges e and f have {relation};" in text
    assert (
        "e does not have the same color in every (P3, P3, C4)-good coloring: G has two "
        "(P3, P3, C4)-good colorings in which e has two different colors."
    ) in text
    assert "one red, the other blue" not in text and "in which e is blue" not in text


def test_four_colors_name_every_color():
    p = Problem.of_colors(["K1,3", "P3", "C4", "K3"], "yellow-determiner")
    text = text_of(build_prompt(p, "zero-shot"))
    assert (
        "no red copy of K1,3, no blue copy of P3, no green copy of C4 and no yellow copy of K3"
        in text
    )
    assert "e is yellow in every (K1,3, P3, C4, K3)-good coloring of G" in text


def test_two_color_prompts_keep_their_words():
    text = text_of(build_prompt(get_problem("p3_k3_red_determiner"), "multiround"))
    assert "A red/blue coloring of G is (P3, K3)-good if G contains no red copy of P3" in text
    assert "There are 3 colors" not in text and "colors and forbidden graphs" not in text


def test_parser_reads_three_color_answers_and_verify_judges_them():
    reply = "Here it is.\n\n" + format_answer(SOLUTION, GREEN.kind)
    parsed = parse_answer(reply, GREEN)
    assert parsed.ok and parsed.candidate == SOLUTION
    assert verify(GREEN, parsed.candidate).correct
    sender = Problem.of_colors("P3 | P3 | C4", "negative-sender")
    parsed = parse_answer('{"edges": [[0, 1], [1, 2]], "e": [0, 1], "f": [1, 2]}', sender)
    assert parsed.candidate is not None and parsed.candidate.designated.edges == ((0, 1), (1, 2))
    missing = parse_answer('{"edges": [[0, 1], [1, 2]]}', GREEN)
    assert missing.error is not None and "(a green-determiner answer needs e)" in missing.error


def _edges(text: str, label: str) -> set[tuple[int, int]]:
    found = re.search(re.escape(label) + r": ([^.\n]*)\.", text)
    if not found or found.group(1) == "none":
        return set()
    return {tuple(map(int, e.split("-"))) for e in found.group(1).split(", ")}  # type: ignore[misc]


GRAPHS = [
    SOLUTION.graph,
    Graph.from_edges([(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3), (5, 6)]),
    Graph.from_edges([(i, (i + 1) % 6) for i in range(6)] + [(0, 3)]),
    Graph.complete(5),
    Graph.from_edges(
        [(a, b) for a in range(2) for b in range(2, 8)]
    ),  # K2,6: not (P3, P3, C4)-good
]


@pytest.mark.parametrize("colors", ["P3 | P3 | C4", "K1,3 | P3 | K3"])
@pytest.mark.parametrize("graph", GRAPHS, ids=range(len(GRAPHS)))
def test_tool_report_matches_the_brute_force(colors, graph):
    problem = Problem.of_colors(colors, "positive-sender")
    text = run_coloring_tool(problem, {"edges": [list(e) for e in graph.edges]})
    good = good_colorings(graph, problem.spec).tolist()
    if not good:
        assert "is NOT" in text and "no good colorings" in text and "a green copy of" in text
        return
    count = re.search(r"It has (exactly|more than) (\d+) ", text)
    assert count is not None
    if count.group(1) == "exactly":
        assert int(count.group(2)) == len(good)
    else:
        assert len(good) > int(count.group(2)) >= COUNT_CAP
    in_copies = 0
    for pattern in problem.patterns:
        for mask in copy_masks(pattern, graph):
            in_copies |= int(mask)
    free = {e for i, e in enumerate(graph.edges) if not in_copies >> i & 1}
    line = re.search(r"^Free edges \(.*\): (.*)\.$", text, re.M)
    assert free == (set() if line is None else _edges("x: " + line.group(1) + ".", "x"))
    assert int(count.group(2)) % 3 ** len(free) == 0
    for k, name in enumerate(problem.color_names):
        always = {e for i, e in enumerate(graph.edges) if all(row[i] == k for row in good)}
        assert _edges(text, f"Edges {name} in every good coloring") == always
    # every listed coloring is good (free edges green, the last colour)
    for line in re.findall(r"^\d+\. (red: .*); every other (?:non-free )?edge green$", text, re.M):
        colors_of = dict.fromkeys(graph.edges, 2)
        for part in line.split("; "):
            name, listed = part.split(": ")
            for e in [] if listed == "none" else listed.split(", "):
                u, v = map(int, e.split("-"))
                colors_of[(u, v)] = problem.color_names.index(name)
        assert [colors_of[e] for e in graph.edges] in good


def test_tool_counts_are_capped_for_k_colors():
    path = Graph.from_edges([(i, i + 1) for i in range(14)])
    text = run_coloring_tool(Problem.of_colors("P4 | P4 | P4", "positive-sender"), path)
    assert f"more than {COUNT_CAP}" in text and "A sample of 12 of the more than" in text


def test_multiround_text_protocol_runs_the_k_color_tool():
    reply = 'Let me look.\n```coloring_tool\n{"edges": [[0, 1], [1, 2]]}\n```'
    step = multiround_step(GREEN, 1, reply)
    assert not step.final and step.tool_text is not None
    assert "Edges green in every good coloring" in step.tool_text
    assert "(P3, P3, C4)-good" in step.followup["content"]
