"""SAT modulo symmetries: prune every partial graph that is not lex-maximal in its orbit.

After Kirchweger and Szeider (SMS, CP 2021): a CaDiCaL user propagator (IPASIR-UP, through
PySAT's ``Cadical195.connect_propagator``) watches the edge variables x_ij of the candidate
graph.  The adjacency vector of a graph G on vertices 0..n−1 lists x_ij (i < j) in *column
order* — (0,1), (0,2), (1,2), (0,3), (1,3), (2,3), … — so the entries of columns ≤ p depend
only on where the vertices 0..p go.  For a vertex permutation σ of the problem's symmetry group
write σ(G) for the graph with σ(G)_ij = G_σ(i)σ(j).

**Pruning rule.**  A partial assignment A is pruned when some σ satisfies σ(G) >_lex G for
*every* completion G of A: along the column order every entry before some position k is equal
in both vectors for every completion (both entries assigned and equal, or the same variable),
and at k σ(A) has an assigned 1 where A has an assigned 0.  The clause "not all of these
assigned literals" is then falsified by A and excludes only graphs that are not the lex-maximal
member of their orbit.

**Soundness.**  The lex-maximal graph G* of an orbit is never excluded: no σ gives σ(G*) >_lex
G*.  The problem (designated items, witness and bad conditions, lemmas) is invariant under the
group, so G solves it iff σ(G) does; hence a solution exists iff a lex-maximal one does, and
UNSAT with the propagator still proves that no solution exists.  The search for σ is cut off
after ``budget`` steps; a cut-off check prunes less, never wrongly.  The static lex-leader
constraints of :mod:`.cegar` keep the same representative (lex-maximal in the same order), so
the two are sound together.

**Finding σ.**  Depth-first over positions p = 0, 1, …: choose σ(p) among the vertices the
group allows there, compare column p (entries (i, p), i < p, against (σ(i), σ(p))); a column
that is definitely equal goes one position deeper, one that is definitely greater prunes,
anything else (smaller, or undecided) abandons the branch.
"""

from __future__ import annotations

from collections.abc import Sequence

#: Vertices allowed at each position, for one coset of the symmetry group.
Coset = tuple[tuple[int, ...], ...]

GREATER, EQUAL, FAIL = 1, 0, -1


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
    out = []
    for s in (identity, *(tuple(s) for s in swaps)):
        out.append(tuple(tuple(s[v] for v in class_of.get(p, (p,))) for p in range(n)))
    return out


class LexMaxCheck:
    """Finds a group element σ with σ(G) >_lex G for every completion (module docstring).

    ``var[i][j]`` is the SAT variable of edge {i, j}; ``budget`` bounds the steps of one check.
    """

    def __init__(
        self, n: int, var: Sequence[Sequence[int]], cosets: Sequence[Coset], *, budget: int = 5000
    ) -> None:
        self.n, self.var, self.cosets, self.budget = n, var, list(cosets), budget
        self.value_now: Sequence[bool | None] = ()
        self.left = 0

    # -- the minimality check --------------------------------------------------------------------
    def pruning_clause(self, value: Sequence[bool | None]) -> list[int] | None:
        """A clause falsified by ``value`` that only lex-non-maximal graphs falsify, or ``None``."""
        self.value_now = value
        for coset in self.cosets:
            self.left = self.budget
            sigma = [-1] * self.n
            used = [False] * self.n
            clause = self._extend(0, sigma, used, coset, [])
            if clause is not None:
                return sorted(set(clause))
        return None

    def _extend(
        self, p: int, sigma: list[int], used: list[bool], coset: Coset, lits: list[int]
    ) -> list[int] | None:
        if p == self.n:
            return None
        for v in coset[p]:
            if used[v]:
                continue
            self.left -= 1
            if self.left < 0:
                return None
            sigma[p] = v
            outcome, column = self._compare_column(p, sigma)
            if outcome == GREATER:
                return lits + column
            if outcome == EQUAL:
                used[v] = True
                found = self._extend(p + 1, sigma, used, coset, lits + column)
                used[v] = False
                if found is not None or self.left < 0:
                    return found
        return None

    def _compare_column(self, p: int, sigma: list[int]) -> tuple[int, list[int]]:
        """Compare column p of G and σ(G); the clause literals of the assigned entries used."""
        var, value = self.var, self.value_now
        lits: list[int] = []
        vp = sigma[p]
        for i in range(p):
            a, b = var[i][p], var[sigma[i]][vp]
            if a == b:
                continue
            va, vb = value[a], value[b]
            if va is None or vb is None:
                return FAIL, lits
            lits.append(-a if va else a)
            lits.append(-b if vb else b)
            if va != vb:
                return (GREATER if vb else FAIL), lits
        return EQUAL, lits
