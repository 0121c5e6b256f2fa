"""Exact gadget finder on a fixed vertex count: counterexample-guided SAT (CEGAR).

The question "is there a graph G ⊆ K_n with the designated items of ``layout`` that solves the
problem?" has the shape ∃G [∃ witness colorings] ∀ good colorings c of G: c is not bad.

*Exists part* (one incremental PySAT solver, :class:`CandidateModel`): a variable x_t per edge t
of K_n ("t ∈ G"), the designated edges fixed present, and for every witness condition W
(:mod:`spec`) a coloring w^W of K_n with  w_t → x_t  (red only on edges of G),  for every copy C
of F in K_n  ¬∧_{t∈C} w_t,  for every copy C of H  ¬(∧_{t∈C} x_t ∧ ∧_{t∈C} ¬w_t),  and W's
colour / red-degree constraints.  Lex-leader constraints G ≥_lex σ(G) for the vertex
permutations σ that preserve the problem keep one graph per orbit.

*For-all part* (:func:`find_counterexample`): the candidate G's good colorings are queried with
the core :class:`~ramseygadgets.colorings.GoodColorings` for each bad condition.  A bad good
coloring c becomes a *lemma*: extend c to a coloring c* of K_n (new edges at degree-bounded
vertices blue, others by a greedy rule); every solution G' must contain a copy of F red under c*
or a copy of H blue under c* (otherwise c* restricted to G' is a good coloring of G' that is
still bad: bad conditions only fix designated edges and bound red degrees from above).  So the
lemma  ∨_{C mono under c*} y_C  with  y_C → ∧_{t∈C} x_t  is satisfied by every solution, and
excludes G itself.

UNSAT of the exists part therefore proves that no solution on n vertices (with these designated
items) exists; a candidate with no counterexample is a solution.  Edge minimisation adds
Σ x_t ≤ m−1 (incremental totalizer) after each solution until UNSAT.

That is the *eager* engine.  The *lazy* engine (determiners and senders) leaves the witnesses
out of the exists part and asks a :class:`ColoringOracle` over K_n instead: a candidate without
a witness coloring yields an *arrowing lemma* ¬∧_{t∈S} x_t for the edge set S of the failed
query's core (no graph containing S has a witness coloring), a bad good coloring the usual
lemma; candidates that are not lex-maximal in their orbit are cut by the canonicity check of
:mod:`.minimality` before the oracle sees them (the static lex-leader constraints then use the
same column order).  Each candidate yields one lemma, for the first condition it fails
(witnesses asked first), and travels as a bitmask of K_n's edges; a :class:`Graph` is built
for a solution only.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

from pysat.card import CardEnc, EncType, ITotalizer
from pysat.solvers import Solver

from ramseygadgets.catalog import Problem
from ramseygadgets.colorings import Coloring, GoodColorings, keyboard_interrupts
from ramseygadgets.copies import find_copies
from ramseygadgets.gadgets import Candidate
from ramseygadgets.graphs import Graph
from ramseygadgets.search.minimality import LexMaxCheck, column_order, group_cosets
from ramseygadgets.search.spec import (
    Condition,
    EdgeColor,
    GadgetSpec,
    Layout,
    RedDegree,
    gadget_spec,
)

#: SAT backend of the exists part (fastest on the catalog among PySAT's; supports interrupts).
DEFAULT_SEARCH_SOLVER = "minisat22"

#: Finder engines: ``lazy`` checks the witness conditions in the for-all step (arrowing lemmas),
#: ``eager`` encodes them in the exists part (the original finder); ``auto`` picks per problem.
ENGINES = ("auto", "lazy", "eager")
DEFAULT_ENGINE = "auto"


def resolve_engine(problem: Problem, engine: str) -> str:
    """The engine that runs: ``auto`` is lazy unless F is a star K1,k (measured: bench/).

    For F = K1,k witnesses are easy to encode and the eager engine is faster on the 70 problems
    (2.7 against 3.9 CPU seconds); for any other F the lazy engine is (16–19× at 9 vertices on
    (K3, K4−e)).  Red-degree conditions (clause and variable gadgets) always run eagerly.
    """
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
    if engine == "auto":
        return "eager" if problem.F.star_k is not None else "lazy"
    return engine


class SearchTimeout(Exception):
    """The deadline passed before the question was decided."""


def solve_before(solver: Any, assumptions: list[int], deadline: float | None) -> bool:
    """``solver.solve(assumptions)``; :class:`SearchTimeout` when ``deadline`` has passed before
    the call or an :func:`interrupt_at` alarm stopped it.  Backends that cannot be interrupted
    (PySAT raises NotImplementedError: CaDiCaL, Kissat) check the deadline before the call only."""
    if deadline is None:
        return bool(solver.solve(assumptions=assumptions))
    if deadline <= time.monotonic():
        raise SearchTimeout()
    try:
        ok = solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
    except NotImplementedError:
        return bool(solver.solve(assumptions=assumptions))
    if ok is None:
        raise SearchTimeout()
    return bool(ok)


@contextmanager
def interrupt_at(deadline: float | None, solvers: Sequence[Any]) -> Iterator[None]:
    """Interrupt ``solvers`` at ``deadline``: one timer thread for a whole search call, not one
    per SAT call (thousands of short calls would each pay for a thread)."""
    if deadline is None:
        yield
        return

    def ring() -> None:
        for solver in solvers:
            with suppress(NotImplementedError):  # CaDiCaL, Kissat: checked between calls only
                solver.interrupt()

    timer = threading.Timer(max(0.0, deadline - time.monotonic()), ring)
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        timer.join()
        for solver in solvers:
            with suppress(NotImplementedError):
                solver.clear_interrupt()


@dataclass
class Counterexample:
    """A good coloring of the candidate that satisfies bad condition ``condition``."""

    condition: Condition
    coloring: Coloring


@dataclass
class FinderStats:
    candidates: int = 0
    lemmas: int = 0
    arrowing: int = 0  # lazy engine: subgraphs without a witness coloring
    pruned: int = 0  # lazy engine: candidates excluded as not lex-maximal
    sat_seconds: float = 0.0
    check_seconds: float = 0.0


class KnCopies:
    """Copies of F and H in K_n as edge-index tuples and bitmasks (edge t is bit t)."""

    def __init__(self, problem: Problem, n: int) -> None:
        self.kn = Graph.complete(n)
        self.f = find_copies(problem.F, self.kn)
        self.h = find_copies(problem.H, self.kn)
        self.f_masks = [_mask(c) for c in self.f]
        self.h_masks = [_mask(c) for c in self.h]
        # the copies through each edge, as masks of their other edges (the greedy extension)
        self.f_rest = _rest_masks(self.f, self.kn.m)
        self.h_rest = _rest_masks(self.h, self.kn.m)


def _rest_masks(copies: Sequence[Sequence[int]], m: int) -> list[list[int]]:
    """For each edge t of K_n, the masks of C − {t} for the copies C that contain t."""
    out: list[list[int]] = [[] for _ in range(m)]
    for c in copies:
        whole = _mask(c)
        for t in c:
            out[t].append(whole & ~(1 << t))
    return out


def subgraph(kn: Graph, edge_mask: int) -> Graph:
    """The subgraph of K_n with the edges of ``edge_mask`` (edge t is bit t)."""
    edges = kn.edges
    return Graph(kn.n, tuple(edges[t] for t in range(kn.m) if edge_mask >> t & 1))


def _mask(edges: Sequence[int]) -> int:
    out = 0
    for t in edges:
        out |= 1 << t
    return out


class ExistsModel:
    """The exists part: an incremental SAT solver whose models are candidate graphs on n
    vertices (edge variables x_t of K_n, the designated edges present, lex-leader symmetry
    breaking, an optional edge bound).  Subclasses add the witness colourings
    (:meth:`_add_witnesses`) and the lemmas of their colourings."""

    def __init__(
        self,
        n: int,
        layout: Layout,
        kn: Graph,
        *,
        seed: int | None = None,
        solver: str = DEFAULT_SEARCH_SOLVER,
        lazy: bool = False,
    ) -> None:
        self.n, self.layout, self.kn = n, layout, kn
        m = self.kn.m
        order = list(range(m))
        if seed is not None:  # a random variable numbering: same formula, different search
            random.Random(seed).shuffle(order)
        self.x = [1 + order[t] for t in range(m)]
        self.top = m
        self.clauses: list[list[int]] = []
        self.totalizer: ITotalizer | None = None
        for e in layout.designated.edges:
            self.clauses.append([self.x[self.kn.edge_id(*e)]])
        if not lazy:
            self._add_witnesses()
        #: the lex order of the lex-leader constraints (column order for the canonicity check)
        self.order = column_order(n) if lazy else list(self.kn.edges)
        for perm in self._symmetries():
            self._add_lex_leader(perm)
        self.solver = Solver(name=solver, bootstrap_with=self.clauses)
        self.clauses = []

    def _add_witnesses(self) -> None:
        """Add the clauses of the witness colourings to ``self.clauses`` (eager engine)."""
        raise NotImplementedError

    def new_var(self) -> int:
        self.top += 1
        return self.top

    # -- symmetry breaking -----------------------------------------------------------------------
    def _symmetries(self) -> list[list[int]]:
        """Vertex permutations (as lists) that preserve the problem: class transpositions and swaps."""
        perms = []
        for cls in self.layout.classes:
            for a in range(len(cls)):
                for b in range(a + 1, len(cls)):
                    p = list(range(self.n))
                    p[cls[a]], p[cls[b]] = cls[b], cls[a]
                    perms.append(p)
        perms += [list(s) for s in self.layout.swaps]
        return perms

    def _add_lex_leader(self, perm: list[int]) -> None:
        """G ≥_lex σ(G) in the fixed order of K_n's edges (sound for any set of symmetries σ)."""
        pairs = []
        for u, v in self.order:
            t, s = self.kn.edge_id(u, v), self.kn.edge_id(perm[u], perm[v])
            if s != t:
                pairs.append((self.x[t], self.x[s]))
        prev_eq: int | None = None
        for i, (a, b) in enumerate(pairs):
            guard = [] if prev_eq is None else [-prev_eq]
            self.clauses.append(guard + [a, -b])
            if i == len(pairs) - 1:
                break
            eq = self.new_var()
            self.clauses.append(guard + [-a, -b, eq])
            self.clauses.append(guard + [a, b, eq])
            prev_eq = eq

    def canonicity_check(self) -> LexMaxCheck:
        """The lex-max check of :mod:`.minimality` on this model's edge variables."""
        var = [[0] * self.n for _ in range(self.n)]
        for t, (u, v) in enumerate(self.kn.edges):
            var[u][v] = var[v][u] = self.x[t]
        return LexMaxCheck(
            self.n, var, group_cosets(self.n, self.layout.classes, self.layout.swaps)
        )

    def pruning_clause(self, check: LexMaxCheck, edge_mask: int) -> list[int] | None:
        """A clause that excludes the subgraph of K_n with the edges of ``edge_mask`` because it
        is not lex-maximal in its orbit, if found."""
        adjacency = [0] * self.n
        for t, (u, v) in enumerate(self.kn.edges):
            if edge_mask >> t & 1:
                adjacency[u] |= 1 << v
                adjacency[v] |= 1 << u
        return check.pruning_clause(adjacency)

    # -- edge bound ----------------------------------------------------------------------------------
    def bound_edges(self, at_most: int) -> list[int]:
        """Assumption literals that force at most ``at_most`` edges."""
        if self.totalizer is None:
            self.totalizer = ITotalizer(lits=list(self.x), ubound=self.kn.m, top_id=self.top)
            self.top = self.totalizer.top_id
            for clause in self.totalizer.cnf.clauses:
                self.solver.add_clause(clause)
        if at_most >= self.kn.m:
            return []
        return [-self.totalizer.rhs[at_most]]

    # -- solving -------------------------------------------------------------------------------------
    def candidate(self, assumptions: list[int], deadline: float | None) -> Graph | None:
        """The next candidate graph, ``None`` when there is none; :class:`SearchTimeout` at the deadline."""
        edge_mask = self.candidate_mask(assumptions, deadline)
        return None if edge_mask is None else subgraph(self.kn, edge_mask)

    def candidate_mask(self, assumptions: list[int], deadline: float | None) -> int | None:
        """:meth:`candidate` as the K_n edge bitmask of the graph."""
        if not solve_before(self.solver, assumptions, deadline):
            return None
        model = self.solver.get_model() or []
        edge_mask = 0
        for t, var in enumerate(self.x):  # model[v - 1] is the literal of variable v
            if model[var - 1] > 0:
                edge_mask |= 1 << t
        return edge_mask

    def close(self) -> None:
        self.solver.delete()


