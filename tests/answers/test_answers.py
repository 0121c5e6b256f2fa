"""The answer format and the parser: round trips, label rules, failure kinds, robustness."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ramseygadgets.answers import (
    MALFORMED,
    MISSING_ITEM,
    NO_ANSWER,
    TOO_LARGE,
    TRUNCATED,
    format_answer,
    parse_answer,
)
from ramseygadgets.core.gadgets import Candidate, Designated, GadgetType
from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.catalog import all_problems, get_problem
from ramseygadgets.verification.verifier import verify

RED = GadgetType.RED_DETERMINER
SENDER = GadgetType.POSITIVE_SENDER
CLAUSE = GadgetType.CLAUSE


def test_every_shipped_solution_round_trips_and_verifies(solutions):
    """format_answer -> parse_answer -> verify is correct for all 70 problems (70/70)."""
    correct = 0
    for problem in all_problems():
        candidate = solutions[problem.id].candidate
        reply = f"Reasoning about {problem.title}...\n\n" + format_answer(candidate, problem.kind)
        parsed = parse_answer(reply, problem.kind)
        assert parsed.ok, (problem.id, parsed.error)
        assert parsed.candidate == candidate
        correct += verify(problem, parsed.candidate).correct
    assert correct == len(all_problems()) == 70


def test_format_answer_is_a_fenced_json_object():
    candidate = Candidate(Graph(3, ((0, 1), (0, 2), (1, 2))), Designated(vertices=(0, 1, 2)))
    text = format_answer(candidate, CLAUSE)
    assert text.startswith("```json\n") and text.endswith("\n```")
    assert json.loads(text[8:-4]) == {"edges": [[0, 1], [0, 2], [1, 2]], "i1": 0, "i2": 1, "i3": 2}


def edges_of(parsed):
    return [list(e) for e in parsed.candidate.graph.edges]


@pytest.mark.parametrize(
    "text",
    [
        '{"edges": [[0,1],[1,2]], "e": [0,1]}',
        "\\boxed{E = \\{(0,1),(1,2)\\}, e = (0,1)}",
        "Edges: 0-1, 1-2\ne: 0-1",
        "E = {[0,1], [1,2]}\ne = [0,1]",
        "```python\nedges = [(0, 1), (1, 2)]\ne = (0, 1)\n```",
        "```\nedges: 0 - 1; 1 - 2\ne: 0 - 1\n```",
        "{'edges': [(0, 1), (1, 2)], 'e': (0, 1)}",
        '{"edges": ["0-1", "1-2"], "e": "(0, 1)"}',
        "- **Edges**: {0,1}, {1,2}\n- **e** = {0,1}",
        "$E(G) = \\{\\{0,1\\},\\{1,2\\}\\}$\n$e = \\{0,1\\}$",
        "Edges: 0→1, 1→2\ne = 0→1",
    ],
)
def test_syntax_variants_read_the_same_graph(text):
    parsed = parse_answer(text, RED)
    assert parsed.ok, parsed.error
    assert edges_of(parsed) == [[0, 1], [1, 2]]
    assert parsed.candidate.designated.edges == ((0, 1),)


def test_last_complete_answer_wins_and_reasoning_is_skipped():
    first = '{"edges": [[0,1],[1,2]], "e": [0,1]}'
    second = '{"edges": [[0,1],[1,2],[2,3]], "e": [2,3]}'
    assert parse_answer(f"{first}\nno wait\n{second}", RED).candidate.designated.edges == ((2, 3),)
    think = f"<think>{second}</think>\n{first}"
    assert edges_of(parse_answer(think, RED)) == [[0, 1], [1, 2]]
    # a separate reasoning field is never read
    assert parse_answer("", RED, reasoning=first).error_kind == NO_ANSWER
    # a truncated final container is skipped; the last complete one counts
    parsed = parse_answer(f'{first}\nFinal: {{"edges": [[0,1],[1,', RED)
    assert parsed.ok and any("truncated" in note for note in parsed.notes)


def test_last_container_is_final_even_when_unreadable():
    text = '{"edges": [[0,1],[1,2]], "e": [0,1]}\nFinal: {"edges": [[0,1],[1,2,3]], "e": [0,1]}'
    parsed = parse_answer(text, RED)
    assert not parsed.ok and parsed.error_kind == MALFORMED


def test_labelled_prose_only_when_there_is_no_container():
    text = 'Edges: 0-1, 1-2\ne = 0-1\n\nAlso as JSON: {"edges": [[0,1],[1,2],[0,2]], "e": [0,2]}'
    assert parse_answer(text, RED).candidate.designated.edges == ((0, 2),)


def test_one_based_labels_shift_only_when_unambiguous():
    shifted = parse_answer('{"edges": [[1,2],[2,3]], "e": [1,2]}', RED)
    assert edges_of(shifted) == [[0, 1], [1, 2]] and shifted.candidate.graph.n == 3
    assert any("1-based" in note for note in shifted.notes)
    literal = parse_answer('{"edges": [[0,1],[1,2]], "e": [1,2]}', RED)  # uses 0: read as written
    assert edges_of(literal) == [[0, 1], [1, 2]] and literal.candidate.designated.edges == ((1, 2),)
    gap = parse_answer('{"edges": [[2,3],[3,4]], "e": [2,3]}', RED)  # no 1: read as written
    assert gap.candidate.graph.n == 5
    with_n = parse_answer('{"n": 3, "edges": [[1,2],[2,3]], "e": [1,2]}', RED)  # n = largest label
    assert with_n.candidate.graph.n == 3
    isolated = parse_answer(
        '{"n": 4, "edges": [[1,2],[2,3]], "e": [1,2]}', RED
    )  # n > largest label
    assert isolated.candidate.graph.n == 4 and edges_of(isolated) == [[1, 2], [2, 3]]
    # the verdict never depends on the shift
    problem = get_problem("p3_p4_blue_determiner")
    one_based = '{"edges": [[1,2],[1,3],[1,4],[2,3]], "e": [1,2]}'
    literal_graph = Candidate(Graph(5, ((1, 2), (1, 3), (1, 4), (2, 3))), Designated(((1, 2),)))
    assert verify(problem, parse_answer(one_based, problem.kind).candidate).correct
    assert verify(problem, literal_graph).correct


def test_named_labels_are_numbered_in_natural_order():
    parsed = parse_answer("Edges: v10-v2, v2-v1\ne = v1-v2", RED)
    assert parsed.label_map == {"v1": 0, "v2": 1, "v10": 2}
    assert edges_of(parsed) == [[0, 1], [1, 2]] and parsed.candidate.designated.edges == ((0, 1),)
    mixed = parse_answer('{"edges": [[0,"a"],["a",2]], "e": [0,"a"]}', RED)
    assert mixed.error_kind == MALFORMED and "mixes" in mixed.error


@pytest.mark.parametrize(
    "text, kind, words",
    [
        ("", NO_ANSWER, "empty"),
        ("I cannot solve this.", NO_ANSWER, "no answer"),
        ("<think>still thinking", TRUNCATED, "reasoning"),
        ('```json\n{"edges": [[0,1],[1,', TRUNCATED, "unfinished"),
        ('{"edges": [[0,1],[1,2]]}', MISSING_ITEM, "designated edge e"),
        ('{"edges": [[0,1], "...", [5,6]], "e": [0,1]}', MALFORMED, "ellipsis"),
        ('{"edges": [[0,1],[0,1]], "e": [0,1]}', MALFORMED, "more than once"),
        ('{"edges": [[0,99]], "e": [0,99]}', TOO_LARGE, "limit"),
        ('{"edges": [[0,1]], "e": [0,1], "n": 65}', TOO_LARGE, "limit"),
        ("\\boxed{\\text{no such graph}}", MALFORMED, "not a graph"),
        ('{"edges": 5, "e": [0,1]}', MALFORMED, "edges"),
    ],
)
def test_failures_have_a_kind_and_a_reason(text, kind, words):
    parsed = parse_answer(text, RED)
    assert not parsed.ok and parsed.error_kind == kind
    assert words in parsed.error


def test_hardness_answers_named_compact_and_vertex_set():
    named = parse_answer('{"edges": [[0,1],[1,2],[2,3]], "i1": 0, "i2": 2, "i3": 3}', CLAUSE)
    assert named.candidate.designated.vertices == (0, 2, 3)
    compact = parse_answer('{"edges": [[0,1],[1,2],[2,3]], "vertices": [0, 2, 3]}', CLAUSE)
    assert compact.candidate.designated.vertices == (0, 2, 3)
    vertex_set = parse_answer(
        '{"vertices": [0,1,2,3,4], "edges": [[0,1],[1,2]], "i1": 0, "i2": 1, "i3": 2}', CLAUSE
    )
    assert vertex_set.candidate.graph.n == 5
    triple = parse_answer("Edges: 0-1, 1-2, 2-3\n(i_1, i_2, i_3) = (0, 2, 3)", CLAUSE)
    assert triple.candidate.designated.vertices == (0, 2, 3)
    missing = parse_answer('{"edges": [[0,1],[1,2]], "i1": 0, "i2": 1}', CLAUSE)
    assert missing.error_kind == MISSING_ITEM and "i3" in missing.error
    two = parse_answer('{"edges": [[0,1],[1,2]], "i1": 0}', CLAUSE)
    assert "missing the designated vertices i2, i3 " in two.error and "vertexs" not in two.error


def test_parse_answer_accepts_problem_or_gadget_name():
    text = '{"edges": [[0,1],[1,2]], "e": [0,1], "f": [1,2]}'
    assert parse_answer(text, get_problem("p3_k3_positive_sender")).ok
    assert parse_answer(text, "positive-sender").ok
    assert parse_answer(text, SENDER).to_json(SENDER)["answer"] == json.loads(text)


# --- robustness ------------------------------------------------------------------------------
ANSWERISH = st.sampled_from(
    [
        "{",
        "}",
        "[",
        "]",
        "(",
        ")",
        '"edges"',
        "'e'",
        ":",
        ",",
        "-",
        "0",
        "1",
        "12",
        "\\boxed{",
        "\\{",
        "\\}",
        "```",
        "```json\n",
        "\n",
        " ",
        "e = ",
        "Edges: ",
        "...",
        "<think>",
        "</think>",
        "i1",
        "n",
        "$",
        "**",
        "v1",
        "|",
        "<coloring_tool>",
    ]
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(st.text(max_size=400), st.lists(ANSWERISH, max_size=80).map("".join)),
    st.sampled_from(list(GadgetType)),
)
def test_parser_never_raises(text, gadget):
    parsed = parse_answer(text, gadget)
    assert parsed.ok or (parsed.error and parsed.error_kind)
    assert "internal parser error" not in (parsed.error or "")


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 9), st.integers(0, 9)).filter(lambda e: e[0] != e[1]),
        min_size=1,
        max_size=12,
        unique_by=lambda e: frozenset(e),
    ),
    st.sampled_from(list(GadgetType)),
)
def test_format_then_parse_is_identity(edges, gadget):
    graph = Graph.from_edges(edges)
    designated = Designated(
        graph.edges[: len(gadget.edge_names)], tuple(range(len(gadget.vertex_names)))
    )
    if len(designated.edges) < len(gadget.edge_names) or len(designated.vertices) > graph.n:
        return
    candidate = Candidate(graph, designated)
    parsed = parse_answer("Answer:\n" + format_answer(candidate, gadget), gadget)
    # labels are read as written unless 0 is unused (then a 1-based reading may shift them)
    if parsed.notes:
        assert graph.n == parsed.candidate.graph.n + 1
    else:
        assert parsed.candidate == candidate


PATHOLOGICAL = [
    "{" * 100_000,
    "\\boxed{" * 14_000,
    "-" * 100_000,
    "<-" * 50_000,
    "Edges: " + "0-1, " * 20_000,
    "```\n" * 25_000,
    '{"edges": [' + "[0, 1], " * 12_000,
    "e = " * 25_000,
    ("E = (" * 20_000),
    "\\" + "a" * 100_000,
    "," + "x" * 100_000,
]


@pytest.mark.parametrize("junk", PATHOLOGICAL, ids=range(len(PATHOLOGICAL)))
def test_parser_is_fast_on_100kb_of_junk(junk):
    """Linear-time design: 100 kB of adversarial input stays well under a second (typically < 50 ms)."""
    start = time.perf_counter()
    parsed = parse_answer(junk, RED)
    elapsed = time.perf_counter() - start
    assert not parsed.ok or parsed.candidate is not None
    assert "internal parser error" not in (parsed.error or "")
    assert elapsed < 5.0, (
        f"{elapsed:.3f} s"
    )  # a guard against quadratic time; speed: bench/parser.py
