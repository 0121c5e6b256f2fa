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

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from itertools import product
from math import comb
from typing import Any

from pysat.card import CardEnc, EncType
from pysat.solvers import Cadical153, Glucose3, Glucose4, Minisat22, NoSuchSolverError, Solver

from ramseygadgets.colorings.copies import count_all_copies, find_copies
from ramseygadgets.core.errors import ColoringLimitExceeded, GraphTooLargeError, InputError
from ramseygadgets.core.graphs import Edge, Graph
from ramseygadgets.core.patterns import Pattern

__all__ = [
    "DEFAULT_SOLVER",
    "keyboard_interrupts",
    "new_solver",
    "Coloring",
    "ForcedEdges",
    "DEFAULT_MAX_CLAUSES",
    "IncrementalCNF",
    "GoodColorings",
]


#: PySAT backend.  The paper used Glucose; on these small formulas MiniSat 2.2 answers the same
#: questions with about 35 % less overhead per solver and per call (bench/verify.py), and any
#: complete solver gives the same verdicts.  Pass ``solver="glucose4"`` to use Glucose.  The
#: verifier asks Glucose 4 (``verification.verifier.VERIFY_SOLVER``): its questions on a real
#: gadget are unsatisfiable ones, where Glucose is twice as fast (bench/verify_solver.py).
DEFAULT_SOLVER = "minisat22"

#: Backends constructed directly (same objects ``Solver(name=...)`` would wrap, one hop less per call).
_DIRECT_BACKENDS: dict[str, type] = {
    "minisat22": Minisat22,
    "m22": Minisat22,
    "glucose4": Glucose4,
    "g4": Glucose4,
    "g41": Glucose4,
    "glucose3": Glucose3,
    "g3": Glucose3,
    "cadical153": Cadical153,
    "cd15": Cadical153,
}


@contextmanager
def keyboard_interrupts() -> Iterator[None]:
    """Re-raise Ctrl-C caught inside a PySAT solver call as :class:`KeyboardInterrupt`: PySAT's
    C extension installs its own SIGINT handler during ``solve`` and raises ``pysolvers.error``
    ("Caught keyboard interrupt") instead."""
    try:
        yield
    except Exception as exc:
        if "keyboard interrupt" in str(exc).lower():
            raise KeyboardInterrupt from None
        raise


def new_solver(name: str = DEFAULT_SOLVER, clauses: Iterable[Sequence[int]] = ()) -> Any:
    """A PySAT solver (``add_clause``, ``solve``, ``get_model``, ``delete``) loaded with ``clauses``."""
    backend = _DIRECT_BACKENDS.get(name)
    if backend is not None:
        return backend(bootstrap_with=clauses)
    try:
        return Solver(name=name, bootstrap_with=clauses)
    except NoSuchSolverError:
        known = ", ".join(sorted(_DIRECT_BACKENDS))
        raise InputError(f"unknown SAT solver {name!r}; PySAT's names include {known}") from None


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

    def color_index(self, i: int) -> int:
        """The colour of edge index ``i``: 0 (red) or 1 (blue)."""
        return 0 if self.red[i] else 1

    def red_degree(self, v: int) -> int:
        """Red edges at v (free edges included)."""
        red = self.red
        return sum([red[i] for i in self.graph.incident_edges[v]])

    def to_json(self) -> dict[str, list[list[int]]]:
        return {
            "red": [list(e) for e in self.red_edges],
            "blue": [list(e) for e in self.blue_edges],
        }

    def describe(self) -> str:
        def fmt(edges: list[Edge]) -> str:
            return ", ".join(f"{u}-{v}" for u, v in edges) or "none"

        return f"red: {fmt(self.red_edges)}; blue: {fmt(self.blue_edges)}"


@dataclass(frozen=True)
class ForcedEdges:
    """Edges with the same colour in every good coloring (empty when G is not good)."""

    red: tuple[Edge, ...]
    blue: tuple[Edge, ...]


