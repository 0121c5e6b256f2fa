"""The for-all side of the finder: K_n's copies of F and H, the lazy engine's coloring oracle,
counterexamples and their extension to K_n (the lemmas' colourings), and SAT calls under a
deadline.  Split from :mod:`.cegar` (which re-exports every name) so that each module stays short.

*Coloring oracle* (:class:`ColoringOracle`): one incremental SAT solver over K_n with a colour
variable r_t and a presence selector s_t per edge; under the assumptions s_t (t ∈ G) its models
restricted to G are exactly G's good colorings, and a failed query's core names a subgraph
S ⊆ G without a good coloring under the condition (the arrowing lemma of :mod:`.cegar`).

*Extension* (:func:`extend_coloring`, :func:`extend_red_mask`): a bad good coloring of G
becomes a coloring c* of K_n; every solution contains a copy of F red or of H blue under c*
(proof in :mod:`.cegar`).
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

import numpy as np
from pysat.solvers import Solver

from ramseygadgets.colorings.copies import find_copies
from ramseygadgets.colorings.red_blue import Coloring, GoodColorings
from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.catalog import Problem
from ramseygadgets.search.bitsets import (
    from_words,
    greedy_extension,
    to_words,
    word_count,
    words_table,
)
from ramseygadgets.search.spec import Condition, EdgeColor, GadgetSpec, RedDegree

__all__ = [
    "DEFAULT_SEARCH_SOLVER",
    "ORACLE_SOLVER",
    "LARGE_LEVEL",
    "LARGE_LEVEL_SOLVER",
    "finder_solver",
    "SearchTimeout",
    "solve_before",
    "interruptible",
    "BUDGET_SLICE",
    "interrupt_at",
    "interrupt_running",
    "Counterexample",
    "KnCopies",
    "subgraph",
    "find_counterexample",
    "extend_coloring",
    "extend_red_mask",
    "ColoringOracle",
    "edge_colors_only",
]

#: SAT backend of the coloring oracle, and of the exists part below :data:`LARGE_LEVEL` vertices
#: (fastest on the catalog among PySAT's; supports interrupts).
ORACLE_SOLVER = "minisat22"

#: The exists part's backend unless one is named: :func:`finder_solver` picks it per level.
DEFAULT_SEARCH_SOLVER = "auto"

#: From this many vertices ``auto`` runs the exists part on :data:`LARGE_LEVEL_SOLVER`: there a
#: level's time is the exists solver's tail (tens of thousands of lemma clauses), where CaDiCaL
#: decided the (K3,K4) determiners' level 13 in 234–237 CPU s against MiniSat's 1,076–1,114 s;
#: below it MiniSat is as fast or faster (0.8–1.05×).
LARGE_LEVEL = 13
LARGE_LEVEL_SOLVER = "cadical195"


def finder_solver(solver: str, n: int) -> str:
    """The exists part's backend on ``n`` vertices: ``solver`` as named; ``auto``:
    :data:`ORACLE_SOLVER` below :data:`LARGE_LEVEL` vertices, :data:`LARGE_LEVEL_SOLVER` from
    there on.  (CaDiCaL cannot be interrupted: with a deadline it solves in conflict-budget
    slices, :func:`solve_before`.)"""
    if solver != DEFAULT_SEARCH_SOLVER:
        return solver
    return LARGE_LEVEL_SOLVER if n >= LARGE_LEVEL else ORACLE_SOLVER


class SearchTimeout(Exception):
    """The deadline passed before the question was decided."""


#: Conflicts per call of a backend that cannot be interrupted (CaDiCaL, Lingeling): with a
#: deadline it solves in slices of this many conflicts and checks the deadline (and pending
#: signals) between them, so a call overruns its deadline by one slice at most (about 0.1–0.2 s
#: on a pigeonhole formula) instead of running to its end.
BUDGET_SLICE = 10_000

#: PySAT backends whose ``interrupt()`` raises NotImplementedError (class-name prefixes).
_UNINTERRUPTIBLE = ("cadical", "lingeling")


def interruptible(solver: Any) -> bool:
    """Whether ``solver`` (a PySAT ``Solver`` or backend) stops on ``interrupt()``."""
    return _interruptible_backend(type(getattr(solver, "solver", solver)).__name__)


@cache
def _interruptible_backend(name: str) -> bool:  # once per backend class: asked on every SAT call
    return not name.lower().startswith(_UNINTERRUPTIBLE)


def solve_before(solver: Any, assumptions: list[int], deadline: float | None) -> bool:
    """``solver.solve(assumptions)``; :class:`SearchTimeout` when ``deadline`` has passed before
    the call or an :func:`interrupt_at` alarm stopped it.  A backend that cannot be interrupted
    solves in slices of :data:`BUDGET_SLICE` conflicts with the deadline checked in between
    (one without conflict budgets, Lingeling, runs its call to the end)."""
    if deadline is None:
        return bool(solver.solve(assumptions=assumptions))
    if deadline <= time.monotonic():
        raise SearchTimeout()
    if not interruptible(solver):
        try:
            return _solve_in_slices(solver, assumptions, deadline)
        except NotImplementedError:  # no budgets either (Lingeling): the deadline waits
            return bool(solver.solve(assumptions=assumptions))
    ok = solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
    if ok is None:
        raise SearchTimeout()
    return bool(ok)


def _solve_in_slices(solver: Any, assumptions: list[int], deadline: float) -> bool:
    while True:
        solver.conf_budget(BUDGET_SLICE)
        ok = solver.solve_limited(assumptions=assumptions)
        if ok is not None:
            return bool(ok)
        if deadline <= time.monotonic():
            raise SearchTimeout()


@contextmanager
def interrupt_at(deadline: float | None, solvers: Sequence[Any]) -> Iterator[None]:
    """Interrupt ``solvers`` at ``deadline``: one timer thread for a whole search call, not one
    per SAT call (thousands of short calls would each pay for a thread)."""
    if deadline is None:
        yield
        return

    def ring() -> None:
        for solver in solvers:
            if interruptible(solver):  # the others check the deadline between budget slices
                solver.interrupt()

    timer = threading.Timer(max(0.0, deadline - time.monotonic()), ring)
    # never holds up the exit, and is cancelled whenever it started: a Ctrl-C between starting
    # it and entering the block once left it waiting for its deadline (minutes) at exit
    timer.daemon = True
    try:
        _RUNNING.append(solvers)
        timer.start()
        yield
    finally:
        timer.cancel()
        with suppress(ValueError):
            _RUNNING.remove(solvers)
        if timer.ident is not None:
            timer.join()
        for solver in solvers:
            if interruptible(solver):
                solver.clear_interrupt()


#: The solvers of every :func:`interrupt_at` block now open (a deadline search runs
#: ``solve_limited``, which Ctrl-C cannot stop by itself).
_RUNNING: list[Sequence[Any]] = []


def interrupt_running() -> None:
    """Interrupt every solver of an open :func:`interrupt_at` block: called from a thread when
    a signal arrives (:func:`ramseygadgets.cli.app.signals_stop_solvers`), so that the search
    returns at once and the signal's Python handler runs."""
    for solvers in list(_RUNNING):
        for solver in solvers:
            if interruptible(solver):  # the others stop between budget slices
                solver.interrupt()


