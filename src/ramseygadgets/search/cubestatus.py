"""The state of a cube-and-conquer search, read from its checkpoint log: what is decided, what
is left, what each sitting did.

A resumable run (``solve … --out DIR``, :mod:`.parallel`) appends every finished cube to the
log and closes each level it ran with a level record.  This module reads a log the way a rerun
with the same options would (:func:`logged_outcomes`: the cube records of one level and engine
whose outcomes hold under the run's edge cap) and gives, per level (:func:`level_status`):

* the **planned cubes** decided: those of :func:`.cubes.generate_cubes` (the run's
  ``--cubes`` target) that the logged none-cubes and the prefixes refuted by propagation
  cover (:func:`.cubes.covered`);
* the **open parts** a rerun searches (:func:`.cubes.open_parts`): each open planned cube cut
  down to the halves of the cubes the log records as split, less what is decided;
* the **sittings**: a run appends its cubes and then the level record, so the cube records of a
  level between two of its level records are one sitting's.  Its figures are sums over those
  records; its wall time is the level record's (a sitting a kill cut short has none);
* the cubes **in flight now**, when a search runs on the log (:mod:`.inflight`: the log holds
  finished cubes only).
* the **stopped cubes** a rerun starts with (:mod:`.stopped`: what cubes in flight at a stop,
  or at the running search's last snapshot, learned), as the file records them: their lemmas
  are derived again only when a run starts with them.

Everything but the wall times is re-derived from the cube records, and every figure is the
log's word: its cubes are not run again here (:mod:`.cubeproof` says how that is done).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from ramseygadgets.problems.catalog import Problem
from ramseygadgets.search.cubecheck import is_cube, read_checked
from ramseygadgets.search.cubeproof import cap_holds, log_path
from ramseygadgets.search.cubes import Refuter, covered, cube_engine, generate_cubes, open_parts
from ramseygadgets.search.inflight import InFlight, read_in_flight
from ramseygadgets.search.options import SearchError
from ramseygadgets.search.solve import resolve_problem
from ramseygadgets.search.spec import layouts
from ramseygadgets.search.stopped import StoppedCubes, StoppedLemmaRefused

__all__ = [
    "LoggedLevel",
    "holds_under_cap",
    "logged_outcomes",
    "Sitting",
    "LayoutStatus",
    "LevelStatus",
    "StoppedView",
    "level_status",
    "log_status",
]


@dataclass
class LoggedLevel:
    """The outcomes a log records for one level and engine: the none-cubes and the cubes split
    at run time (bit strings, by layout name) and the solution with the fewest edges."""

    none: dict[str, set[str]] = field(default_factory=dict)
    split: dict[str, set[str]] = field(default_factory=dict)
    found: dict[str, Any] | None = None


def holds_under_cap(record: dict[str, Any], max_edges: int | None) -> bool:
    """Whether a cube record's outcome holds for a run that searches graphs with at most
    ``max_edges`` edges (``None``: all): "none" with at most c edges holds for every cap ≤ c
    ("none" without a cap for all); a found solution when it has at most ``max_edges`` edges;
    a split only says where the cube was split."""
    if record.get("outcome") == "none":
        return cap_holds(record.get("max_edges"), max_edges)
    if record.get("outcome") == "found":
        edges = record.get("edges")
        return isinstance(edges, list) and (max_edges is None or len(edges) <= max_edges)
    return True


def _level_cubes(
    records: Iterable[dict[str, Any]], problem: Problem, n: int, engine: str
) -> list[dict[str, Any]]:
    return [
        r
        for r in records
        if r.get("kind") == "cube"
        and r.get("problem_id") == problem.id
        and r.get("n") == n
        and r.get("engine") == engine
    ]


def logged_outcomes(
    records: Iterable[dict[str, Any]],
    problem: Problem,
    n: int,
    engine: str,
    max_edges: int | None,
) -> LoggedLevel:
    """The cube records of level ``n`` run by ``engine`` whose outcomes hold under the cap
    ``max_edges`` (:func:`holds_under_cap`)."""
    out = LoggedLevel()
    for rec in _level_cubes(records, problem, n, engine):
        if not holds_under_cap(rec, max_edges):
            continue
        if rec.get("outcome") == "none":
            out.none.setdefault(rec["layout"], set()).add(rec["bits"])
        elif rec.get("outcome") == "split":
            out.split.setdefault(rec["layout"], set()).add(rec["bits"])
        elif rec.get("outcome") == "found" and rec["edges"]:
            if out.found is None or len(rec["edges"]) < len(out.found["edges"]):
                out.found = rec
    return out


@dataclass(frozen=True)
class Sitting:
    """One run's cubes of a level (see the module docstring); ``wall_seconds`` is ``None`` when
    no level record closes them (the run was killed, or is still running)."""

    wall_seconds: float | None
    none: int
    splits: int
    found: int
    cpu_seconds: float
    candidates: int

    def to_json(self) -> dict[str, Any]:
        wall = None if self.wall_seconds is None else round(self.wall_seconds, 1)
        return {**asdict(self), "wall_seconds": wall, "cpu_seconds": round(self.cpu_seconds, 1)}

    @classmethod
    def of(cls, cubes: Sequence[dict[str, Any]], wall_seconds: float | None) -> Sitting:
        outcomes = [c.get("outcome") for c in cubes]
        return cls(
            wall_seconds,
            outcomes.count("none"),
            outcomes.count("split"),
            outcomes.count("found"),
            sum(float(c.get("cpu_seconds") or 0.0) for c in cubes),
            sum(int(c.get("candidates") or 0) for c in cubes),
        )


@dataclass(frozen=True)
class LayoutStatus:
    """One layout of a level: its planned cubes, those decided, the open ones and the open
    parts a rerun searches (bit strings); ``share``: Σ 2^−depth over its none-cubes, a lower
    bound on the share of its prefix assignments decided."""

    name: str
    planned: int
    decided: int
    open_planned: tuple[str, ...]
    open_parts: tuple[str, ...]
    share: float


@dataclass(frozen=True)
class StoppedView:
    """A level's entries of the stopped cubes' file (:mod:`.stopped`): ``(layout, bits, lemma
    count)`` each, the file's modification time, and why a run would refuse the file
    (``refused``; then no entry is shown)."""

    path: Path
    cubes: tuple[tuple[str, str, int], ...]
    written: float
    refused: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "file": str(self.path),
            "written": self.written,
            "refused": self.refused,
            "cubes": [{"layout": lay, "bits": bits, "lemmas": k} for lay, bits, k in self.cubes],
        }


@dataclass(frozen=True)
class LevelStatus:
    """What the log says of level ``n`` under the cap ``max_edges`` (see the module docstring)."""

    n: int
    engine: str
    max_edges: int | None
    target: int
    layouts: tuple[LayoutStatus, ...]
    sittings: tuple[Sitting, ...]
    found: bool
    #: the level's cubes a search running on the log has in flight now (:mod:`.inflight`)
    in_flight: InFlight | None = None
    #: what the stopped cubes' file holds for the level (``None``: nothing)
    stopped: StoppedView | None = None

    @property
    def planned(self) -> int:
        return sum(lay.planned for lay in self.layouts)

    @property
    def decided(self) -> int:
        return sum(lay.decided for lay in self.layouts)

    @property
    def total(self) -> Sitting:
        """The sums over every sitting (wall time: the sittings that record one)."""
        walls = [s.wall_seconds for s in self.sittings if s.wall_seconds is not None]
        return Sitting(
            sum(walls),
            sum(s.none for s in self.sittings),
            sum(s.splits for s in self.sittings),
            sum(s.found for s in self.sittings),
            sum(s.cpu_seconds for s in self.sittings),
            sum(s.candidates for s in self.sittings),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "engine": self.engine,
            "max_edges": self.max_edges,
            "target": self.target,
            "found": self.found,
            "planned": self.planned,
            "decided": self.decided,
            "layouts": [
                {
                    **asdict(lay),
                    "open_planned": list(lay.open_planned),
                    "open_parts": list(lay.open_parts),
                    "share": round(lay.share, 6),
                }
                for lay in self.layouts
            ],
            "sittings": [s.to_json() for s in self.sittings],
            "total": self.total.to_json(),
            "in_flight": None
            if self.in_flight is None
            else {
                "pid": self.in_flight.pid,
                "written": self.in_flight.written,
                "cubes": [
                    {**c.to_json(), "running_seconds": round(c.running_for(), 1)}
                    for c in self.in_flight.cubes
                ],
            },
            "stopped": None if self.stopped is None else self.stopped.to_json(),
        }


def _sittings(
    records: Sequence[dict[str, Any]], problem: Problem, n: int, engine: str
) -> list[Sitting]:
    """The level's cube records of ``engine``, cut at its level records (module docstring)."""
    out: list[Sitting] = []
    cubes: list[dict[str, Any]] = []
    for rec in records:
        if rec.get("problem_id") != problem.id or rec.get("n") != n:
            continue
        if rec.get("kind") == "level":
            out.append(Sitting.of(cubes, float(rec.get("seconds") or 0.0)))
            cubes = []
        elif rec.get("kind") == "cube" and rec.get("engine") == engine:
            cubes.append(rec)
    if cubes:
        out.append(Sitting.of(cubes, None))
    return out


