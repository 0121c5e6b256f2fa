"""Which problems an evaluation runs: a named set (``--set``: ``paper``, the 70-problem catalog,
the default; ``extended``, :mod:`ramseygadgets.extended`) or a problem-set file (``--dataset``),
optionally filtered, with each problem's known minimal solution.

A problem-set file is JSON Lines (or a JSON list, or ``{"problems": [...]}``) of records with
``F``, ``H``, ``gadget`` (or, for any number of colours, ``colors`` — one forbidden pattern per
colour, e.g. ``["P3", "P3", "C4"]`` — and ``gadget`` such as ``green-determiner``: the records
of :meth:`~ramseygadgets.catalog.Problem.to_json` and of ``generate``'s ``multicolor.jsonl``)
and optionally ``id``, ``min_vertices`` and a minimal solution given as
``solution: {"edges": ..., "e": ...}`` or as top-level ``edges``/``e``/``f``/``vertices``.
Records exported by ``ramseygadgets export`` (extra fields such as prompts) are accepted.
"""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from ramseygadgets.catalog import all_problems, find_problem, get_problem, in_catalog
from ramseygadgets.errors import RamseyGadgetsError
from ramseygadgets.extended import SIZE_TIERS, extended_problems, parse_size_tier
from ramseygadgets.files import JSONTooDeepError, parse_json, read_capped
from ramseygadgets.gadgets import Candidate
from ramseygadgets.problem import Problem
from ramseygadgets.solutions import load_solutions
from ramseygadgets.verify import verify

__all__ = [
    "MAX_PROBLEM_FILE_BYTES",
    "PROBLEM_SETS",
    "SIZE_TIERED_SETS",
    "GADGET_TIERS",
    "Optimum",
    "ProblemSetError",
    "ProblemSet",
    "merge_problem_sets",
    "named_problem_set",
    "check_set_name",
    "base_problem_set",
    "find_in_set",
    "with_extended_ids",
    "select_problems",
    "load_problem_file",
]


#: Largest problem-set file read (the size cap of graph input).
MAX_PROBLEM_FILE_BYTES = 32 * 2**20
#: The named problem sets (``--set``); the first is the default.
PROBLEM_SETS = ("paper", "extended")
#: The sets whose reports show accuracy by size tier (``fresh``: an ``eval --fresh`` run).
SIZE_TIERED_SETS = ("extended", "fresh")
#: The gadget tiers ``--tier`` accepts in every set (sets with size tiers accept those too).
GADGET_TIERS = ("easy", "hard")


class ProblemSetError(RamseyGadgetsError):
    """The problem selection or the problem-set file is unusable."""


@dataclass(frozen=True)
class Optimum:
    """A problem's proven minimum: fewest vertices, then fewest edges on that many vertices
    (``None`` where only the vertex count is proven minimal)."""

    vertices: int
    edges: int | None


