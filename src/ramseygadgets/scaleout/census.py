"""Exhaustive census in independent slices: every graph on n vertices (nauty's geng, one per
isomorphism class, split with ``res/mod``), scanned for every problem, with per-slice checkpoints.

A slice is ``(n, res, mod)``: geng's part ``res`` of ``mod`` of the graphs on n vertices with
minimum degree ≥ 1 (a graph with an isolated vertex solves a problem only if the graph without
it does, on fewer vertices, so minimal solutions never have one; pass ``connected=True`` to scan
connected graphs only).  For each slice and each edge count m it records how many graphs there
are, how many are good, and how many solve each problem (for some designated items), plus each
problem's first solution (least m, then least graph6).  Slices are disjoint and cover every
graph, so merged counts are the counts of the whole enumeration, whatever ``mod`` is.

Checkpoints: the parent writes each finished slice to ``DIR/n{n}-r{res}-of{mod}.json``
(a temporary file, then an atomic rename) with a fingerprint of the problem list.  A re-run
loads the slices already there (a file that does not parse or has not the shape of a slice
is computed again) and computes only the missing ones, so a lost worker or a
Ctrl-C costs at most the slices in flight, and no slice is ever counted twice (each is merged
once, from exactly one file or one fresh result).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from ramseygadgets.colorings.multi import MultiColorings
from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.core.gadgets import Designated
from ramseygadgets.infra.executors import Executor, LocalExecutor
from ramseygadgets.infra.files import atomic_write
from ramseygadgets.problems.problem import Problem
from ramseygadgets.search.exhaustive import gadgets_in_graph, iter_graphs
from ramseygadgets.verification.gadget_census import gadgets_in_graph_multi

__all__ = [
    "CheckpointError",
    "problem_record",
    "problem_from_record",
    "fingerprint",
    "SliceTask",
    "census_slice",
    "CensusResult",
    "run_census",
]


class CheckpointError(RamseyGadgetsError):
    """A checkpoint directory belongs to another enumeration or holds an unreadable slice."""


def problem_record(problem: Problem) -> dict[str, Any]:
    """A small JSON description of a problem that survives pickling to any worker."""
    return {"colors": problem.spec.to_json(), "gadget": problem.gadget_name}


def problem_from_record(record: dict[str, Any]) -> Problem:
    """Inverse of :func:`problem_record`."""
    return Problem.from_json(record)


def fingerprint(records: list[dict[str, Any]], connected: bool) -> str:
    text = json.dumps(
        {"problems": sorted(problem_from_record(r).id for r in records), "connected": connected},
        sort_keys=True,
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class SliceTask:
    """One slice of the enumeration (plain data: it travels to worker processes and Ray nodes)."""

    n: int
    res: int
    mod: int
    problems: tuple[str, ...]  # JSON problem records
    connected: bool = False

    @property
    def name(self) -> str:
        return f"n{self.n}-r{self.res}-of{self.mod}"

    def __str__(self) -> str:
        return f"slice {self.res}/{self.mod} of n = {self.n}"


def _first_key(entry: dict[str, Any]) -> tuple[int, str]:
    return (entry["m"], entry["graph6"])


def census_slice(task: SliceTask) -> dict[str, Any]:
    """Scan one slice: counts per edge count and each problem's first solution (a JSON dict)."""
    problems = [problem_from_record(json.loads(r)) for r in task.problems]
    multi: dict[Any, list[Problem]] = {}
    core: list[Problem] = []  # hardness gadgets: the two-colour scan of search.exhaustive
    for p in problems:
        if p.kind.is_hardness:
            core.append(p)
        else:
            multi.setdefault(p.spec, []).append(p)
    by_edges: dict[int, dict[str, Any]] = {}
    first: dict[str, dict[str, Any]] = {}
    graphs = 0
    max_edges = task.n * (task.n - 1) // 2
    for graph in iter_graphs(
        task.n, 0, max_edges, connected=task.connected, min_degree=1, res=task.res, mod=task.mod
    ):
        graphs += 1
        row = by_edges.setdefault(graph.m, {"graphs": 0, "good": {}, "solved": {}})
        row["graphs"] += 1
        found: dict[str, Designated] = {}
        for spec, group in multi.items():
            with MultiColorings(graph, spec) as sat:
                good = sat.is_good()
            if good:
                row["good"][spec.slug] = row["good"].get(spec.slug, 0) + 1
                found.update(gadgets_in_graph_multi(graph, group) or {})
        for p in core:
            result = gadgets_in_graph(graph, p.F, p.H, [p.gadget])
            if result and p.gadget in result:
                found[p.id] = result[p.gadget]
        if not found:
            continue
        g6 = graph.to_graph6()
        for pid, designated in found.items():
            row["solved"][pid] = row["solved"].get(pid, 0) + 1
            entry = {
                "n": graph.n,
                "m": graph.m,
                "graph6": g6,
                "edges": [list(e) for e in graph.edges],
                "designated": {
                    "edges": [list(e) for e in designated.edges],
                    "vertices": list(designated.vertices),
                },
            }
            if pid not in first or _first_key(entry) < _first_key(first[pid]):
                first[pid] = entry
    return {
        "n": task.n,
        "res": task.res,
        "mod": task.mod,
        "graphs": graphs,
        "by_edges": {str(m): row for m, row in sorted(by_edges.items())},
        "first": first,
    }