def level_status(
    problem: Problem,
    records: Sequence[dict[str, Any]],
    n: int,
    target: int,
    *,
    engine: str = "auto",
    max_edges: int | None = None,
) -> LevelStatus:
    """Level ``n`` of ``problem`` as the cube log ``records`` leaves it for a rerun planning
    ``target`` cubes with ``engine`` under the cap ``max_edges`` (see the module docstring)."""
    ran = cube_engine(problem, engine)
    logged = logged_outcomes(records, problem, n, ran, max_edges)
    plan = generate_cubes(problem, n, target, ran)
    statuses = []
    for index, lay in enumerate(layouts(problem.gadget, n)):
        planned = [c.bits for c in plan.cubes if c.layout == index]
        none, split = logged.none.get(lay.name, set()), logged.split.get(lay.name, set())
        refuter = Refuter(problem, n, lay, ran)
        try:
            open_planned = [b for b in planned if not covered(refuter, none, b)]
            parts = [p for b in open_planned for p in open_parts(refuter, b, none, split).parts]
        finally:
            refuter.close()
        share = sum(2.0 ** -len(b) for b in none)
        statuses.append(
            LayoutStatus(
                lay.name,
                len(planned),
                len(planned) - len(open_planned),
                tuple(open_planned),
                tuple(parts),
                share,
            )
        )
    return LevelStatus(
        n,
        ran,
        max_edges,
        target,
        tuple(statuses),
        tuple(_sittings(records, problem, n, ran)),
        logged.found is not None,
    )


