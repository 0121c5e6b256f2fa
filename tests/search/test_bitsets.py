"""Edge sets as rows of words: round trips, subsets, and the compiled greedy extension against
the plain Python loop it replaced."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.problem import Problem
from ramseygadgets.search.bitsets import (
    adjacency_rows,
    disjoint,
    from_words,
    to_words,
    within,
    word_count,
    words_table,
)
from ramseygadgets.search.oracle import KnCopies, extend_red_mask


@pytest.mark.parametrize("m", [1, 45, 62, 63, 66, 91, 190])
def test_an_edge_set_survives_the_round_trip(m):
    rng = random.Random(m)
    for _ in range(50):
        mask = rng.getrandbits(m)
        assert from_words(to_words(mask, word_count(m))) == mask


def test_within_marks_exactly_the_subsets():
    rng = random.Random(3)
    m = 91
    outer = rng.getrandbits(m)
    sets = [outer & rng.getrandbits(m) for _ in range(150)]  # subsets
    sets += [s | 1 << rng.choice([t for t in range(m) if not outer >> t & 1]) for s in sets]
    marked = within(words_table(sets, word_count(m)), to_words(outer, word_count(m)))
    assert marked.tolist() == [s & ~outer == 0 for s in sets]
    assert marked.tolist() == [True] * 150 + [False] * 150
    complement = to_words((1 << m) - 1 & ~outer, word_count(m))
    assert disjoint(words_table(sets, word_count(m)), complement).tolist() == marked.tolist()


def _python_extension(copies: KnCopies, decided: int, red: int) -> int:
    """The greedy extension as plain Python (the loop before it was compiled)."""
    rest_f: list[list[int]] = [[] for _ in range(copies.kn.m)]
    rest_h: list[list[int]] = [[] for _ in range(copies.kn.m)]
    for table, copies_of in ((rest_f, copies.f), (rest_h, copies.h)):
        for c in copies_of:
            whole = sum(1 << t for t in c)
            for t in c:
                table[t].append(whole & ~(1 << t))
    blue = decided & ~red
    for t in range(copies.kn.m):
        if decided >> t & 1:
            continue
        as_red = sum(1 for other in rest_f[t] if not other & ~red)
        as_blue = sum(1 for other in rest_h[t] if not other & ~blue)
        if as_red < as_blue:
            red |= 1 << t
        else:
            blue |= 1 << t
    return red


@pytest.mark.parametrize("F, H, n", [("K3", "K4-e", 9), ("K3", "K4", 12), ("C4", "K1,3", 8)])
def test_the_compiled_extension_colors_as_the_python_loop(F, H, n):
    copies = KnCopies(Problem.make(F, H, "red-determiner"), n)
    rng = random.Random(n)
    for _ in range(40):
        decided = rng.getrandbits(copies.kn.m)
        red = decided & rng.getrandbits(copies.kn.m)
        assert extend_red_mask(copies, decided, red) == _python_extension(copies, decided, red)


def test_words_are_int64_rows():
    table = words_table([1 << 100, 3], word_count(101))
    assert table.dtype == np.int64 and table.shape == (2, 2)


@pytest.mark.parametrize("n", [2, 5, 14, 30, 62])
def test_adjacency_rows_are_the_graphs_neighbour_masks(n):
    kn = Graph.complete(n)
    rng = random.Random(n)
    for density in (0.0, 0.3, 0.9, 1.0):
        mask = sum(1 << t for t in range(kn.m) if rng.random() < density)
        graph = Graph(n, tuple(e for t, e in enumerate(kn.edges) if mask >> t & 1))
        rows = adjacency_rows(n, mask)
        assert [int(r) for r in rows] == list(graph.adjacency)
        assert not rows.flags.writeable  # kept for the next rule that asks: nobody may change it


def test_adjacency_rows_refuse_more_vertices_than_a_word_holds():
    with pytest.raises(ValueError, match="at most 62 vertices, not 63"):
        adjacency_rows(63, 1)
