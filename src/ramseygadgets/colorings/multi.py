"""Good c-colourings of a graph as SAT, through the core copy enumerators and solver.

Literals: with two colours one variable per edge, ``r_i = i + 1`` true when edge i is red
(colour 0) and false when blue (colour 1), exactly the core encoding of
:mod:`ramseygadgets.colorings.red_blue`.  With c ≥ 3 colours, one-hot variables ``x_{i,k} = i·c + k + 1``
with, per edge, "at least one colour" ``(x_{i,0} ∨ … ∨ x_{i,c-1})`` and "at most one"
``(¬x_{i,k} ∨ ¬x_{i,l})`` for k < l (gadget properties are not monotone, so an edge must
have exactly one colour).  For every colour k and every copy C of a pattern forbidden in k the
clause ``∨_{i∈C} ¬x_{i,k}``.  Good colourings are exactly the satisfying assignments, and for
a pair (F, H) the clause list is literally the core's (same enumerators, same labels).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from math import comb

from ramseygadgets.colorings.copies import count_all_copies, find_copies
from ramseygadgets.colorings.red_blue import (
    DEFAULT_MAX_CLAUSES,
    DEFAULT_SOLVER,
    IncrementalCNF,
    new_solver,
)
from ramseygadgets.colorings.spec import ColoringSpec
from ramseygadgets.core.errors import GraphTooLargeError
from ramseygadgets.core.graphs import Edge, Graph

__all__ = [
    "literal",
    "MultiColoring",
    "MultiColorings",
]


def literal(c: int, edge: int, color: int) -> int:
    """The literal "edge ``edge`` (index) has colour ``color``" among ``c`` colours."""
    if c == 2:
        return edge + 1 if color == 0 else -(edge + 1)
    return edge * c + color + 1


@dataclass(frozen=True)
class MultiColoring:
    """A colouring of every edge of ``graph``: ``colors[i]`` is the colour index of edge i."""

    graph: Graph
    spec: ColoringSpec
    colors: tuple[int, ...]

    def color_of(self, u: int, v: int) -> int:
        return self.colors[self.graph.edge_id(u, v)]

    def color_index(self, i: int) -> int:
        """The colour of edge index ``i``."""
        return self.colors[i]

    def edges_of(self, color: int) -> list[Edge]:
        return [e for e, k in zip(self.graph.edges, self.colors) if k == color]

    def to_json(self) -> dict[str, list[list[int]]]:
        return {
            col.name: [list(e) for e in self.edges_of(k)] for k, col in enumerate(self.spec.colors)
        }

    def describe(self) -> str:
        parts = []
        for k, col in enumerate(self.spec.colors):
            edges = ", ".join(f"{u}-{v}" for u, v in self.edges_of(k)) or "none"
            parts.append(f"{col.name}: {edges}")
        return "; ".join(parts)


class MultiColorings(IncrementalCNF):
    """The good colourings of a graph under a :class:`ColoringSpec`, on one incremental solver."""

    def __init__(
        self,
        graph: Graph,
        spec: ColoringSpec,
        *,
        solver: str = DEFAULT_SOLVER,
        max_clauses: int | None = DEFAULT_MAX_CLAUSES,
    ) -> None:
        self.graph, self.spec, self.c = graph, spec, spec.c
        if max_clauses is not None:
            _check_size(graph, spec, max_clauses)
        m, c = graph.m, spec.c
        clauses: list[Sequence[int]] = []
        if c > 2:
            for i in range(m):
                lits = [literal(c, i, k) for k in range(c)]
                clauses.append(lits)
                clauses.extend([-a, -b] for a, b in combinations(lits, 2))
        for k, color in enumerate(spec.colors):
            labels = [-literal(c, i, k) for i in range(m)]
            for pattern in color.forbidden:
                clauses.extend(find_copies(pattern, graph, labels=labels))
        self.clauses = clauses
        super().__init__(solver)

    def lit(self, edge: int, color: int) -> int:
        return literal(self.c, edge, color)

    def var(self, u: int, v: int, color: int) -> int:
        return self.lit(self.graph.edge_id(u, v), color)

    # -- questions --------------------------------------------------------------------------------
    def decode(self, model: Sequence[int]) -> MultiColoring:
        m, c = self.graph.m, self.c
        if c == 2:
            colors = [1] * m
            for lit in model:
                if 0 < lit <= m:
                    colors[lit - 1] = 0
        else:
            colors = [0] * m
            for lit in model:
                if 0 < lit <= m * c:
                    colors[(lit - 1) // c] = (lit - 1) % c
        return MultiColoring(self.graph, self.spec, tuple(colors))

    def solve(self, assumptions: Sequence[int] = ()) -> MultiColoring | None:
        """A good colouring satisfying the assumption literals, or ``None``."""
        if not self.solver.solve(assumptions=list(assumptions)):
            return None
        return self.decode(self.solver.get_model() or [])

    def is_good(self) -> bool:
        return bool(self.solver.solve())

    def edge_colors(self) -> list[set[int]]:
        """For every edge, the set of colours it takes over the good colourings (empty if none).

        Each model found rules in the colours it shows; a colour not yet seen at an edge is asked
        for with one assumption.
        """
        first = self.solve()
        if first is None:
            return [set() for _ in range(self.graph.m)]
        seen = [{k} for k in first.colors]
        for i in range(self.graph.m):
            for k in range(self.c):
                if k in seen[i]:
                    continue
                other = self.solve([self.lit(i, k)])
                if other is None:
                    continue
                for j, kj in enumerate(other.colors):
                    seen[j].add(kj)
        return seen

    def iter_colorings(self) -> Iterator[MultiColoring]:
        """Every good colouring once (blocking clauses over all edges)."""
        with new_solver(self._solver_name, self.clauses) as s:
            while s.solve():
                coloring = self.decode(s.get_model() or [])
                yield coloring
                if self.graph.m == 0:
                    return
                s.add_clause([-self.lit(i, k) for i, k in enumerate(coloring.colors)])

    def count(self, cap: int = 100_000) -> tuple[int, bool]:
        """``(count, exact)``: the number of good colourings, or ``(cap, False)`` beyond ``cap``."""
        found = 0
        for _ in self.iter_colorings():
            found += 1
            if found > cap:
                return cap, False
        return found, True


def _check_size(graph: Graph, spec: ColoringSpec, max_clauses: int) -> None:
    patterns = [p for col in spec.colors for p in col.forbidden]
    if sum(comb(graph.m, p.graph.m) for p in patterns) <= max_clauses:
        return
    total, exact = count_all_copies(patterns, graph, limit=max_clauses)
    if total > max_clauses:
        raise GraphTooLargeError(
            f"graph has {graph.n} vertices and {graph.m} edges with {'' if exact else 'at least '}{total:,} forbidden copies, more than the limit "
            f"of {max_clauses:,} clauses; it is too large to check exactly"
        )