class CandidateModel(ExistsModel):
    """The exists part for a pair (F, H): witness colourings red/blue, lemmas on copies of F and H."""

    def __init__(
        self,
        problem: Problem,
        n: int,
        layout: Layout,
        spec: GadgetSpec,
        copies: KnCopies,
        *,
        seed: int | None = None,
        solver: str = DEFAULT_SEARCH_SOLVER,
        record_lemmas: bool = False,
        lazy: bool = False,
    ) -> None:
        self.problem, self.spec, self.copies = problem, spec, copies
        #: with ``record_lemmas``: each lemma as the K_n edge bitmasks of its copies (for tests)
        self.lemmas: list[list[int]] | None = [] if record_lemmas else None
        #: with ``record_lemmas``: each arrowing lemma as the K_n edge bitmask of its subgraph
        self.arrowings: list[int] | None = [] if record_lemmas else None
        self.y_f: dict[int, int] = {}
        self.y_h: dict[int, int] = {}
        super().__init__(n, layout, copies.kn, seed=seed, solver=solver, lazy=lazy)

    def _add_witnesses(self) -> None:
        for condition in self.spec.witnesses:
            self._add_witness(condition)

    # -- exists part -----------------------------------------------------------------------------
    def _add_witness(self, condition: Condition) -> None:
        m, x = self.kn.m, self.x
        w = [self.new_var() for _ in range(m)]
        self.clauses += [[-w[t], x[t]] for t in range(m)]
        self.clauses += [[-w[t] for t in c] for c in self.copies.f]
        self.clauses += [[-x[t] for t in c] + [w[t] for t in c] for c in self.copies.h]
        for atom in condition:
            if isinstance(atom, EdgeColor):
                t = self.kn.edge_id(*atom.edge)
                self.clauses.append([w[t] if atom.red else -w[t]])
            else:
                self._add_degree(atom, [w[t] for t in self.kn.incident_edges[atom.vertex]])

    def _add_degree(self, atom: RedDegree, lits: list[int]) -> None:
        for bound, fn in ((atom.at_most, CardEnc.atmost), (atom.at_least, CardEnc.atleast)):
            if bound is None:
                continue
            if fn is CardEnc.atleast and bound <= 0 or fn is CardEnc.atmost and bound >= len(lits):
                continue
            if fn is CardEnc.atleast and bound > len(lits) or bound < 0:
                self.clauses.append([])
                continue
            enc = fn(lits, bound=bound, top_id=self.top, encoding=EncType.seqcounter)
            self.top = max(self.top, enc.nv)
            self.clauses += enc.clauses

    # -- lemmas ------------------------------------------------------------------------------------
    def _copy_var(self, index: int, f_side: bool) -> int:
        table = self.y_f if f_side else self.y_h
        var = table.get(index)
        if var is None:
            var = table[index] = self.new_var()
            edges = (self.copies.f if f_side else self.copies.h)[index]
            for t in edges:
                self.solver.add_clause([-var, self.x[t]])
        return var

    def add_lemma(self, red_mask: int) -> int:
        """Every solution contains a copy of F red, or of H blue, under the K_n coloring ``red_mask``.

        Returns the number of copies in the lemma (0: the lemma is the empty clause).
        """
        f_idx = [i for i, c in enumerate(self.copies.f_masks) if c & ~red_mask == 0]
        h_idx = [i for i, c in enumerate(self.copies.h_masks) if c & red_mask == 0]
        lits = [self._copy_var(i, True) for i in f_idx] + [self._copy_var(i, False) for i in h_idx]
        self.solver.add_clause(lits)
        if self.lemmas is not None:
            self.lemmas.append(
                [self.copies.f_masks[i] for i in f_idx] + [self.copies.h_masks[i] for i in h_idx]
            )
        return len(lits)

    def add_arrowing(self, edges: Sequence[int]) -> None:
        """No solution contains all of ``edges`` (a subgraph without the witness coloring)."""
        self.solver.add_clause([-self.x[t] for t in edges])
        if self.arrowings is not None:
            self.arrowings.append(_mask(edges))


