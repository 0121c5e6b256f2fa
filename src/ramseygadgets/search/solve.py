"""Minimal gadgets: fewest vertices, then fewest edges, with the proof that none is smaller.

*Minimal* means lexicographically smallest (n, m): no solution has fewer than n vertices, and
no solution on n vertices has fewer than m edges.  Solutions are monotone in n (adding an
isolated vertex keeps a solution), so "no solution on exactly n − 1 vertices" (the UNSAT answer
of the finder at n − 1) proves that none has fewer than n.

:func:`solve` tries n = smallest possible, n + 1, … up to ``max_vertices`` with the exact finder
(:mod:`.cegar`), one run per placement of the designated items; at the first n with a solution it
lowers the edge bound until UNSAT.  Every returned candidate is re-checked by
:func:`ramseygadgets.verification.verifier.verify`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.problems.catalog import Problem, get_problem
from ramseygadgets.search.cegar import KnCopies, LayoutFinder, SearchTimeout
from ramseygadgets.search.options import (
    DEFAULT_MAX_VERTICES,
    SearchError,
    SearchOptions,
    cap_words,
    check_engine,
)
from ramseygadgets.search.spec import layouts
from ramseygadgets.verification.verifier import verify

__all__ = [
    "Status",
    "DEFAULT_MAX_VERTICES",
    "SearchError",
    "SearchOptions",
    "LevelRecord",
    "CandidateResult",
    "SearchResult",
    "resolve_problem",
    "smallest_vertex_count",
    "check_engine",
    "checked",
    "first_level",
    "find_solution",
    "search_levels",
    "solve",
]

Status = Literal["found", "none-up-to-limit", "timeout"]


@dataclass
class LevelRecord:
    """What happened at one vertex count: ``none`` (proven), ``found`` or ``timeout``;
    ``engine``: ``eager`` or ``lazy`` (:mod:`.cegar`), ``multi`` (:mod:`.multi`)."""

    n: int
    outcome: str
    seconds: float
    candidates: int = 0
    lemmas: int = 0
    arrowing: int = 0
    pruned: int = 0
    engine: str = "eager"
    #: cube-and-conquer (:mod:`.parallel`): cubes decided (searched here + taken from a
    #: checkpoint log), prefixes refuted by propagation, CPU seconds of the cubes
    cubes: int = 0
    cubes_searched: int = 0
    cubes_from_log: int = 0
    refuted: int = 0
    cpu_seconds: float = 0.0
    #: only graphs with at most this many edges were searched (``SearchOptions.max_edges``)
    max_edges: int | None = None
    #: cubes that started with the lemmas of a cube stopped earlier; cubes in flight at this
    #: run's stop and the lemmas kept of them (:mod:`.stopped`)
    cubes_from_stop: int = 0
    stopped_cubes: int = 0
    stopped_lemmas: int = 0

    def to_json(self) -> dict[str, Any]:
        out = self._json()
        if self.cubes:
            out.update(
                cubes=self.cubes,
                cubes_searched=self.cubes_searched,
                cubes_from_log=self.cubes_from_log,
                refuted_by_propagation=self.refuted,
                cube_cpu_seconds=round(self.cpu_seconds, 3),
            )
        for name in ("cubes_from_stop", "stopped_cubes", "stopped_lemmas"):
            if getattr(self, name):
                out[name] = getattr(self, name)
        return out

    def _json(self) -> dict[str, Any]:
        out = {
            "n": self.n,
            "outcome": self.outcome,
            "seconds": round(self.seconds, 4),
            "engine": self.engine,
            "candidates": self.candidates,
            "lemmas": self.lemmas,
            "arrowing_lemmas": self.arrowing,
            "pruned_as_not_lex_max": self.pruned,
        }
        if self.max_edges is not None:
            out["max_edges"] = self.max_edges
        return out


class CandidateResult:
    """Sizes of a search outcome's ``candidate`` (``None`` when nothing was found)."""

    candidate: Candidate | None

    @property
    def n(self) -> int | None:
        return self.candidate.graph.n if self.candidate is not None else None

    @property
    def m(self) -> int | None:
        return self.candidate.graph.m if self.candidate is not None else None

    @property
    def found(self) -> bool:
        return self.candidate is not None


