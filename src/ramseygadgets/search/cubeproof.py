"""What a cube log proves, as a self-contained fact that anyone can check again.

A :class:`CubeProof` of "no solution on n vertices" is the set of cubes (prefixes of the
symmetry-broken adjacency of one layout, :mod:`.cubes`) that one engine decided UNSAT on level
n.  It proves the level none when, for every layout L of level n,

    covered(L) :⇔ every prefix p is decided, refuted by unit propagation on L's static
                  clauses, or both p·1 and p·0 are covered (from the empty prefix),

with that engine's refuter (:func:`.cubes.covered`): the cubes and the refuted prefixes then
contain every graph the level's search would have to consider.  The cubes must come from one
engine, because the two engines' symmetry breaking keeps different representatives.  None on
n proves none on fewer vertices (add an isolated vertex to a solution).

Nothing here trusts the log: :meth:`CubeProof.check` re-derives the coverage (about a second
for a level of 100 cubes), so a proof is checked wherever it is read — ``solve
--assume-none-below``, ``atlas adopt``, ``atlas table``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

from ramseygadgets.catalog import Problem
from ramseygadgets.gadgets import Candidate
from ramseygadgets.graphs import Graph
from ramseygadgets.search.cegar import ENGINES
from ramseygadgets.search.cubelog import CUBES_FILE, read_log
from ramseygadgets.search.cubes import Refuter, covered
from ramseygadgets.search.solve import SearchError
from ramseygadgets.search.spec import layouts

__all__ = [
    "CubeProof",
    "check_none_below",
    "is_found",
    "layout_covered",
    "log_path",
    "logged_candidate",
    "none_cubes",
]

#: The engines that decide cubes (``auto`` is resolved to one of them before any cube runs).
RUNNING_ENGINES = tuple(e for e in ENGINES if e != "auto")
#: The largest level a proof may speak of: far beyond any search (each vertex costs 10–40×
#: more), small enough that re-deriving a forged proof's coverage stays quick.
MAX_PROOF_VERTICES = 20


@dataclass(frozen=True)
class CubeProof:
    """The UNSAT cubes of one engine on level ``n`` of ``problem``, by layout name."""

    problem: Problem
    n: int
    engine: str
    decided: dict[str, frozenset[str]]
    cpu_seconds: float = 0.0

    @property
    def cubes(self) -> int:
        return sum(map(len, self.decided.values()))

    def uncovered_layouts(self) -> list[str]:
        """The layouts of level n these cubes leave (partly) open (empty: the level is none)."""
        decided = {name: set(bits) for name, bits in self.decided.items()}
        return [
            lay.name
            for i, lay in enumerate(layouts(self.problem.gadget, self.n))
            if not layout_covered(self.problem, self.n, self.engine, i, decided)
        ]

    def check(self) -> str:
        """The statement "none on n vertices" re-derived, or :class:`SearchError` naming the
        layouts left open."""
        if self.engine not in RUNNING_ENGINES:
            raise SearchError(f"a cube proof by an unknown engine {self.engine!r}")
        open_layouts = self.uncovered_layouts()
        if open_layouts:
            raise SearchError(
                f"the {self.cubes} UNSAT cubes ({self.engine} engine) do not cover level "
                f"{self.n} of {self.problem.title} (open layouts: {', '.join(open_layouts)})"
            )
        return (
            f"none on {self.n} vertices ({self.cubes} UNSAT cubes, {self.engine} engine, "
            f"coverage re-derived)"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "engine": self.engine,
            "cubes": {name: sorted(bits) for name, bits in sorted(self.decided.items())},
        }

    @classmethod
    def from_json(cls, problem: Problem, data: Any) -> CubeProof:
        """The proof a :meth:`to_json` record holds (``ValueError`` naming what is malformed)."""
        if not isinstance(data, dict):
            raise ValueError(f"a cube proof is a JSON object, not {type(data).__name__}")
        n, engine, cubes = data.get("n"), data.get("engine"), data.get("cubes")
        if not (_is_level(n) and isinstance(engine, str) and isinstance(cubes, dict)):
            raise ValueError(
                f"a cube proof needs a level n in 1..{MAX_PROOF_VERTICES}, an engine and cubes "
                "by layout"
            )
        decided = {}
        for name, bits in cubes.items():
            if not isinstance(bits, list) or not all(_is_bits(b, n) for b in bits):
                raise ValueError(
                    f"the cubes of layout {name!r} are not bit strings of at most one bit per "
                    f"pair of {n} vertices"
                )
            decided[str(name)] = frozenset(bits)
        return cls(problem, n, engine, decided)

    @classmethod
    def from_records(cls, records: Iterable[dict[str, Any]], problem: Problem) -> list[CubeProof]:
        """One proof attempt per (level, engine) of ``problem``'s cubes decided none (checked
        by nobody yet: call :meth:`check`)."""
        mine = [r for r in records if r.get("problem_id") == problem.id and _is_cube(r)]
        seconds: dict[tuple[int, str], float] = {}
        for r in mine:
            key = (r["n"], str(r.get("engine")))
            cpu = r.get("cpu_seconds")
            seconds[key] = seconds.get(key, 0.0) + (cpu if isinstance(cpu, (int, float)) else 0.0)
        return [
            cls(problem, n, engine, {k: frozenset(v) for k, v in cubes.items()}, seconds[n, engine])
            for (n, engine), cubes in sorted(none_cubes(mine).items())
        ]


def _is_cube(record: dict[str, Any]) -> bool:
    """A well-formed cube record (a malformed one proves nothing and is passed over)."""
    n = record.get("n")
    return (
        record.get("kind") == "cube"
        and _is_level(n)
        and isinstance(record.get("layout"), str)
        and _is_bits(record.get("bits"), n)
    )


def _is_level(n: Any) -> TypeGuard[int]:
    return type(n) is int and 1 <= n <= MAX_PROOF_VERTICES


def _is_bits(bits: Any, n: int) -> bool:
    """A cube: one bit per fixed vertex pair, at most one per pair of the n vertices."""
    return isinstance(bits, str) and set(bits) <= {"0", "1"} and len(bits) <= n * (n - 1) // 2


def none_cubes(records: Iterable[dict[str, Any]]) -> dict[tuple[int, str], dict[str, set[str]]]:
    """The cubes decided none among cube records: {(n, engine): {layout name: bit strings}}."""
    out: dict[tuple[int, str], dict[str, set[str]]] = {}
    for r in records:
        if _is_cube(r) and r.get("outcome") == "none" and r.get("engine") in RUNNING_ENGINES:
            by_layout = out.setdefault((r["n"], r["engine"]), {})
            by_layout.setdefault(r["layout"], set()).add(r["bits"])
    return out


def layout_covered(
    problem: Problem, n: int, engine: str, layout: int, decided: dict[str, set[str]]
) -> bool:
    """Whether the cubes ``decided`` (by layout name) of one engine and the prefixes that
    engine's refuter refutes cover layout ``layout`` of level n (:func:`.cubes.covered`): that
    layout then holds no solution on n vertices."""
    lay = layouts(problem.gadget, n)[layout]
    refuter = Refuter(problem, n, lay, engine)
    try:
        return covered(refuter, decided.get(lay.name, set()))
    finally:
        refuter.close()


def logged_candidate(problem: Problem, record: dict[str, Any]) -> Candidate:
    """The solution a found cube record holds (its graph and its layout's designated items),
    not yet verified (``ValueError``/``KeyError``: the record is malformed)."""
    n = record.get("n")
    if not _is_level(n):
        raise ValueError(f"a solution record needs a vertex count in 1..{MAX_PROOF_VERTICES}")
    layout = next((lay for lay in layouts(problem.gadget, n) if lay.name == record["layout"]), None)
    if layout is None:
        raise ValueError(f"no layout {record['layout']!r} of {problem.title} on {n} vertices")
    graph = Graph(n, tuple((int(u), int(v)) for u, v in record["edges"]))
    return Candidate(graph, layout.designated)


def log_path(path: str | Path) -> Path:
    """The log file of ``path`` (a file, or a directory holding ``cubes.jsonl``)."""
    path = Path(path)
    return path / CUBES_FILE if path.is_dir() else path


def check_none_below(path: str | Path, problem: Problem, n: int) -> str:
    """Check that the cube log ``path`` (a file, or a directory holding ``cubes.jsonl``) proves
    "no solution on ``n`` vertices" for ``problem``; the statement, or :class:`SearchError`.

    The UNSAT cubes of each engine are checked apart, with that engine's refuter: a level is
    proven only by cubes that all searched under the same symmetry breaking."""
    path = log_path(path)
    if not path.is_file():
        raise SearchError(f"--assume-none-below: {path} is not a cube log (no such file)")
    records = read_log(path)
    if any(is_found(r, problem.id) and r.get("n") == n for r in records):
        raise SearchError(f"{path} records a solution of {problem.title} on {n} vertices")
    for proof in CubeProof.from_records(records, problem):
        if proof.n == n and not proof.uncovered_layouts():
            return (
                f"none on {n} vertices by the checked cube log {path} ({proof.cubes} UNSAT "
                f"cubes, {proof.engine} engine, coverage re-derived)"
            )
    raise SearchError(
        f"--assume-none-below: {path} does not prove that {problem.title} has no solution on {n} "
        f"vertices (its UNSAT cubes of that level do not cover it; run that level first)"
    )


def is_found(record: dict[str, Any], problem_id: str) -> bool:
    """Whether ``record`` is a cube of problem ``problem_id`` that found a solution."""
    return (
        record.get("kind") == "cube"
        and record.get("problem_id") == problem_id
        and record.get("outcome") == "found"
    )