@dataclass
class CensusResult:
    """Merged counts of all slices, and how many slices were computed now vs loaded."""

    graphs: dict[int, int] = field(default_factory=dict)  # n -> graphs
    by_edges: dict[tuple[int, int], dict[str, Any]] = field(
        default_factory=dict
    )  # (n, m) -> counts
    first: dict[str, dict[str, Any]] = field(default_factory=dict)  # problem id -> first solution
    computed: list[str] = field(default_factory=list)
    loaded: list[str] = field(default_factory=list)

    def solved(self, problem_id: str) -> int:
        """Graphs (up to isomorphism) that solve the problem, over all slices."""
        return sum(row["solved"].get(problem_id, 0) for row in self.by_edges.values())

    def minimum(self, problem_id: str) -> tuple[int, int] | None:
        """The least (n, m) of a solution within the scanned vertex counts."""
        entry = self.first.get(problem_id)
        return (entry["n"], entry["m"]) if entry else None

    def counts(self) -> dict[str, Any]:
        """Everything that must not depend on the slicing (for comparisons)."""
        return {
            "graphs": dict(sorted(self.graphs.items())),
            "by_edges": {f"{n}:{m}": row for (n, m), row in sorted(self.by_edges.items())},
            "first": {pid: (e["n"], e["m"], e["graph6"]) for pid, e in sorted(self.first.items())},
        }

    def merge(self, result: dict[str, Any]) -> None:
        n = result["n"]
        self.graphs[n] = self.graphs.get(n, 0) + result["graphs"]
        for m, row in result["by_edges"].items():
            into = self.by_edges.setdefault((n, int(m)), {"graphs": 0, "good": {}, "solved": {}})
            into["graphs"] += row["graphs"]
            for key in ("good", "solved"):
                for k, v in row[key].items():
                    into[key][k] = into[key].get(k, 0) + v
        for pid, entry in result["first"].items():
            mine = self.first.get(pid)
            if mine is None or (entry["n"], *_first_key(entry)) < (mine["n"], *_first_key(mine)):
                self.first[pid] = entry


def _atomic_write_json(path: Path, data: Any) -> None:
    atomic_write(path, json.dumps(data))


def _load_slice(path: Path, task: SliceTask, print_: str) -> dict[str, Any] | None:
    """The slice saved in ``path``, or None when it must be computed again: unreadable, or
    not of the shape :func:`census_slice` writes (a hand edit, a disk fault)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    if data.get("fingerprint") != print_:
        raise CheckpointError(
            f"{path} belongs to another enumeration (different problems); use another "
            f"checkpoint directory"
        )
    result = data.get("result")
    if not _is_slice(result) or (result["n"], result["res"], result["mod"]) != (
        task.n,
        task.res,
        task.mod,
    ):
        return None
    return result


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_slice(result: Any) -> TypeGuard[dict[str, Any]]:
    """Whether ``result`` has the shape of a :func:`census_slice` result (what merging reads)."""
    if not isinstance(result, dict) or not all(
        _is_count(result.get(k)) for k in ("n", "res", "mod", "graphs")
    ):
        return False
    rows, first = result.get("by_edges"), result.get("first")
    if not isinstance(rows, dict) or not isinstance(first, dict):
        return False
    for m, row in rows.items():
        if not m.isdigit() or not isinstance(row, dict) or not _is_count(row.get("graphs")):
            return False
        for key in ("good", "solved"):
            counts = row.get(key)
            if not isinstance(counts, dict) or not all(map(_is_count, counts.values())):
                return False
    return all(
        isinstance(e, dict)
        and _is_count(e.get("n"))
        and _is_count(e.get("m"))
        and isinstance(e.get("graph6"), str)
        for e in first.values()
    )


def run_census(
    problems: Iterable[Problem],
    vertex_counts: Iterable[int],
    *,
    mod: int = 8,
    checkpoint_dir: str | Path | None = None,
    executor: Executor | None = None,
    connected: bool = False,
    slice_fn: Callable[[SliceTask], dict[str, Any]] = census_slice,
    on_slice: Callable[[SliceTask, bool], None] | None = None,
) -> CensusResult:
    """Scan every graph on each vertex count in ``mod`` slices per count, in parallel, resumably.

    ``on_slice(task, computed)`` is called once per slice (``computed`` False when loaded from
    a checkpoint).  ``slice_fn`` replaces the scan (tests use it to kill a worker).
    """
    records = [problem_record(p) for p in problems]
    if not records:
        raise RamseyGadgetsError("the census needs at least one problem")
    if mod < 1:
        raise RamseyGadgetsError(f"the number of slices must be positive, got {mod}")
    print_ = fingerprint(records, connected)
    encoded = tuple(json.dumps(r, sort_keys=True) for r in records)
    tasks = [
        SliceTask(n, res, mod, encoded, connected) for n in vertex_counts for res in range(mod)
    ]
    out = CensusResult()
    directory = Path(checkpoint_dir) if checkpoint_dir is not None else None
    todo: list[SliceTask] = []
    if directory is not None:
        directory.mkdir(parents=True, exist_ok=True)
        for task in tasks:
            path = directory / f"{task.name}.json"
            result = _load_slice(path, task, print_) if path.exists() else None
            if result is None:
                todo.append(task)
                continue
            out.merge(result)
            out.loaded.append(task.name)
            if on_slice is not None:
                on_slice(task, False)
    else:
        todo = tasks
    executor = executor or LocalExecutor(1)
    for index, result in executor.run(slice_fn, todo):
        task = todo[index]
        if directory is not None:
            _atomic_write_json(
                directory / f"{task.name}.json", {"fingerprint": print_, "result": result}
            )
        out.merge(result)
        out.computed.append(task.name)
        if on_slice is not None:
            on_slice(task, True)
    return out
