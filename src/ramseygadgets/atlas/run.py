"""Compute the atlas: search every open problem (checkpointed, parallel, resumable), cross-check
every minimal solution on at most N vertices with the exhaustive nauty scan, merge everything
with what was known before (the strongest fact wins) and write ``atlas.json`` and ``atlas.md``.

Output directory:

* ``results.jsonl``: one search record per finished problem (the checkpoint of ``generate``:
  :class:`~ramseygadgets.problemsets.ProblemSetWriter`); a re-run skips recorded problems, and
  with ``retry_unsolved`` re-runs the open ones from their proven lower bound;
* ``crosscheck.jsonl``: one record per exhaustively re-checked problem (a
  :class:`~ramseygadgets.infra.checkpoint.CheckpointLog`: appended and fsynced, a torn last line
  cut off on the next run, a corrupt line removed by the next run (the log rewritten atomically
  with every valid line, one warning naming what was removed) and its check re-derived);
* ``atlas.json``: the base atlas (default: the shipped one) merged with every record above;
* ``atlas.md``: its table (:func:`ramseygadgets.atlas.table.render_markdown`);
* ``problems.jsonl`` etc.: the solved problems as a generated problem set (``eval --dataset``).

Facts enter with provenance: the shipped 70-problem solutions (``data/solutions.json``), search
records (engine, method, seconds, budget, the levels enumerated) and exhaustive scans.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ramseygadgets.atlas.plan import (
    SECTIONS,
    AtlasPlan,
    AtlasTask,
    Impossible,
    color_swap,
    graph_label,
    plan_atlas,
)
from ramseygadgets.atlas.table import render_markdown
from ramseygadgets.core.graphs import Graph
from ramseygadgets.infra.checkpoint import CheckpointLog, ascii_json_line
from ramseygadgets.infra.executors import Executor, LocalExecutor
from ramseygadgets.infra.files import staged_directory
from ramseygadgets.problems.atlas_entries import Atlas, AtlasError, Entry, check_fact, load_atlas
from ramseygadgets.problems.catalog import Problem
from ramseygadgets.problems.solutions import Solution, load_solutions
from ramseygadgets.problemsets import ProblemSetPlan, ProblemSetWriter
from ramseygadgets.scaleout.fanout import DEFAULT_ENGINE, generate_problem_set, hardest_last
from ramseygadgets.search import smallest_vertex_count
from ramseygadgets.search.exhaustive import exhaustive_minimums
from ramseygadgets.verification.verifier import verify

__all__ = [
    "ATLAS_JSON",
    "ATLAS_MD",
    "CHECKS_FILE",
    "DEFAULT_CROSS_CHECK",
    "SCAN_METHOD",
    "SHIPPED",
    "AtlasOptions",
    "AtlasOutcome",
    "CheckTask",
    "atlas_header",
    "build_atlas",
    "check_pair",
    "checks_log",
    "lower_bound_fact",
    "merge_record",
    "new_entry",
    "pending_checks",
    "run_atlas",
    "shipped_facts",
    "solution_fact",
    "verify_solutions",
]

CHECKS_FILE = "crosscheck.jsonl"
ATLAS_JSON = "atlas.json"
ATLAS_MD = "atlas.md"
SCAN_METHOD = (
    "exhaustive nauty scan (ramseygadgets.search.exhaustive: geng, every connected graph up "
    "to isomorphism, proven restrictions)"
)
SHIPPED = "data/solutions.json (the paper's 70, shipped)"

#: Default exhaustive cross-check: every minimal solution on at most this many vertices.
DEFAULT_CROSS_CHECK = 8


@dataclass(frozen=True)
class AtlasOptions:
    """What to compute and with which budget (recorded in the atlas header)."""

    sections: tuple[str, ...] = tuple(SECTIONS)
    engine: str = DEFAULT_ENGINE
    timeout: float | None = 30.0
    max_vertices: int = 12
    retry_unsolved: bool = False
    cross_check_up_to: int = DEFAULT_CROSS_CHECK
    only: tuple[str, ...] = ()  # problem ids (empty: every problem of the sections)
    search: bool = True  # False: only cross-check and rebuild the atlas from the checkpoints
    #: also search minimal entries whose edge count is not proven, to lower and prove it
    edges: bool = False

    def selects(self, entry: Entry) -> bool:
        """Whether this run works on the entry's problem."""
        if self.only:
            return entry.id in self.only
        return entry.section in self.sections

    def searches(self, entry: Entry) -> bool:
        """Whether this run searches the entry: a selected open problem from its proven bound,
        and with ``edges`` a selected minimal one whose edge count is not proven (its level n
        again, where the search lowers the edge bound until UNSAT)."""
        if not self.selects(entry) or entry.bound > self.max_vertices:
            return False
        if entry.status == "open":
            return True
        unproven = entry.solution is not None and not entry.solution.get("edges_minimal")
        return self.edges and entry.status == "minimal" and unproven

    def to_json(self) -> dict[str, Any]:
        return {
            "sections": list(self.sections),
            "engine": self.engine,
            "timeout": self.timeout,
            "max_vertices": self.max_vertices,
            "cross_check_up_to": self.cross_check_up_to,
            **({"only": list(self.only)} if self.only else {}),
            **({"edges": True} if self.edges else {}),
        }