@dataclass
class SearchResult(CandidateResult):
    """Outcome of every search (:func:`solve`, :func:`find_solution`, cube-and-conquer, the
    k-colour search).

    ``lower_bound``: proven that no solution has fewer vertices.  ``edges_minimal``: the
    candidate has the fewest edges among solutions on ``n`` vertices (proven).  With
    ``max_edges`` only solutions with at most that many edges were searched: ``lower_bound``
    and every "none" speak of those alone.
    """

    problem_id: str
    problem: Problem
    status: Status
    candidate: Candidate | None
    lower_bound: int
    seconds: float
    edges_minimal: bool = False
    layout: str | None = None
    levels: list[LevelRecord] = field(default_factory=list)
    max_vertices: int | None = None
    #: the smallest vertex count searched (``min_vertices``); smaller ones were not searched
    searched_from: int | None = None
    #: a checked proof record for the level below ``searched_from`` (``--assume-none-below``):
    #: what it rests on (:func:`.cubeproof.rests_on`)
    assumed: str | None = None
    #: whether every cube outcome of ``assumed`` was run again (else some are taken on trust)
    assumed_rerun: bool = False
    #: only graphs with at most this many edges were searched (``SearchOptions.max_edges``)
    max_edges: int | None = None
    #: cube runs: (cubes taken from the checkpoint log, cubes) of the round that proved
    #: ``edges_minimal`` ("none with at most m - 1 edges"); (0, ...): all searched by this run
    edges_round: tuple[int, int] = (0, 0)

    def bound_on_trust(self) -> bool:
        """Whether ``lower_bound`` rests on cube outcomes read from a log and not run again: the
        highest level decided none took cubes from the checkpoint log, or (none decided here)
        the ``--assume-none-below`` log was not re-run in full."""
        none = [lv for lv in self.levels if lv.outcome == "none"]
        if none:
            return max(none, key=lambda lv: lv.n).cubes_from_log > 0
        return self.assumed is not None and not self.assumed_rerun

    def proof(self) -> str:
        """Which levels were decided, what each rests on, and whether that makes the answer
        minimal.

        "None on n" also proves "none on fewer than n" (a solution plus an isolated vertex is a
        solution), which is what ``lower_bound`` records; the statement still names the levels
        this run decided, those it did not search, and the cube outcomes it took from a log
        without running them again.
        """
        parts = []
        none = [lv for lv in self.levels if lv.outcome == "none"]
        if none:
            span = f"{none[0].n}" if len(none) == 1 else f"{none[0].n}..{none[-1].n}"
            parts.append(f"none on {span} vertices{cap_words(self.max_edges)}")
        parts += [
            f"level {lv.n}: {lv.cubes_from_log} of {lv.cubes} cubes from the checkpoint log, "
            f"taken on trust (not re-run)"
            for lv in none
            if lv.cubes_from_log
        ]
        first = self.searched_from
        if self.assumed:
            parts.append(self.assumed)
        elif first is not None and first > smallest_vertex_count(self.problem):
            parts.append(f"levels below {first} not searched")
        n = self.candidate.graph.n if self.candidate is not None else None
        if n is not None:
            if self.lower_bound == n:
                trust = " as far as the cube log holds" if self.bound_on_trust() else ""
                parts.append(
                    f"minimal{trust}: no solution{cap_words(self.max_edges)} on fewer than {n} vertices"
                )
            else:
                low, high = self.lower_bound, n - 1
                levels = f"level {low}" if low == high else f"levels {low}..{high}"
                parts.append(f"not proven minimal: {levels} not decided")
        from_log, cubes = self.edges_round
        if self.edges_minimal and from_log and self.m is not None:
            parts.append(
                f"fewest edges: {from_log} of {cubes} cubes of none with at most {self.m - 1} "
                "edges from the checkpoint log, taken on trust (not re-run)"
            )
        return "; ".join(parts)

    def edges_on_trust(self) -> bool:
        """Whether ``edges_minimal`` rests on cube outcomes read from a log, not run again."""
        return self.edges_minimal and self.edges_round[0] > 0

    def describe(self) -> str:
        if self.candidate is not None:
            minimal = (
                "minimal"
                if self.edges_minimal and self.lower_bound == self.n
                else "not proven minimal"
            )
            if minimal == "minimal" and (self.bound_on_trust() or self.edges_on_trust()):
                minimal = "minimal as far as the cube log holds"
            if minimal != "not proven minimal" and self.max_edges is not None:
                minimal += f" among solutions with at most {self.max_edges} edges"
            return f"found on n = {self.n} vertices, m = {self.m} edges ({minimal})"
        if self.status == "timeout":
            return (
                f"not found within limits: time limit reached (no solution below "
                f"{self.lower_bound} vertices)"
            )
        return (
            f"not found within limits: no solution on at most {self.max_vertices} vertices"
            f"{cap_words(self.max_edges)} (proven)"
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "problem_id": self.problem_id,
            "title": self.problem.title,
            "status": self.status,
            "n": self.n,
            "m": self.m,
            "lower_bound": self.lower_bound,
            "edges_minimal": self.edges_minimal,
            "seconds": round(self.seconds, 4),
            "max_vertices": self.max_vertices,
            "max_edges": self.max_edges,
            "layout": self.layout,
            "solution": self.candidate.to_json(self.problem.kind)
            if self.candidate is not None
            else None,
            "levels": [lv.to_json() for lv in self.levels],
            "proof": self.proof(),
        }
        if self.searched_from is not None:
            out["searched_from"] = self.searched_from
        if self.assumed is not None:
            out["assumed"] = self.assumed
        out["lower_bound_on_trust"] = self.bound_on_trust()
        out["edges_minimal_on_trust"] = self.edges_on_trust()
        return out