def find_counterexample(problem: Problem, graph: Graph, spec: GadgetSpec) -> list[Counterexample]:
    """Bad good colorings of ``graph`` (at most one per bad condition); empty when there are none.

    Candidates are always good (each satisfies a witness), so "no counterexample" means solution.
    """
    out: list[Counterexample] = []
    with GoodColorings(graph, problem.F, problem.H) as sat:
        for condition in spec.bad:
            assumptions = []
            for atom in condition:
                if isinstance(atom, EdgeColor):
                    lit = sat.var(*atom.edge)
                    assumptions.append(lit if atom.red else -lit)
                else:
                    assumptions.append(
                        sat.red_degree_switch(
                            atom.vertex, at_most=atom.at_most, at_least=atom.at_least
                        )
                    )
            coloring = sat.solve(assumptions)
            if coloring is not None:
                out.append(Counterexample(condition, coloring))
    return out


def extend_coloring(
    copies: KnCopies, edge_mask: int, ce: Counterexample, rng: random.Random | None = None
) -> int:
    """A K_n coloring (red bitmask) that agrees with the counterexample on the edges of G, the
    subgraph with the K_n edges ``edge_mask`` (its edges in K_n's order, as :func:`subgraph`).

    Edges of K_n outside G at a vertex whose red degree the bad condition bounds are blue (so the
    coloring stays bad on every graph); the others are coloured by :func:`extend_red_mask`.
    """
    kn = copies.kn
    ids = [t for t in range(kn.m) if edge_mask >> t & 1]
    red = _mask([t for t, r in zip(ids, ce.coloring.red) if r])
    bounded = {a.vertex for a in ce.condition if isinstance(a, RedDegree)}
    if bounded:
        edge_mask |= _mask([t for t, (u, v) in enumerate(kn.edges) if u in bounded or v in bounded])
    return extend_red_mask(copies, edge_mask, red, rng)


