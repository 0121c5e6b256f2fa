"""Cube-and-conquer scheduler: one problem's levels, each split into cubes run by many workers.

For n = ``min_vertices`` … ``max_vertices`` the level n is split into cubes
(:func:`.cubes.generate_cubes`); the cubes run on a runner (:mod:`.runners`: this process,
local processes, Ray), at most ``slots`` at a time, in generation order; a cube that runs past
``split_after`` gives way to its halves, which run next once every planned cube has had its
first turn.  On a rerun the planned cubes the log does not touch run first too, before the open
parts of those it records as split or partly decided, so a sitting that digs deep into one cube
never keeps the others from their turn.  The level is

* **found** at the first cube that returns a solution — re-checked by
  :func:`ramseygadgets.verification.verifier.verify` here, before anything else; the cubes still running are
  cancelled.  With ``minimize_edges`` the edge count is then lowered by cubes too: the level
  runs again with at most m − 1 edges (m: the best solution's) until such a round is none,
  which proves edge minimality (see *Edge caps*);
* **none** when every cube is UNSAT: the cubes and the prefixes refuted by propagation cover
  the level (:mod:`.cubes`), so this is the same proof as the single-process UNSAT;
* **timeout** otherwise.

**Lemma sharing.**  A finished cube returns its lemmas; cubes submitted later on the same level
and layout start with the most recent :data:`.cubes.MAX_SHARED_LEMMAS` of them (sound: every
lemma holds for every solution of the level, :mod:`.cubes`).  Local workers also swap them while
their cubes run (:class:`.cubes.LemmaExchange`, relayed by the local task pool, :class:`ramseygadgets.infra.executors.ProcessPool`).
The halves of a cube split at run time inherit every lemma it and its split ancestors learned
(up to :data:`.cubes.MAX_INHERITED_LEMMAS`, ``CubeTask.inherited``), on whichever worker they run.

**Checkpoints** (``out``): every finished cube is appended to ``OUT/cubes.jsonl``
(:mod:`.cubelog`) by this process (the driver) with the problem, the engine that ran, the
outcome and where it ran (``node``, ``host``, ``pid``, ``ip`` on Ray:
:func:`.runners.placement`; optional, older logs have none).  Only finished cubes are logged:
a cube in flight when its node or the driver is lost is not, so a rerun searches it again — but
when the run stops (Ctrl-C, SIGTERM, its time limit) the lemmas each cube in flight inherited
and streamed so far go to ``OUT/stopped-cubes.jsonl`` (:mod:`.stopped`), and the rerun starts
that cube, or its open parts, with them (each derived again first).  With local workers the
file is also rewritten every :data:`SNAPSHOT_SECONDS` while cubes are in flight, so a driver
killed outright (SIGKILL, a machine lost) loses at most that much of what they learned.
While a level runs,
``OUT/in-flight.json`` (:mod:`.inflight`) names the cubes in flight, since when and the lemmas
each has sent so far (recounted at each snapshot), for ``solve --status``; it goes when the level
run ends.
A rerun with the same
``out`` skips every cube contained in a decided one of the same engine (the cubes of one level
must all come from one engine: both engines' symmetry breaking keeps one graph per orbit, but
not the same one), goes straight to the halves of a cube the log records as split (instead of
searching it again until it splits) and resumes a found level from its logged solution
(verified again).  A log read back is held to the rules of :mod:`.cubeproof`: a cube record of
this problem that names another problem, or a level other than its key's, is refused naming
``file:line``; its none-cubes are taken on trust (they are not searched again), and the level
record and the proof line say how many came from the log.  A worker that dies mid-cube costs
that cube only; it is re-run up to ``retries`` times.

**Edge caps** (``max_edges``): every cube searches only graphs with at most that many edges
(the finder's edge bound, a unit clause of the cube) and its record says so (``max_edges``).
A capped level's "none" reads "no solution with at most ``max_edges`` edges", so with a solution of one
edge more on that level it proves the solution edge-minimal — the cube form of the edge
minimisation, for levels one process cannot finish.  A rerun takes from the log only what holds
under its own cap: a none-cube logged with cap c for caps ≤ c (one logged without a cap for
all), a logged solution that has few enough edges; a capped none-cube never proves a level
none without a cap (:func:`.cubeproof.none_cubes` passes it over).

**Lower levels from a record** (``assume_none_below``): "none on N − 1" proves "none on fewer
than N" (a solution plus an isolated vertex is a solution), so a found level N is minimal when
level N − 1 is decided.  :func:`.cubeproof.check_none_below` checks the log's records (problem, level),
re-derives, with the refuter of the engine that decided the cubes, that the logged UNSAT cubes
of level N − 1 cover it (:func:`.cubes.covered`), and re-runs the share ``recheck`` of them
(``all``, or a random sample drawn with ``seed``); the proof line says what the level rests on.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from contextlib import suppress
from typing import Any

from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.problems.catalog import Problem
from ramseygadgets.search.cubelog import CubeLog
from ramseygadgets.search.cubeproof import (
    check_records,
    logged_candidate,
    none_below,
    problem_tag,
)
from ramseygadgets.search.cubes import (
    MAX_INHERITED_LEMMAS,
    MAX_SHARED_LEMMAS,
    Cube,
    CubePlan,
    CubeTask,
    OpenParts,
    Refuter,
    covered,
    cube_engine,
    generate_cubes,
    open_parts,
)
from ramseygadgets.search.cubestatus import LoggedLevel, logged_outcomes
from ramseygadgets.search.inflight import FlyingCube, clear_in_flight, write_in_flight
from ramseygadgets.search.options import SearchError, SearchOptions
from ramseygadgets.search.runners import Runner, make_runner
from ramseygadgets.search.solve import (
    LevelRecord,
    SearchResult,
    checked,
    first_level,
    resolve_problem,
    smallest_vertex_count,
)
from ramseygadgets.search.spec import layouts
from ramseygadgets.search.stopped import StoppedCube, StoppedCubes

__all__ = [
    "CUBES_PER_SLOT",
    "RETRIES",
    "SNAPSHOT_SECONDS",
    "problem_tag",
    "CubeScheduler",
    "solve_cubes",
]

#: Cubes per worker slot when no target is given (enough for the list scheduling to balance).
CUBES_PER_SLOT = 8
#: Times a cube whose worker died is run again before the search gives up.
RETRIES = 2
#: Seconds between two snapshots of what the cubes in flight learned (``OUT/stopped-cubes.jsonl``,
#: as at a stop): the most of their learning a driver killed outright loses.
SNAPSHOT_SECONDS = 600.0


class _LevelRun:
    """One level's cubes: submission, lemma pools, the log, the outcome."""

    def __init__(self, sched: CubeScheduler, n: int, record: LevelRecord) -> None:
        self.s, self.n, self.record = sched, n, record
        #: only graphs with at most this many edges (the run's cap, or an edge-minimisation
        #: round's)
        self.max_edges = record.max_edges
        self.plan = sched.plan(n)
        record.refuted = self.plan.refuted
        self.pools: dict[int, list[tuple[str, object]]] = {}
        self.attempts: dict[str, int] = {}
        self.in_flight: dict[str, Cube] = {}
        #: per cube in flight, when it was submitted (wall clock, for ``--status``)
        self.since: dict[str, float] = {}
        self.refuters: dict[int, Refuter] = {}
        self.todo: list[Cube] = []
        self.no_split: set[str] = set()
        #: per layout name, Σ 2^−depth over the cubes decided none (log included): the share of
        #: the layout's prefix assignments decided, a lower bound (refuted prefixes not counted)
        self.shares = {lay.name: 0.0 for lay in layouts(sched.problem.gadget, n)}
        #: per layout name, the bit strings of the cubes decided none (log included)
        self.decided: dict[str, set[str]] = {}
        #: per layout name, the bit strings of the cubes split at run time (log included)
        self.splits: dict[str, set[str]] = {}
        #: the keys of the planned (static) cubes decided, whole or by their split parts
        self.planned_decided: set[str] = set()
        #: the keys of the planned cubes that had no turn before this run (log included)
        self.untouched: set[str] = set()
        #: per cube key, the lemmas its split ancestors learned (``CubeTask.inherited``), or
        #: it (or an ancestor) learned before a stop (:mod:`.stopped`)
        self.inherited: dict[str, list[tuple[str, object]]] = {}
        #: per cube key, a cube this run stopped (out of time, or in flight at the stop), with the
        #: lemmas it knew then
        self.stopped_now: dict[str, tuple[Cube, list[tuple[str, object]]]] = {}
        #: per cube key, the cube whose split made it (this run's splits)
        self.split_parent: dict[str, Cube] = {}
        self.layout_of = {lay.name: lay for lay in layouts(sched.problem.gadget, n)}
        self.layout_index = {name: i for i, name in enumerate(self.layout_of)}
        #: when the cubes in flight next write what they learned (:meth:`_snapshot_if_due`)
        self.next_snapshot = time.monotonic() + SNAPSHOT_SECONDS

    def run(self) -> tuple[str, Candidate | None]:
        logged = self.s.logged(self.n, self.max_edges)
        if logged.found is not None:
            return "found", self.s.candidate_from(logged.found)
        for name, decided in logged.none.items():
            self.shares[name] += sum(2.0 ** -len(bits) for bits in decided)
            self.decided[name] = set(decided)
        for name, split in logged.split.items():
            self.splits[name] = set(split)
        untouched: list[Cube] = []
        resumed: list[Cube] = []
        for c in self.plan.cubes:
            name = c.layout_name
            parts = self._expand(c, logged.none.get(name, set()), logged.split.get(name, set()))
            if not parts:
                self.planned_decided.add(c.key)
            (untouched if parts == [c] else resumed).extend(parts)
        self.todo += untouched + resumed  # every planned cube's first turn before resumed parts
        self.untouched = {c.key for c in untouched}
        if self.s.stopped is not None and self.s.share:
            resumed_lemmas = self.s.stopped.for_cubes(self.n, self.todo, self.layout_of)
            self.inherited.update(resumed_lemmas)
            self.record.cubes_from_stop = len(resumed_lemmas)
        try:
            outcome = self._run_cubes()
        finally:
            self._keep_stopped()
            if self.s.log is not None:
                with suppress(OSError):  # a view only, as it is written
                    clear_in_flight(self.s.log.path.parent)
        if self.in_flight:
            self.s.runner.cancel_all()
            self.in_flight.clear()
        return outcome

    def _run_cubes(self) -> tuple[str, Candidate | None]:
        """Run the cubes of :attr:`todo` (and the halves of those that split) to the level's
        outcome; the cubes in flight then are left in :attr:`in_flight`."""
        todo, runner = self.todo, self.s.runner
        while todo or self.in_flight:
            while todo and len(self.in_flight) < runner.slots:
                left = self.s.time_left()
                if left is not None and left <= 0:
                    return "timeout", None
                cube = todo.pop(0)
                self.in_flight[cube.key] = cube
                self.since[cube.key] = time.time()
                runner.submit(cube.key, self._task(cube, left))
            self._show_in_flight()
            for key, result in runner.wait(max(0.0, self.next_snapshot - time.monotonic())):
                cube = self.in_flight.pop(key)
                self.since.pop(key, None)
                if result is None:
                    self._lost(cube, todo)
                    continue
                outcome = self._finished(cube, result)
                if outcome is not None:
                    return outcome
            self._snapshot_if_due()
        return "none", None

    def _show_in_flight(self) -> None:
        """Rewrite the checkpoint directory's in-flight file (:mod:`.inflight`), with the lemmas
        each cube has sent so far: a view for ``--status``, so a disk that refuses it stops
        nothing."""
        if self.s.log is None:
            return
        learned = self.s.runner.learned
        cubes = [
            FlyingCube(self.n, cube.layout_name, cube.bits, self.since[key], learned.get(key))
            for key, cube in self.in_flight.items()
        ]
        with suppress(OSError):
            write_in_flight(self.s.log.path.parent, self.s.problem.id, cubes)

    def _keep_stopped(self) -> None:
        """Write what the cubes in flight (and one that ran out of time) learned to the
        stopped cubes' file (:mod:`.stopped`), for the rerun, and drop the entries that decided
        cubes now cover; counted in the level record."""
        if self.s.stopped is None or not self.s.share:
            return
        kept = self._stopped_entries()
        self.s.stopped.write(kept, self._open_parts)
        self.record.stopped_cubes = len(kept)
        self.record.stopped_lemmas = sum(len(s.lemmas) for s in kept)

    def _snapshot_if_due(self) -> None:
        """Every :data:`SNAPSHOT_SECONDS` with cubes in flight, the stopped cubes' file as a stop
        now would write it: a driver killed outright keeps what they learned until then.  (The
        loop then shows the in-flight file again, with the lemma counts this just took in.)"""
        if time.monotonic() < self.next_snapshot:
            return
        self.next_snapshot = time.monotonic() + SNAPSHOT_SECONDS
        if self.in_flight and self.s.stopped is not None and self.s.share:
            with suppress(OSError):  # a safety copy: the stop's own write reports a disk's refusal
                self.s.stopped.write(self._stopped_entries(), self._open_parts)

    def _stopped_entries(self) -> list[StoppedCube]:
        """Per cube in flight, or stopped by this run, what it inherited and learned, and per
        cube this run split with a half still waiting, what the halves inherit (each the newest
        :data:`.cubes.MAX_INHERITED_LEMMAS`)."""
        self.s.runner.drain()
        streamed = self.s.runner.streamed
        cubes = dict(self.stopped_now)
        for key, cube in self.in_flight.items():
            cubes[key] = (cube, self.inherited.get(key, []) + streamed.get(key, []))
        for cube in self.todo:
            parent = self.split_parent.get(cube.key)
            if parent is not None and cube.key in self.inherited:
                cubes.setdefault(parent.key, (parent, self.inherited[cube.key]))
        return [
            StoppedCube(self.n, cube.layout_name, cube.bits, tuple(lemmas[-MAX_INHERITED_LEMMAS:]))
            for cube, lemmas in cubes.values()
            if lemmas
        ]

    def _open_parts(self, n: int, name: str) -> list[str] | None:
        """The parts of layout ``name`` a rerun would search now (:func:`.cubes.open_parts` of
        each planned cube, from the cubes decided and split so far); ``None`` on another level."""
        if n != self.n or name not in self.layout_of:
            return None
        layout, parts = self.layout_index[name], OpenParts()
        decided, splits = self.decided.get(name, set()), self.splits.get(name, set())
        for planned in (c for c in self.plan.cubes if c.layout == layout):
            open_parts(self._refuter(layout), planned.bits, decided, splits, parts)
        return parts.parts

    def _task(self, cube: Cube, left: float | None) -> CubeTask:
        s = self.s
        pool = self.pools.get(cube.layout, []) if s.share else []
        split = None if cube.key in self.no_split else s.split_after
        return CubeTask(
            problem=s.problem,
            cube=cube,
            engine=s.engine,
            solver=s.solver,
            seed=s.seed,
            timeout=left,
            lemmas=pool[-MAX_SHARED_LEMMAS:],
            share=s.share,
            split_after=split,
            max_edges=self.max_edges,
            inherited=self.inherited.get(cube.key, ()),
        )

    def _lost(self, cube: Cube, todo: list[Cube]) -> None:
        tries = self.attempts[cube.key] = self.attempts.get(cube.key, 0) + 1
        if tries > RETRIES:
            raise SearchError(f"cube {cube.key} lost its worker {tries} times; giving up")
        todo.insert(0, cube)

    def _finished(self, cube: Cube, result: dict[str, Any]) -> tuple[str, Candidate | None] | None:
        if result.get("kind") == "error":
            where = f" on {result['node']}" if result.get("node") else ""
            raise SearchError(f"cube {cube.key} failed{where}: {result['error']}")
        learned = result.pop("learned", [])
        self._count(result)
        if result["outcome"] == "none":
            self._decided(cube)
        record = {
            **problem_tag(self.s.problem),
            **result,
            "depth": len(cube.bits),
            "decided_share": {name: round(share, 6) for name, share in self.shares.items()},
            "planned_decided": [len(self.planned_decided), len(self.plan.cubes)],
        }
        if self.s.log is not None:
            self.s.log.append(record)
        if self.s.on_cube is not None:
            self.s.on_cube(record)
        if result["outcome"] == "found":
            return "found", self.s.candidate_from(record)
        inherited = self.inherited.pop(cube.key, [])
        if result["outcome"] == "timeout":
            self.stopped_now[cube.key] = (cube, inherited + learned)
            return "timeout", None
        if result["outcome"] == "split":
            self._split(cube, (inherited + learned)[-MAX_INHERITED_LEMMAS:])
        if self.s.share:
            pool = self.pools.setdefault(cube.layout, [])
            pool += learned
            del pool[:-MAX_SHARED_LEMMAS]
        return None

    def _decided(self, cube: Cube) -> None:
        """Count a cube decided none: in its layout's share, and its planned cube as decided
        once that cube's decided parts and refuted prefixes cover it (:func:`.cubes.covered`)."""
        self.shares[cube.layout_name] += 2.0 ** -len(cube.bits)
        decided = self.decided.setdefault(cube.layout_name, set())
        decided.add(cube.bits)
        for planned in self.plan.cubes:
            if planned.layout == cube.layout and cube.bits.startswith(planned.bits):
                if covered(self._refuter(cube.layout), decided, planned.bits):
                    self.planned_decided.add(planned.key)
                return

    def _refuter(self, layout: int) -> Refuter:
        refuter = self.refuters.get(layout)
        if refuter is None:
            lay = layouts(self.s.problem.gadget, self.n)[layout]
            refuter = self.refuters[layout] = Refuter(self.s.problem, self.n, lay, self.s.engine)
        return refuter

    def _expand(self, cube: Cube, decided: set[str], splits: set[str]) -> list[Cube]:
        """The parts of ``cube`` that the log's decided and split cubes leave open
        (:func:`.cubes.open_parts`), counted in the level record."""
        found = open_parts(self._refuter(cube.layout), cube.bits, decided, splits)
        self.record.cubes_from_log += found.from_log
        self.record.cubes += found.from_log
        self.record.refuted += found.refuted
        return [dataclasses.replace(cube, bits=bits) for bits in found.parts]

    def _split(self, cube: Cube, lemmas: list[tuple[str, object]]) -> None:
        """Replace a cube that ran past ``split_after`` by its children (those propagation does
        not refute), first in line after the planned cubes still waiting for their first turn:
        together they cover it, so coverage is unchanged.  Each child inherits ``lemmas``."""
        refuter, todo = self._refuter(cube.layout), self.todo
        self.splits.setdefault(cube.layout_name, set()).add(cube.bits)
        if len(cube.bits) >= len(refuter.edges):  # nothing left to fix: run it to the end
            children, at = [cube], 0
            self.no_split.add(cube.key)
        else:
            kept = [b for b in "10" if not refuter.refuted(cube.bits + b)]
            self.record.refuted += 2 - len(kept)
            children = [dataclasses.replace(cube, bits=cube.bits + b) for b in kept]
            at = next(
                (i + 1 for i in reversed(range(len(todo))) if todo[i].key in self.untouched), 0
            )
        if self.s.share:
            self.inherited.update((child.key, lemmas) for child in children)
        self.split_parent.update((child.key, cube) for child in children)
        todo[at:at] = children

    def close(self) -> None:
        for refuter in self.refuters.values():
            refuter.close()

    def _count(self, result: dict[str, Any]) -> None:
        rec = self.record
        if result["outcome"] in ("none", "found"):
            rec.cubes += 1
            rec.cubes_searched += 1
        rec.candidates += result["candidates"]
        rec.lemmas += result["lemmas"]
        rec.arrowing += result["arrowing_lemmas"]
        rec.pruned += result["pruned_as_not_lex_max"]
        rec.cpu_seconds += result["cpu_seconds"]


