"""(F,H)-good red/blue edge colorings as SAT (PySAT).

Variable ``r_i = i + 1`` is true when edge ``i`` is red.  For every copy of F the clause
``(¬r_e1 ∨ … ∨ ¬r_ek)`` (no red F) and for every copy of H the clause ``(r_e1 ∨ … ∨ r_ek)``
(no blue H).  Good colorings are exactly the satisfying assignments.  Edges in no copy of F or
H are *free*: they appear in no clause, take both colours, and are still part of every
coloring (and of red degrees).

:class:`GoodColorings` keeps one incremental solver per (G, F, H); questions such as "is there
a good coloring with e blue?" are answered with assumptions, never by enumeration.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from itertools import product
from typing import Iterator, Sequence

from pysat.card import CardEnc, EncType
from pysat.solvers import Solver

from ramseygadgets.copies import find_copies
from ramseygadgets.errors import ColoringLimitExceeded
from ramseygadgets.graphs import Edge, Graph
from ramseygadgets.patterns import Pattern

#: PySAT backend; Glucose is what the paper used.
DEFAULT_SOLVER = "glucose4"


@dataclass(frozen=True)
class Coloring:
    """A red/blue coloring of every edge of ``graph`` (``red[i]`` for edge index i)."""

    graph: Graph
    red: tuple[bool, ...]

    @property
    def red_edges(self) -> list[Edge]:
        return [e for e, r in zip(self.graph.edges, self.red) if r]

    @property
    def blue_edges(self) -> list[Edge]:
        return [e for e, r in zip(self.graph.edges, self.red) if not r]

    def color_of(self, u: int, v: int) -> str:
        return "red" if self.red[self.graph.edge_id(u, v)] else "blue"

    def red_degree(self, v: int) -> int:
        return sum(self.red[i] for i in self.graph.incident_edges[v])

    def to_json(self) -> dict[str, list[list[int]]]:
        return {"red": [list(e) for e in self.red_edges], "blue": [list(e) for e in self.blue_edges]}

    def describe(self) -> str:
        def fmt(edges: list[Edge]) -> str:
            return ", ".join(f"{u}-{v}" for u, v in edges) or "none"

        return f"red: {fmt(self.red_edges)}; blue: {fmt(self.blue_edges)}"


@dataclass(frozen=True)
class ForcedEdges:
    """Edges with the same colour in every good coloring (empty when G is not good)."""

    red: tuple[Edge, ...]
    blue: tuple[Edge, ...]


class GoodColorings:
    """The (F,H)-good colorings of a graph, queried through one incremental SAT solver."""

    def __init__(self, graph: Graph, F: Pattern, H: Pattern, *, solver: str = DEFAULT_SOLVER) -> None:
        self.graph, self.F, self.H = graph, F, H
        self.f_copies = find_copies(F, graph)
        self.h_copies = find_copies(H, graph)
        self.clauses: list[list[int]] = [[-(i + 1) for i in c] for c in self.f_copies]
        self.clauses += [[i + 1 for i in c] for c in self.h_copies]
        self._solver_name = solver
        self._solver: Solver | None = None
        self._top = graph.m  # highest variable in use

    # -- solver lifecycle ----------------------------------------------------------------------
    @property
    def solver(self) -> Solver:
        if self._solver is None:
            self._solver = Solver(name=self._solver_name, bootstrap_with=self.clauses)
        return self._solver

    def close(self) -> None:
        if self._solver is not None:
            self._solver.delete()
            self._solver = None

    def __enter__(self) -> "GoodColorings":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # pragma: no cover - best effort
        try:
            self.close()
        except Exception:
            pass

    # -- structure -----------------------------------------------------------------------------
    @cached_property
    def constrained(self) -> tuple[bool, ...]:
        """Whether each edge lies in some copy of F or H."""
        used = [False] * self.graph.m
        for copy in (*self.f_copies, *self.h_copies):
            for i in copy:
                used[i] = True
        return tuple(used)

    @property
    def free_edges(self) -> list[Edge]:
        return [e for e, c in zip(self.graph.edges, self.constrained) if not c]

    def var(self, u: int, v: int) -> int:
        """SAT variable of edge {u, v} (true = red)."""
        return self.graph.edge_id(u, v) + 1

    def new_var(self) -> int:
        self._top += 1
        return self._top

    # -- questions -----------------------------------------------------------------------------
    def solve(self, assumptions: Sequence[int] = ()) -> Coloring | None:
        """A good coloring satisfying the assumption literals, or ``None``."""
        if not self.solver.solve(assumptions=list(assumptions)):
            return None
        return self._coloring(self.solver.get_model() or [])

    def _coloring(self, model: Sequence[int]) -> Coloring:
        m = self.graph.m
        red = [False] * m
        for lit in model:
            if 0 < lit <= m:
                red[lit - 1] = True
        return Coloring(self.graph, tuple(red))

    def is_good(self) -> bool:
        return self.solver.solve()

    def forced_edges(self) -> ForcedEdges:
        """Edges red (blue) in every good coloring, by one assumption query per undecided edge.

        Each coloring found along the way rules out every edge whose colour it flips.
        """
        first = self.solve()
        if first is None:
            return ForcedEdges((), ())
        candidate = [c for c in self.constrained]
        value = list(first.red)
        for i in range(self.graph.m):
            if not candidate[i]:
                continue
            other = self.solve([-(i + 1)] if value[i] else [i + 1])
            if other is None:
                continue
            candidate[i] = False
            for j in range(i + 1, self.graph.m):
                if candidate[j] and other.red[j] != value[j]:
                    candidate[j] = False
        edges = self.graph.edges
        red = tuple(edges[i] for i in range(self.graph.m) if candidate[i] and value[i])
        blue = tuple(edges[i] for i in range(self.graph.m) if candidate[i] and not value[i])
        return ForcedEdges(red, blue)

    def iter_colorings(self) -> Iterator[Coloring]:
        """Every good coloring once: constrained edges by blocking clauses, free edges by product."""
        constrained = [i for i in range(self.graph.m) if self.constrained[i]]
        free = [i for i in range(self.graph.m) if not self.constrained[i]]
        with Solver(name=self._solver_name, bootstrap_with=self.clauses) as s:
            while s.solve():
                base = self._coloring(s.get_model() or [])
                for bits in product((False, True), repeat=len(free)):
                    red = list(base.red)
                    for i, b in zip(free, bits):
                        red[i] = b
                    yield Coloring(self.graph, tuple(red))
                if not constrained:
                    return
                s.add_clause([-(i + 1) if base.red[i] else i + 1 for i in constrained])

    def all_colorings(self, limit: int = 10_000) -> list[Coloring]:
        """All good colorings; :class:`ColoringLimitExceeded` when there are more than ``limit``."""
        out: list[Coloring] = []
        for coloring in self.iter_colorings():
            if len(out) == limit:
                raise ColoringLimitExceeded(
                    f"graph has more than {limit} good colorings; raise the limit or ask for the count only"
                )
            out.append(coloring)
        return out

    def count(self, cap: int = 100_000) -> tuple[int, bool]:
        """``(count, exact)``: the number of good colorings, or ``(cap, False)`` if there are more."""
        free = self.graph.m - sum(self.constrained)
        constrained = [i for i in range(self.graph.m) if self.constrained[i]]
        total = 0
        with Solver(name=self._solver_name, bootstrap_with=self.clauses) as s:
            while s.solve():
                total += 1 << free
                if total > cap:
                    return cap, False
                if not constrained:
                    break
                model = s.get_model() or []
                red = self._coloring(model).red
                s.add_clause([-(i + 1) if red[i] else i + 1 for i in constrained])
        return total, True

    # -- red-degree constraints (hardness gadgets) ---------------------------------------------
    def red_degree_switch(self, v: int, *, at_most: int | None = None, at_least: int | None = None) -> int:
        """A fresh literal that, when assumed, forces ``at_least ≤ red-degree(v) ≤ at_most``."""
        lits = [i + 1 for i in self.graph.incident_edges[v]]
        switch = self.new_var()
        clauses: list[list[int]] = []
        if at_most is not None:
            if at_most < 0:
                clauses.append([])
            elif at_most < len(lits):
                enc = CardEnc.atmost(lits, bound=at_most, top_id=self._top, encoding=EncType.seqcounter)
                self._top = max(self._top, enc.nv)
                clauses += enc.clauses
        if at_least is not None and at_least > 0:
            if at_least > len(lits):
                clauses.append([])
            else:
                enc = CardEnc.atleast(lits, bound=at_least, top_id=self._top, encoding=EncType.seqcounter)
                self._top = max(self._top, enc.nv)
                clauses += enc.clauses
        for clause in clauses:
            self.solver.add_clause([-switch, *clause])
        return switch