def resolve_problem(problem: Problem | str) -> Problem:
    """The two-colour problem to search (problems with more colours are
    :func:`ramseygadgets.multicolor.solve_multi`'s: refused here, never searched as two)."""
    found = get_problem(problem) if isinstance(problem, str) else problem
    if not found.is_pair:
        raise SearchError(
            f"{found.title} has {found.c} colours: this search handles two; search it with "
            f"'ramseygadgets generate --spec \"{' | '.join(p.spec for p in found.patterns)}\"' "
            f"or ramseygadgets.multicolor.solve_multi"
        )
    return found


def smallest_vertex_count(problem: Problem) -> int:
    """The fewest vertices on which the designated items fit (every smaller n is trivially
    impossible), for any number of colours."""
    n = 1
    while not layouts(problem.kind, n):
        n += 1
    return n


def checked(problem: Problem, candidate: Candidate) -> Candidate:
    """``candidate``, after :func:`~ramseygadgets.verification.verifier.verify` accepts it (a search never
    hands out a wrong answer: a rejection is a bug, raised as ``AssertionError``)."""
    verdict = verify(problem, candidate)
    if not verdict.correct:  # never hand out a wrong answer
        raise AssertionError(
            f"search produced a candidate the verifier rejects for {problem.id}: {verdict.reason}"
        )
    return candidate


class _Level:
    """All layouts of one vertex count, sharing K_n's copies."""

    def __init__(
        self, problem: Problem, n: int, seed: int | None, solver: str, engine: str
    ) -> None:
        copies = KnCopies(problem, n)
        self.finders = [
            LayoutFinder(problem, n, lay, copies=copies, seed=seed, solver=solver, engine=engine)
            for lay in layouts(problem.gadget, n)
        ]

    def record_stats(self, record: LevelRecord) -> None:
        stats = [f.stats for f in self.finders]
        record.candidates = sum(s.candidates for s in stats)
        record.lemmas = sum(s.lemmas for s in stats)
        record.arrowing = sum(s.arrowing for s in stats)
        record.pruned = sum(s.pruned for s in stats)

    def first(
        self, deadline: float | None, max_edges: int | None = None
    ) -> tuple[LayoutFinder, Candidate] | None:
        for finder in self.finders:
            graph = finder.find(max_edges=max_edges, deadline=deadline)
            if graph is not None:
                return finder, Candidate(graph, finder.layout.designated)
        return None

    def minimize(
        self,
        best: tuple[LayoutFinder, Candidate],
        deadline: float | None,
        on_improve: Callable[[Candidate], None] | None = None,
    ) -> tuple[LayoutFinder, Candidate]:
        """Lower the edge bound layout by layout until no layout has a smaller solution."""
        for finder in self.finders:
            while True:
                graph = finder.find(max_edges=best[1].graph.m - 1, deadline=deadline)
                if graph is None:
                    break
                best = (finder, Candidate(graph, finder.layout.designated))
                if on_improve is not None:
                    on_improve(best[1])
        return best

    def close(self) -> None:
        for f in self.finders:
            f.close()


#: :func:`find_solution`'s default: any solution on the level (its edges not minimised).
FIND_ANY = SearchOptions(minimize_edges=False)


def find_solution(
    problem: Problem | str, n: int, options: SearchOptions = FIND_ANY
) -> SearchResult:
    """A solution on ``n`` vertices, or the proof that there is none (status ``none-up-to-limit``).

    Reads ``timeout``, ``seed``, ``solver``, ``engine`` and ``minimize_edges`` (then the
    solution has the fewest edges among solutions on ``n`` vertices; off by default) from
    ``options``.
    """
    problem = resolve_problem(problem)
    if n < 1:
        raise SearchError(f"vertex count must be positive, got {n}")
    start = time.monotonic()
    deadline = _deadline(start, options)
    result = SearchResult(
        *(problem.id, problem, "timeout", None, smallest_vertex_count(problem), 0.0),
        max_vertices=n,
        max_edges=options.max_edges,
    )
    _run_level(problem, n, deadline, options, result)
    result.seconds = time.monotonic() - start
    return result


