"""The coloring tool: its report agrees with brute force; bad requests give error text."""

from __future__ import annotations

import json
import re

import pytest

from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.catalog import get_problem
from ramseygadgets.tools.coloring import (
    COUNT_CAP,
    MAX_OUTPUT_CHARS,
    TOOL_MAX_VERTICES,
    TOOL_NAME,
    TOOL_SPEC,
    extract_tool_request,
    run_coloring_tool,
)
from ramseygadgets.verification.bruteforce import good_coloring_masks


def report_numbers(text: str) -> tuple[int | None, set, set, set]:
    count = re.search(r"It has exactly (\d+) ", text)

    def edges(label):
        found = re.search(label + r": ([^.\n]*)\.", text)
        if not found or found.group(1) == "none":
            return set()
        return {tuple(map(int, e.split("-"))) for e in found.group(1).split(", ")}

    return (
        int(count.group(1)) if count else None,
        edges("Edges red in every good coloring"),
        edges("Edges blue in every good coloring"),
        edges(r"Free edges \([^)]*\)"),
    )


GRAPHS = [
    Graph.from_edges([(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4)]),
    Graph.from_edges([(0, 1), (0, 2), (0, 3), (1, 2), (2, 3), (3, 4)]),
    Graph.complete(5),
    Graph.from_edges([(i, (i + 1) % 7) for i in range(7)] + [(0, 3), (1, 5)]),
    Graph.from_edges([(0, 1), (2, 3)]),
]


@pytest.mark.parametrize(
    "problem_id",
    [
        "p3_k3_red_determiner",
        "k13_k4_red_determiner",
        "k13_c4_clause_gadget",
        "p3_p4_positive_sender",
        "k13_tk3_variable_gadget",
    ],
)
@pytest.mark.parametrize("graph", GRAPHS, ids=range(len(GRAPHS)))
def test_report_matches_brute_force(problem_id, graph):
    problem = get_problem(problem_id)
    text = run_coloring_tool(problem, graph)
    masks = [int(x) for x in good_coloring_masks(graph, problem.F, problem.H)]
    if not masks:
        assert "is NOT" in text and "no good colorings" in text
        return
    count, red, blue, free = report_numbers(text)
    assert count == len(masks)
    always_red = {e for i, e in enumerate(graph.edges) if all(m >> i & 1 for m in masks)}
    always_blue = {e for i, e in enumerate(graph.edges) if not any(m >> i & 1 for m in masks)}
    assert (
        red == always_red and blue == always_blue - free and not (free & (always_red | always_blue))
    )
    # every listed coloring is a good coloring (free edges blue)
    free_bits = sum(1 << graph.edge_id(*e) for e in free)
    for line in re.findall(r"^\d+\. red: (.*); every", text, re.M):
        reds = [] if line == "none" else [tuple(map(int, e.split("-"))) for e in line.split(", ")]
        mask = sum(1 << graph.edge_id(*e) for e in reds)
        assert mask in masks and not mask & free_bits


def test_many_colorings_are_summarised_within_the_size_cap():
    problem = get_problem("k13_k3_clause_gadget")
    graph = Graph.from_edges(
        [(i, (i + 1) % 20) for i in range(20)] + [(i, (i + 5) % 20) for i in range(20)]
    )
    text = run_coloring_tool(problem, graph)
    assert f"more than {COUNT_CAP}" in text and "A sample of" in text
    assert len(text) <= MAX_OUTPUT_CHARS


@pytest.mark.parametrize(
    "request_value, words",
    [
        ({"edges": [[0, 0]]}, "self-loop"),
        ({"edges": [[0, 1], [0, 1]]}, "more than once"),
        ({"edges": [[0, 25]]}, "limit"),
        ({"edges": "nope"}, "list"),
        ({"nodes": [1, 2]}, "unexpected field"),
        ('{"edges": [[0, 1]', "not valid JSON"),
        ("", "empty"),
        (None, "expected a JSON object"),
        (42, "expected a JSON object"),
        ({"edges": [[0, -1]]}, "non-negative"),
    ],
)
def test_bad_requests_give_error_text_never_raise(request_value, words):
    text = run_coloring_tool(get_problem("p3_k3_red_determiner"), request_value)
    assert text.startswith("Tool error:") and words in text and '{"edges"' in text


def test_native_arguments_and_spec():
    problem = get_problem("p3_k3_red_determiner")
    args = json.dumps({"edges": [[0, 1], [1, 2], [0, 2]]})
    assert "exactly 3" in run_coloring_tool(problem, args)
    assert TOOL_SPEC["function"]["name"] == TOOL_NAME == "color_graph"
    assert TOOL_SPEC["function"]["parameters"]["required"] == ["edges"]
    assert str(TOOL_MAX_VERTICES) in TOOL_SPEC["function"]["description"]


def test_extract_tool_request():
    assert extract_tool_request("just prose") is None
    assert extract_tool_request(None) is None
    req = extract_tool_request(
        '```coloring_tool\n{"edges": [[0,1],[1,2]]}\n```\nthen\n'
        "<coloring_tool>0-1, 1-2, 2-3</coloring_tool>"
    )
    assert req.ok and req.graph.edges == ((0, 1), (1, 2), (2, 3))  # the last request
    thought = extract_tool_request(
        '<think>```coloring_tool\n{"edges": [[0,1]]}\n```</think>no request'
    )
    assert thought is None  # requests inside reasoning do not count
    bad = extract_tool_request('```coloring_tool\n{"edges": [[0,1],[1,2]\n```')
    assert not bad.ok and "JSON" in bad.error
    assert run_coloring_tool(get_problem("p3_k3_red_determiner"), bad).startswith("Tool error:")