@dataclass
class Counterexample:
    """A good coloring of the candidate that satisfies bad condition ``condition``."""

    condition: Condition
    coloring: Coloring


class KnCopies:
    """Copies of F and H in K_n as edge-index tuples and bitmasks (edge t is bit t)."""

    def __init__(self, problem: Problem, n: int) -> None:
        self.kn = Graph.complete(n)
        self.f = find_copies(problem.F, self.kn)
        self.h = find_copies(problem.H, self.kn)
        self.f_masks = [_mask(c) for c in self.f]
        self.h_masks = [_mask(c) for c in self.h]
        #: the copies as rows of words (:mod:`.bitsets`), for the lemmas' copy selection
        self.words = word_count(self.kn.m)
        self.f_table = words_table(self.f_masks, self.words)
        self.h_table = words_table(self.h_masks, self.words)
        # the copies through each edge, as their other edges (the greedy extension)
        self.f_start, self.f_rest = _rest_table(self.f, self.kn.m, self.words)
        self.h_start, self.h_rest = _rest_table(self.h, self.kn.m, self.words)


def _rest_table(
    copies: Sequence[Sequence[int]], m: int, words: int
) -> tuple[np.ndarray, np.ndarray]:
    """For each edge t of K_n the sets C − {t} of the copies C through t, as rows
    ``start[t]:start[t + 1]`` of one table of words."""
    rest: list[list[int]] = [[] for _ in range(m)]
    for c in copies:
        whole = _mask(c)
        for t in c:
            rest[t].append(whole & ~(1 << t))
    start = np.zeros(m + 1, dtype=np.int64)
    start[1:] = np.cumsum([len(r) for r in rest])
    return start, words_table([mask for r in rest for mask in r], words)


