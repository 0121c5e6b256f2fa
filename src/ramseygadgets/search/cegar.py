"""Exact gadget finder on a fixed vertex count: counterexample-guided SAT (CEGAR).

The question "is there a graph G ⊆ K_n with the designated items of ``layout`` that solves the
problem?" has the shape ∃G [∃ witness colorings] ∀ good colorings c of G: c is not bad.

*Exists part* (one incremental PySAT solver, :class:`~.exists.CandidateModel`): a variable x_t per edge t
of K_n ("t ∈ G"), the designated edges fixed present, and for every witness condition W
(:mod:`spec`) a coloring w^W of K_n with  w_t → x_t  (red only on edges of G),  for every copy C
of F in K_n  ¬∧_{t∈C} w_t,  for every copy C of H  ¬(∧_{t∈C} x_t ∧ ∧_{t∈C} ¬w_t),  and W's
colour / red-degree constraints.  Lex-leader constraints G ≥_lex σ(G) for the vertex
permutations σ that preserve the problem keep one graph per orbit.

*For-all part* (:func:`find_counterexample`): the candidate G's good colorings are queried with
the core :class:`~ramseygadgets.colorings.red_blue.GoodColorings` for each bad condition.  A bad good
coloring c becomes a *lemma*: extend c to a coloring c* of K_n (new edges at degree-bounded
vertices blue, others by a greedy rule; the lazy engine keeps the shortest lemma of
:data:`EXTENSIONS_TRIED` greedy extensions); every solution G' must contain a copy of F red under c*
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
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ramseygadgets.colorings.red_blue import keyboard_interrupts
from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.catalog import Problem
from ramseygadgets.search.deferred import DeferredLemmas
from ramseygadgets.search.degrees import ReducibleEdges
from ramseygadgets.search.exists import CandidateModel, ExistsModel
from ramseygadgets.search.oracle import (
    DEFAULT_SEARCH_SOLVER,
    ColoringOracle,
    Counterexample,
    KnCopies,
    SearchTimeout,
    edge_colors_only,
    extend_coloring,
    extend_red_mask,
    find_counterexample,
    interrupt_at,
    solve_before,
    subgraph,
)
from ramseygadgets.search.spec import Condition, EdgeColor, Layout, gadget_spec

__all__ = [  # the exists and for-all sides live in .exists and .oracle; importable from here
    "DEFAULT_SEARCH_SOLVER",
    "ColoringOracle",
    "Counterexample",
    "KnCopies",
    "SearchTimeout",
    "extend_coloring",
    "extend_red_mask",
    "find_counterexample",
    "interrupt_at",
    "solve_before",
    "subgraph",
    "Condition",
    "EdgeColor",
    "ExistsModel",
    "CandidateModel",
]

#: Finder engines: ``lazy`` checks the witness conditions in the for-all step (arrowing lemmas),
#: ``eager`` encodes them in the exists part (the original finder); ``auto`` picks per problem.
ENGINES = ("auto", "lazy", "eager")
DEFAULT_ENGINE = "auto"
#: Whether the lazy engine demands degree 0 or > D of every vertex off the designated items
#: (:mod:`.degrees`; exact).  Measured on the sparse cubes: ``bench/sparse_cubes.py``.
DEGREE_BOUND = True


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


@dataclass
class FinderStats:
    candidates: int = 0
    lemmas: int = 0
    arrowing: int = 0  # lazy engine: subgraphs without a witness coloring
    pruned: int = 0  # lazy engine: candidates excluded as not lex-maximal
    reduced: int = 0  # lazy engine: candidates excluded by the edge rule (:mod:`.degrees`)
    deferred: int = 0  # models dropped for breaking an inherited lemma (:mod:`.deferred`)
    witnesses_first: int = 0  # lazy engine: candidates asked for their witnesses first
    witness_missing: int = 0  # lazy engine: of those, how many missed one (an arrowing lemma)
    sat_seconds: float = 0.0
    check_seconds: float = 0.0


def lemma_key(kind: str, value: object) -> tuple[str, object]:
    """A hashable identity of a shared lemma (arrowing edge lists become tuples)."""
    return (kind, tuple(value) if isinstance(value, (list, tuple)) else value)


@dataclass
class LayoutResult:
    """Outcome of one layout at one n: the best solution found (``None``: proven none)."""

    candidate: Candidate | None
    edges_minimal: bool
    stats: FinderStats = field(default_factory=FinderStats)


#: Extensions of each counterexample the lazy engine tries (the lemma with the fewest copies is
#: kept): 3 against 1 is 1.10× on 13 logged level-14 cubes (``bench/lemma_extensions.py``); 8 or
#: 16 cost more than they save.
EXTENSIONS_TRIED = 3

#: :meth:`LayoutFinder._witnesses_first`: candidates asked for their witnesses first at the
#: start of a search, how often after that, and the share of those missing one above which
#: every candidate is.
WITNESS_WARMUP, WITNESS_SAMPLE, WITNESS_MISSING = 32, 16, 0.05


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
        degree_bound: bool = DEGREE_BOUND,
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
            degree_bound=degree_bound,
        )
        self.oracle = ColoringOracle(self.copies) if self.lazy else None
        #: the lazy engine's oracle assumptions for each witness and bad condition
        literals = self.oracle.condition_literals if self.oracle is not None else None
        self.witness_literals = [literals(c) for c in self.spec.witnesses] if literals else []
        self.bad_literals = [literals(c) for c in self.spec.bad] if literals else []
        self.canonicity = self.model.canonicity_check() if self.lazy else None
        #: the edge rule of :mod:`.degrees` (with the degree bound): a clause per reducible edge
        self.reducible = ReducibleEdges.make(problem, layout, self.kn, self.model.x)
        self.reducible = self.reducible if self.lazy and degree_bound else None
        self.rng = random.Random(seed) if seed is not None else None
        #: the edge orders of the extensions after the first (:meth:`_shortest_extension`),
        #: seeded so that a search is repeatable
        self.shuffles = random.Random(0 if seed is None else seed)
        self.stats = FinderStats()
        #: with :meth:`share_lemmas`: every lemma learned, as ``("c", red_mask)`` (counterexample
        #: colouring of K_n) or ``("a", edges)`` (arrowing subgraph), for other cubes of the level
        self.learned: list[tuple[str, object]] | None = None
        #: the lemmas this finder has (learned or added), so a shared lemma is added once
        self.known: set[tuple[str, object]] = set()
        #: the :meth:`CandidateModel.lemma_copies` of each counterexample lemma given to
        #: :meth:`add_lemmas`, kept by :meth:`reset` (whoever adds lemmas again and again drops
        #: the entries of those it no longer adds)
        self.mono: dict[int, tuple[list[int], list[int]]] = {}
        #: inherited counterexample lemmas not yet clauses (:meth:`defer_lemmas`)
        self.deferred: DeferredLemmas | None = None

    def reset(self) -> None:
        """Start again from the static clauses: no lemma, restriction or statistic kept (the
        oracle, the canonicity check and the lemmas' copies stay: none depends on them)."""
        self.model.reset()
        self.stats = FinderStats()
        self.learned = None
        self.known = set()
        self.deferred = None

    # -- cubes (:mod:`.cubes`) ---------------------------------------------------------------------
    def restrict(self, fixed: Sequence[tuple[int, bool]], max_edges: int | None = None) -> None:
        """Search only graphs with edge t present (True) or absent (False) for each ``(t, value)``
        of ``fixed`` (a cube), and with at most ``max_edges`` edges: unit clauses, so UNSAT
        proves "no solution in this cube (with at most so many edges)"."""
        for t, present in fixed:
            self.model.solver.add_clause([self.model.x[t] if present else -self.model.x[t]])
        for lit in self.model.bound_edges(max_edges) if max_edges is not None else ():
            self.model.solver.add_clause([lit])

    def share_lemmas(self) -> None:
        """Record every lemma learned from now on in :attr:`learned`."""
        self.learned = []

    def add_lemmas(self, lemmas: Sequence[tuple[str, object]]) -> None:
        """Add lemmas learned elsewhere on this level and layout (:attr:`learned` of another
        finder).  Each is satisfied by every solution on n vertices with this layout, so adding
        them to any cube's search keeps its answer exact."""
        for kind, value in lemmas:
            key = lemma_key(kind, value)
            if key in self.known:
                continue
            self.known.add(key)
            if kind == "c":
                assert isinstance(value, int)
                mono = self.mono.get(value)
                if mono is None:
                    mono = self.mono[value] = self.model.lemma_copies(value)
                self.model.add_lemma(value, mono)
            else:
                assert isinstance(value, (list, tuple))
                self.model.add_arrowing(value)

    def defer_lemmas(self, lemmas: Sequence[tuple[str, object]]) -> None:
        """Add lemmas as :meth:`add_lemmas` does, but keep the counterexample ones out of the
        solver until a candidate breaks one (:mod:`.deferred`; an empty one, or an arrowing
        lemma, is added at once)."""
        values, monos, now = [], [], []
        for kind, value in lemmas:
            key = lemma_key(kind, value)
            if kind != "c" or key in self.known:
                now.append((kind, value))
                continue
            assert isinstance(value, int)
            mono = self.mono.get(value)
            if mono is None:
                mono = self.mono[value] = self.model.lemma_copies(value)
            if not mono[0] and not mono[1]:
                now.append((kind, value))
                continue
            self.known.add(key)
            values.append(value)
            monos.append(mono)
        self.add_lemmas(now)
        if values:
            self.deferred = DeferredLemmas(self.copies, values, monos)

    def _learn(self, kind: str, value: object) -> None:
        if self.learned is not None:
            self.learned.append((kind, value))
            self.known.add(lemma_key(kind, value))

    def find(
        self,
        max_edges: int | None = None,
        deadline: float | None = None,
        within: Sequence[tuple[int, bool]] = (),
        between: Callable[[LayoutFinder], None] | None = None,
    ) -> Graph | None:
        """A solution with at most ``max_edges`` edges, or ``None`` when none exists (exact).

        ``within``: only graphs with edge t present (True) or absent (False) for each
        ``(t, value)``, as assumptions, so the finder (with every lemma it learned, each valid
        for the whole level) can go on to another restriction.  (:mod:`.cubes` resets the finder
        for each cube and :meth:`restrict` s it instead: unit clauses are 1.5× cheaper on sparse
        cubes.)  ``between``: called with this finder after every candidate checked (a cube
        worker exchanges lemmas there).
        """
        solvers = [self.model.solver] + ([self.oracle.solver] if self.oracle is not None else [])
        x = self.model.x
        cube = [x[t] if present else -x[t] for t, present in within]
        with keyboard_interrupts(), interrupt_at(deadline, solvers):
            return self._find(max_edges, deadline, cube, between)

    def _find(
        self,
        max_edges: int | None,
        deadline: float | None,
        cube: list[int],
        between: Callable[[LayoutFinder], None] | None,
    ) -> Graph | None:
        assumptions = self.model.bound_edges(max_edges) if max_edges is not None else []
        assumptions += cube
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
            if self.reducible is not None and (clause := self.reducible(edge_mask)):
                self.model.solver.add_clause(clause)  # not shared: it holds for reduced ones
                self.stats.reduced += 1
                continue
            if self.deferred is not None and (broken := self.deferred.broken(edge_mask)):
                for value, mono in broken:
                    self.model.add_lemma(value, mono)
                self.stats.deferred += 1
                continue
            self.stats.candidates += 1
            if self.lazy:
                solved = self._check_lazily(edge_mask, deadline)
            else:
                solved = self._check_eagerly(edge_mask)
            self.stats.check_seconds += time.monotonic() - t1
            if solved:
                return subgraph(self.kn, edge_mask)
            if between is not None:
                between(self)

    @property
    def kn(self) -> Graph:
        return self.copies.kn

    def _check_eagerly(self, edge_mask: int) -> bool:
        """Counterexample lemmas for a candidate that has its witnesses; True: a solution."""
        found = find_counterexample(self.problem, subgraph(self.kn, edge_mask), self.spec)
        for ce in found:
            red = extend_coloring(self.copies, edge_mask, ce, self.rng)
            self.model.add_lemma(red)
            self._learn("c", red)
            self.stats.lemmas += 1
        return not found

    def _check_lazily(self, edge_mask: int, deadline: float | None = None) -> bool:
        """One lemma for the first condition the candidate fails: an arrowing lemma for a missing
        witness, else a counterexample lemma for a bad coloring; True: a solution.  Which is
        asked first: :meth:`_witnesses_first`.

        (One lemma per candidate: asking the remaining conditions too costs more oracle time
        than the extra lemmas save, measured in bench/frontier.py.)
        """
        if not self._witnesses_first():
            return not (
                self._counterexample(edge_mask, deadline) or self._arrowing(edge_mask, deadline)
            )
        self.stats.witnesses_first += 1
        if self._arrowing(edge_mask, deadline):
            self.stats.witness_missing += 1
            return False
        return not self._counterexample(edge_mask, deadline)

    def _witnesses_first(self) -> bool:
        """Whether to ask this candidate's witnesses before its bad conditions.

        An arrowing lemma (a missing witness) excludes every supergraph of a small core, so it is
        worth asking for where candidates miss witnesses; where none does, the witness queries
        are two thirds of the oracle's calls for nothing (a dense (K3, K4) cube).  So the
        witnesses go first over the first :data:`WITNESS_WARMUP` candidates, every
        :data:`WITNESS_SAMPLE`-th one after, and always while at least :data:`WITNESS_MISSING`
        of the candidates so asked missed one (``bench/question_order.py``)."""
        asked, missing = self.stats.witnesses_first, self.stats.witness_missing
        return (
            asked < WITNESS_WARMUP
            or self.stats.candidates % WITNESS_SAMPLE == 0
            or missing >= WITNESS_MISSING * asked
        )

    def _arrowing(self, edge_mask: int, deadline: float | None) -> bool:
        """Learn an arrowing lemma if the candidate misses a witness: True if it did."""
        assert self.oracle is not None
        for literals in self.witness_literals:
            if self.oracle.red_mask(edge_mask, literals, deadline) is None:
                core = self.oracle.core_edges()
                self.model.add_arrowing(core)
                self._learn("a", core)
                self.stats.arrowing += 1
                return True
        return False

    def _counterexample(self, edge_mask: int, deadline: float | None) -> bool:
        """Learn a counterexample lemma if the candidate has a bad colouring: True if it did."""
        assert self.oracle is not None
        for literals in self.bad_literals:
            red = self.oracle.red_mask(edge_mask, literals, deadline)
            if red is not None:  # a bad good coloring of G, extended to K_n
                extended, mono = self._shortest_extension(edge_mask, red & edge_mask)
                self.model.add_lemma(extended, mono)
                self._learn("c", extended)
                self.stats.lemmas += 1
                return True
        return False

    def _shortest_extension(
        self, edge_mask: int, red: int
    ) -> tuple[int, tuple[list[int], list[int]]]:
        """The bad colouring ``red`` of G extended to K_n :data:`EXTENSIONS_TRIED` times (the
        finder's edge order, then seeded shuffles), and the extension whose lemma has the fewest
        copies, with its :meth:`~.exists.CandidateModel.lemma_copies`.  Every extension's lemma
        holds; different ones exclude different graphs, and the shortest of three cuts the
        candidates of a level-14 cube by 14–34 % (docs/search.md)."""
        extensions = (
            extend_red_mask(self.copies, edge_mask, red, self.rng if i == 0 else self.shuffles)
            for i in range(EXTENSIONS_TRIED)
        )
        lemmas = ((ext, self.model.lemma_copies(ext)) for ext in extensions)
        return min(lemmas, key=lambda lemma: len(lemma[1][0]) + len(lemma[1][1]))

    def close(self) -> None:
        self.model.close()
        if self.oracle is not None:
            self.oracle.close()

    def __enter__(self) -> LayoutFinder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