@dataclass
class ProblemSet:
    """Problems in evaluation order with their minimal solutions where known.

    ``size_tiers``: problem id → tier by minimal size (``≤6`` .. ``≥11``), for sets that
    have them (``extended``).  ``proven``: the ids whose solution is *proven* minimal (fewest
    vertices, then fewest edges at that vertex count): every shipped catalog and extended
    solution, and a problem-set record with ``proven_minimal`` and ``lower_bound`` equal to its
    solution's size whose solution passes the verifier.  Only these give an :meth:`optimum`.
    ``edges_unproven``: those of ``proven`` whose vertex count is proven minimal but not their
    edge count (extended entries shown as "≤ m"): their optimum has no edge count.
    """

    problems: list[Problem]
    solutions: dict[str, Candidate] = field(default_factory=dict)
    source: str = "catalog"
    content_hash: str | None = None  # sha256 of a --dataset file
    size_tiers: dict[str, str] = field(default_factory=dict)
    proven: frozenset[str] = frozenset()
    edges_unproven: frozenset[str] = frozenset()

    @property
    def ids(self) -> list[str]:
        return [p.id for p in self.problems]

    @cached_property
    def by_id(self) -> dict[str, Problem]:
        """The problems by id (computed once: a set is not changed after it is built)."""
        return {p.id: p for p in self.problems}

    def get(self, problem_id: str) -> Problem:
        """The problem with this id; an unknown id names the set and the closest ids."""
        found = self.by_id.get(problem_id)
        if found is not None:
            return found
        close = difflib.get_close_matches(problem_id.strip().lower(), self.ids, n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise ProblemSetError(
            f"problem {problem_id!r} is not in the problem set {self.source}{hint}"
        )

    def solution(self, problem: Problem) -> Candidate | None:
        return self.solutions.get(problem.id)

    def min_vertices(self, problem: Problem) -> int | None:
        found = self.solution(problem)
        return found.graph.n if found is not None else None

    def optimum(self, problem: Problem) -> Optimum | None:
        """The proven minimal (vertices, edges) of ``problem``; ``None`` when not proven."""
        found = self.solution(problem)
        if found is None or problem.id not in self.proven:
            return None
        edges = None if problem.id in self.edges_unproven else found.graph.m
        return Optimum(found.graph.n, edges)

    def first(self, limit: int | None) -> ProblemSet:
        """The first ``limit`` problems (all of them for ``None``), as ``eval --limit`` runs."""
        if limit is None:
            return self
        return self.subset(self.problems[:limit])

    def subset(self, problems: list[Problem]) -> ProblemSet:
        """These problems of the set, with their solutions and tiers."""
        keep = {p.id for p in problems}
        return ProblemSet(
            problems,
            {pid: c for pid, c in self.solutions.items() if pid in keep},
            self.source,
            self.content_hash,
            {pid: t for pid, t in self.size_tiers.items() if pid in keep},
            self.proven & keep,
            self.edges_unproven & keep,
        )

    def size_range(self) -> tuple[int, int]:
        """Smallest and largest known minimal size (4..10 for the paper's dataset)."""
        sizes = [c.graph.n for c in self.solutions.values()]
        return (min(sizes), max(sizes)) if sizes else (4, 10)


def _catalog_solutions(problems: Iterable[Problem]) -> dict[str, Candidate]:
    """Shipped minimal solutions of those problems that are catalog problems."""
    shipped = load_solutions()
    found = {}
    for p in problems:
        if p.id in shipped and shipped[p.id].candidate is not None and in_catalog(p):
            found[p.id] = shipped[p.id].candidate
    return found


def named_problem_set(name: str = "paper") -> ProblemSet:
    """A named set: ``paper`` (the 70, with their shipped solutions) or ``extended``."""
    if check_set_name(name) == "extended":
        return extended_problem_set()
    solutions = _catalog_solutions(all_problems())
    return ProblemSet(list(all_problems()), solutions, proven=frozenset(solutions))


def extended_problem_set() -> ProblemSet:
    """The extended set (:mod:`ramseygadgets.extended`; two and three colours) with its
    minimal solutions and size tiers."""
    chosen = extended_problems()
    return ProblemSet(
        [p.problem for p in chosen],
        {p.id: p.candidate for p in chosen},
        source="extended",
        size_tiers={p.id: p.size_tier for p in chosen},
        proven=frozenset(p.id for p in chosen),
        edges_unproven=frozenset(p.id for p in chosen if not p.edges_minimal),
    )


def check_set_name(name: str) -> str:
    if name not in PROBLEM_SETS:
        raise ProblemSetError(
            f"unknown problem set {name!r}; choose from {', '.join(PROBLEM_SETS)}"
        )
    return name


def base_problem_set(dataset: str | Path | None = None, set_name: str | None = None) -> ProblemSet:
    """The problem-set file ``dataset`` or the named set (default ``paper``); not both."""
    if dataset is not None and set_name is not None:
        raise ProblemSetError(
            f"give either --set or --dataset, not both (--set {set_name}, --dataset {dataset})"
        )
    return (
        load_problem_file(dataset)
        if dataset is not None
        else named_problem_set(set_name or "paper")
    )


def find_in_set(base: ProblemSet, problem_id: str) -> Problem:
    """A problem of ``base`` by id; the paper's set also takes titles and suggests close ids."""
    if base.source == "catalog":
        try:
            return base.get(problem_id.strip())
        except ProblemSetError:
            return get_problem(problem_id)
    try:
        return base.get(problem_id.strip())
    except ProblemSetError as exc:
        paper = find_problem(problem_id)
        if paper is None:
            raise
        raise ProblemSetError(f"{exc} ({paper.id} is one of the paper's 70: --set paper)") from None


def select_problems(
    ids: Iterable[str] | None = None,
    tier: str | None = None,
    dataset: str | Path | None = None,
    set_name: str | None = None,
) -> ProblemSet:
    """A named set (default ``paper``) or a ``dataset`` file, restricted to ``ids`` and/or a
    ``tier`` (``easy``/``hard``, or a size tier such as ``9-10`` in a set that has them)."""
    base = base_problem_set(dataset, set_name)
    if ids and base.source == "catalog":
        base = with_extended_ids(base, ids)
    problems = base.problems
    if ids:
        wanted = [find_in_set(base, raw) for raw in ids]
        problems = list({p.id: p for p in wanted}.values())  # first occurrence order
    if tier is not None:
        problems = _in_tier(base, problems, tier)
    if not problems:
        raise ProblemSetError("no problems selected")
    return base.subset(problems)


def merge_problem_sets(sets: Sequence[ProblemSet]) -> ProblemSet:
    """One set with the problems of ``sets`` in order (the first of equal ids wins), their
    solutions and size tiers; the source is the first set's."""
    problems: dict[str, Problem] = {}
    solutions: dict[str, Candidate] = {}
    tiers: dict[str, str] = {}
    proven: set[str] = set()
    edges_unproven: set[str] = set()
    for s in sets:
        for p in s.problems:
            if p.id not in problems:
                problems[p.id] = p
                if (found := s.solution(p)) is not None:
                    solutions[p.id] = found
                if p.id in s.size_tiers:
                    tiers[p.id] = s.size_tiers[p.id]
                if p.id in s.proven:
                    proven.add(p.id)
                if p.id in s.edges_unproven:
                    edges_unproven.add(p.id)
    first = sets[0]
    return ProblemSet(
        list(problems.values()),
        solutions,
        first.source,
        first.content_hash,
        tiers,
        frozenset(proven),
        frozenset(edges_unproven),
    )


def with_extended_ids(base: ProblemSet, ids: Iterable[str]) -> ProblemSet:
    """The paper's set plus the problems of the extended set that ``ids`` name by id (an extended
    id used without ``--set extended``), with their minimal solutions and size tiers."""
    wanted = {raw.strip().lower() for raw in ids} - set(base.ids)
    wanted = {pid for pid in wanted if find_problem(pid) is None}
    if not wanted:
        return base
    extended = extended_problem_set()
    found = [p for p in extended.problems if p.id in wanted]
    if not found:
        return base
    return merge_problem_sets([base, extended.subset(found)])


def _in_tier(base: ProblemSet, problems: list[Problem], tier: str) -> list[Problem]:
    if tier in GADGET_TIERS:
        return [p for p in problems if p.tier == tier]
    size_tiers = [t for t in SIZE_TIERS if t in base.size_tiers.values()]
    if parse_size_tier(tier) in size_tiers:
        return [p for p in problems if base.size_tiers.get(p.id) == parse_size_tier(tier)]
    choices = ", ".join(GADGET_TIERS[:-1]) + f" or {GADGET_TIERS[-1]}"
    if size_tiers:
        choices = f"{', '.join(GADGET_TIERS)} or a size tier ({', '.join(size_tiers)})"
    raise ProblemSetError(f"--tier must be {choices}, got {tier!r}")


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
    proven: set[str] = set()
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
        if solution is None and (shipped := _catalog_solutions([problem]).get(problem.id)):
            solution = shipped  # a catalog problem: its shipped, proven solution
            proven.add(problem.id)
        elif solution is not None and _claims_proof(record, solution):
            _check_proven(problem, solution, path, index)
            proven.add(problem.id)
        if solution is not None:
            solutions[problem.id] = solution
    if not problems:
        raise ProblemSetError(f"problem set {path} holds no problems")
    digest = hashlib.sha256(raw).hexdigest()
    return ProblemSet(problems, solutions, str(path), digest, proven=frozenset(proven))


def _claims_proof(record: dict[str, Any], solution: Candidate) -> bool:
    """Whether a record claims its solution is proven minimal: ``proven_minimal`` true and
    ``lower_bound`` (no solution on fewer vertices) equal to the solution's vertex count."""
    bound = record.get("lower_bound")
    return record.get("proven_minimal") is True and bound == solution.graph.n


def _check_proven(problem: Problem, solution: Candidate, path: Path, index: int) -> None:
    """A solution claimed proven minimal must at least be a solution (never trusted unread)."""
    verdict = verify(problem, solution)
    if not verdict.correct:
        raise ProblemSetError(
            f"{path} record {index}: its solution, claimed proven minimal, is not a "
            f"{problem.title}: {verdict.reason}"
        )


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
        return Candidate.from_json(data, problem.kind, max_vertices=None)
    except (RamseyGadgetsError, ValueError) as exc:
        raise ProblemSetError(f"{path} record {index}: unusable solution: {exc}") from None
