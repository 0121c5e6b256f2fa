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

__all__ = [
    "Coset",
    "column_order",
    "group_cosets",
    "LexMaxCheck",
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
    """

    def __init__(
        self, n: int, var: Sequence[Sequence[int]], cosets: Sequence[Coset], *, budget: int = 5000
    ) -> None:
        self.n, self.var, self.cosets, self.budget = n, var, list(cosets), budget

    def pruning_clause(self, adjacency: Sequence[int]) -> list[int] | None:
        """The clause excluding G (``adjacency[v]``: bitmask of v's neighbours), or ``None``."""
        neighbours = [[w for w in range(self.n) if row >> w & 1] for row in adjacency]
        for coset in self.cosets:
            sigma = self._greater_image(coset, adjacency, neighbours)
            if sigma is not None:
                return self._clause(sigma, adjacency)
        return None

    def _greater_image(
        self, coset: Coset, adjacency: Sequence[int], neighbours: Sequence[Sequence[int]]
    ) -> list[int] | None:
        """σ in ``coset`` with σ(G) >_lex G (defined up to the first difference), or ``None``.

        Depth first over σ(0), σ(1), …; ``placed[w]`` has bit i (i < p) when σ(i) is a neighbour
        of w, so column p of σ(G) for σ(p) = v is ``placed[v]``, read in O(1).
        """
        n = self.n
        sigma, placed = [0] * n, [0] * n
        left = self.budget

        def extend(p: int, used: int) -> bool | None:
            """True: found; False: no σ below this prefix; None: the step budget ran out."""
            nonlocal left
            column, bit = adjacency[p] & (1 << p) - 1, 1 << p
            for v in coset[p]:
                if used >> v & 1:
                    continue
                left -= 1
                if left < 0:
                    return None
                image = placed[v]
                diff = column ^ image
                if diff:
                    if image & diff & -diff:  # first difference: σ(G) has the edge, G has not
                        sigma[p] = v
                        return True
                    continue
                if p + 1 == n:  # σ(G) = G on every column
                    continue
                sigma[p] = v
                for w in neighbours[v]:
                    placed[w] |= bit
                found = extend(p + 1, used | 1 << v)
                if found is not False:
                    return found
                for w in neighbours[v]:
                    placed[w] &= ~bit
            return False

        return sigma if extend(0, 0) else None

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