def _deadline(start: float, options: SearchOptions) -> float | None:
    return start + options.timeout if options.timeout is not None else None


def _run_level(
    problem: Problem,
    n: int,
    deadline: float | None,
    options: SearchOptions,
    result: SearchResult,
) -> bool:
    """Decide level ``n`` into ``result``; True when a solution was found (or time ran out)."""
    t0 = time.monotonic()
    level = _Level(problem, n, options.seed, options.solver, options.engine)
    record = LevelRecord(n, "timeout", 0.0, max_edges=options.max_edges)
    result.levels.append(record)
    try:
        best = level.first(deadline, options.max_edges)
        if best is None:
            record.outcome = "none"
            result.status = "none-up-to-limit"
            result.lower_bound = max(result.lower_bound, n + 1)  # monotone in n
            return False
        result.status = "found"
        result.candidate, result.layout = checked(problem, best[1]), best[0].layout.name
        record.outcome = "found"
        if options.minimize_edges:

            def improve(c: Candidate) -> None:
                result.candidate = checked(problem, c)

            best = level.minimize(best, deadline, improve)
            result.candidate, result.layout = checked(problem, best[1]), best[0].layout.name
            result.edges_minimal = True
        return True
    except SearchTimeout:
        result.status = "found" if result.candidate is not None else "timeout"
        return True
    finally:
        record.seconds = time.monotonic() - t0
        level.record_stats(record)
        record.engine = "lazy" if any(f.lazy for f in level.finders) else "eager"
        level.close()


def first_level(problem: Problem, options: SearchOptions) -> int:
    """The first vertex count a search of ``problem`` tries: ``min_vertices``, but never below
    :func:`smallest_vertex_count`; refused when above ``max_vertices``."""
    begin = max(smallest_vertex_count(problem), options.min_vertices or 0)
    if begin > options.max_vertices:
        raise SearchError(
            f"max-vertices {options.max_vertices} is below the first vertex count to try ({begin})"
        )
    return begin


def solve(
    problem: Problem | str,
    options: SearchOptions = SearchOptions(),
    *,
    on_level: Callable[[LevelRecord], None] | None = None,
    on_start: Callable[[SearchResult], None] | None = None,
) -> SearchResult:
    """The minimal solution of ``problem`` (fewest vertices, then fewest edges) with its proof.

    Tries n = ``options.min_vertices`` (default: the smallest n the designated items fit on) up
    to ``options.max_vertices``.  ``timeout`` (seconds) bounds the whole call; on timeout the
    result says how far the proof got (``lower_bound``) and carries any solution found so far.
    ``engine``: ``auto`` (lazy unless F is a star), ``lazy`` or ``eager`` (:mod:`.cegar`); all
    give the same answer, and each level records which one ran and what it enumerated.
    ``on_level`` is called with each level's record as it is decided, ``on_start`` with the
    result before the first level: it grows as the search goes, so a caller that is interrupted
    still holds what was proven (the CLI's ``proof:`` line after Ctrl-C).
    """
    return search_levels(resolve_problem(problem), options, _run_level, on_level, on_start)


#: Decides level n into the result: ``(problem, n, deadline, options, result)`` → True when the
#: search stops there (a solution found, or time ran out).
LevelSearch = Callable[[Problem, int, float | None, SearchOptions, SearchResult], bool]


def search_levels(
    problem: Problem,
    options: SearchOptions,
    decide_level: LevelSearch,
    on_level: Callable[[LevelRecord], None] | None = None,
    on_start: Callable[[SearchResult], None] | None = None,
) -> SearchResult:
    """Levels n = :func:`first_level` … ``max_vertices`` in turn, each decided by
    ``decide_level``, until one stops the search; ``on_level`` sees each level's record,
    ``on_start`` the result before the first level (as :func:`solve`)."""
    start = time.monotonic()
    deadline = _deadline(start, options)
    begin = first_level(problem, options)
    result = SearchResult(
        problem.id,
        problem,
        "none-up-to-limit",
        None,
        smallest_vertex_count(problem),
        0.0,
        max_vertices=options.max_vertices,
        max_edges=options.max_edges,
    )
    result.searched_from = begin
    if on_start is not None:
        on_start(result)
    for n in range(begin, options.max_vertices + 1):
        done = decide_level(problem, n, deadline, options, result)
        if on_level is not None:
            on_level(result.levels[-1])
        if done:
            break
    result.seconds = time.monotonic() - start
    return result
