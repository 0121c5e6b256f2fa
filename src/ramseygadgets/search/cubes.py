"""Cube-and-conquer for one vertex count: split a level's search into cubes, search each alone.

**Cubes.**  For a vertex count n and a layout (:mod:`.spec`), let t_1, t_2, … be the edges of
K_n that are not designated, in the *column order* (0,1), (0,2), (1,2), (0,3), … of
:mod:`.minimality` — the order in which the lazy engine's lex-max canonicity check and its
static lex-leader constraints compare adjacency matrices, so the first columns are the most
significant entries of the canonical (lex-maximal) matrix.  A cube of depth d is an
assignment b ∈ {0, 1}^d to t_1 … t_d ("t_i present iff b_i = 1"), written as the string b.

**Covering.**  The 2^d assignments of depth d partition the graphs on n vertices with this
layout, so "no solution in any of the 2^d cubes" is "no solution".  Cubes are generated
breadth first, one edge deeper at a time; an assignment that unit propagation refutes on the
exists model's static clauses (designated edges present, lex-leader constraints) contains no
graph those clauses allow — in particular no lex-maximal graph, and a solution exists iff a
lex-maximal one does (:mod:`.minimality`) — so it is dropped *with that proof* and its
descendants are never generated.  The cubes kept plus the refuted prefixes cover every
assignment: :func:`covered` re-derives exactly that from a set of decided cubes (it is how a
checkpoint log is checked before it is trusted, :mod:`.parallel`).

**Balance.**  Fixing the most significant entries of the canonical matrix splits by the
neighbourhoods of the first vertices, the main source of difference between subtrees; depth
is raised until there are at least ``target`` cubes, and refuted prefixes make the split
adaptive (the dense, canonical prefixes survive).  Measured cube times: ``bench/frontier.py
--cubes`` and docs/search.md.

**Per-cube search** (:func:`run_cube`): the same CEGAR engine (:class:`~.cegar.LayoutFinder`,
lazy or eager) with the cube as unit clauses.  Its UNSAT proves "no solution in the cube"; a
candidate without counterexample is a solution of the whole problem (the unit clauses only
restrict the graph).  Lemmas learned by other cubes of the same level and layout are added
first: every counterexample and arrowing lemma is satisfied by *every* solution on n vertices
with that layout (proofs in :mod:`.cegar`), not only by those in the cube that found it, so
sharing them keeps every cube's answer exact.  Local worker processes also exchange them
while their cubes run (:class:`LemmaExchange`), so a cube need not wait for another to end.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.catalog import Problem
from ramseygadgets.search.cegar import (
    DEFAULT_ENGINE,
    DEGREE_BOUND,
    LayoutFinder,
    lemma_key,
    resolve_engine,
)
from ramseygadgets.search.oracle import DEFAULT_SEARCH_SOLVER, SearchTimeout
from ramseygadgets.search.spec import Layout, layouts
from ramseygadgets.search.symmetry import column_order

__all__ = [
    "MAX_SHARED_LEMMAS",
    "MAX_INHERITED_LEMMAS",
    "MAX_CACHED_COPIES",
    "split_edges",
    "Cube",
    "Refuter",
    "CubePlan",
    "generate_cubes",
    "covered",
    "decided_by",
    "OpenParts",
    "open_parts",
    "cube_engine",
    "CubeTask",
    "clear_finders",
    "LemmaExchange",
    "take_lemmas",
    "run_cube",
]

#: Lemmas handed to one cube at most (the most recent ones): adding a lemma costs a clause.
MAX_SHARED_LEMMAS = 500

#: Lemmas a half of a cube split at run time inherits from the cube and its split ancestors
#: at most (the newest): they were learned in that very part of the search, so the half starts
#: where its parent stopped instead of with the level's newest :data:`MAX_KEPT_LEMMAS`.  Three dense
#: level-14 cubes of the (K3, K4)-negative-sender split every 30 s cost 3.64× their whole search
#: without it and 1.76× with it (``bench/dense_cubes.py``, docs/search.md); a fresh solver loaded
#: with many more lemmas tries fewer candidates a second (95,783: 6.5× fewer), hence the cap.
MAX_INHERITED_LEMMAS = 100_000

#: Counterexample lemmas whose copies (:meth:`.exists.CandidateModel.lemma_copies`) a process
#: keeps cached at most beyond the level's kept ones (about 1 KB each).
MAX_CACHED_COPIES = 100_000


def split_edges(n: int, layout: Layout) -> list[int]:
    """The K_n edge ids t_1, t_2, … a cube fixes, in column order, designated edges left out."""
    kn = Graph.complete(n)
    designated = {kn.edge_id(*e) for e in layout.designated.edges}
    ids = (kn.edge_id(u, v) for u, v in column_order(n))
    return [t for t in ids if t not in designated]


@dataclass(frozen=True)
class Cube:
    """The graphs on ``n`` vertices of layout ``layout`` (an index into :func:`.spec.layouts`)
    whose first ``len(bits)`` split edges are present exactly where ``bits`` has a 1."""

    n: int
    layout: int
    layout_name: str
    bits: str

    @property
    def key(self) -> str:
        return f"{self.n}|{self.layout_name}|{self.bits}"


class Refuter:
    """Unit propagation on the static clauses of one (n, layout): which prefixes are refuted."""

    def __init__(
        self, problem: Problem, n: int, layout: Layout, engine: str = DEFAULT_ENGINE
    ) -> None:
        # without the degree bound: plans and coverage checks stay those of logs written before
        # it (a prefix refuted without it is refuted with it, so both read the same)
        self.finder = LayoutFinder(problem, n, layout, engine=engine, degree_bound=False)
        self.edges = split_edges(n, layout)

    def refuted(self, bits: str) -> bool:
        """True: no graph the static clauses allow has this prefix (a proof by propagation)."""
        x = self.finder.model.x
        lits = [x[t] if b == "1" else -x[t] for t, b in zip(self.edges, bits)]
        ok, _ = self.finder.model.solver.propagate(assumptions=lits)
        return not ok

    def close(self) -> None:
        self.finder.close()


@dataclass
class CubePlan:
    """The cubes of one level: the deepest cube, the cubes kept (heaviest first: most fixed
    present edges), how many prefixes propagation refuted."""

    n: int
    depth: int
    cubes: list[Cube] = field(default_factory=list)
    refuted: int = 0


def generate_cubes(problem: Problem, n: int, target: int, engine: str = DEFAULT_ENGINE) -> CubePlan:
    """At least ``target`` cubes (fewer when every edge is fixed) covering level ``n``.

    Starting from one empty cube per layout, the cube with the most fixed-present edges (ties:
    the shortest) is split on its next edge until there are ``target`` cubes: dense prefixes of
    the canonical matrix hold most candidates (measured, docs/search.md), so they are split
    deepest.  ``target`` ≤ 1: one cube per layout, nothing fixed.
    """
    lays = layouts(problem.gadget, n)
    refuters = [Refuter(problem, n, lay, engine) for lay in lays]
    try:
        cubes = [(i, "") for i in range(len(lays))]
        refuted = 0
        while len(cubes) < target:
            splittable = [c for c in cubes if len(c[1]) < len(refuters[c[0]].edges)]
            if not splittable:
                break
            pick = max(splittable, key=lambda c: (c[1].count("1"), -len(c[1])))
            cubes.remove(pick)
            i, bits = pick
            children = [(i, bits + b) for b in "10"]
            kept = [c for c in children if not refuters[i].refuted(c[1])]
            refuted += len(children) - len(kept)
            cubes += kept
        depth = max((len(bits) for _, bits in cubes), default=0)
        plan = CubePlan(n, depth, refuted=refuted)
        order = sorted(cubes, key=lambda c: (-c[1].count("1"), c))  # the heaviest first
        plan.cubes = [Cube(n, i, lays[i].name, bits) for i, bits in order]
        return plan
    finally:
        for r in refuters:
            r.close()


def covered(refuter: Refuter, decided: set[str], prefix: str = "") -> bool:
    """Whether the cubes ``decided`` (bit strings) and the refuted prefixes cover every graph
    with ``prefix``: ``prefix`` is decided, refuted, or both of its extensions are covered."""
    if prefix in decided or refuter.refuted(prefix):
        return True
    deepest = max(map(len, decided), default=0)
    if len(prefix) >= deepest:
        return False
    return covered(refuter, decided, prefix + "1") and covered(refuter, decided, prefix + "0")


def decided_by(bits: str, decided: set[str]) -> bool:
    """Whether a decided cube contains the cube ``bits`` (one of its prefixes, itself included)."""
    return any(bits[:k] in decided for k in range(len(bits) + 1))


@dataclass
class OpenParts:
    """What a log leaves open of one cube: the ``parts`` to search (bit strings), the decided
    cubes that contain a part of it (``from_log``) and the prefixes propagation refuted."""

    parts: list[str] = field(default_factory=list)
    from_log: int = 0
    refuted: int = 0


def open_parts(
    refuter: Refuter, bits: str, decided: set[str], splits: set[str], into: OpenParts | None = None
) -> OpenParts:
    """The open parts of the cube ``bits``, given the decided cubes and the cubes split at run
    time (bit strings): none when a decided cube contains it; else the cube itself, or — when
    decided cubes lie inside it or it was split — the open parts of its two halves, less the
    halves propagation refutes (together they cover it).  This is where a rerun resumes."""
    out = OpenParts() if into is None else into
    if decided_by(bits, decided):
        out.from_log += 1
        return out
    inside = any(len(d) > len(bits) and d.startswith(bits) for d in decided)
    was_split = bits in splits and len(bits) < len(refuter.edges)
    if not inside and not was_split:
        out.parts.append(bits)
        return out
    for b in "10":
        if refuter.refuted(bits + b):
            out.refuted += 1
        else:
            open_parts(refuter, bits + b, decided, splits, out)
    return out


def cube_engine(problem: Problem, engine: str) -> str:
    """The engine the cubes of ``problem`` run with (red-degree conditions: eager)."""
    lazy = resolve_engine(problem, engine) == "lazy" and not problem.gadget.is_hardness
    return "lazy" if lazy else "eager"


@dataclass(kw_only=True)
class CubeTask:
    """One cube to search, with the lemmas other cubes of its level and layout learned."""

    problem: Problem
    cube: Cube
    engine: str = DEFAULT_ENGINE
    solver: str = DEFAULT_SEARCH_SOLVER
    seed: int | None = None
    timeout: float | None = None
    lemmas: Sequence[tuple[str, object]] = ()
    share: bool = True
    #: stop after this many seconds with outcome ``split`` (the scheduler splits the cube)
    split_after: float | None = None
    #: the lazy engine's degree bound (:mod:`.degrees`); off only to measure it
    degree_bound: bool = DEGREE_BOUND
    #: only graphs with at most this many edges (``SearchOptions.max_edges``)
    max_edges: int | None = None
    #: the lemmas the cube's split ancestors learned, or it or an ancestor learned before a stop
    #: (:mod:`.stopped`; at most :data:`MAX_INHERITED_LEMMAS`): added in
    #: full to this cube's finder, not kept by the level past it (their copies stay cached up to
    #: :data:`MAX_CACHED_COPIES`)
    inherited: Sequence[tuple[str, object]] = ()


#: Whether a cube's inherited lemmas wait outside its solver until a candidate breaks one
#: (:mod:`.deferred`) instead of all being clauses from the start.
DEFER_INHERITED = True

#: Lemmas a process keeps per level and layout (the newest), and hands each new cube's finder.
#: Every lemma holds for the whole level, but the exists solver slows down as they pile up: at
#: 14 vertices a worker's finder kept for 40 minutes tried 6 candidates a second where a fresh
#: one tries 400 (``bench/finder_reuse.py``).  ``None``: every lemma is kept.
MAX_KEPT_LEMMAS: int | None = 5_000


class LevelState:
    """What one process keeps of a level and layout from cube to cube: a finder whose static
    clauses, colouring oracle (its clauses do not depend on the cube, so what its solver learned
    about K_n carries over) and canonicity check serve every cube, and the lemmas learned or
    received, oldest first.  Each cube starts from the static clauses (:meth:`~.cegar.
    LayoutFinder.reset`) with the cube as unit clauses and these lemmas."""

    def __init__(self, finder: LayoutFinder) -> None:
        self.finder = finder
        self.lemmas: dict[tuple[str, object], tuple[str, object]] = {}
        #: whether a cube is running on :attr:`finder` (lemmas that come in reach it)
        self.running = False

    def keep(self, lemmas: Sequence[tuple[str, object]]) -> None:
        """Add ``lemmas`` (and to the running cube's finder), the oldest dropped past the cap."""
        for kind, value in lemmas:
            self.lemmas.setdefault(lemma_key(kind, value), (kind, value))
        while MAX_KEPT_LEMMAS is not None and len(self.lemmas) > MAX_KEPT_LEMMAS:
            kind, value = self.lemmas.pop(next(iter(self.lemmas)))
            if kind == "c" and isinstance(value, int):
                self.finder.mono.pop(value, None)
        if self.running:
            self.finder.add_lemmas(lemmas)

    def start(self, task: CubeTask, layout: Layout) -> LayoutFinder:
        """The finder, reset for the task's cube: the cube and the edge bound as unit clauses
        (CaDiCaL simplifies with them, where assumptions are decided again on every call: 1.5×
        less CPU on the sparse cubes of ``bench/sparse_cubes.py``), then the kept lemmas (the
        task's among them) as clauses and its inherited ones deferred (:mod:`.deferred`,
        :data:`DEFER_INHERITED`)."""
        finder = self.finder
        finder.reset()
        edges = split_edges(task.cube.n, layout)
        finder.restrict(list(zip(edges, (b == "1" for b in task.cube.bits))), task.max_edges)
        finder.add_lemmas(list(self.lemmas.values()))
        if DEFER_INHERITED:
            finder.defer_lemmas(task.inherited)
        else:
            finder.add_lemmas(task.inherited)
        finder.share_lemmas()
        self.running = True
        return finder

    def trim_copies(self) -> None:
        """Past :data:`MAX_CACHED_COPIES` cached lemma copies, drop those of lemmas the level
        does not keep (inherited ones: the next half of the same cube would compute them again,
        which is what the cache saves — a third of a split piece's time without it)."""
        mono = self.finder.mono
        if len(mono) > MAX_CACHED_COPIES:
            for value in [v for v in mono if ("c", v) not in self.lemmas]:
                del mono[value]

    def close(self) -> None:
        self.finder.close()


#: This process's kept levels (one level at a time), by (problem, n, layout, engine, solver,
#: seed, degree bound).
_LEVELS: dict[tuple[Any, ...], LevelState] = {}


def _level(task: CubeTask, layout: Layout) -> LevelState:
    """The kept state of the task's level and layout (a new one for a new level, the older
    levels closed)."""
    cube, problem = task.cube, task.problem
    key = (
        *(problem.id, problem.title, cube.n, cube.layout),
        *(task.engine, task.solver, task.seed, task.degree_bound),
    )
    state = _LEVELS.get(key)
    if state is None:
        for old in [k for k in _LEVELS if k[:3] != key[:3]]:
            _LEVELS.pop(old).close()
        finder = LayoutFinder(
            *(problem, cube.n, layout),
            seed=task.seed,
            solver=task.solver,
            engine=task.engine,
            degree_bound=task.degree_bound,
        )
        state = _LEVELS[key] = LevelState(finder)
    return state


def _level_layout(level_key: tuple[Any, ...]) -> tuple[Any, ...]:
    """(problem id, n, layout) of a :data:`_LEVELS` key: what a lemma is valid for."""
    return level_key[0], level_key[2], level_key[3]


#: Seconds between two exchanges of a running cube's lemmas.
EXCHANGE_INTERVAL = 0.05
#: Lemmas per exchange message at most (a message stays well under a pipe's buffer).
EXCHANGE_CHUNK = 64


class LemmaExchange:
    """A running cube's lemmas, swapped with the other workers while it runs.

    Every :data:`EXCHANGE_INTERVAL` seconds (checked between candidates) the lemmas the cube
    learned since the last exchange go to ``send`` as ``("lemmas", (problem id, n, layout),
    lemmas)`` messages, and the messages ``receive`` returns are added to the finders they
    belong to.  Sound for the reason sharing at cube ends is (module docstring); a message that
    is lost only costs speed.
    """

    def __init__(
        self,
        send: Callable[[tuple[str, tuple[Any, ...], list[tuple[str, object]]]], None],
        receive: Callable[[], list[Any]],
    ) -> None:
        self.send, self.receive = send, receive
        self.level_layout: tuple[Any, ...] = ()
        self.sent = 0
        self.due = 0.0

    def start(self, task: CubeTask) -> None:
        """A new cube: its finder's :attr:`~.cegar.LayoutFinder.learned` starts empty."""
        self.level_layout = (task.problem.id, task.cube.n, task.cube.layout)
        self.sent = 0

    def __call__(self, finder: LayoutFinder) -> None:
        now = time.monotonic()
        if now < self.due:
            return
        self.due = now + EXCHANGE_INTERVAL
        learned = finder.learned or []
        for i in range(self.sent, len(learned), EXCHANGE_CHUNK):
            self.send(("lemmas", self.level_layout, learned[i : i + EXCHANGE_CHUNK]))
        self.sent = len(learned)
        for message in self.receive():
            take_lemmas(message)


def take_lemmas(message: tuple[str, tuple[Any, ...], list[tuple[str, object]]]) -> None:
    """Keep the lemmas of a :class:`LemmaExchange` message with this process's state of their
    (problem id, n, layout), if it has one (and add them to its running cube's finder)."""
    _, level_layout, lemmas = message
    for key, state in _LEVELS.items():
        if _level_layout(key) == level_layout:
            state.keep(lemmas)


def clear_finders() -> None:
    """Close this process's kept levels (after an interrupted search: their oracles may have
    been stopped mid-call)."""
    while _LEVELS:
        _LEVELS.popitem()[1].close()


def run_cube(task: CubeTask, exchange: LemmaExchange | None = None) -> dict[str, Any]:
    """Search one cube (module docstring); a JSON-ready record plus ``learned`` (the lemmas
    this cube learned, for later cubes; not logged) and ``edges`` of a solution.

    A process keeps its state of the level and layout from cube to cube (:class:`LevelState`):
    every lemma a cube learns — counterexample and arrowing — holds for the whole level, so the
    next cube's finder starts with them, and the coloring oracle keeps what it learned about
    K_n.  ``exchange``: swaps lemmas with the other workers while the cube runs.
    """
    wall, cpu = time.monotonic(), time.process_time()
    cube = task.cube
    layout = layouts(task.problem.gadget, cube.n)[cube.layout]
    state = _level(task, layout)
    try:
        state.keep(task.lemmas if task.share else ())
        finder = state.start(task, layout)
    except BaseException:
        clear_finders()
        raise
    # the time limits count from here: building the finder is not searching the cube
    start = time.monotonic()
    deadline = start + task.timeout if task.timeout is not None else None
    split_at = start + task.split_after if task.split_after is not None else None
    if split_at is not None and (deadline is None or split_at < deadline):
        deadline = split_at
    else:
        split_at = None
    if exchange is not None and task.share:
        exchange.start(task)
    else:
        exchange = None
    graph = None
    try:
        graph = finder.find(deadline=deadline, between=exchange)
        outcome = "found" if graph is not None else "none"
    except SearchTimeout:
        outcome = "split" if split_at is not None else "timeout"
    except BaseException:
        clear_finders()
        raise
    state.running = False
    assert finder.learned is not None
    state.keep(finder.learned)
    state.trim_copies()
    stats = finder.stats
    return {
        "kind": "cube",
        "key": cube.key,
        "n": cube.n,
        "layout": cube.layout_name,
        "bits": cube.bits,
        "outcome": outcome,
        "engine": "lazy" if finder.lazy else "eager",
        "wall_seconds": round(time.monotonic() - wall, 4),
        "cpu_seconds": round(time.process_time() - cpu, 4),
        "candidates": stats.candidates,
        "lemmas": stats.lemmas,
        "arrowing_lemmas": stats.arrowing,
        "pruned_as_not_lex_max": stats.pruned,
        "dropped_by_inherited": stats.deferred,
        "shared_in": len(task.lemmas),
        "inherited_in": len(task.inherited),
        "edges": [list(e) for e in graph.edges] if graph is not None else None,
        **({"max_edges": task.max_edges} if task.max_edges is not None else {}),
        "learned": list(finder.learned) if task.share else [],
    }
