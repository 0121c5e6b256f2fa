"""Near misses: candidates that fail exactly one clause of a gadget definition.

Random candidates mostly fail early clauses, so a verifier that skipped, say, the check of one
enforcement pattern could still agree with brute force on them.  Each graph below (found by a
brute-force search, kept here as data) fails exactly one clause; the test first confirms that
with the brute-force list of all good colorings, then asks the verifier, which must reject the
candidate for exactly that reason.
"""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest

from ramseygadgets.core.gadgets import Designated, GadgetType
from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.catalog import Problem
from ramseygadgets.verification.bruteforce import good_coloring_masks, red_degrees
from ramseygadgets.verification.verifier import verify

PATTERNS = [
    p for p in product((True, False), repeat=3) if not all(p)
]  # the order the verifier checks

G_K4E = (6, ((0, 2), (0, 4), (0, 5), (1, 3), (1, 4), (2, 5), (3, 4), (3, 5), (4, 5)))
G_C4 = (
    7,
    (
        (0, 2),
        (0, 4),
        (0, 5),
        (1, 2),
        (1, 4),
        (1, 5),
        (1, 6),
        (2, 6),
        (3, 5),
        (3, 6),
        (4, 5),
        (4, 6),
    ),
)
CLAW = (4, ((0, 1), (0, 2), (0, 3)))

# (F, H, graph, vertices, the one thing that fails): a missing pattern, or "all enforced" occurring
CLAUSE_NEAR_MISSES = [
    ("P3", "K4-e", G_K4E, (1, 2, 4), (False, False, True)),
    ("P3", "K4-e", G_K4E, (1, 4, 2), (False, True, False)),
    ("P3", "K4-e", G_K4E, (4, 1, 2), (True, False, False)),
    ("K1,3", "C4", G_C4, (0, 2, 4), (False, True, True)),
    ("K1,3", "C4", G_C4, (0, 2, 1), (True, False, True)),
    ("K1,3", "C4", G_C4, (0, 1, 2), (True, True, False)),
    # a claw for (K1,3, K1,3): the centre has 1 or 2 red edges, so exactly "not all equal"
    # patterns of the leaves occur: all three not enforced is the only missing one
    ("K1,3", "K1,3", CLAW, (1, 2, 3), (False, False, False)),
    ("K1,3", "C4", G_C4, (0, 2, 3), "all enforced"),
]


def enforcement_patterns(
    graph: Graph, good: np.ndarray, vertices: tuple[int, ...]
) -> set[tuple[bool, ...]]:
    zero = [red_degrees(graph, good, v) == 0 for v in vertices]
    return {tuple(bool(z[j]) for z in zero) for j in range(good.size)}


@pytest.mark.parametrize("f, h, spec, vertices, failing", CLAUSE_NEAR_MISSES)
def test_clause_gadget_near_misses(
    f: str, h: str, spec: tuple, vertices: tuple[int, ...], failing
) -> None:
    problem, graph = Problem.make(f, h, GadgetType.CLAUSE), Graph(*spec)
    seen = enforcement_patterns(graph, good_coloring_masks(graph, problem.F, problem.H), vertices)
    verdict = verify(problem, graph, Designated(vertices=vertices))
    assert not verdict.correct and verdict.check == "gadget"
    if failing == "all enforced":
        assert seen == set(product((True, False), repeat=3))  # brute force: only this clause fails
        assert verdict.witness is not None and all(
            verdict.witness.red_degree(v) == 0 for v in vertices
        )
    else:
        assert seen == set(PATTERNS) - {failing}  # brute force: exactly this pattern is missing
        missing = verdict.details["missing_pattern"]
        assert (missing["i1"], missing["i2"], missing["i3"]) == failing
        assert verdict.witness is None


G_P4 = (5, ((0, 1), (0, 2), (0, 3), (2, 3), (2, 4)))
G_P4B = (7, ((0, 2), (0, 3), (0, 4), (1, 3), (1, 6), (2, 5), (3, 4), (3, 6), (4, 5), (5, 6)))
G_C4B = (6, ((0, 1), (0, 2), (0, 5), (1, 2), (2, 4), (3, 4), (3, 5), (4, 5)))
G_K3 = (4, ((0, 1), (0, 3), (1, 2), (1, 3)))
G_TK3 = (6, ((0, 1), (0, 2), (0, 5), (2, 3), (2, 4), (2, 5), (3, 4), (3, 5), (4, 5)))