def subgraph(kn: Graph, edge_mask: int) -> Graph:
    """The subgraph of K_n with the edges of ``edge_mask`` (edge t is bit t)."""
    edges = kn.edges
    return Graph(kn.n, tuple(edges[t] for t in range(kn.m) if edge_mask >> t & 1))


def _mask(edges: Sequence[int]) -> int:
    out = 0
    for t in edges:
        out |= 1 << t
    return out


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
    rest = list(_undecided(copies.kn.m, decided))
    if rng is not None:
        rng.shuffle(rest)
    red_words = to_words(red, copies.words)
    blue_words = to_words(decided & ~red, copies.words)
    order = np.array(rest, dtype=np.int64)
    greedy_extension(
        order, copies.f_start, copies.f_rest, copies.h_start, copies.h_rest, red_words, blue_words
    )
    return from_words(red_words)


@lru_cache(maxsize=4)
def _undecided(m: int, decided: int) -> tuple[int, ...]:
    """The edges of K_n (m edges) outside ``decided``, in order (kept for the few last: a bad
    colouring is extended several times)."""
    return tuple(t for t in range(m) if not decided >> t & 1)


class ColoringOracle:
    """Good colorings of every subgraph G ⊆ K_n, through one incremental SAT solver.

    Variables r_t = t + 1 (edge t red) and s_t = m + t + 1 (edge t in G).  Per copy C of F in K_n
    the clause ∨_{t∈C} ¬r_t ∨ ∨_{t∈C} ¬s_t, per copy of H  ∨_{t∈C} r_t ∨ ∨_{t∈C} ¬s_t.  Under the
    assumptions s_t (t ∈ G) the models restricted to G's edges are exactly G's good colorings
    (a copy with an edge outside G is switched off by setting that s_t false).  When a query
    fails, the assumptions in the solver's core name a subgraph S ⊆ G with no good coloring
    under the condition; so does every graph containing S.
    """

    def __init__(self, copies: KnCopies, solver: str = ORACLE_SOLVER) -> None:
        self.kn = copies.kn
        m = self.kn.m
        clauses = [[-(t + 1) for t in c] + [-(m + t + 1) for t in c] for c in copies.f]
        clauses += [[t + 1 for t in c] + [-(m + t + 1) for t in c] for c in copies.h]
        self.solver = Solver(name=solver, bootstrap_with=clauses)
        self._last_graph: tuple[int, list[int]] | None = None

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
        if not solve_before(self.solver, self._graph_assumptions(edge_mask) + condition, deadline):
            return None
        model = self.solver.get_model() or []
        red = 0
        for t in range(self.kn.m):  # model[t] is the literal of r_t = t + 1
            if model[t] > 0:
                red |= 1 << t
        return red

    def _graph_assumptions(self, edge_mask: int) -> list[int]:
        """s_t for the edges of G, ¬s_t for the others (kept for the last G: a candidate is
        asked several conditions in a row)."""
        if self._last_graph is None or self._last_graph[0] != edge_mask:
            m = self.kn.m
            lits = [m + t + 1 if edge_mask >> t & 1 else -(m + t + 1) for t in range(m)]
            self._last_graph = (edge_mask, lits)
        return self._last_graph[1]

    def core_edges(self) -> list[int]:
        """After a failed query: K_n edge ids of a subgraph with no good coloring under it."""
        m = self.kn.m
        return sorted(lit - m - 1 for lit in self.solver.get_core() or [] if lit > m)

    def close(self) -> None:
        self.solver.delete()


def edge_colors_only(spec: GadgetSpec) -> bool:
    """Whether every condition fixes edge colours only (determiners and senders)."""
    return all(isinstance(atom, EdgeColor) for cond in spec.witnesses + spec.bad for atom in cond)
