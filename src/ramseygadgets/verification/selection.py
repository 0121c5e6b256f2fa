"""Which problems an evaluation runs: a named set (``--set``: ``paper``, the 70-problem catalog,
the default; ``extended``, :mod:`ramseygadgets.problems.extended`) or a problem-set file (``--dataset``),
optionally filtered, with each problem's known minimal solution and its *proven* optimum.

A problem-set file (formats: :mod:`ramseygadgets.verification.problemfile`) is trusted only as far as it
proves (:func:`load_selection`):

* every solution it gives must pass the exact verifier, or the file is refused;
* a problem that has a shipped proof (the paper's 70, the extended set, the atlas; matched up to
  isomorphism of the patterns and renaming the colours, :mod:`ramseygadgets.problems.leakage`) keeps it,
  whatever the file says; a record that contradicts it (a solution below the proven bound, a
  claimed minimal solution larger than the shipped one, a claimed lower bound above it) is
  refused in one line naming the record (``file:line``);
* any other problem's optimum is proven only when its row's claim counts under the rule
  ``train-data --from`` applies (:func:`ramseygadgets.verification.proofs.proof_problem`; backed by the set's
  ``results.jsonl`` where it has one); otherwise its solution is only the best known one, with
  no ``minimal``/excess grade and no ``contradicts-proof``.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.problems.catalog import all_problems, find_problem, get_problem, in_catalog
from ramseygadgets.problems.extended import SIZE_TIERS, extended_problems, parse_size_tier
from ramseygadgets.problems.problem import Problem
from ramseygadgets.problems.solutions import load_solutions
from ramseygadgets.verification.basis import EDGES_UNPROVEN, PROVEN, Basis, shipped_entry_basis
from ramseygadgets.verification.problemfile import (
    MAX_PROBLEM_FILE_BYTES,
    FileRecord,
    ProblemSetError,
    read_problem_set,
)
from ramseygadgets.verification.proofs import (
    ShippedProof,
    proof_problem,
    proof_records,
    shipped_proof,
)
from ramseygadgets.verification.verifier import verify

__all__ = [
    "MAX_PROBLEM_FILE_BYTES",
    "PROBLEM_SETS",
    "SIZE_TIERED_SETS",
    "GADGET_TIERS",
    "Optimum",
    "ProblemSetError",
    "Selection",
    "merge_problem_sets",
    "named_problem_set",
    "check_set_name",
    "base_problem_set",
    "find_in_set",
    "with_extended_ids",
    "select_problems",
    "load_selection",
]

#: The named problem sets (``--set``); the first is the default.
PROBLEM_SETS = ("paper", "extended")
#: The sets whose reports show accuracy by size tier (``fresh``: an ``eval --fresh`` run).
SIZE_TIERED_SETS = ("extended", "fresh")
#: The gadget tiers ``--tier`` accepts in every set (sets with size tiers accept those too).
GADGET_TIERS = ("easy", "hard")


@dataclass(frozen=True)
class Optimum:
    """A problem's proven minimum: fewest vertices, then fewest edges on that many vertices
    (``None`` where only the vertex count is proven minimal), and what it rests on
    (:class:`~ramseygadgets.verification.basis.Basis`: an on-trust vertex bound, a cube-log edge count)."""

    vertices: int
    edges: int | None
    basis: Basis = PROVEN


@dataclass
class Selection:
    """The problems a command runs, in evaluation order, with their minimal solutions where
    known.

    ``size_tiers``: problem id → tier by minimal size (``≤6`` .. ``≥11``), for sets that
    have them (``extended``).  ``proven``: the ids whose solution is *proven* minimal (fewest
    vertices, then fewest edges at that vertex count): every shipped catalog and extended
    solution (in a problem-set file too, matched up to equivalence), and a problem-set record
    whose claim counts (:func:`load_selection`).  Only these give an :meth:`optimum`.
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
    atlas_ids: dict[str, str] = field(default_factory=dict)

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
        basis = self.basis(problem)
        if basis.disputed:
            return None
        edges = found.graph.m if basis.edges_proven else None
        return Optimum(found.graph.n, edges, basis)

    def basis(self, problem: Problem, *, exact: bool = True) -> Basis:
        """What the optimum of ``problem`` rests on (its atlas entry's, re-checked, ``exact``: by
        the exact verifier too; else proven, its edge count as :attr:`edges_unproven` says)."""
        entry_id = self.atlas_ids.get(problem.id)
        found = shipped_entry_basis(entry_id, exact=exact) if entry_id is not None else None
        if found is not None:
            return found
        return EDGES_UNPROVEN if problem.id in self.edges_unproven else PROVEN

    def first(self, limit: int | None) -> Selection:
        """The first ``limit`` problems (all of them for ``None``), as ``eval --limit`` runs."""
        if limit is None:
            return self
        return self.subset(self.problems[:limit])

    def subset(self, problems: list[Problem]) -> Selection:
        """These problems of the set, with their solutions and tiers."""
        keep = {p.id for p in problems}
        return Selection(
            problems,
            {pid: c for pid, c in self.solutions.items() if pid in keep},
            self.source,
            self.content_hash,
            {pid: t for pid, t in self.size_tiers.items() if pid in keep},
            self.proven & keep,
            self.edges_unproven & keep,
            {pid: a for pid, a in self.atlas_ids.items() if pid in keep},
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


def named_problem_set(name: str = "paper") -> Selection:
    """A named set: ``paper`` (the 70, with their shipped solutions) or ``extended``."""
    if check_set_name(name) == "extended":
        return extended_problem_set()
    solutions = _catalog_solutions(all_problems())
    return Selection(list(all_problems()), solutions, proven=frozenset(solutions))


def extended_problem_set() -> Selection:
    """The extended set (:mod:`ramseygadgets.problems.extended`; two and three colours) with its
    minimal solutions and size tiers."""
    chosen = extended_problems()
    return Selection(
        [p.problem for p in chosen],
        {p.id: p.candidate for p in chosen},
        source="extended",
        size_tiers={p.id: p.size_tier for p in chosen},
        proven=frozenset(p.id for p in chosen),
        edges_unproven=frozenset(p.id for p in chosen if not p.edges_minimal),
        atlas_ids={p.id: p.id for p in chosen if p.source.startswith("atlas:")},
    )


def check_set_name(name: str) -> str:
    if name not in PROBLEM_SETS:
        raise ProblemSetError(
            f"unknown problem set {name!r}; choose from {', '.join(PROBLEM_SETS)}"
        )
    return name


def base_problem_set(dataset: str | Path | None = None, set_name: str | None = None) -> Selection:
    """The problem-set file ``dataset`` or the named set (default ``paper``); not both."""
    if dataset is not None and set_name is not None:
        raise ProblemSetError(
            f"give either --set or --dataset, not both (--set {set_name}, --dataset {dataset})"
        )
    return (
        load_selection(dataset) if dataset is not None else named_problem_set(set_name or "paper")
    )


def find_in_set(base: Selection, problem_id: str) -> Problem:
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
) -> Selection:
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


