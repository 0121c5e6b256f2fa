"""The clique bound: no gadget contains a complete graph that arrows its colours.

K_r → (F, H) (*K_r arrows F, H*) when every red/blue colouring of K_r has a red F or a blue H
(c colours: some colour holds one of its forbidden patterns); the least such r is the Ramsey
number R(F, H).  Every gadget type asks for at least one good colouring (its witness conditions,
:mod:`.spec`), and a good colouring of G restricted to a subgraph is good; so no solution
contains a K_r with K_r → (F, H).  The finder adds, for each r-set of vertices, the clause "one
of its C(r, 2) edges is absent".  The clauses are invariant under every vertex permutation, so
the lex-maximal member of each orbit is kept (sound with :mod:`.minimality` and the lex-leader
constraints), and they hold for every layout, cube and edge bound of the level.

Without them the lazy engine proves K_r → (F, H) again for every candidate holding a K_r on
other vertices (its arrowing lemma names that one K_r): at the (K3, K4) red-determiner on 12
vertices every one of the 84 arrowing lemmas was such a K9 (R(3, 4) = 9), and their proofs took
10.5 of 20.8 CPU seconds.

r is found by SAT on K_2, K_3, …, K_n with a conflict budget per query; a query that runs out of
it gives no bound (the search stays exact; it prunes less).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from itertools import combinations
from math import comb

from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.problem import Problem
from ramseygadgets.verification.verifier import colorings_of

__all__ = ["CLIQUE_CONFLICTS", "MAX_CLIQUE_CLAUSES", "arrowing_clique", "clique_free_clauses"]

#: Conflicts one K_r query may take (MiniSat proves R(3, 4) = 9 in about 5 · 10^4, 0.13 s;
#: an undecided query costs at most a few seconds, once per process and r).
CLIQUE_CONFLICTS = 200_000

#: Most clauses the bound adds (C(n, r)); a level that would need more goes without it.
MAX_CLIQUE_CLAUSES = 50_000


def arrowing_clique(problem: Problem, limit: int, conflicts: int = CLIQUE_CONFLICTS) -> int | None:
    """The least r ≤ ``limit`` with K_r → the problem's colours, or ``None`` (K_limit has a good
    colouring, or a query ran out of ``conflicts``)."""
    for r in range(2, limit + 1):
        colorable = _complete_graph_colorable(problem, r, conflicts)
        if colorable is None:
            return None
        if not colorable:
            return r
    return None


@lru_cache(maxsize=1024)
def _complete_graph_colorable(problem: Problem, r: int, conflicts: int) -> bool | None:
    """Whether K_r has a good colouring; ``None``: undecided within ``conflicts``."""
    with colorings_of(problem, Graph.complete(r)) as sat:
        sat.solver.conf_budget(conflicts)
        return sat.solver.solve_limited()


def clique_free_clauses(n: int, r: int, var: Callable[[int, int], int]) -> list[list[int]]:
    """For each r-set of 0..n−1 the clause "one of its edges is absent" (``var(u, v)``: the SAT
    variable of edge {u, v}, u < v); none when there would be more than
    :data:`MAX_CLIQUE_CLAUSES`."""
    if comb(n, r) > MAX_CLIQUE_CLAUSES:
        return []
    return [[-var(u, v) for u, v in combinations(vs, 2)] for vs in combinations(range(n), r)]
