"""Inherited lemmas kept out of the exists solver until a candidate breaks one.

A fresh CaDiCaL loaded with 100,000 lemma clauses tries about 120 candidates a second where one
without them tries 650 (docs/search.md, "Dense cubes").  So the finder of a cube that inherits
lemmas — a half of a split cube, a stopped cube resumed (:mod:`.stopped`) — keeps its
counterexample lemmas here: each candidate G the solver proposes is checked against them (the
lemma of a colouring c* holds for G when G contains one of its copies, the copies of F red and
of H blue under c*) and only the lemmas G breaks become clauses; G is then dropped without a
call to the oracle.  Every candidate that reaches the oracle satisfies every inherited lemma,
as when all of them were clauses, so the search stays exact (and a lemma left out only prunes
less).  Each lemma watches one of its copies, one the last candidate it was checked against
contained; only when that copy is missing are its other copies looked at.
"""

from __future__ import annotations

from collections.abc import Sequence

import numba
import numpy as np

from ramseygadgets.search.bitsets import to_words, within
from ramseygadgets.search.oracle import KnCopies

__all__ = ["DeferredLemmas"]

Copies = tuple[list[int], list[int]]


class DeferredLemmas:
    """Counterexample lemmas ``values`` (red masks of K_n) with their copies ``monos`` (F copy
    indices, H copy indices, as :meth:`~.exists.CandidateModel.lemma_copies` gives them; none
    empty), kept until a candidate breaks them."""

    def __init__(self, copies: KnCopies, values: Sequence[int], monos: Sequence[Copies]) -> None:
        self.copies = copies
        self.values, self.monos = list(values), list(monos)
        shift = len(copies.f_masks)
        lists = [np.array(f + [shift + h for h in hs], dtype=np.int64) for f, hs in self.monos]
        self.indptr = np.zeros(len(lists) + 1, dtype=np.int64)
        self.indptr[1:] = np.cumsum([len(x) for x in lists])
        self.indices = np.concatenate(lists) if lists else np.zeros(0, dtype=np.int64)
        self.watch = self.indices[self.indptr[:-1]].copy() if lists else self.indptr[:0].copy()
        self.alive = np.ones(len(lists), dtype=np.bool_)
        self.left = len(lists)

    def broken(self, edge_mask: int) -> list[tuple[int, Copies]]:
        """The lemmas the graph ``edge_mask`` breaks (no copy of theirs inside it), as
        ``(value, copies)``; they are dropped from here (the caller adds them as clauses)."""
        if not self.left:
            return []
        words = to_words(edge_mask, self.copies.words)
        present = np.concatenate(
            (within(self.copies.f_table, words), within(self.copies.h_table, words))
        )
        out = np.empty(self.left, dtype=np.int64)
        count = _broken(self.alive, self.watch, self.indptr, self.indices, present, out)
        self.left -= count
        return [(self.values[i], self.monos[i]) for i in out[:count]]


@numba.njit(cache=True)
def _broken(alive, watch, indptr, indices, present, out):  # noqa: ANN001, ANN202
    """Write the live lemmas with no present copy into ``out`` (and mark them dead); a live
    lemma whose watched copy is missing but another present watches that one.  Returns how
    many were written."""
    count = 0
    for i in range(alive.shape[0]):
        if not alive[i] or present[watch[i]]:
            continue
        found = -1
        for k in range(indptr[i], indptr[i + 1]):
            if present[indices[k]]:
                found = indices[k]
                break
        if found >= 0:
            watch[i] = found
        else:
            alive[i] = False
            out[count] = i
            count += 1
    return count