def merge_problem_sets(sets: Sequence[Selection]) -> Selection:
    """One set with the problems of ``sets`` in order (the first of equal ids wins), their
    solutions and size tiers; the source is the first set's."""
    problems: dict[str, Problem] = {}
    solutions: dict[str, Candidate] = {}
    tiers: dict[str, str] = {}
    proven: set[str] = set()
    edges_unproven: set[str] = set()
    atlas_ids: dict[str, str] = {}
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
                if p.id in s.atlas_ids:
                    atlas_ids[p.id] = s.atlas_ids[p.id]
    first = sets[0]
    return Selection(
        list(problems.values()),
        solutions,
        first.source,
        first.content_hash,
        tiers,
        frozenset(proven),
        frozenset(edges_unproven),
        atlas_ids,
    )


def with_extended_ids(base: Selection, ids: Iterable[str]) -> Selection:
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


def _in_tier(base: Selection, problems: list[Problem], tier: str) -> list[Problem]:
    if tier in GADGET_TIERS:
        return [p for p in problems if p.tier == tier]
    size_tiers = [t for t in SIZE_TIERS if t in base.size_tiers.values()]
    if parse_size_tier(tier) in size_tiers:
        return [p for p in problems if base.size_tiers.get(p.id) == parse_size_tier(tier)]
    choices = ", ".join(GADGET_TIERS[:-1]) + f" or {GADGET_TIERS[-1]}"
    if size_tiers:
        choices = f"{', '.join(GADGET_TIERS)} or a size tier ({', '.join(size_tiers)})"
    raise ProblemSetError(f"--tier must be {choices}, got {tier!r}")


# -- problem-set files ---------------------------------------------------------------------------
@dataclass(frozen=True)
class _Trusted:
    """What a problem-set record is trusted with: a solution (verified; the best known one),
    whether its vertex count is proven minimal, and whether its edge count is too."""

    problem: Problem
    solution: Candidate | None
    proven: bool = False
    edges_proven: bool = False
    atlas_id: str | None = None