# ---------------------------------------------------------------------------------------------
# Entries and facts
# ---------------------------------------------------------------------------------------------
def new_entry(item: AtlasTask | Impossible) -> Entry:
    """An entry that knows only the definition's bound (or, for a proven fact, the fact)."""
    p = item.problem
    entry = Entry(
        id=p.id,
        section=item.section,
        F=p.F.name,
        H=p.H.name,
        gadget=p.gadget.value,
        title=f"({graph_label(p.F)}, {graph_label(p.H)})-{p.gadget.value}",
        swap=color_swap(p),
    )
    if isinstance(item, Impossible):
        entry.impossible = item.reason
    else:
        n = smallest_vertex_count(p)
        entry.lower_bound = {
            "n": n,
            "proof": f"the designated items need at least {n} vertices",
            "engine": "definition",
        }
    return entry


def _source(record: dict[str, Any]) -> dict[str, Any]:
    return {
        "engine": record.get("engine", DEFAULT_ENGINE),
        "method": record.get("method", ""),
        "seconds": record.get("seconds"),
        "budget": {"timeout": record.get("timeout"), "max_vertices": record.get("max_vertices")},
    }


def solution_fact(record: dict[str, Any]) -> dict[str, Any] | None:
    """The solution of a search record (``None`` when it found none)."""
    data = record.get("solution")
    if not data:
        return None
    n, m = record["n"], record["m"]
    graph = Graph.from_edges(data["edges"], n, max_vertices=None)
    fact: dict[str, Any] = {"n": n, "m": m, **data, "graph6": graph.to_graph6()}
    fact["edges_minimal"] = bool(record.get("edges_minimal"))
    if fact["edges_minimal"]:
        fact["edges_proof"] = f"no solution on {n} vertices with {m - 1} edges (UNSAT)"
    return {**fact, **_source(record)}


def lower_bound_fact(record: dict[str, Any]) -> dict[str, Any]:
    """The lower bound of a search record, with the levels it enumerated."""
    n = record["lower_bound"]
    levels = record.get("levels", [])
    return {
        "n": n,
        "proof": f"no solution on {n - 1} vertices (UNSAT; monotone in n)",
        **_source(record),
        "levels": [lv for lv in levels if lv.get("outcome") == "none"],
    }


