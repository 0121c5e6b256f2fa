"""Which problems an evaluation runs: the 70-problem catalog (optionally filtered) or a
problem-set file (``--dataset``), with each problem's known minimal solution.

A problem-set file is JSON Lines (or a JSON list, or ``{"problems": [...]}``) of records with
``F``, ``H``, ``gadget`` (or, for any number of colours, ``colors`` — one forbidden pattern per
colour, e.g. ``["P3", "P3", "C4"]`` — and ``gadget`` such as ``green-determiner``: the records
of :meth:`~ramseygadgets.catalog.Problem.to_json` and of ``generate``'s ``multicolor.jsonl``)
and optionally ``id``, ``min_vertices`` and a minimal solution given as
``solution: {"edges": ..., "e": ...}`` or as top-level ``edges``/``e``/``f``/``vertices``.
Records exported by ``ramseygadgets export`` (extra fields such as prompts) are accepted.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ramseygadgets.catalog import Problem, all_problems, get_problem, in_catalog
from ramseygadgets.errors import RamseyGadgetsError
from ramseygadgets.files import read_capped
from ramseygadgets.gadgets import Candidate
from ramseygadgets.harness.records import JSONTooDeepError, parse_json

#: Largest problem-set file read (the size cap of graph input).
MAX_PROBLEM_FILE_BYTES = 32 * 2**20


class ProblemSetError(RamseyGadgetsError):
    """The problem selection or the problem-set file is unusable."""


@dataclass
class ProblemSet:
    """Problems in evaluation order with their minimal solutions where known."""

    problems: list[Problem]
    solutions: dict[str, Candidate] = field(default_factory=dict)
    source: str = "catalog"
    content_hash: str | None = None  # sha256 of a --dataset file

    @property
    def ids(self) -> list[str]:
        return [p.id for p in self.problems]

    def get(self, problem_id: str) -> Problem:
        for p in self.problems:
            if p.id == problem_id:
                return p
        raise ProblemSetError(f"problem {problem_id!r} is not in this problem set")

    def solution(self, problem: Problem) -> Candidate | None:
        return self.solutions.get(problem.id)

    def min_vertices(self, problem: Problem) -> int | None:
        found = self.solution(problem)
        return found.graph.n if found is not None else None

    def first(self, limit: int | None) -> ProblemSet:
        """The first ``limit`` problems (all of them for ``None``), as ``eval --limit`` runs."""
        if limit is None:
            return self
        kept = self.problems[:limit]
        solutions = {p.id: self.solutions[p.id] for p in kept if p.id in self.solutions}
        return ProblemSet(kept, solutions, self.source, self.content_hash)

    def size_range(self) -> tuple[int, int]:
        """Smallest and largest known minimal size (4..10 for the paper's dataset)."""
        sizes = [c.graph.n for c in self.solutions.values()]
        return (min(sizes), max(sizes)) if sizes else (4, 10)


def _catalog_solutions(problems: Iterable[Problem]) -> dict[str, Candidate]:
    """Shipped minimal solutions of those problems that are catalog problems."""
    from ramseygadgets.solutions import load_solutions

    shipped = load_solutions()
    found = {}
    for p in problems:
        if p.id in shipped and shipped[p.id].candidate is not None and in_catalog(p):
            found[p.id] = shipped[p.id].candidate
    return found


def select_problems(
    ids: Iterable[str] | None = None, tier: str | None = None, dataset: str | Path | None = None
) -> ProblemSet:
    """The catalog (or a ``dataset`` file), restricted to ``ids`` and/or a ``tier``."""
    base = (
        load_problem_file(dataset)
        if dataset is not None
        else ProblemSet(list(all_problems()), _catalog_solutions(all_problems()))
    )
    problems = base.problems
    if ids:
        wanted = []
        for raw in ids:
            if dataset is None:
                wanted.append(get_problem(raw))
            else:
                wanted.append(base.get(raw.strip()))
        problems = list({p.id: p for p in wanted}.values())  # first occurrence order
    if tier is not None:
        if tier not in ("easy", "hard"):
            raise ProblemSetError(f"--tier must be easy or hard, got {tier!r}")
        problems = [p for p in problems if p.tier == tier]
    if not problems:
        raise ProblemSetError("no problems selected")
    solutions = {p.id: base.solutions[p.id] for p in problems if p.id in base.solutions}
    return ProblemSet(problems, solutions, base.source, base.content_hash)


def _records(text: str, path: Path) -> list[dict[str, Any]]:
    stripped = text.lstrip()
    if stripped.startswith("[") or stripped.startswith("{") and "\n{" not in stripped.strip():
        try:
            data = parse_json(text)
        except JSONTooDeepError as exc:
            raise ProblemSetError(f"{path}: {exc}") from None
        except ValueError:
            data = None
        if isinstance(data, dict):
            data = data.get("problems")
        if isinstance(data, list):
            return data
    records = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append(parse_json(line))
        except ValueError as exc:
            reason = exc if isinstance(exc, JSONTooDeepError) else "not valid JSON"
            raise ProblemSetError(f"{path} line {number}: {reason}") from None
    return records


def load_problem_file(path: str | Path) -> ProblemSet:
    """Problems (and minimal solutions) from a problem-set file; see the module docstring."""
    path = Path(path)
    raw = read_capped(path, MAX_PROBLEM_FILE_BYTES, "problem set", ProblemSetError)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ProblemSetError(f"problem set {path} is not UTF-8 text") from None
    problems: list[Problem] = []
    solutions: dict[str, Candidate] = {}
    seen: set[str] = set()
    for index, record in enumerate(_records(text, path), 1):
        if not isinstance(record, dict):
            raise ProblemSetError(f"{path} record {index} is not a JSON object")
        problem = _problem_of(record, path, index)
        if problem.id in seen:
            continue
        seen.add(problem.id)
        problems.append(problem)
        solution = _solution_of(record, problem, path, index)
        if solution is None:
            solution = _catalog_solutions([problem]).get(
                problem.id
            )  # a catalog problem: its shipped solution
        if solution is not None:
            solutions[problem.id] = solution
    if not problems:
        raise ProblemSetError(f"problem set {path} holds no problems")
    return ProblemSet(problems, solutions, str(path), hashlib.sha256(raw).hexdigest())


def _problem_of(record: dict[str, Any], path: Path, index: int) -> Problem:
    try:
        if "gadget" in record and ("colors" in record or "F" in record and "H" in record):
            return Problem.from_json(record)
        if "id" in record or "problem_id" in record:
            return get_problem(str(record.get("id") or record.get("problem_id")))
    except (RamseyGadgetsError, ValueError) as exc:
        raise ProblemSetError(f"{path} record {index}: {exc}") from None
    raise ProblemSetError(
        f"{path} record {index} needs F, H and gadget, or colors and gadget (or a catalog id)"
    )


def _solution_of(
    record: dict[str, Any], problem: Problem, path: Path, index: int
) -> Candidate | None:
    data = record.get("solution")
    if data is None and "edges" in record:
        data = record
    if data is None:
        return None
    try:
        return Candidate.from_json(data, problem.gadget, max_vertices=None)
    except (RamseyGadgetsError, ValueError) as exc:
        raise ProblemSetError(f"{path} record {index}: unusable solution: {exc}") from None
