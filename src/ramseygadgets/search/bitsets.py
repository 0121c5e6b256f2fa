"""Edge sets of K_n as rows of int64 words, for the vectorised and compiled loops of the search.

An edge set is a Python int with bit t for edge t (as in :mod:`.oracle`); here it becomes
W = ⌈m / 62⌉ int64 words of 62 bits (62, so that no shift or complement reaches the sign bit).
A table holds one set per row; ``within`` and ``disjoint`` mark rows against one set.
``adjacency_rows`` gives a subgraph of K_n as one neighbour bitmask per vertex.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numba
import numpy as np

__all__ = [
    "BITS",
    "adjacency_rows",
    "disjoint",
    "from_words",
    "greedy_extension",
    "to_words",
    "within",
    "word_count",
    "words_table",
]

#: Bits of an edge set stored in one int64 word.
BITS = 62
_WORD = (1 << BITS) - 1


def word_count(m: int) -> int:
    """Words per edge set of K_n with m edges."""
    return max(1, -(-m // BITS))


def to_words(mask: int, words: int) -> np.ndarray:
    """The edge set ``mask`` as ``words`` int64 words."""
    return np.array([mask >> (BITS * i) & _WORD for i in range(words)], dtype=np.int64)


def from_words(row: np.ndarray) -> int:
    """The edge set of one row of words, as a Python int."""
    return sum(int(word) << (BITS * i) for i, word in enumerate(row))


def words_table(masks: Sequence[int], words: int) -> np.ndarray:
    """One row of words per edge set (shape ``(len(masks), words)``)."""
    table = np.zeros((len(masks), words), dtype=np.int64)
    for row, mask in enumerate(masks):
        table[row] = to_words(mask, words)
    return table


@numba.njit(cache=True)
def within(table, row):  # noqa: ANN001, ANN201
    """Which rows of ``table`` are subsets of the set ``row`` (compiled: a lemma's copies are
    looked up three times per candidate, and numpy's reductions were 10 % of a dense cube)."""
    out = np.empty(table.shape[0], dtype=np.bool_)
    for i in range(table.shape[0]):
        inside = True
        for w in range(table.shape[1]):
            if table[i, w] & ~row[w]:
                inside = False
                break
        out[i] = inside
    return out


@numba.njit(cache=True)
def disjoint(table, row):  # noqa: ANN001, ANN201
    """Which rows of ``table`` share no element with the set ``row``."""
    out = np.empty(table.shape[0], dtype=np.bool_)
    for i in range(table.shape[0]):
        apart = True
        for w in range(table.shape[1]):
            if table[i, w] & row[w]:
                apart = False
                break
        out[i] = apart
    return out


@lru_cache(maxsize=2)
def adjacency_rows(n: int, edge_mask: int) -> np.ndarray:
    """The neighbour bitmask of each vertex (n ≤ 62) of the subgraph of K_n with the edges of
    ``edge_mask`` (K_n's edges in lexicographic order, as :meth:`Graph.complete` lists them).
    Read-only, and kept for the last two graphs: the rules that look at a candidate ask in turn."""
    if n > 62:
        raise ValueError(f"neighbour bitmasks are int64 words: at most 62 vertices, not {n}")
    rows = _adjacency(to_words(edge_mask, word_count(n * (n - 1) // 2)), n)
    rows.flags.writeable = False
    return rows


@numba.njit(cache=True)
def _adjacency(words, n):  # noqa: ANN001, ANN202
    adj = np.zeros(n, dtype=np.int64)
    t = 0
    for u in range(n):
        for v in range(u + 1, n):
            if words[t // BITS] >> (t % BITS) & 1:
                adj[u] |= np.int64(1) << v
                adj[v] |= np.int64(1) << u
            t += 1
    return adj


@numba.njit(cache=True)
def _completed(start, rest, t, color):  # noqa: ANN001, ANN202
    """How many of the sets ``rest[start[t]:start[t + 1]]`` lie inside ``colour`` (a row)."""
    count = 0
    for k in range(start[t], start[t + 1]):
        inside = True
        for w in range(color.shape[0]):
            if rest[k, w] & ~color[w]:
                inside = False
                break
        count += inside
    return count


@numba.njit(cache=True)
def greedy_extension(order, f_start, f_rest, h_start, h_rest, red, blue):  # noqa: ANN001, ANN201
    """Colour the edges of ``order`` one by one, in place in ``red``/``blue`` (rows of words):
    red when that completes fewer all-red copies of F than blue completes all-blue copies of H,
    else blue.  ``f_rest[f_start[t]:f_start[t + 1]]``: the copies of F through t without t."""
    for t in order:
        bit = np.int64(1) << (t % BITS)
        if _completed(f_start, f_rest, t, red) < _completed(h_start, h_rest, t, blue):
            red[t // BITS] |= bit
        else:
            blue[t // BITS] |= bit