def shipped_facts(solution: Solution) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Solution, lower bound and cross-check of one of the paper's 70 shipped solutions."""
    extra, data = solution.extra, solution.to_json()
    n, m = solution.n, solution.m
    source = {
        "engine": "shipped",
        "method": f"{solution.method}; {SHIPPED}",
        "seconds": extra.get("seconds"),
    }
    designated: dict[str, Any] = {k: data[k] for k in ("e", "f", "vertices") if k in data}
    fact: dict[str, Any] = {
        "n": n,
        "m": m,
        "edges": data["edges"],
        **designated,
        "graph6": solution.candidate.graph.to_graph6(),
        "edges_minimal": True,
        "edges_proof": extra.get("edges_proof"),
        **source,
    }
    bound = {"n": n, "proof": extra.get("proof"), **source}
    scan = str(extra.get("cross_check", ""))
    up_to = re.search(r"up to (\d+) vertices", scan)
    check = {
        "n": n,
        "m": m,
        "census": [n, m],
        "agree": "agree" in scan,
        "up_to": max(n, int(up_to.group(1))) if up_to else n,
        "method": scan,
        "source": SHIPPED,
    }
    return fact, bound, check


def merge_record(atlas: Atlas, record: dict[str, Any]) -> None:
    """Add the facts of one search record (records of problems outside the atlas are ignored)."""
    entry = atlas.entries.get(record.get("id", ""))
    if entry is None or entry.impossible:
        return
    solution = solution_fact(record)
    if solution is not None:
        entry.add_solution(solution)
    if record.get("lower_bound"):
        entry.add_lower_bound(lower_bound_fact(record))


def build_atlas(
    plan: AtlasPlan,
    base: Atlas | None = None,
    records: Iterable[dict[str, Any]] = (),
    checks: Iterable[dict[str, Any]] = (),
) -> Atlas:
    """Fresh entries for the plan, then every known fact: the shipped 70, ``base`` (entries of
    ``base`` outside the plan are kept, after the plan's), search records, exhaustive checks."""
    atlas = Atlas({e.id: e for e in map(new_entry, plan.items)})
    atlas.not_asked = list(plan.not_asked)
    trusted = _shipped_solutions()
    for pid, shipped in load_solutions().items():
        entry = atlas.entries.get(pid)
        if entry is not None:
            fact, bound, check = shipped_facts(shipped)
            trusted.add(_solution_key(pid, fact))
            entry.add_solution(fact)
            entry.add_lower_bound(bound)
            entry.add_cross_check(check)
    if base is not None:
        atlas.merge(base)
    for record in records:
        merge_record(atlas, record)
    for check in checks:
        entry = atlas.entries.get(check.get("id", ""))
        if entry is not None:
            entry.add_cross_check(check)
    verify_solutions(atlas, trusted)
    return atlas


def _solution_key(pid: str, solution: dict[str, Any]) -> str:
    return pid + "\n" + json.dumps(solution, sort_keys=True)


def _shipped_solutions() -> set[str]:
    """The solutions of the installed package's atlas (each verified by its tests:
    tests/atlas/test_atlas_data.py), as :func:`_solution_key`."""
    shipped = load_atlas(None)
    return {_solution_key(pid, e.solution) for pid, e in shipped.entries.items() if e.solution}


def verify_solutions(atlas: Atlas, trusted: set[str] | frozenset[str] = frozenset()) -> None:
    """Every solution, whatever file it came from, must pass the verifier; ``trusted``: the
    installed package's own solutions, identical to the entry's (verified by the package's
    tests), are not verified again (this keeps a run's start-up short)."""
    for entry in atlas.entries.values():
        if entry.solution is not None:
            if _solution_key(entry.id, entry.solution) in trusted:
                continue
            verdict = verify(entry.problem, entry.candidate())
            if not verdict.correct:
                raise AtlasError(f"{entry.title}: the recorded solution is wrong: {verdict.reason}")


# ---------------------------------------------------------------------------------------------
# Exhaustive cross-check
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CheckTask:
    """The claimed minima (gadget, n, m) of one pair, as plain data for a worker."""

    F: str
    H: str
    claims: tuple[tuple[str, str, int, int], ...]  # (id, gadget, n, m)

    def __str__(self) -> str:
        return f"exhaustive check of ({self.F}, {self.H})"