class CubeScheduler:
    """The state of one :func:`solve_cubes` call (see the module docstring)."""

    def __init__(
        self,
        problem: Problem,
        runner: Runner,
        log: CubeLog | None,
        options: SearchOptions,
        start: float,
        on_cube: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.problem, self.runner, self.log = problem, runner, log
        self.engine, self.solver, self.seed = options.engine, options.solver, options.seed
        self.share, self.split_after = options.share, options.split_after
        self.max_edges = options.max_edges
        self.deadline = start + options.timeout if options.timeout is not None else None
        self.target: int = options.cubes or CUBES_PER_SLOT * runner.slots
        self.on_cube = on_cube
        #: the lemmas of cubes in flight at a stop (:mod:`.stopped`), beside the log
        self.stopped = StoppedCubes(log.path.parent, problem) if log is not None else None
        self.ran = cube_engine(problem, self.engine)
        self.plans: dict[int, CubePlan] = {}
        if log is not None:  # a log read back is held to the same rules as any other
            check_records(log.path, zip(log.lines, log.read()), problem)

    def plan(self, n: int) -> CubePlan:
        """Level ``n``'s cubes, generated once (an edge-minimisation round reuses them: the
        static clauses that shape them do not depend on the cap)."""
        if n not in self.plans:
            self.plans[n] = generate_cubes(self.problem, n, self.target, self.engine)
        return self.plans[n]

    def time_left(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.monotonic()

    def logged(self, n: int, max_edges: int | None) -> LoggedLevel:
        """What the log records of level ``n`` for this engine under the cap ``max_edges``
        (:func:`.cubestatus.logged_outcomes`)."""
        records = self.log.read() if self.log is not None else []
        return logged_outcomes(records, self.problem, n, self.ran, max_edges)

    def candidate_from(self, record: dict[str, Any]) -> Candidate:
        """The solution of a cube record, verified (never trusted)."""
        return checked(self.problem, logged_candidate(self.problem, record))


def solve_cubes(
    problem: Problem | str,
    options: SearchOptions = SearchOptions(),
    *,
    on_level: Callable[[LevelRecord], None] | None = None,
    on_cube: Callable[[dict[str, Any]], None] | None = None,
    on_start: Callable[[SearchResult], None] | None = None,
) -> SearchResult:
    """:func:`.solve` by cube-and-conquer (module docstring): same verdict, many workers.

    From ``options``: ``cubes``: at least this many cubes per level (default
    :data:`CUBES_PER_SLOT` per worker); ``out``: the checkpoint directory;
    ``assume_none_below``: a cube log proving level ``min_vertices − 1`` none (checked;
    ``recheck``: ``all`` or the share of its none-cubes run again, drawn with ``seed``, each
    within ``recheck_timeout`` seconds); ``split_after``: a cube still running after this many
    seconds is stopped and replaced by its two children (balances the cubes at run time; the
    worker keeps what it learned, so little is lost).  ``on_level`` gets each level's record,
    ``on_cube`` each finished cube's, ``on_start`` the result once ``assume_none_below`` is
    checked (as :func:`.solve`).
    """
    problem = resolve_problem(problem)
    begin = first_level(problem, options)
    first = smallest_vertex_count(problem)
    start = time.monotonic()
    result = SearchResult(
        problem.id,
        problem,
        "none-up-to-limit",
        None,
        first,
        0.0,
        max_vertices=options.max_vertices,
        max_edges=options.max_edges,
    )
    result.searched_from = begin
    if options.assume_none_below is not None and begin > first:
        result.assumed, result.assumed_rerun = none_below(
            options.assume_none_below,
            problem,
            begin - 1,
            recheck=options.recheck,
            seed=options.seed,
            timeout=options.recheck_timeout,
        )
        result.lower_bound = begin
    if on_start is not None:
        on_start(result)
    log = CubeLog(options.out) if options.out is not None else None
    runner: Runner | None = None
    try:
        runner = make_runner(options.jobs, options.ray)
        sched = CubeScheduler(problem, runner, log, options, start, on_cube)
        for n in range(begin, options.max_vertices + 1):
            done = _level(sched, n, result, options.minimize_edges)
            if on_level is not None:
                on_level(result.levels[-1])
            if done:
                break
    finally:
        if runner is not None:
            runner.close()
        if log is not None:
            log.close()
    result.seconds = time.monotonic() - start
    return result


def _level(sched: CubeScheduler, n: int, result: SearchResult, minimize_edges: bool) -> bool:
    """Decide level ``n`` into ``result``; True when the scan stops (found or out of time)."""
    record = LevelRecord(n, "timeout", 0.0, engine=sched.ran, max_edges=sched.max_edges)
    result.levels.append(record)
    outcome, candidate = _run_level(sched, n, record)
    if outcome == "none":
        result.lower_bound = max(result.lower_bound, n + 1)  # monotone in n
        return False
    if outcome == "timeout":
        result.status = "timeout"
        return True
    assert candidate is not None
    result.status = "found"
    _keep(sched, n, result, candidate)
    if minimize_edges:
        _minimize(sched, n, result)
    return True


def _run_level(sched: CubeScheduler, n: int, record: LevelRecord) -> tuple[str, Candidate | None]:
    """Run level ``n``'s cubes under ``record.max_edges``; the outcome goes into ``record`` and,
    as a level line, into the log."""
    t0 = time.monotonic()
    try:
        run = _LevelRun(sched, n, record)
        try:
            outcome, candidate = run.run()
        finally:
            run.close()
        record.outcome = outcome
        return outcome, candidate
    finally:
        record.seconds = time.monotonic() - t0
        if sched.log is not None:
            sched.log.append({"kind": "level", **problem_tag(sched.problem), **record.to_json()})


def _keep(sched: CubeScheduler, n: int, result: SearchResult, candidate: Candidate) -> None:
    """Make ``candidate`` (verified when its cube returned it) the result's solution."""
    result.candidate = candidate
    lays = layouts(sched.problem.gadget, n)
    result.layout = next(lay.name for lay in lays if lay.designated == candidate.designated)


def _minimize(sched: CubeScheduler, n: int, result: SearchResult) -> None:
    """Lower the edge count of the level's solution by cubes: the level again with at most
    m − 1 edges (m: the best solution's), until such a round is none — then the solution is
    edge-minimal, proven — or time runs out (the best solution so far stays, not proven
    edge-minimal).  Each round is a capped level run: logged, resumable, its none-cubes reused
    by later rounds with smaller caps; its record is not one of ``result.levels`` (a capped
    "none" is no level's "none")."""
    while result.candidate is not None:
        cap = result.candidate.graph.m - 1
        record = LevelRecord(n, "timeout", 0.0, engine=sched.ran, max_edges=cap)
        outcome, candidate = _run_level(sched, n, record)
        if outcome == "none":
            result.edges_minimal = True
            result.edges_round = (record.cubes_from_log, record.cubes)
            return
        if outcome == "timeout" or candidate is None:
            return
        _keep(sched, n, result, candidate)
