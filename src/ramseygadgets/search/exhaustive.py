"""Independent cross-check of the finder: every graph up to isomorphism, scanned for gadgets.

Shares no code with the CEGAR finder (:mod:`.cegar`): graphs come from nauty's ``geng`` (one
per isomorphism class, split with ``res/mod``), converted to edge lists by nauty's ``listg``;
each graph's good colorings are queried with the core :class:`~ramseygadgets.colorings.red_blue.GoodColorings`
and every choice of designated items is tested (:func:`gadgets_in_graph`); reported minima are
re-checked with :func:`ramseygadgets.verification.verifier.verify`.

Minimal (n, m) of a problem: scan n = smallest possible, n + 1, … and, within each n, edge
counts m = n − 1, n, … ; the first (n, m) holding a solution is the answer.  The scan only
looks at graphs that can be that first hit; each restriction is proven for it:

1. *Connected* (geng ``-c``).  If no solution has n − 1 vertices, every solution on n vertices is
   connected: a component without designated items can be deleted (good colorings are products
   over components, and each component has one), and designated items in different components
   contradict every definition (positive sender: e's and f's colours combine freely, so e red and
   f blue occurs; clause gadget: with i1 alone, (T,T,T) is excluded only if (T,F,F) or (F,T,T) is
   too; variable gadget: (c) on n1's side and (b) on u_i's side combine into a violation of (a)).
2. *Lonely edges.*  Let g be an edge in no copy of H.  Colouring g blue never creates a blue H
   nor a red F, so every good coloring of G − g extends to one of G, and the good colorings of
   G restricted to G − g are exactly those of G − g (likewise with red for an edge in no copy of
   F).  Hence if g is not designated (for clause/variable gadgets: not at a designated vertex,
   so designated red degrees do not change), G − g is a solution with fewer edges.  So in an
   edge-minimal solution every non-designated edge lies in a copy of F and in a copy of H; and
   the designated edges do too where the definition demands it: a red-determiner's e lies in a
   copy of H (else e could turn blue), a blue-determiner's e in a copy of F, sender edges in
   both (else flipping one of them breaks the relation).  Clause/variable gadgets: the lonely
   edges are covered by three vertices.
3. *Minimum degree* (geng ``-d``), from 2: for red-determiners and senders every edge lies in a
   copy of H, so every vertex has degree ≥ δ(H); for blue-determiners ≥ δ(F).

Free edges (in no copy of F or H) are lonely, so hardness gadgets keep free edges at the
designated vertices, where they change red degrees, and the scan models them exactly (the
colorings come from the core solver, in which free edges take both colours).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import shutil
import subprocess
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import chain, combinations, product

from ramseygadgets.colorings.copies import find_copies
from ramseygadgets.colorings.red_blue import GoodColorings
from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.core.gadgets import Candidate, Designated, GadgetType
from ramseygadgets.core.graphs import Graph
from ramseygadgets.core.patterns import Pattern
from ramseygadgets.infra.workers import init_worker
from ramseygadgets.problems.catalog import Problem
from ramseygadgets.verification.verifier import verify

__all__ = [
    "GENG_NAMES",
    "LISTG_NAMES",
    "NautyMissing",
    "nauty_tool",
    "nauty_available",
    "iter_graphs",
    "gadgets_in_graph",
    "LevelScan",
    "covered_edges",
    "may_be_edge_minimal",
    "min_degree_bound",
    "scan_level",
    "ExhaustiveMinimum",
    "exhaustive_minimums",
    "ScanParts",
]

GENG_NAMES = ("geng", "nauty-geng")
LISTG_NAMES = ("listg", "nauty-listg")


class NautyMissing(RamseyGadgetsError):
    """nauty's geng / listg are not installed."""


def nauty_tool(names: tuple[str, ...]) -> str:
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    raise NautyMissing(
        f"nauty's {names[0]} is not installed (Debian: apt-get install nauty; it installs "
        f"{' or '.join(names)})"
    )


def nauty_available() -> bool:
    try:
        nauty_tool(GENG_NAMES), nauty_tool(LISTG_NAMES)
    except NautyMissing:
        return False
    return True


