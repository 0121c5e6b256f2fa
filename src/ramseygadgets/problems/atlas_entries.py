"""Atlas entries: per problem the strongest facts known, each with its provenance.

An entry holds up to three facts, each proven on its own and kept with where it came from
(engine, method, seconds, budget):

* ``solution``: a verified solution on n vertices with m edges (``edges_minimal``: proven that
  no solution on n vertices has fewer edges, ``edges_proof`` its statement; ``edges_cubes``,
  where a cube log proved it: the cubes of "none on n vertices with at most m − 1 edges",
  re-derived wherever it is read);
* ``lower_bound``: ``n`` such that no solution has fewer than n vertices (solutions are monotone
  in the vertex count, so UNSAT at n − 1 proves it), with the levels the prover enumerated;
* ``cross_check``: the exhaustive nauty scan's least (n, m) for this problem.

Facts from different runs combine soundly, so merging keeps the best of each: the solution with
fewest vertices (then fewest edges, then edge-minimal: fewer edges refute a claimed edge
minimality), the largest lower bound; a cross-check
only while it concerns the current solution.  An entry is *minimal* when its solution's n equals
its lower bound; a solution below the lower bound is a contradiction between provers and is an
error.  A rerun therefore only improves entries.
"""

from __future__ import annotations

import hashlib
import json
import re
import warnings
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.infra import numbers
from ramseygadgets.infra.files import atomic_write
from ramseygadgets.problems.catalog import Problem

__all__ = [
    "ATLAS_FILE",
    "shipped_sha256",
    "Status",
    "AtlasError",
    "Entry",
    "Atlas",
    "load_atlas",
    "check_fact",
    "rerun_count",
]


ATLAS_FILE = "atlas.json"
Status = Literal["minimal", "open", "impossible"]


class AtlasError(RamseyGadgetsError):
    """An atlas file is unusable, or two provers contradict each other."""


@dataclass
class Entry:
    """One problem of the atlas and the strongest facts known about it."""

    id: str
    section: str
    F: str
    H: str
    gadget: str
    title: str
    swap: str | None
    impossible: str | None = None
    solution: dict[str, Any] | None = None
    lower_bound: dict[str, Any] = field(default_factory=dict)
    cross_check: dict[str, Any] | None = None

    @property
    def problem(self) -> Problem:
        return Problem.make(self.F, self.H, self.gadget)

    @property
    def bound(self) -> int:
        """No solution has fewer vertices than this (proven)."""
        return int(self.lower_bound.get("n", 0))

    @property
    def status(self) -> Status:
        if self.impossible:
            return "impossible"
        if self.solution is not None and self.solution["n"] == self.bound:
            return "minimal"
        return "open"

    @property
    def n(self) -> int | None:
        return self.solution["n"] if self.solution else None

    def candidate(self) -> Candidate:
        """The solution as a candidate answer (only for entries with a solution)."""
        assert self.solution is not None
        return Candidate.from_json(self.solution, self.problem.gadget, max_vertices=None)

    def add_solution(self, solution: dict[str, Any]) -> None:
        """Keep the better of the known and the new solution (fewest n, fewest m, edge-minimal)."""
        if self.solution is None or _solution_key(solution) < _solution_key(self.solution):
            self.solution = solution
            if self.cross_check and not _concerns(self.cross_check, solution):
                self.cross_check = None
        self._check_consistent()

    def add_edge_proof(self, proof: dict[str, Any]) -> None:
        """Mark the solution edge-minimal by ``proof`` of "none on n vertices with at most
        m − 1 edges" (its ``n`` and ``max_edges``; ``atlas adopt``); nothing changes when the
        solution is edge-minimal already — unless both are cube-log proofs of the same cap and
        the new one has more cubes re-run — and a proof about other sizes is an error."""
        s = self.solution
        if s is not None and s.get("edges_minimal") and not _more_reruns(proof, s):
            return
        if s is None or (proof["n"], proof["max_edges"] + 1) != (s["n"], s["m"]):
            sizes = f"({s['n']}, {s['m']})" if s is not None else "none"
            raise AtlasError(
                f"{self.title}: a proof of none on {proof['n']} vertices with at most "
                f"{proof['max_edges']} edges says nothing of the solution's (n, m) = {sizes}"
            )
        self.solution = {
            **s,
            "edges_minimal": True,
            "edges_proof": proof["proof"],
            "edges_cubes": proof,
        }

    def add_lower_bound(self, bound: dict[str, Any]) -> None:
        """Keep the larger of the known and the new lower bound; of two equal ones resting on
        cube logs, the one with more cubes re-run (``atlas adopt``)."""
        if bound["n"] > self.bound or (
            bound["n"] == self.bound
            and "cubes" in self.lower_bound
            and rerun_count(bound) > rerun_count(self.lower_bound)
        ):
            self.lower_bound = bound
        self._check_consistent()

    def add_cross_check(self, check: dict[str, Any]) -> None:
        """Record an exhaustive scan of the current solution (a disagreement is kept too, and
        shown: :attr:`disagreement`)."""
        if self.solution is not None and _concerns(check, self.solution):
            if self.cross_check is None or self.cross_check["agree"]:
                self.cross_check = check

    @property
    def disagreement(self) -> str | None:
        """How the exhaustive scan contradicts the search, if it does."""
        check = self.cross_check
        if check is None or check["agree"]:
            return None
        return (
            f"{self.title}: the exhaustive scan finds (n, m) = {check['census']}, the search "
            f"({check['n']}, {check['m']})"
        )

    def _check_consistent(self) -> None:
        if self.solution is not None and self.solution["n"] < self.bound:
            raise AtlasError(
                f"{self.title}: a solution on {self.solution['n']} vertices contradicts the proof "
                f"that none has fewer than {self.bound} ({self.lower_bound.get('engine')})"
            )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "section": self.section,
            "title": self.title,
            "F": self.F,
            "H": self.H,
            "gadget": self.gadget,
            "swap": self.swap,
            "status": self.status,
            "n": self.n,
            "m": self.solution["m"] if self.solution else None,
            "no_solution_up_to": self.bound - 1 if self.bound else None,
        }
        if self.impossible:
            out["impossible"] = self.impossible
        out.update(
            {
                "solution": self.solution,
                "lower_bound": self.lower_bound,
                "cross_check": self.cross_check,
            }
        )
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Entry:
        if not isinstance(data, dict):
            raise AtlasError(f"unusable atlas entry: not a JSON object ({type(data).__name__})")
        for kind in ("solution", "lower_bound", "cross_check"):
            try:
                check_fact(kind, data.get(kind))
            except ValueError as exc:
                raise AtlasError(f"unusable atlas entry {data.get('id', '?')}: {exc}") from None
        try:
            return cls(
                id=data["id"],
                section=data["section"],
                F=data["F"],
                H=data["H"],
                gadget=data["gadget"],
                title=data["title"],
                swap=data.get("swap"),
                impossible=data.get("impossible"),
                solution=data.get("solution"),
                lower_bound=data.get("lower_bound") or {},
                cross_check=data.get("cross_check"),
            )
        except (KeyError, TypeError) as exc:
            raise AtlasError(f"unusable atlas entry {data.get('id', '?')}: missing {exc}") from None