def extend_red_mask(
    copies: KnCopies, decided: int, red: int, rng: random.Random | None = None
) -> int:
    """Extend the coloring of the K_n edges in ``decided`` (red: ``red`` ⊆ ``decided``) to K_n.

    The undecided edges get, one by one (in edge order, or shuffled by ``rng``), the colour
    that completes fewer monochromatic copies (F all red / H all blue) among the edges coloured
    so far; blue on a tie.
    """
    rest = [t for t in range(copies.kn.m) if not decided >> t & 1]
    if rng is not None:
        rng.shuffle(rest)
    blue = decided & ~red
    for t in rest:
        as_red = sum(1 for other in copies.f_rest[t] if not other & ~red)
        as_blue = sum(1 for other in copies.h_rest[t] if not other & ~blue)
        if as_red < as_blue:
            red |= 1 << t
        else:
            blue |= 1 << t
    return red


class ColoringOracle:
    """Good colorings of every subgraph G ⊆ K_n, through one incremental SAT solver.

    Variables r_t = t + 1 (edge t red) and s_t = m + t + 1 (edge t in G).  Per copy C of F in K_n
    the clause ∨_{t∈C} ¬r_t ∨ ∨_{t∈C} ¬s_t, per copy of H  ∨_{t∈C} r_t ∨ ∨_{t∈C} ¬s_t.  Under the
    assumptions s_t (t ∈ G) the models restricted to G's edges are exactly G's good colorings
    (a copy with an edge outside G is switched off by setting that s_t false).  When a query
    fails, the assumptions in the solver's core name a subgraph S ⊆ G with no good coloring
    under the condition; so does every graph containing S.
    """

    def __init__(self, copies: KnCopies, solver: str = DEFAULT_SEARCH_SOLVER) -> None:
        self.kn = copies.kn
        m = self.kn.m
        clauses = [[-(t + 1) for t in c] + [-(m + t + 1) for t in c] for c in copies.f]
        clauses += [[t + 1 for t in c] + [-(m + t + 1) for t in c] for c in copies.h]
        self.solver = Solver(name=solver, bootstrap_with=clauses)

    def condition_literals(self, condition: Condition) -> list[int]:
        """The assumptions r_t / ¬r_t that fix the designated edge colours of ``condition``."""
        lits = []
        for atom in condition:
            if not isinstance(atom, EdgeColor):
                raise ValueError("the coloring oracle takes edge colours only")
            lit = self.kn.edge_id(*atom.edge) + 1
            lits.append(lit if atom.red else -lit)
        return lits

    def red_mask(
        self, edge_mask: int, condition: list[int], deadline: float | None = None
    ) -> int | None:
        """A good coloring of the subgraph with the K_n edges ``edge_mask`` that satisfies the
        condition (:meth:`condition_literals`), as the red bitmask of a coloring of K_n (edges
        outside the subgraph coloured arbitrarily); ``None``: none exists.  :class:`SearchTimeout`
        at ``deadline`` (one query can be a hard Ramsey-type instance).

        Every s_t is assumed (true in G, false outside): unit propagation then switches the
        clauses of copies that leave G off at once.
        """
        m = self.kn.m
        assumptions = [m + t + 1 if edge_mask >> t & 1 else -(m + t + 1) for t in range(m)]
        if not solve_before(self.solver, assumptions + condition, deadline):
            return None
        model = self.solver.get_model() or []
        red = 0
        for t in range(m):  # model[t] is the literal of r_t = t + 1
            if model[t] > 0:
                red |= 1 << t
        return red

    def core_edges(self) -> list[int]:
        """After a failed query: K_n edge ids of a subgraph with no good coloring under it."""
        m = self.kn.m
        return sorted(lit - m - 1 for lit in self.solver.get_core() or [] if lit > m)

    def close(self) -> None:
        self.solver.delete()