def log_status(
    problem: Problem,
    path: str | Path,
    target: int,
    *,
    engine: str = "auto",
    max_edges: int | None = None,
    levels: range | None = None,
) -> list[LevelStatus]:
    """:func:`level_status` of every level of ``problem`` the cube log ``path`` (a file, or a
    directory holding ``cubes.jsonl``) has cubes of (within ``levels``), after the log's
    records are checked (:func:`.cubecheck.read_checked`: a record naming another problem, or
    its level inconsistently, is refused naming ``file:line``).  Two colours only, as the
    search (:func:`.solve.resolve_problem` says where more are searched)."""
    problem = resolve_problem(problem)
    file = log_path(path)
    if not file.is_file():
        raise SearchError(f"no cube log at {file}: give the --out directory of a run")
    records = [r for _, r in read_checked(file, problem)]
    ran = cube_engine(problem, engine)
    logged = {r["n"] for r in records if is_cube(r) and r.get("problem_id") == problem.id}
    present = sorted(n for n in logged if levels is None or n in levels)
    if not present:
        raise SearchError(_nothing_to_show(file, records, problem, logged, levels))
    running = read_in_flight(file.parent)
    stopped = StoppedCubes(file.parent, problem)
    return [
        replace(
            level_status(problem, records, n, target, engine=ran, max_edges=max_edges),
            in_flight=_level_in_flight(running, problem, n),
            stopped=_level_stopped(stopped, n),
        )
        for n in present
    ]


def _level_stopped(stopped: StoppedCubes, n: int) -> StoppedView | None:
    """Level ``n``'s entries of the stopped cubes' file, as recorded (``None``: no file, or no
    entry of the level); a file a run would refuse is shown as refused, not read on."""
    try:
        written = stopped.path.stat().st_mtime
    except OSError:
        return None
    try:
        entries = [entry for _, entry in stopped.read() if entry["n"] == n]
    except StoppedLemmaRefused as exc:
        return StoppedView(stopped.path, (), written, str(exc))
    if not entries:
        return None
    cubes = tuple((e["layout"], e["bits"], len(e["lemmas"])) for e in entries)
    return StoppedView(stopped.path, cubes, written)


def _level_in_flight(running: InFlight | None, problem: Problem, n: int) -> InFlight | None:
    """The cubes of level ``n`` of ``problem`` that ``running`` has in flight (``None``: no
    search of this problem runs on the log)."""
    if running is None or running.problem_id != problem.id:
        return None
    return replace(running, cubes=tuple(c for c in running.cubes if c.n == n))


def _nothing_to_show(
    file: Path,
    records: Sequence[dict[str, Any]],
    problem: Problem,
    logged: set[int],
    levels: range | None,
) -> str:
    """Why the log has no level to show: another problem's, or other levels'."""
    if not logged:
        others = sorted({str(r.get("problem_id")) for r in records if is_cube(r)})
        holds = f"holds cubes of {', '.join(others)} only" if others else "holds no cube"
        return f"the cube log {file} {holds}, none of {problem.id}"
    where = "" if levels is None else f" on {levels.start}–{levels.stop - 1} vertices"
    return (
        f"the cube log {file} has no cube of {problem.title}{where} (it has levels "
        f"{', '.join(map(str, sorted(logged)))}; give --min-vertices/--max-vertices)"
    )