_FIELDS = {
    "solution": ("n", "m"),
    "lower_bound": (),
    "cross_check": ("n", "m", "agree"),
}


def check_fact(kind: str, fact: Any) -> None:
    """Refuse (``ValueError``, naming the field) a fact whose fields merging relies on are
    missing or of the wrong type (``None``: no such fact)."""
    if fact is None or (kind == "lower_bound" and fact == {}):
        return
    if not isinstance(fact, dict):
        raise ValueError(f"{kind} is not a JSON object ({type(fact).__name__})")
    for name in (*_FIELDS[kind], *(("n",) if kind == "lower_bound" else ())):
        value = fact.get(name)
        wanted = bool if name == "agree" else int
        if value is None or type(value) is not wanted:
            raise ValueError(f"{kind} has no {wanted.__name__} field {name!r} (got {value!r})")


def _more_reruns(proof: dict[str, Any], solution: dict[str, Any]) -> bool:
    """Whether the cube-log edge proof ``proof`` re-ran more cubes than the one ``solution``
    rests on, for the same sizes."""
    old = solution.get("edges_cubes")
    if not isinstance(old, dict):
        return False
    if (old.get("n"), old.get("max_edges")) != (proof["n"], proof["max_edges"]):
        return False
    return rerun_count(proof) > rerun_count(old)


def rerun_count(bound: dict[str, Any]) -> int:
    """How many cubes of a cube-log bound were run again (0: none, or not a cube-log bound)."""
    rerun = bound.get("rerun") if "cubes" in bound else None
    count = rerun.get("rerun") if isinstance(rerun, dict) else 0
    return count if type(count) is int else 0


def _solution_key(solution: dict[str, Any]) -> tuple[int, int, bool]:
    """Fewest vertices, then fewest edges, then the edge-minimal one: a verified solution with
    fewer edges on as many vertices refutes another's "edges minimal" (issue 45: ``atlas adopt``
    kept a base atlas' false "18 edges, minimal" over a verified 17)."""
    return (solution["n"], solution["m"], not solution.get("edges_minimal", False))