def edge_colors_only(spec: GadgetSpec) -> bool:
    """Whether every condition fixes edge colours only (determiners and senders)."""
    return all(isinstance(atom, EdgeColor) for cond in spec.witnesses + spec.bad for atom in cond)


@dataclass
class LayoutResult:
    """Outcome of one layout at one n: the best solution found (``None``: proven none)."""

    candidate: Candidate | None
    edges_minimal: bool
    stats: FinderStats = field(default_factory=FinderStats)


class LayoutFinder:
    """CEGAR for one problem, vertex count and layout; reusable for successive edge bounds."""

    def __init__(
        self,
        problem: Problem,
        n: int,
        layout: Layout,
        *,
        copies: KnCopies | None = None,
        seed: int | None = None,
        solver: str = DEFAULT_SEARCH_SOLVER,
        record_lemmas: bool = False,
        engine: str = DEFAULT_ENGINE,
    ) -> None:
        self.problem, self.n, self.layout = problem, n, layout
        self.spec = gadget_spec(problem, layout.designated)
        #: the lazy engine needs conditions on edge colours only; red degrees use the eager one
        self.lazy = resolve_engine(problem, engine) == "lazy" and edge_colors_only(self.spec)
        self.copies = copies or KnCopies(problem, n)
        self.model = CandidateModel(
            problem,
            n,
            layout,
            self.spec,
            self.copies,
            seed=seed,
            solver=solver,
            record_lemmas=record_lemmas,
            lazy=self.lazy,
        )
        self.oracle = ColoringOracle(self.copies) if self.lazy else None
        #: the lazy engine's oracle assumptions for each witness and bad condition
        literals = self.oracle.condition_literals if self.oracle is not None else None
        self.witness_literals = [literals(c) for c in self.spec.witnesses] if literals else []
        self.bad_literals = [literals(c) for c in self.spec.bad] if literals else []
        self.canonicity = self.model.canonicity_check() if self.lazy else None
        self.rng = random.Random(seed) if seed is not None else None
        self.stats = FinderStats()

    def find(self, max_edges: int | None = None, deadline: float | None = None) -> Graph | None:
        """A solution with at most ``max_edges`` edges, or ``None`` when none exists (exact)."""
        solvers = [self.model.solver] + ([self.oracle.solver] if self.oracle is not None else [])
        with keyboard_interrupts(), interrupt_at(deadline, solvers):
            return self._find(max_edges, deadline)

    def _find(self, max_edges: int | None, deadline: float | None) -> Graph | None:
        assumptions = self.model.bound_edges(max_edges) if max_edges is not None else []
        while True:
            t0 = time.monotonic()
            edge_mask = self.model.candidate_mask(assumptions, deadline)
            t1 = time.monotonic()
            self.stats.sat_seconds += t1 - t0
            if edge_mask is None:
                return None
            if self.canonicity is not None:
                clause = self.model.pruning_clause(self.canonicity, edge_mask)
                if clause is not None:
                    self.model.solver.add_clause(clause)
                    self.stats.pruned += 1
                    continue
            self.stats.candidates += 1
            if self.lazy:
                solved = self._check_lazily(edge_mask, deadline)
            else:
                solved = self._check_eagerly(edge_mask)
            self.stats.check_seconds += time.monotonic() - t1
            if solved:
                return subgraph(self.kn, edge_mask)

    @property
    def kn(self) -> Graph:
        return self.copies.kn

    def _check_eagerly(self, edge_mask: int) -> bool:
        """Counterexample lemmas for a candidate that has its witnesses; True: a solution."""
        found = find_counterexample(self.problem, subgraph(self.kn, edge_mask), self.spec)
        for ce in found:
            self.model.add_lemma(extend_coloring(self.copies, edge_mask, ce, self.rng))
            self.stats.lemmas += 1
        return not found

    def _check_lazily(self, edge_mask: int, deadline: float | None = None) -> bool:
        """One lemma for the first condition the candidate fails: an arrowing lemma for a missing
        witness (asked first), else a counterexample lemma for a bad coloring; True: a solution.

        (One lemma per candidate: asking the remaining conditions too costs more oracle time
        than the extra lemmas save, measured in bench/frontier.py.)
        """
        assert self.oracle is not None
        for literals in self.witness_literals:
            if self.oracle.red_mask(edge_mask, literals, deadline) is None:
                self.model.add_arrowing(self.oracle.core_edges())
                self.stats.arrowing += 1
                return False
        for literals in self.bad_literals:
            red = self.oracle.red_mask(edge_mask, literals, deadline)
            if red is not None:  # a bad good coloring of G, extended to K_n
                extended = extend_red_mask(self.copies, edge_mask, red & edge_mask, self.rng)
                self.model.add_lemma(extended)
                self.stats.lemmas += 1
                return False
        return True

    def close(self) -> None:
        self.model.close()
        if self.oracle is not None:
            self.oracle.close()

    def __enter__(self) -> LayoutFinder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