def check_pair(task: CheckTask) -> list[dict[str, Any]]:
    """Scan every graph up to the largest claimed n for the pair's problems; one record each.

    Agreement: the scan's least (n', m') has n' = n and m' = m (m' ≤ m where the search did not
    finish proving its m edge-minimal; the record keeps m')."""
    started = time.monotonic()
    problems = {pid: Problem.make(task.F, task.H, gadget) for pid, gadget, _, _ in task.claims}
    up_to = max(n for _, _, n, _ in task.claims)
    bounds = {problems[pid].id: m for pid, _, n, m in task.claims if n == up_to}
    found = exhaustive_minimums(problems.values(), up_to, max_edges=bounds)
    seconds = round(time.monotonic() - started, 3)
    out = []
    for pid, _, n, m in task.claims:
        scan = found[problems[pid].id]
        graph = scan.candidate.graph if scan.candidate is not None else None
        census = [graph.n, graph.m] if graph is not None else None
        out.append(
            {
                "id": pid,
                "n": n,
                "m": m,
                "census": census,
                "agree": census is not None and census[0] == n and census[1] <= m,
                "edges_minimal": census == [n, m],
                "up_to": up_to,
                "graphs": scan.graphs,
                "method": SCAN_METHOD,
                "seconds": seconds,
            }
        )
    return out


def pending_checks(atlas: Atlas, options: AtlasOptions) -> list[CheckTask]:
    """Pairs whose minimal solutions on ≤ ``options.cross_check_up_to`` vertices lack a scan."""
    groups: dict[tuple[str, str], list[tuple[str, str, int, int]]] = {}
    for e in atlas.entries.values():
        s = e.solution
        if not options.selects(e) or e.status != "minimal" or e.cross_check is not None:
            continue
        if s is None or s["n"] > options.cross_check_up_to:
            continue
        groups.setdefault((e.F, e.H), []).append((e.id, e.gadget, s["n"], s["m"]))
    tasks = [CheckTask(F, H, tuple(claims)) for (F, H), claims in groups.items()]
    return sorted(tasks, key=lambda t: max(n for _, _, n, _ in t.claims))


# ---------------------------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------------------------
@dataclass
class AtlasOutcome:
    """What a run did (records and checks made now) and the merged atlas."""

    atlas: Atlas
    searched: list[dict[str, Any]] = field(default_factory=list)
    checked: list[dict[str, Any]] = field(default_factory=list)
    interrupted: bool = False
    seconds: float = 0.0


def atlas_header(options: AtlasOptions) -> dict[str, Any]:
    """The atlas file's header: what it is, the sections and the last run's options."""
    return {
        "description": "Minimal gadgets of small (F, H) pairs: per problem the fewest vertices "
        "with a solution and its proofs, or the largest n with 'no solution on at most n "
        "vertices' proven; every fact with its provenance.",
        "minimal": "fewest vertices n (no solution on n-1 vertices), then fewest edges m",
        "sections": {name: s.title for name, s in SECTIONS.items()},
        "last_run": options.to_json(),
    }


def checks_log(directory: Path) -> CheckpointLog:
    """The cross-check log of an atlas folder (``crosscheck.jsonl``, lines as ``json.dumps``)."""
    return CheckpointLog(
        directory / CHECKS_FILE,
        what="cross-check record",
        error=AtlasError,
        encoder=ascii_json_line,
    )


