"""Minimal multi-colour gadgets: the core CEGAR scheme of :mod:`ramseygadgets.search.cegar`,
generalised to c colours and forbidden sets.  Exact: UNSAT proves that no solution exists.

*Exists part* (the core :class:`~ramseygadgets.search.exists.ExistsModel` with its edge
variables x_t of K_n, lex-leader symmetry breaking, edge bound and deadline; c-colour witnesses):
a witness colouring w of K_n has literals w(t, k) ("t has colour k", one variable per edge for
two colours, one-hot with exactly-one otherwise) and, for every colour k and every copy C of a
pattern forbidden in k, the clause ∨_{t∈C} (¬x_t ∨ ¬w(t, k)).  Witnesses: a determiner for k has
one colouring with e of colour k; a sender has two colourings w¹, w² with w¹(e) ≠ w²(e) and, in
each, f of the same colour as e (positive) or of another colour (negative).

*For-all part*: the candidate's good colourings (:class:`~.colorings.MultiColorings`) are asked
for a bad one: e not of colour k (determiner), e of colour k and f not (positive sender), e and
f both of colour k (negative sender), for each k.  A bad good colouring c is extended to a
colouring c* of K_n (each new edge takes the colour that completes the fewest monochromatic
forbidden copies); every solution G' must contain a copy C forbidden in some colour k with all
of C coloured k by c*, since otherwise c* restricted to G' is a good colouring of G' that is
still bad (bad conditions only fix the colours of designated edges).  The lemma
∨ y_{k,C} with y_{k,C} → ∧_{t∈C} x_t excludes G and no solution.

Layouts are the core's (:func:`ramseygadgets.search.spec.layouts`), except that exchanging e and
f is a symmetry of a negative sender only for two colours (with three, e may take two colours
while f is always a third).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from ramseygadgets.colorings.copies import find_copies
from ramseygadgets.colorings.multi import MultiColoring, MultiColorings, literal
from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.problem import Problem
from ramseygadgets.search.cegar import DEFAULT_SEARCH_SOLVER, SearchTimeout, interrupt_at
from ramseygadgets.search.cliques import arrowing_clique
from ramseygadgets.search.exists import ExistsModel
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.search.solve import (
    LevelRecord,
    SearchResult,
    checked,
    search_levels,
)
from ramseygadgets.search.spec import Layout, layouts

__all__ = [
    "KnColorCopies",
    "MultiCandidateModel",
    "extend_to_kn",
    "MultiFinderStats",
    "MultiLayoutFinder",
    "multi_layouts",
    "solve_multi",
]


def _mask(edges: tuple[int, ...]) -> int:
    out = 0
    for t in edges:
        out |= 1 << t
    return out


class KnColorCopies:
    """For every colour, the copies of its forbidden patterns in K_n (edge tuples and bitmasks)."""

    def __init__(self, problem: Problem, n: int) -> None:
        self.kn = Graph.complete(n)
        self.copies: list[list[tuple[int, ...]]] = []
        for color in problem.spec.colors:
            found: list[tuple[int, ...]] = []
            for pattern in color.forbidden:
                found.extend(find_copies(pattern, self.kn))
            self.copies.append(found)
        self.masks = [[_mask(c) for c in per] for per in self.copies]
        self.at: list[list[list[int]]] = []  # at[k][t]: copies of colour k through edge t
        for per in self.copies:
            table: list[list[int]] = [[] for _ in range(self.kn.m)]
            for i, c in enumerate(per):
                for t in c:
                    table[t].append(i)
            self.at.append(table)


class MultiCandidateModel(ExistsModel):
    """The core exists part with c-colour witnesses and c-colour lemmas."""

    def __init__(
        self,
        problem: Problem,
        n: int,
        layout: Layout,
        copies: KnColorCopies,
        *,
        seed: int | None = None,
        solver: str = DEFAULT_SEARCH_SOLVER,
    ) -> None:
        self.multi = problem
        self.color_copies = copies
        self.y: dict[tuple[int, int], int] = {}
        clique = arrowing_clique(problem, n)  # every gadget asks for a good colouring
        super().__init__(n, layout, copies.kn, seed=seed, solver=solver, clique=clique)

    def _witness_coloring(self) -> Callable[[int, int], int]:
        """Fresh literals w(t, k) of a colouring of K_n that is good on the candidate's edges:
        for every copy C of a colour-k pattern, the clause ∨_{t∈C} ¬x_t ∨ ¬w(t, k)."""
        c, m = self.multi.spec.c, self.kn.m
        base = self.top
        self.top += m * (1 if c == 2 else c)
        table = [
            [lit + base if lit > 0 else lit - base for lit in (literal(c, t, k) for t in range(m))]
            for k in range(c)
        ]

        def w(t: int, k: int) -> int:
            return table[k][t]

        if c > 2:
            for t in range(m):
                lits = [table[k][t] for k in range(c)]
                self.clauses.append(lits)
                self.clauses += [[-a, -b] for i, a in enumerate(lits) for b in lits[i + 1 :]]
        for k, per in enumerate(self.color_copies.copies):
            not_w = [-lit for lit in table[k]]
            for copy, not_x in zip(per, self._not_x_of_copies[k]):
                self.clauses.append(not_x + [not_w[t] for t in copy])
        return w

    @cached_property
    def _not_x_of_copies(self) -> list[list[list[int]]]:
        """Per colour, per copy C of K_n: [¬x_t for t in C] (shared by every witness colouring)."""
        x = self.x
        return [[[-x[t] for t in copy] for copy in per] for per in self.color_copies.copies]

    def _add_witnesses(self) -> None:
        problem, c = self.multi, self.multi.spec.c
        e = self.kn.edge_id(*self.layout.designated.edges[0])
        if problem.kind == "determiner":
            w = self._witness_coloring()
            self.clauses.append([w(e, problem.color or 0)])
            return
        f = self.kn.edge_id(*self.layout.designated.edges[1])
        positive = problem.kind == "positive-sender"
        pair = [self._witness_coloring(), self._witness_coloring()]
        for w in pair:
            for k in range(c):  # e of colour k -> f of colour k (positive) / not k (negative)
                self.clauses.append([-w(e, k), w(f, k) if positive else -w(f, k)])
        for k in range(c):  # e takes two colours
            self.clauses.append([-pair[0](e, k), -pair[1](e, k)])
        if c == 2:  # the two witnesses are interchangeable: let the first have e red
            self.clauses.append([pair[0](e, 0)])

    def add_coloring_lemma(self, colors: list[int]) -> int:
        """Every solution contains a forbidden copy monochromatic in its colour under ``colors`` (K_n)."""
        lits = []
        for k, masks in enumerate(self.color_copies.masks):
            colored = sum(1 << t for t, col in enumerate(colors) if col == k)
            for i, mask in enumerate(masks):
                if mask & ~colored == 0:
                    lits.append(self._multi_copy_var(k, i))
        self.solver.add_clause(lits)
        return len(lits)

    def _multi_copy_var(self, color: int, index: int) -> int:
        var = self.y.get((color, index))
        if var is None:
            var = self.y[(color, index)] = self.new_var()
            for t in self.color_copies.copies[color][index]:
                self.solver.add_clause([-var, self.x[t]])
        return var


def extend_to_kn(
    copies: KnColorCopies, graph: Graph, coloring: MultiColoring, rng: random.Random | None
) -> list[int]:
    """Colour K_n: G's edges as in ``coloring``; each other edge the colour that completes the fewest
    monochromatic forbidden copies among the edges coloured so far (ties: the last colour)."""
    kn = copies.kn
    c = coloring.spec.c
    colors = [-1] * kn.m
    colored = [0] * c
    for (u, v), k in zip(graph.edges, coloring.colors):
        t = kn.edge_id(u, v)
        colors[t] = k
        colored[k] |= 1 << t
    rest = [t for t in range(kn.m) if colors[t] < 0]
    if rng is not None:
        rng.shuffle(rest)
    for t in rest:
        bit = 1 << t
        best, best_cost = c - 1, None
        for k in reversed(range(c)):
            cost = sum(1 for i in copies.at[k][t] if copies.masks[k][i] & ~(colored[k] | bit) == 0)
            if best_cost is None or cost < best_cost:
                best, best_cost = k, cost
        colors[t] = best
        colored[best] |= bit
    return colors


@dataclass
class MultiFinderStats:
    candidates: int = 0
    lemmas: int = 0


class MultiLayoutFinder:
    """CEGAR for one multi-colour problem, vertex count and layout."""

    def __init__(
        self,
        problem: Problem,
        n: int,
        layout: Layout,
        copies: KnColorCopies,
        *,
        seed: int | None = None,
        solver: str = DEFAULT_SEARCH_SOLVER,
    ) -> None:
        self.problem, self.layout, self.copies = problem, layout, copies
        self.model = MultiCandidateModel(problem, n, layout, copies, seed=seed, solver=solver)
        self.rng = random.Random(seed) if seed is not None else None
        self.stats = MultiFinderStats()

    def counterexamples(self, graph: Graph) -> list[MultiColoring]:
        edges = self.layout.designated.edges
        with MultiColorings(graph, self.problem.spec) as sat:
            out = []
            e = graph.edge_id(*edges[0])
            if self.problem.kind == "determiner":
                conditions = [[-sat.lit(e, self.problem.color or 0)]]
            else:
                f = graph.edge_id(*edges[1])
                positive = self.problem.kind == "positive-sender"
                conditions = [
                    [sat.lit(e, k), -sat.lit(f, k) if positive else sat.lit(f, k)]
                    for k in range(sat.c)
                ]
            for assumption in conditions:
                found = sat.solve(assumption)
                if found is not None:
                    out.append(found)
            return out

    def find(self, max_edges: int | None = None, deadline: float | None = None) -> Graph | None:
        """A solution with at most ``max_edges`` edges, or ``None`` when none exists (exact)."""
        with interrupt_at(deadline, [self.model.solver]):
            return self._find(max_edges, deadline)

    def _find(self, max_edges: int | None, deadline: float | None) -> Graph | None:
        assumptions = self.model.bound_edges(max_edges) if max_edges is not None else []
        while True:
            graph = self.model.candidate(assumptions, deadline)
            if graph is None:
                return None
            self.stats.candidates += 1
            found = self.counterexamples(graph)
            for coloring in found:
                self.model.add_coloring_lemma(extend_to_kn(self.copies, graph, coloring, self.rng))
                self.stats.lemmas += 1
            if not found:
                return graph

    def close(self) -> None:
        self.model.close()


def multi_layouts(problem: Problem, n: int) -> list[Layout]:
    """The core layouts; without the e/f exchange for negative senders with three or more colours."""
    out = layouts(problem.kind, n)
    if problem.kind != "negative-sender" or problem.spec.c == 2:
        return out
    fixed = []
    for lay in out:
        if lay.swaps:  # f disjoint from e: keep the transpositions (0 1), (2 3), drop the exchange
            fixed.append(Layout(lay.name, lay.designated, lay.classes))
        else:  # f adjacent to e: the class (0, 2) is the exchange itself
            fixed.append(
                Layout(lay.name, lay.designated, tuple(c for c in lay.classes if c != (0, 2)))
            )
    return fixed


def solve_multi(
    problem: Problem,
    options: SearchOptions = SearchOptions(),
    *,
    on_level: Callable[[LevelRecord], None] | None = None,
) -> SearchResult:
    """The minimal solution (fewest vertices, then fewest edges) with the proof that none is smaller.

    Solutions are monotone in n (an isolated vertex changes nothing), so UNSAT at n − 1 proves
    that no solution has fewer than n vertices.  Reads the vertex bounds, ``timeout``,
    ``minimize_edges``, ``seed`` and ``solver`` from ``options``.
    """
    return search_levels(problem, options, _multi_level, on_level)


def _multi_level(
    problem: Problem, n: int, deadline: float | None, options: SearchOptions, result: SearchResult
) -> bool:
    """Decide level ``n`` into ``result``; True when a solution was found (or time ran out)."""
    t0 = time.monotonic()
    copies = KnColorCopies(problem, n)
    finders = [
        MultiLayoutFinder(problem, n, lay, copies, seed=options.seed, solver=options.solver)
        for lay in multi_layouts(problem, n)
    ]
    record = LevelRecord(n, "timeout", 0.0, engine="multi", max_edges=options.max_edges)
    result.levels.append(record)
    try:
        for finder in finders:
            graph = finder.find(max_edges=options.max_edges, deadline=deadline)
            if graph is not None:
                _keep(result, problem, finder, graph)
                break
        else:
            record.outcome = "none"
            result.lower_bound = n + 1
            return False
        record.outcome = result.status = "found"
        if options.minimize_edges:
            assert result.candidate is not None
            for finder in finders:
                while (
                    graph := finder.find(max_edges=result.candidate.graph.m - 1, deadline=deadline)
                ) is not None:
                    _keep(result, problem, finder, graph)
            result.edges_minimal = True
        return True
    except SearchTimeout:
        result.status = "found" if result.candidate is not None else "timeout"
        return True
    finally:
        record.seconds = time.monotonic() - t0
        record.candidates = sum(f.stats.candidates for f in finders)
        record.lemmas = sum(f.stats.lemmas for f in finders)
        for f in finders:
            f.close()


def _keep(result: SearchResult, problem: Problem, finder: MultiLayoutFinder, graph: Graph) -> None:
    """Make ``graph`` (verified) the result's solution, placed as ``finder``'s layout."""
    result.candidate = checked(problem, Candidate(graph, finder.layout.designated))
    result.layout = finder.layout.name
