"""Canonicity check: exclude candidate graphs that are not lex-maximal in their orbit.

The idea of SAT modulo symmetries (Kirchweger and Szeider, CP 2021), applied to the complete
candidates of the CEGAR loop.  The adjacency vector of a graph G on 0..n−1 lists x_ij (i < j) in
*column order* — (0,1), (0,2), (1,2), (0,3), (1,3), (2,3), … — so its entries in columns ≤ p
depend only on vertices 0..p.  For a vertex permutation σ of the problem's symmetry group (the
layout's class permutations and swaps) σ(G) is the graph with σ(G)_ij = G_σ(i)σ(j).

**Pruning clause.**  If σ(G) >_lex G, let k be the first position where the vectors differ
(G_k = 0, σ(G)_k = 1).  The clause "some entry compared up to and including k has another
value" (the entries at positions < k that are the same variable in both vectors are omitted) is
false for G, and every graph G' that falsifies it has σ(G') >_lex G' too: so it excludes only
graphs that are not the lex-maximal member of their orbit.

**Soundness.**  The lex-maximal member G* of an orbit is never excluded.  Everything else in the
finder (designated items, witness and bad conditions, lemmas) is invariant under the group, so
G solves the problem iff σ(G) does; a solution exists iff a lex-maximal one does, and UNSAT
still proves that none exists.  The static lex-leader constraints of :mod:`.cegar` use the same
order and also keep the lex-maximal member, so all are sound together.  The search for σ is cut
off after ``budget`` steps; a cut-off check excludes nothing (it only prunes less).

**Finding σ.**  Depth-first over positions p = 0, 1, …: choose σ(p) among the vertices the group
allows there and compare column p of G with column p of σ(G) (bitmasks); an equal column goes one
position deeper, a greater one is the answer, a smaller one abandons the branch.
"""

from __future__ import annotations

from collections.abc import Sequence

import numba
import numpy as np

__all__ = [
    "Coset",
    "column_order",
    "group_cosets",
    "LexMaxCheck",
    "MAX_VERTICES",
]

#: Vertices allowed at each position, for one coset of the symmetry group.
Coset = tuple[tuple[int, ...], ...]


def column_order(n: int) -> list[tuple[int, int]]:
    """The pairs (i, j), i < j, in column order: (0,1), (0,2), (1,2), (0,3), …"""
    return [(i, j) for j in range(n) for i in range(j)]


def group_cosets(
    n: int, classes: Sequence[Sequence[int]], swaps: Sequence[Sequence[int]]
) -> list[Coset]:
    """The group ⟨permutations inside each class, swaps⟩ as cosets s·(class permutations).

    Each coset is given by the vertices allowed at each position: σ(p) ∈ s(class of p).  The
    swaps must map classes onto classes (true for every layout of :mod:`.spec`).
    """
    class_of = {v: tuple(cls) for cls in classes for v in cls}
    identity = tuple(range(n))
    return [
        tuple(tuple(s[v] for v in class_of.get(p, (p,))) for p in range(n))
        for s in (identity, *(tuple(s) for s in swaps))
    ]


class LexMaxCheck:
    """Finds σ with σ(G) >_lex G for a graph G and returns the pruning clause (module docstring).

    ``var[i][j]`` is the SAT variable of edge {i, j}; ``budget`` bounds the steps of one check.
    The depth-first search runs compiled (:func:`_greater_image`); graphs on more than
    :data:`MAX_VERTICES` vertices are not checked (nothing is pruned).
    """

    def __init__(
        self, n: int, var: Sequence[Sequence[int]], cosets: Sequence[Coset], *, budget: int = 5000
    ) -> None:
        self.n, self.var, self.budget = n, var, budget
        width = max((len(allowed) for coset in cosets for allowed in coset), default=0)
        #: per coset: the vertices allowed at each position (padded) and how many there are
        self._allowed = [np.zeros((n, width), dtype=np.int64) for _ in cosets]
        self._counts = [np.zeros(n, dtype=np.int64) for _ in cosets]
        for coset, allowed, counts in zip(cosets, self._allowed, self._counts):
            for p, vertices in enumerate(coset):
                allowed[p, : len(vertices)] = vertices
                counts[p] = len(vertices)
        self._sigma = np.zeros(n, dtype=np.int64)
        self._scratch = np.zeros((2, n + 1), dtype=np.int64)

    def pruning_clause(self, adjacency: Sequence[int] | np.ndarray) -> list[int] | None:
        """The clause excluding G (``adjacency[v]``: bitmask of v's neighbours), or ``None``."""
        if self.n > MAX_VERTICES:
            return None
        rows = np.asarray(adjacency, dtype=np.int64)
        for allowed, counts in zip(self._allowed, self._counts):
            found = _greater_image(rows, allowed, counts, self.budget, self._sigma, self._scratch)
            if found == 1:
                return self._clause([int(v) for v in self._sigma], rows.tolist())
        return None

    def _clause(self, sigma: list[int], adjacency: Sequence[int]) -> list[int]:
        """Negations of the entries of G and σ(G) compared up to the first difference."""
        var, lits = self.var, set()
        for j in range(self.n):
            for i in range(j):
                a, b = var[i][j], var[sigma[i]][sigma[j]]
                if a == b:
                    continue
                in_a = bool(adjacency[j] >> i & 1)
                in_b = bool(adjacency[sigma[j]] >> sigma[i] & 1)
                lits.add(-a if in_a else a)
                lits.add(-b if in_b else b)
                if in_a != in_b:
                    return sorted(lits)
        raise AssertionError("σ(G) equals G: no difference to prune on")


#: Most vertices the compiled check takes (a row of the adjacency matrix is one int64).
MAX_VERTICES = 62


@numba.njit(cache=True)
def _greater_image(adjacency, allowed, counts, budget, sigma, scratch):
    """1 and σ (in ``sigma``) with σ(G) >_lex G, 0: none in this coset, −1: budget ran out.

    Depth first over σ(0), σ(1), …; ``placed[w]`` has bit i (i < p) when σ(i) is a neighbour
    of w, so column p of σ(G) for σ(p) = v is ``placed[v]``, read in O(1).  ``tried[p]``: the
    next index into ``allowed[p]``.  An equal column goes one position deeper, a greater one
    (the first difference is an edge of σ(G)) is the answer, a smaller one is abandoned.
    """
    n = adjacency.shape[0]
    placed, tried = scratch[0], scratch[1]
    placed[:] = 0
    used, left, p = 0, budget, 0
    tried[0] = 0
    while True:
        if tried[p] == counts[p]:  # every choice at p tried: back to p − 1
            if p == 0:
                return 0
            p -= 1
            v = sigma[p]
            for w in range(n):
                if adjacency[v] >> w & 1:
                    placed[w] &= ~(1 << p)
            used &= ~(1 << v)
            tried[p] += 1
            continue
        v = allowed[p, tried[p]]
        if used >> v & 1:
            tried[p] += 1
            continue
        left -= 1
        if left < 0:
            return -1
        image = placed[v]
        diff = (adjacency[p] & ((1 << p) - 1)) ^ image
        if diff != 0 or p + 1 == n:
            if image & diff & -diff:  # first difference: σ(G) has the edge, G has not
                sigma[p] = v
                return 1
            tried[p] += 1
            continue
        sigma[p] = v
        for w in range(n):
            if adjacency[v] >> w & 1:
                placed[w] |= 1 << p
        used |= 1 << v
        p += 1
        tried[p] = 0