def run_atlas(
    out_dir: str | Path,
    options: AtlasOptions,
    *,
    executor: Executor | None = None,
    base: Atlas | None = None,
    on_result: Callable[[dict[str, Any]], None] | None = None,
    on_check: Callable[[dict[str, Any]], None] | None = None,
) -> AtlasOutcome:
    """Search, cross-check, merge and write (see the module docstring); Ctrl-C keeps every
    finished record and still writes ``atlas.json`` and ``atlas.md``."""
    started = time.monotonic()
    plan = plan_atlas(list(SECTIONS.values()))
    unknown = sorted(set(options.only) - set(plan.ids))
    if unknown:
        raise AtlasError(f"{unknown[0]!r} is not a problem of the atlas (see 'atlas table --json')")
    with ProblemSetWriter(out_dir) as writer, checks_log(writer.dir) as checks:
        known = checks.read(repair=True, corrupt="compact", check=_check_record)
        atlas = build_atlas(plan, base, writer.checked_records(), known)
        outcome = AtlasOutcome(atlas)
        executor = executor or LocalExecutor(1)
        try:
            if options.search:
                outcome.interrupted = _search(
                    atlas, plan, writer, options, executor, outcome, on_result
                )
            if not outcome.interrupted and options.cross_check_up_to > 0:
                outcome.interrupted = _cross_check(
                    atlas, options, checks, executor, outcome, on_check
                )
        except BaseException:
            # what was found so far is still written; the failure in flight (a full disk too)
            # is the one reported
            with contextlib.suppress(OSError):
                _write_atlas_files(atlas, options, writer.dir)
            raise
        _write_atlas_files(atlas, options, writer.dir)
        outcome.seconds = time.monotonic() - started
    return outcome


def _write_atlas_files(atlas: Atlas, options: AtlasOptions, directory: Path) -> None:
    """``atlas.json`` and ``atlas.md`` of ``directory``, both or neither replaced
    (:func:`~ramseygadgets.infra.files.staged_directory`; a failure is an ``OutputError``)."""
    atlas.header = atlas_header(options)
    with staged_directory(directory) as stage:
        (stage / ATLAS_JSON).write_text(atlas.to_json(), encoding="utf-8")
        (stage / ATLAS_MD).write_text(render_markdown(atlas), encoding="utf-8")


def _check_record(record: dict[str, Any]) -> None:
    """Refuse a cross-check line without the fields merging needs (it is removed from the log
    with one warning naming file and line, and re-derived by this run)."""
    if not isinstance(record.get("id"), str):
        raise ValueError("a cross-check record without an 'id'")
    check_fact("cross_check", record)


def _search(
    atlas: Atlas,
    plan: AtlasPlan,
    writer: ProblemSetWriter,
    options: AtlasOptions,
    executor: Executor,
    outcome: AtlasOutcome,
    on_result: Callable[[dict[str, Any]], None] | None,
) -> bool:
    """Search every problem the options select (:meth:`AtlasOptions.searches`) from its proven
    bound; True if interrupted.

    The folder's problem set is always the whole atlas (so that reruns with other sections or
    problems share one folder); only the selected open problems are solved."""
    todo = [p.problem for p in plan.problems if options.searches(atlas.entries[p.id])]

    def record(result: dict[str, Any]) -> None:
        merge_record(atlas, result)
        outcome.searched.append(result)
        if on_result is not None:
            on_result(result)

    ran = generate_problem_set(
        ProblemSetPlan(problems=[p.problem for p in plan.problems]),
        writer,
        max_vertices=options.max_vertices,
        timeout=options.timeout,
        executor=executor,
        retry_unsolved=options.retry_unsolved,
        options={"command": "ramseygadgets atlas", **options.to_json()},
        on_result=record,
        order=hardest_last,
        engine=options.engine,
        start={p.id: atlas.entries[p.id].bound for p in todo},
        only={p.id for p in todo},
    )
    return ran.interrupted


def _cross_check(
    atlas: Atlas,
    options: AtlasOptions,
    checks: CheckpointLog,
    executor: Executor,
    outcome: AtlasOutcome,
    on_check: Callable[[dict[str, Any]], None] | None,
) -> bool:
    """Scan every pending pair, checkpointing each result; True if interrupted."""
    tasks = pending_checks(atlas, options)
    try:
        for _, results in executor.run(check_pair, tasks):
            for check in results:
                checks.append(check)
                outcome.checked.append(check)
                if on_check is not None:
                    on_check(check)
                atlas.entries[check["id"]].add_cross_check(check)
    except KeyboardInterrupt:
        return True
    return False