def load_selection(path: str | Path) -> Selection:
    """The problems of a problem-set file (or ``generate`` folder) with their solutions and the
    optima they prove (module docs): every solution verified, shipped proofs kept, other claims
    counted only under :func:`~ramseygadgets.verification.proofs.proof_problem`."""
    read = read_problem_set(path, MAX_PROBLEM_FILE_BYTES)
    if not read.records:
        raise ProblemSetError(f"problem set {path} holds no problems")
    proofs = proof_records(path)
    trusted = [_trusted(entry, proofs) for entry in read.records]
    return Selection(
        [t.problem for t in trusted],
        {t.problem.id: t.solution for t in trusted if t.solution is not None},
        str(path),
        read.digest,
        proven=frozenset(t.problem.id for t in trusted if t.proven),
        edges_unproven=frozenset(t.problem.id for t in trusted if t.proven and not t.edges_proven),
        atlas_ids={t.problem.id: t.atlas_id for t in trusted if t.atlas_id is not None},
    )


def _trusted(entry: FileRecord, proofs: dict[str, dict[str, Any]] | None) -> _Trusted:
    """A record's solution checked, then judged against the shipped proof of its problem where
    there is one, else by its own claim."""
    _check_solution(entry)
    shipped = shipped_proof(entry.problem)
    if shipped is not None and shipped.atlas_id is not None:
        basis = shipped_entry_basis(shipped.atlas_id)
        if basis is not None and basis.disputed:  # disputed everywhere it is used
            shipped = None
    if shipped is not None:
        return _with_shipped_proof(entry, shipped, proofs)
    return _with_claim(entry, proofs)


def _check_solution(entry: FileRecord) -> None:
    """A solution in a problem-set file must be one (never trusted unread)."""
    if entry.candidate is None:
        return
    verdict = verify(entry.problem, entry.candidate)
    if not verdict.correct:
        raise ProblemSetError(
            f"{entry.where}: its solution is not a {entry.problem.title}: {verdict.reason}"
        )


def _with_claim(entry: FileRecord, proofs: dict[str, dict[str, Any]] | None) -> _Trusted:
    """The record's solution, proven minimal only when its claim counts (``proof_problem``);
    its edge count too unless the proof record has another solution's."""
    solution = entry.candidate
    if solution is None:
        return _Trusted(entry.problem, None)
    n = solution.graph.n
    if proof_problem(entry.problem, n, entry.record, proofs) is not None:
        return _Trusted(entry.problem, solution)
    proof = entry.record if proofs is None else proofs[entry.problem.id]
    edges = proofs is None or proof.get("m") == solution.graph.m
    return _Trusted(entry.problem, solution, True, edges)


def _with_shipped_proof(
    entry: FileRecord, shipped: ShippedProof, proofs: dict[str, dict[str, Any]] | None
) -> _Trusted:
    """A problem with a shipped proof keeps it: refused when the record contradicts it; its
    solution is the record's when that is as small as the shipped one (or has fewer edges where
    they are not proven minimal), else the shipped one.  An atlas entry proven only up to a
    lower bound takes the record's claim where it counts."""
    why = shipped.contradiction(entry.candidate, entry.record)
    if why is not None:
        raise ProblemSetError(
            f"{entry.where}: {entry.problem.id} contradicts the proof the project ships: {why}, "
            f"but {shipped.describe()}; correct or remove that record"
        )
    known = _shipped_solution(entry, shipped)
    own = entry.candidate
    if known is not None and shipped.minimal:
        kept = own if own is not None and _size(own) <= _size(known) else known
        return _Trusted(entry.problem, kept, True, shipped.edges_proven, shipped.atlas_id)
    claimed = _with_claim(entry, proofs)
    if claimed.proven or known is None or (own is not None and _size(own) < _size(known)):
        return claimed
    return _Trusted(entry.problem, known)


def _size(candidate: Candidate) -> tuple[int, int]:
    return candidate.graph.n, candidate.graph.m


def _shipped_solution(entry: FileRecord, shipped: ShippedProof) -> Candidate | None:
    """The shipped solution as a solution of the record's problem: the same graph and designated
    items answer every equivalent problem (checked, as everything shipped is)."""
    known = shipped.candidate
    if known is None or shipped.problem.id == entry.problem.id:
        return known
    verdict = verify(entry.problem, known)
    if not verdict.correct:
        raise ProblemSetError(
            f"{entry.where}: the shipped solution of {shipped.problem.id} (equivalent to "
            f"{entry.problem.id}) is not a {entry.problem.title}: {verdict.reason}; please report "
            f"this"
        )
    return known