def _concerns(check: dict[str, Any], solution: dict[str, Any]) -> bool:
    return (check["n"], check["m"]) == (solution["n"], solution["m"])


@dataclass
class Atlas:
    """All entries by problem id, in the atlas' order."""

    entries: dict[str, Entry] = field(default_factory=dict)
    not_asked: list[dict[str, str]] = field(default_factory=list)
    header: dict[str, Any] = field(default_factory=dict)

    def merge(self, other: Atlas) -> None:
        """Add every fact of ``other`` (entries unknown here are taken whole)."""
        for pid, theirs in other.entries.items():
            mine = self.entries.get(pid)
            if mine is None:
                self.entries[pid] = theirs
                continue
            if theirs.solution is not None:
                mine.add_solution(theirs.solution)
            if theirs.lower_bound:
                mine.add_lower_bound(theirs.lower_bound)
            if theirs.cross_check is not None:
                mine.add_cross_check(theirs.cross_check)

    def to_json(self) -> str:
        """The atlas file: the header, then one entry per line (diff-friendly)."""
        head = json.dumps({**self.header, "not_asked": self.not_asked}, indent=1, allow_nan=False)[
            :-2
        ]
        body = ",\n".join(
            "  " + json.dumps(e.to_json(), allow_nan=False) for e in self.entries.values()
        )
        return f'{head},\n "entries": [\n{body}\n ]\n}}\n'

    def write(self, path: str | Path) -> Path:
        return atomic_write(path, self.to_json())

    @classmethod
    def from_text(cls, text: str, where: str) -> Atlas:
        try:
            data = json.loads(text)
            _drop_hostile_seconds(data["entries"], text, where)
            entries = [Entry.from_json(e) for e in data["entries"]]
        except AtlasError as exc:
            raise AtlasError(f"{where}: {exc}") from None
        except (ValueError, KeyError, TypeError) as exc:
            raise AtlasError(f"{where} is not an atlas file: {exc}") from None
        header = {k: v for k, v in data.items() if k not in ("entries", "not_asked")}
        return cls({e.id: e for e in entries}, list(data.get("not_asked", [])), header)


#: The seconds an atlas entry records, by fact (:mod:`ramseygadgets.infra.numbers`).
ENTRY_NUMBERS = tuple(
    (f"{fact}.{name}", "seconds")
    for fact in ("solution", "lower_bound", "cross_check")
    for name in ("seconds", "budget.timeout")
) + (("lower_bound.rerun.cpu_seconds", "seconds"), ("solution.edges_cubes.seconds", "seconds"))


def _drop_hostile_seconds(entries: Any, text: str, where: str) -> None:
    """Remove every recorded number of seconds out of range (a NaN, 10^400) from the entries,
    each with a :class:`~ramseygadgets.infra.numbers.NumberWarning` naming ``file:line`` (the line of
    the entry's id) and the field: read as not recorded, never a traceback."""
    if not isinstance(entries, list):
        return
    lines: dict[str, int] = {}  # the line of each entry's id (the last: entries follow the header)
    for number, line in enumerate(text.splitlines(), 1):
        for m in _ID.finditer(line):
            lines[m.group(1)] = number
    for entry in entries:
        if isinstance(entry, dict):
            at = f"{where}:{lines.get(str(entry.get('id')), '?')}"
            for problem in numbers.drop_hostile(entry, ENTRY_NUMBERS, at):
                warnings.warn(problem, numbers.NumberWarning, stacklevel=4)


_ID = re.compile(r'"id":\s*"([^"\\]*)"')


def load_atlas(source: str | Path | None = None) -> Atlas:
    """An atlas file (``None``: the one shipped in the package; empty if it is absent)."""
    if source is None:
        return _shipped()
    path = Path(source)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AtlasError(f"cannot read the atlas {source}: {exc}") from None
    return Atlas.from_text(text, str(source))


@lru_cache(maxsize=1)
def _shipped_text() -> str | None:
    try:
        return resources.files("ramseygadgets.data").joinpath(ATLAS_FILE).read_text("utf-8")
    except (FileNotFoundError, ModuleNotFoundError):
        return None


def shipped_sha256() -> str | None:
    """The SHA-256 of the shipped atlas file's text (``None``: none is shipped)."""
    text = _shipped_text()
    return None if text is None else hashlib.sha256(text.encode("utf-8")).hexdigest()


def _shipped() -> Atlas:
    text = _shipped_text()
    return Atlas() if text is None else Atlas.from_text(text, f"data/{ATLAS_FILE}")
