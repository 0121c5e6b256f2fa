"""The exists part of the CEGAR finder (:mod:`.cegar`): candidate graphs on n vertices.

One incremental PySAT solver over a variable x_t per edge t of K_n ("t ∈ G"): the designated
edges present, no K_r without a good colouring (:mod:`.cliques`), the degree rules of
:mod:`.degrees`, lex-leader constraints G ≥_lex σ(G) for the vertex permutations σ that
preserve the problem (one graph per orbit), an optional edge bound (incremental totalizer).
:class:`CandidateModel` adds, for the eager engine, every witness condition W (:mod:`.spec`) as
a coloring w^W of K_n with  w_t → x_t,  no all-red copy of F and no all-blue copy of H inside
G, and W's colour / red-degree constraints; and for both engines the lemmas: a counterexample
colouring c* of K_n gives  ∨_{C mono under c*} y_C  with  y_C → ∧_{t∈C} x_t  (proof in
:mod:`.cegar`), an arrowing subgraph S gives  ¬∧_{t∈S} x_t.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np
from pysat.card import CardEnc, EncType, ITotalizer
from pysat.solvers import Solver

from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.catalog import Problem
from ramseygadgets.search.bitsets import adjacency_rows, disjoint, to_words, within
from ramseygadgets.search.cliques import arrowing_clique, clique_free_clauses
from ramseygadgets.search.degrees import (
    clique_through_clauses,
    degree_clauses,
    endpoint_floors,
    floor_clauses,
    isolation_degree,
    through_cliques,
)
from ramseygadgets.search.oracle import (
    DEFAULT_SEARCH_SOLVER,
    KnCopies,
    _mask,
    finder_solver,
    solve_before,
    subgraph,
)
from ramseygadgets.search.spec import Condition, EdgeColor, GadgetSpec, Layout, RedDegree
from ramseygadgets.search.symmetry import MAX_VERTICES, LexMaxCheck, column_order, group_cosets

__all__ = ["CADICAL_OPTIONS", "ExistsModel", "CandidateModel", "exists_solver"]

#: CaDiCaL options of the exists solver (when it is CaDiCaL: from :data:`.oracle.LARGE_LEVEL`
#: vertices).  Its clauses grow by one lemma per candidate and every call is short, so bounded
#: variable elimination, probing and stable-mode phases, meant for one long solve, cost more than
#: they find — a little: 1.05× on three dense and eight sparse level-14 cubes
#: (``bench/exists_options.py``; per cube from 0.86×, a 1.2 s sparse one, to 1.17×).
CADICAL_OPTIONS: dict[str, int] = {"elim": 0, "stable": 0, "probe": 0}


def exists_solver(name: str, clauses: Sequence[Sequence[int]]) -> Solver:
    """A PySAT solver ``name`` holding ``clauses``, CaDiCaL configured by :data:`CADICAL_OPTIONS`."""
    solver = Solver(name=name)
    if name.startswith("cadical") and CADICAL_OPTIONS:
        solver.configure(CADICAL_OPTIONS)
    solver.append_formula(clauses)
    return solver


class ExistsModel:
    """The exists part: an incremental SAT solver whose models are candidate graphs on n
    vertices (edge variables x_t of K_n, the designated edges present, no K_clique (the clique
    bound of :mod:`.cliques`), lex-leader symmetry breaking, an optional edge bound).
    Subclasses add the witness colourings (:meth:`_add_witnesses`) and the lemmas of their
    colourings."""

    def __init__(
        self,
        n: int,
        layout: Layout,
        kn: Graph,
        *,
        seed: int | None = None,
        solver: str = DEFAULT_SEARCH_SOLVER,
        lazy: bool = False,
        clique: int | None = None,
        degree: int = 0,
        floors: dict[int, int] | None = None,
        through: dict[tuple[int, int], int] | None = None,
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
        edge_var = lambda u, v: self.x[kn.edge_id(u, v)]  # noqa: E731
        if clique is not None:  # no K_clique: it has no good colouring (:mod:`.cliques`)
            self.clauses += clique_free_clauses(n, clique, edge_var)
        if degree > 0:  # degree 0 or > degree off the designated items (:mod:`.degrees`)
            on_items = {u for e in layout.designated.edges for u in e}
            on_items |= set(layout.designated.vertices)
            free = [v for v in range(n) if v not in on_items]
            clauses, self.top = degree_clauses(n, free, degree + 1, edge_var, self.top)
            self.clauses += clauses
        if floors:  # the designated edge's ends: every solution's least degrees (.degrees)
            clauses, self.top = floor_clauses(n, floors, edge_var, self.top)
            self.clauses += clauses
        for edge, s in sorted((through or {}).items()):  # designated edges in a K_s (.degrees)
            clauses, self.top = clique_through_clauses(n, edge, s, edge_var, self.top)
            self.clauses += clauses
        if not lazy:
            self._add_witnesses()
        #: the lex order of the lex-leader constraints (column order for the canonicity check)
        self.order = column_order(n) if lazy else list(self.kn.edges)
        for perm in self._symmetries():
            self._add_lex_leader(perm)
        self.solver_name = finder_solver(solver, n)
        #: the static clauses and variable count, kept for :meth:`reset`
        self.static, self.static_top = self.clauses, self.top
        self.solver = exists_solver(self.solver_name, self.static)
        self.clauses = []

    def reset(self) -> None:
        """A new solver with the static clauses only: every lemma, restriction and learned
        clause dropped (cheaper than building the model again)."""
        self.solver.delete()
        self.solver = exists_solver(self.solver_name, self.static)
        self.top, self.totalizer = self.static_top, None

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
        if self.n > MAX_VERTICES:
            return None
        return check.pruning_clause(adjacency_rows(self.n, edge_mask))

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
        degree_bound: bool = True,
    ) -> None:
        self.problem, self.spec, self.copies = problem, spec, copies
        #: with ``record_lemmas``: each lemma as the K_n edge bitmasks of its copies (for tests)
        self.lemmas: list[list[int]] | None = [] if record_lemmas else None
        #: with ``record_lemmas``: each arrowing lemma as the K_n edge bitmask of its subgraph
        self.arrowings: list[int] | None = [] if record_lemmas else None
        self.y_f: dict[int, int] = {}
        self.y_h: dict[int, int] = {}
        clique = arrowing_clique(problem, n) if spec.witnesses else None
        # the degree bound needs edge-colour conditions only: the lazy engine's problems
        bound = lazy and degree_bound
        degree = isolation_degree(problem) if bound else 0
        floors = endpoint_floors(problem, layout, spec) if bound else None
        through = through_cliques(problem, layout, spec) if bound else None
        super().__init__(
            *(n, layout, copies.kn),
            seed=seed,
            solver=solver,
            lazy=lazy,
            clique=clique,
            degree=degree,
            floors=floors,
            through=through,
        )

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

    def reset(self) -> None:
        super().reset()
        self.y_f.clear()
        self.y_h.clear()

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

    def lemma_copies(self, red_mask: int) -> tuple[list[int], list[int]]:
        """The copies of F all red and of H all blue under the K_n coloring ``red_mask``."""
        copies = self.copies
        red = to_words(red_mask, copies.words)
        f_idx = np.flatnonzero(within(copies.f_table, red)).tolist()  # all red
        h_idx = np.flatnonzero(disjoint(copies.h_table, red)).tolist()  # all blue
        return f_idx, h_idx

    def add_lemma(self, red_mask: int, mono: tuple[list[int], list[int]] | None = None) -> int:
        """Every solution contains a copy of F red, or of H blue, under the K_n coloring ``red_mask``
        (``mono``: its :meth:`lemma_copies`, when known).

        Returns the number of copies in the lemma (0: the lemma is the empty clause).
        """
        f_idx, h_idx = mono or self.lemma_copies(red_mask)
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