def iter_graphs(
    n: int,
    min_edges: int,
    max_edges: int,
    *,
    connected: bool = True,
    min_degree: int = 0,
    res: int = 0,
    mod: int = 1,
) -> Iterator[Graph]:
    """Graphs on ``n`` vertices with ``min_edges..max_edges`` edges, one per isomorphism class.

    ``res/mod`` selects one of ``mod`` disjoint parts (geng's splitting).
    """
    flags = (["-c"] if connected else []) + ([f"-d{min_degree}"] if min_degree > 0 else [])
    geng = [nauty_tool(GENG_NAMES), "-q", *flags, str(n), f"{min_edges}:{max_edges}"]
    if mod > 1:
        geng.append(f"{res}/{mod}")
    listg = [nauty_tool(LISTG_NAMES), "-e", "-l0", "-q"]
    with (
        subprocess.Popen(geng, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as gen,
        subprocess.Popen(
            listg, stdin=gen.stdout, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        ) as lst,
    ):
        assert gen.stdout is not None and lst.stdout is not None
        gen.stdout.close()  # listg owns the pipe now
        lines = lst.stdout
        for header in lines:
            order, size = map(int, header.split())
            numbers = list(map(int, next(lines).split()))
            edges = tuple(zip(numbers[0::2], numbers[1::2]))
            assert len(edges) == size
            yield Graph(order, edges)


# -----------------------------------------------------------------------------------------------
# Gadgets inside one graph
# -----------------------------------------------------------------------------------------------
class _Colorings:
    """Good colorings of one graph: samples (for cheap refutations) and exact SAT queries.

    Each sample is kept as a red-edge bitmask and as the vertex bitmasks of *enforced* vertices
    (red degree 0) and, for F = K1,k, of *non-enforcers* (red degree ≤ k − 2).
    """

    def __init__(self, graph: Graph, F: Pattern, H: Pattern) -> None:
        self.graph = graph
        self.sat = GoodColorings(graph, F, H)
        self.k = F.star_k
        self.red_masks: list[int] = []
        self.edge_colors = [0] * graph.m  # bit k set: the edge is red in sample k
        self.enforced: list[int] = []
        self.non_enforcers: list[int] = []
        self._switches: dict[tuple[int, int | None, int | None], int] = {}

    def query(self, assumptions: list[int]) -> bool:
        """Is there a good coloring with these assumptions?  Its coloring joins the samples."""
        found = self.sat.solve(assumptions)
        if found is None:
            return False
        mask = 0
        degree = [0] * self.graph.n
        bit = 1 << len(self.red_masks)
        for i, ((u, v), red) in enumerate(zip(self.graph.edges, found.red)):
            if red:
                mask |= 1 << i
                self.edge_colors[i] |= bit
                degree[u] += 1
                degree[v] += 1
        self.red_masks.append(mask)
        self.enforced.append(sum(1 << v for v, d in enumerate(degree) if d == 0))
        if self.k is not None:
            self.non_enforcers.append(sum(1 << v for v, d in enumerate(degree) if d <= self.k - 2))
        return True

    def degree(self, v: int, at_most: int | None = None, at_least: int | None = None) -> int:
        key = (v, at_most, at_least)
        if key not in self._switches:
            self._switches[key] = self.sat.red_degree_switch(v, at_most=at_most, at_least=at_least)
        return self._switches[key]

    def blue_at(self, v: int) -> list[int]:
        return [-(i + 1) for i in self.graph.incident_edges[v]]

    def close(self) -> None:
        self.sat.close()


def _sender(col: _Colorings, unforced: list[int], positive: bool) -> tuple[int, int] | None:
    """Two edges that always have the same (opposite) colour; both take both colours.

    Edges are grouped by their colours across the samples; a candidate pair is tested by SAT, and
    any coloring found separates it (and usually many others) in the next round.
    """
    while True:
        full = (1 << len(col.red_masks)) - 1
        groups: dict[int, list[int]] = {}
        for i in unforced:
            groups.setdefault(col.edge_colors[i], []).append(i)
        pair = None
        for sig, members in groups.items():
            if positive and len(members) >= 2:
                pair = (members[0], members[1])
                break
            if not positive and sig < (full ^ sig) and (full ^ sig) in groups:
                pair = (members[0], groups[full ^ sig][0])
                break
        if pair is None:
            return None
        a, b = pair[0] + 1, pair[1] + 1
        tests = ([a, -b], [-a, b]) if positive else ([a, b], [-a, -b])
        if not any(col.query(t) for t in tests):
            return pair


_CLAUSE_PATTERNS = [p for p in product((True, False), repeat=3) if not all(p)]


def _clause_triple(col: _Colorings) -> tuple[int, int, int] | None:
    """Vertices never all enforced (red degree 0) that show every other enforcement pattern."""
    for triple in combinations(range(col.graph.n), 3):
        bits = [1 << v for v in triple]
        triple_mask = bits[0] | bits[1] | bits[2]
        if any(z & triple_mask == triple_mask for z in col.enforced):
            continue
        if col.query([lit for v in triple for lit in col.blue_at(v)]):
            continue
        ok = True
        for pattern in _CLAUSE_PATTERNS:
            want = sum(b for b, p in zip(bits, pattern) if p)
            if any(z & triple_mask == want for z in col.enforced):
                continue
            assumption: list[int] = []
            for v, p in zip(triple, pattern):
                assumption += col.blue_at(v) if p else [col.degree(v, at_least=1)]
            if not col.query(assumption):
                ok = False
                break
        if ok:
            return triple
    return None


def _variable_triple(col: _Colorings, k: int) -> tuple[int, int, int] | None:
    """(u1, u2, n1): n1 an enforcer whenever u1 or u2 is not; both optional patterns occur.

    A non-enforcer has red degree ≤ k − 2 (good colorings have red degrees ≤ k − 1).
    """
    n = col.graph.n
    ne = lambda v: col.degree(v, at_most=k - 2)  # noqa: E731
    for n1 in range(n):
        for u1, u2 in combinations([v for v in range(n) if v != n1], 2):
            masks = col.non_enforcers
            if any(z >> n1 & 1 and (z >> u1 & 1 or z >> u2 & 1) for z in masks):
                continue
            if col.query([ne(u1), ne(n1)]) or col.query([ne(u2), ne(n1)]):
                continue
            if not any(z >> u1 & 1 and z >> u2 & 1 for z in masks) and not col.query(
                [ne(u1), ne(u2)]
            ):
                continue
            if not any(z >> n1 & 1 for z in masks) and not col.query([ne(n1)]):
                continue
            return (u1, u2, n1)
    return None


def gadgets_in_graph(
    graph: Graph, F: Pattern, H: Pattern, wanted: Iterable[GadgetType]
) -> dict[GadgetType, Designated] | None:
    """For each wanted gadget type, designated items that make ``graph`` a solution (if any).

    ``None`` when the graph is not (F,H)-good.
    """
    wanted = set(wanted)
    col = _Colorings(graph, F, H)
    try:
        if not col.query([]):
            return None
        found: dict[GadgetType, Designated] = {}
        if wanted - {GadgetType.CLAUSE, GadgetType.VARIABLE}:
            forced = col.sat.forced_edges()
            if GadgetType.RED_DETERMINER in wanted and forced.red:
                found[GadgetType.RED_DETERMINER] = Designated((forced.red[0],))
            if GadgetType.BLUE_DETERMINER in wanted and forced.blue:
                found[GadgetType.BLUE_DETERMINER] = Designated((forced.blue[0],))
            fixed = set(forced.red) | set(forced.blue)
            unforced = [i for i, e in enumerate(graph.edges) if e not in fixed]
            for gadget, positive in (
                (GadgetType.POSITIVE_SENDER, True),
                (GadgetType.NEGATIVE_SENDER, False),
            ):
                if gadget in wanted:
                    pair = _sender(col, unforced, positive)
                    if pair is not None:
                        found[gadget] = Designated((graph.edges[pair[0]], graph.edges[pair[1]]))
        if GadgetType.CLAUSE in wanted:
            triple = _clause_triple(col)
            if triple is not None:
                found[GadgetType.CLAUSE] = Designated((), triple)
        if GadgetType.VARIABLE in wanted:
            k = F.star_k
            assert k is not None
            triple = _variable_triple(col, k)
            if triple is not None:
                found[GadgetType.VARIABLE] = Designated((), triple)
        return found
    finally:
        col.close()


# -----------------------------------------------------------------------------------------------
# Scanning levels (n, m)
# -----------------------------------------------------------------------------------------------
@dataclass
class LevelScan:
    """One (n, m) level, or one res/mod part of it: good graphs seen and first solutions found."""

    n: int
    m: int
    graphs: int = 0
    candidates: int = 0  # graphs that passed the cheap filters and were scanned with SAT
    found: dict[str, Candidate] = field(default_factory=dict)  # problem id -> solution


def covered_edges(pattern: Pattern, graph: Graph) -> int:
    """Bitmask of the edges that lie in some copy of ``pattern``."""
    mask = 0
    for i in set(chain.from_iterable(find_copies(pattern, graph))):
        mask |= 1 << i
    return mask


def _covered_by_three_vertices(graph: Graph, edges: int, budget: int = 3) -> bool:
    if edges == 0:
        return True
    if budget == 0:
        return False
    low = (edges & -edges).bit_length() - 1
    for v in graph.edges[low]:
        rest = edges
        for i in graph.incident_edges[v]:
            rest &= ~(1 << i)
        if _covered_by_three_vertices(graph, rest, budget - 1):
            return True
    return False


def _at_most_one(bits: int) -> bool:
    return bits & (bits - 1) == 0


def may_be_edge_minimal(gadget: GadgetType, graph: Graph, in_f: int | None, in_h: int) -> bool:
    """Necessary condition for an edge-minimal solution (restriction 3 of the module docstring).

    ``in_f`` / ``in_h``: edges in some copy of F / H.  With ``in_f=None`` only the part that
    depends on H is checked (a cheap first pass).
    """
    full = (1 << graph.m) - 1
    if gadget is GadgetType.RED_DETERMINER:
        return in_h == full and (in_f is None or _at_most_one(full & ~in_f))
    if gadget is GadgetType.BLUE_DETERMINER:
        return _at_most_one(full & ~in_h) and (
            in_f is None or (in_f == full and _at_most_one(full & ~(in_f & in_h)))
        )
    if gadget in (GadgetType.POSITIVE_SENDER, GadgetType.NEGATIVE_SENDER):
        return in_h == full and (in_f is None or in_f == full)
    both = in_h if in_f is None else in_f & in_h
    return _covered_by_three_vertices(graph, full & ~both)


def min_degree_bound(problem: Problem) -> int:
    """Least vertex degree of an edge-minimal solution on the smallest vertex count (restriction 4)."""
    delta = lambda p: min(p.graph.degree(v) for v in range(p.graph.n))  # noqa: E731
    if problem.gadget in (
        GadgetType.RED_DETERMINER,
        GadgetType.POSITIVE_SENDER,
        GadgetType.NEGATIVE_SENDER,
    ):
        return max(
            delta(problem.H), 1 if problem.gadget is GadgetType.RED_DETERMINER else delta(problem.F)
        )
    if problem.gadget is GadgetType.BLUE_DETERMINER:
        return delta(problem.F)
    return 1


def scan_level(problems: list[Problem], n: int, m: int, res: int = 0, mod: int = 1) -> LevelScan:
    """Scan the connected graphs on n vertices with m edges (part res/mod) for the problems."""
    out = LevelScan(n, m)
    groups: dict[tuple[str, str], list[tuple[str, GadgetType, int]]] = {}
    patterns: dict[tuple[str, str], tuple[Pattern, Pattern]] = {}
    for p in problems:
        groups.setdefault(p.pair, []).append((p.id, p.gadget, min_degree_bound(p)))
        patterns[p.pair] = (p.F, p.H)
    least = min(bound for group in groups.values() for _, _, bound in group)
    for graph in iter_graphs(n, m, m, min_degree=least, res=res, mod=mod):
        out.graphs += 1
        delta = min(map(len, graph.incident_edges))
        for pair, group in groups.items():
            open_ = [(pid, g) for pid, g, bound in group if pid not in out.found and delta >= bound]
            if not open_:
                continue
            F, H = patterns[pair]
            in_h = covered_edges(H, graph)
            open_ = [(pid, g) for pid, g in open_ if may_be_edge_minimal(g, graph, None, in_h)]
            if not open_:
                continue
            in_f = covered_edges(F, graph)
            open_ = [(pid, g) for pid, g in open_ if may_be_edge_minimal(g, graph, in_f, in_h)]
            if not open_:
                continue
            out.candidates += 1
            result = gadgets_in_graph(graph, F, H, [g for _, g in open_])
            if result is None:
                continue
            for pid, g in open_:
                if g in result:
                    out.found[pid] = Candidate(graph, result[g])
    return out


def _scan_part(args: tuple[list[Problem], int, int, int, int]) -> LevelScan:
    return scan_level(*args)


@dataclass
class ExhaustiveMinimum:
    """The exhaustive answer for one problem: first (n, m) with a solution, or none up to a limit."""

    problem: Problem
    candidate: Candidate | None = None
    searched_up_to: int = 0  # every n ≤ this has been decided
    graphs: int = 0

    @property
    def n(self) -> int | None:
        return self.candidate.graph.n if self.candidate else None

    @property
    def m(self) -> int | None:
        return self.candidate.graph.m if self.candidate else None


def exhaustive_minimums(
    problems: Iterable[Problem],
    max_vertices: int,
    *,
    jobs: int = 1,
    parts: int | None = None,
    max_edges: dict[str, int] | None = None,
    min_vertices: dict[str, int] | None = None,
    on_level: Callable[[LevelScan], None] | None = None,
) -> dict[str, ExhaustiveMinimum]:
    """Minimal (n, m) of each problem by exhaustive enumeration up to ``max_vertices`` vertices.

    ``max_edges`` (per problem id) stops a problem's scan at that edge count on its last vertex
    count (a bound to check a claimed minimum: the scan must find a solution with exactly that
    many edges and none with fewer).  ``min_vertices`` (per problem id) skips smaller vertex
    counts, for a problem whose smaller counts another scan has already decided.
    ``parts`` res/mod parts per level (default ``4·jobs``) spread over ``jobs`` processes.
    """
    problems = list(problems)
    state = {p.id: ExhaustiveMinimum(p) for p in problems}
    first_n = _first_vertex_counts(problems, state, min_vertices or {})
    parts = parts or (1 if jobs <= 1 else 4 * jobs)
    with _part_scanner(jobs) as scan_parts:
        for n in range(min(first_n.values(), default=max_vertices + 1), max_vertices + 1):
            open_ = [p for p in problems if state[p.id].candidate is None and first_n[p.id] <= n]
            if open_:
                edge_limits = (max_edges or {}) if n == max_vertices else {}
                scan = _LevelScanner(state, scan_parts, parts, edge_limits, on_level)
                scan.vertex_count(open_, n)
            elif all(
                state[p.id].candidate is not None or first_n[p.id] > max_vertices for p in problems
            ):
                break
    return state


def _first_vertex_counts(
    problems: list[Problem], state: dict[str, ExhaustiveMinimum], min_vertices: dict[str, int]
) -> dict[str, int]:
    """The first vertex count to scan per problem (counts below ``min_vertices`` count as done)."""
    first_n = {p.id: _first_vertex_count(p) for p in problems}
    for pid, n in min_vertices.items():
        if pid in first_n:
            first_n[pid] = max(first_n[pid], n)
            state[pid].searched_up_to = n - 1
    return first_n


ScanParts = Callable[[list[tuple[list[Problem], int, int, int, int]]], list[LevelScan]]


@contextmanager
def _part_scanner(jobs: int) -> Iterator[ScanParts]:
    """A function that scans res/mod parts: in this process, or in ``jobs`` worker processes."""
    if jobs <= 1:
        yield lambda parts: [_scan_part(a) for a in parts]
        return
    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
    pool = ctx.Pool(processes=jobs, initializer=init_worker, initargs=(os.getpid(),))
    try:
        yield lambda parts: pool.map(_scan_part, parts, chunksize=1)
    finally:
        pool.terminate()
        pool.join()


@dataclass
class _LevelScanner:
    """Scans one vertex count edge count by edge count and records what it finds in ``state``."""

    state: dict[str, ExhaustiveMinimum]
    scan_parts: ScanParts
    parts: int
    edge_limits: dict[str, int]
    on_level: Callable[[LevelScan], None] | None

    def vertex_count(self, open_: list[Problem], n: int) -> None:
        for p in open_:
            self.state[p.id].searched_up_to = n - 1
        for m in range(n - 1, n * (n - 1) // 2 + 1):
            active = [p for p in open_ if self._still_scanning(p, m)]
            if not active:
                break
            self.edge_count(active, n, m)
        for p in open_:
            if self.state[p.id].candidate is None:
                self.state[p.id].searched_up_to = n

    def _still_scanning(self, problem: Problem, m: int) -> bool:
        limit = self.edge_limits.get(problem.id)
        return self.state[problem.id].candidate is None and (limit is None or m <= limit)

    def edge_count(self, active: list[Problem], n: int, m: int) -> None:
        """Scan level (n, m) for the active problems; verify and record each first solution."""
        level = _merge(
            self.scan_parts([(active, n, m, r, self.parts) for r in range(self.parts)]), n, m
        )
        if self.on_level is not None:
            self.on_level(level)
        for p in active:
            self.state[p.id].graphs += level.graphs
            if p.id in level.found:
                candidate = level.found[p.id]
                verdict = verify(p, candidate)
                if not verdict.correct:
                    raise AssertionError(
                        f"exhaustive scan: {p.id} candidate rejected: {verdict.reason}"
                    )
                self.state[p.id].candidate = candidate


def _merge(scans: list[LevelScan], n: int, m: int) -> LevelScan:
    level = LevelScan(n, m)
    for s in scans:
        level.graphs += s.graphs
        level.candidates += s.candidates
        for pid, cand in s.found.items():
            level.found.setdefault(pid, cand)
    return level


def _first_vertex_count(problem: Problem) -> int:
    """Fewest vertices the designated items fit on (2 for one edge, 3 otherwise)."""
    return 2 if problem.gadget in (GadgetType.RED_DETERMINER, GadgetType.BLUE_DETERMINER) else 3