# sender conditions: 0 "e can be red", 1 "e can be blue", 2 "no e red with f wrong", 3 "no e blue with f wrong"
SENDER_NEAR_MISSES = [
    ("P3", "P4", G_P4, GadgetType.NEGATIVE_SENDER, ((0, 2), (0, 1)), 0),
    ("P3", "P4", G_P4, GadgetType.NEGATIVE_SENDER, ((0, 1), (0, 2)), 1),
    ("K1,3", "P4", G_P4B, GadgetType.NEGATIVE_SENDER, ((0, 2), (0, 3)), 2),
    ("P3", "C4", G_C4B, GadgetType.NEGATIVE_SENDER, ((0, 1), (0, 2)), 3),
    ("P3", "P4", G_P4, GadgetType.POSITIVE_SENDER, ((0, 2), (0, 3)), 0),
    ("P3", "P4", G_P4, GadgetType.POSITIVE_SENDER, ((0, 1), (2, 4)), 1),
    ("P3", "K3", G_K3, GadgetType.POSITIVE_SENDER, ((0, 3), (1, 2)), 2),
    ("P3", "K3", G_K3, GadgetType.POSITIVE_SENDER, ((1, 2), (0, 3)), 3),
]


@pytest.mark.parametrize("f, h, spec, gadget, edges, failing", SENDER_NEAR_MISSES)
def test_sender_near_misses(
    f: str, h: str, spec: tuple, gadget: GadgetType, edges: tuple, failing: int
) -> None:
    problem, graph = Problem.make(f, h, gadget), Graph(*spec)
    good = good_coloring_masks(graph, problem.F, problem.H)
    e, g = (((good >> graph.edge_id(*x)) & 1).astype(bool) for x in edges)
    wrong_f = ~g if gadget is GadgetType.POSITIVE_SENDER else g  # f's forbidden colour given e red
    conditions = [e.any(), (~e).any(), not (e & wrong_f).any(), not (~e & ~wrong_f).any()]
    assert [bool(c) for c in conditions] == [i != failing for i in range(4)]  # brute force
    verdict = verify(problem, graph, Designated(edges))
    assert not verdict.correct and verdict.check == "gadget"
    if failing < 2:
        assert verdict.witness is None
        assert verdict.reason.startswith(
            f"no good coloring has e = {edges[0][0]}-{edges[0][1]} "
            f"{'red' if failing == 0 else 'blue'}"
        )
    else:
        w = verdict.witness
        assert w is not None and w.color_of(*edges[0]) == ("red" if failing == 2 else "blue")
        same = w.color_of(*edges[0]) == w.color_of(*edges[1])
        assert same is (gadget is GadgetType.NEGATIVE_SENDER)


# variable conditions: 0 "(a) for u1", 1 "(a) for u2", 2 "(b) u1, u2 both free somewhere", 3 "(c) n1 free somewhere"
VARIABLE_NEAR_MISSES = [
    ("P3", "C4", G_C4B, (0, 2, 5), 0, "neither u1 nor n1"),
    ("P3", "C4", G_C4B, (0, 1, 4), 1, "neither u2 nor n1"),
    ("P3", "K3", G_K3, (0, 1, 3), 2, "both u1 and u2 not enforcers"),
    ("P3", "TK3", G_TK3, (0, 1, 2), 3, "n1 not an enforcer"),
]


@pytest.mark.parametrize("f, h, spec, vertices, failing, words", VARIABLE_NEAR_MISSES)
def test_variable_gadget_near_misses(
    f: str, h: str, spec: tuple, vertices: tuple, failing: int, words: str
) -> None:
    problem, graph = Problem.make(f, h, GadgetType.VARIABLE), Graph(*spec)
    k = problem.F.star_k
    good = good_coloring_masks(graph, problem.F, problem.H)
    u1, u2, n1 = (red_degrees(graph, good, v) == k - 1 for v in vertices)
    conditions = [(n1 | u1).all(), (n1 | u2).all(), (~u1 & ~u2).any(), (~n1).any()]
    assert [bool(c) for c in conditions] == [i != failing for i in range(4)]  # brute force
    verdict = verify(problem, graph, Designated(vertices=vertices))
    assert not verdict.correct and verdict.check == "gadget" and words in verdict.reason
    if failing < 2:
        w = verdict.witness
        u = vertices[failing]
        assert w is not None and w.red_degree(u) != k - 1 and w.red_degree(vertices[2]) != k - 1
    else:
        assert verdict.witness is None