#: Largest CNF (copies of F plus copies of H) built before refusing a graph as too large.
DEFAULT_MAX_CLAUSES = 2_000_000


class IncrementalCNF:
    """A CNF (``clauses``) with one lazily built incremental PySAT solver; a context manager."""

    clauses: Sequence[Sequence[int]]

    def __init__(self, solver: str = DEFAULT_SOLVER) -> None:
        self._solver_name = solver
        self._solver: Any = None

    @property
    def solver(self) -> Any:
        """The incremental PySAT solver holding ``clauses`` (built on first use)."""
        if self._solver is None:
            self._solver = new_solver(self._solver_name, self.clauses)
        return self._solver

    def close(self) -> None:
        if self._solver is not None:
            self._solver.delete()
            self._solver = None

    def __enter__(self):  # -> Self
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # pragma: no cover - best effort
        try:
            self.close()
        except Exception:
            pass


class GoodColorings(IncrementalCNF):
    """The (F,H)-good colorings of a graph, queried through one incremental SAT solver.

    ``clauses`` is the CNF of the spec: first one clause per copy of F (negative literals),
    then one per copy of H (positive literals), built straight from the copy enumerators.
    A graph whose CNF would exceed ``max_clauses`` clauses is refused with
    :class:`~ramseygadgets.core.errors.GraphTooLargeError` before anything is listed.
    """

    def __init__(
        self,
        graph: Graph,
        F: Pattern,
        H: Pattern,
        *,
        solver: str = DEFAULT_SOLVER,
        max_clauses: int | None = DEFAULT_MAX_CLAUSES,
    ) -> None:
        self.graph, self.F, self.H = graph, F, H
        if max_clauses is not None:
            _check_size(graph, F, H, max_clauses)
        m = graph.m
        f_clauses = find_copies(F, graph, labels=range(-1, -m - 1, -1))
        h_clauses = find_copies(H, graph, labels=range(1, m + 1))
        self._num_f = len(f_clauses)
        f_clauses.extend(h_clauses)
        self.clauses: list[tuple[int, ...]] = f_clauses
        super().__init__(solver)
        self._top = m  # highest variable in use

    @cached_property
    def f_copies(self) -> list[tuple[int, ...]]:
        """Copies of F (sorted edge-index tuples)."""
        return [tuple(sorted(-lit - 1 for lit in c)) for c in self.clauses[: self._num_f]]

    @cached_property
    def h_copies(self) -> list[tuple[int, ...]]:
        """Copies of H (sorted edge-index tuples)."""
        return [tuple(sorted(lit - 1 for lit in c)) for c in self.clauses[self._num_f :]]

    # -- structure -----------------------------------------------------------------------------
    @cached_property
    def constrained(self) -> tuple[bool, ...]:
        """Whether each edge lies in some copy of F or H."""
        used = [False] * (self.graph.m + 1)
        for clause in self.clauses:
            for lit in clause:
                used[abs(lit)] = True
        return tuple(used[1:])

    @property
    def free_edges(self) -> list[Edge]:
        return [e for e, c in zip(self.graph.edges, self.constrained) if not c]

    #: The number of colours (red and blue).
    c = 2

    def lit(self, edge: int, color: int) -> int:
        """The literal "edge index ``edge`` has colour ``color``" (0 red, 1 blue)."""
        return edge + 1 if color == 0 else -(edge + 1)

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
        with new_solver(self._solver_name, self.clauses) as s:
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

    def components(self) -> list[list[int]]:
        """Constrained edges grouped into independent parts: two edges are together when a chain
        of clauses links them.  Good colorings are products of the parts' colorings (free edges
        aside), so the parts are counted separately."""
        parent = list(range(self.graph.m + 1))

        def root(x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for clause in self.clauses:
            a = root(abs(clause[0]))
            for lit in clause[1:]:
                b = root(abs(lit))
                if a != b:
                    parent[b] = a
        groups: dict[int, list[int]] = {}
        for i, used in enumerate(self.constrained):
            if used:
                groups.setdefault(root(i + 1), []).append(i)
        return list(groups.values())

    def count(self, cap: int = 100_000) -> tuple[int, bool]:
        """``(count, exact)``: the number of good colorings, or ``(cap, False)`` if there are more.

        count = 2^(free edges) · Π over :meth:`components` of the part's count, each part
        enumerated with blocking clauses on its own edges (at most ``cap`` models in all).
        """
        if not self.is_good():
            return 0, True
        total = 1 << (self.graph.m - sum(self.constrained))
        if total > cap:
            return cap, False
        parts = self.components()
        var_part = {i + 1: p for p, edges in enumerate(parts) for i in edges}
        part_clauses: list[list[Sequence[int]]] = [[] for _ in parts]
        for clause in self.clauses:
            part_clauses[var_part[abs(clause[0])]].append(clause)
        for edges, clauses in zip(parts, part_clauses):
            found = self._count_part(edges, clauses, cap // total + 1)
            total *= found
            if total > cap:
                return cap, False
        return total, True

    def _count_part(self, edges: list[int], clauses: list[Sequence[int]], limit: int) -> int:
        """Good colorings of one part's edges (stops after ``limit``)."""
        found = 0
        with new_solver(self._solver_name, clauses) as s:
            while found < limit and s.solve():
                found += 1
                model = s.get_model() or []
                s.add_clause([-model[i] for i in edges])  # model[i] is ±(i + 1)
        return found

    # -- red-degree constraints (hardness gadgets) ---------------------------------------------
    def red_degree_clauses(
        self, v: int, *, at_most: int | None = None, at_least: int | None = None
    ) -> list[list[int]]:
        """Clauses (possibly over fresh auxiliary variables) saying ``at_least ≤ red-degree(v) ≤ at_most``."""
        lits = [i + 1 for i in self.graph.incident_edges[v]]
        d = len(lits)
        clauses: list[list[int]] = []
        if at_most is not None and at_most < d:
            if at_most < 0:
                return [[]]
            if at_most == 0:
                clauses += [[-x] for x in lits]
            elif at_most == d - 1:
                clauses.append([-x for x in lits])
            else:
                enc = CardEnc.atmost(
                    lits, bound=at_most, top_id=self._top, encoding=EncType.seqcounter
                )
                self._top = max(self._top, enc.nv)
                clauses += enc.clauses
        if at_least is not None and at_least > 0:
            if at_least > d:
                return [[]]
            if at_least == 1:
                clauses.append(list(lits))
            elif at_least == d:
                clauses += [[x] for x in lits]
            else:
                enc = CardEnc.atleast(
                    lits, bound=at_least, top_id=self._top, encoding=EncType.seqcounter
                )
                self._top = max(self._top, enc.nv)
                clauses += enc.clauses
        return clauses

    def red_degree_switch(
        self, v: int, *, at_most: int | None = None, at_least: int | None = None
    ) -> int:
        """A fresh literal that, when assumed, forces ``at_least ≤ red-degree(v) ≤ at_most``."""
        clauses = self.red_degree_clauses(v, at_most=at_most, at_least=at_least)
        switch = self.new_var()
        solver = self.solver
        for clause in clauses:
            solver.add_clause([-switch, *clause])
        return switch


def _check_size(graph: Graph, F: Pattern, H: Pattern, max_clauses: int) -> None:
    """Refuse graphs whose CNF would have more than ``max_clauses`` clauses (counted, not listed)."""
    m = graph.m
    if comb(m, F.graph.m) + comb(m, H.graph.m) <= max_clauses:  # a copy is a set of edges of G
        return
    total, exact = count_all_copies((F, H), graph, limit=max_clauses)
    if total > max_clauses:
        raise GraphTooLargeError(
            f"graph has {graph.n} vertices and {graph.m} edges with {'' if exact else 'at least '}{total:,} copies of {F.name} and {H.name} "
            f"together, more than the limit of {max_clauses:,} clauses; it is too large to check exactly"
        )
