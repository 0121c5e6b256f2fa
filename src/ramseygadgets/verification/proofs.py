"""Proofs of minimality: what a search record read back proves, when a problem-set row's claim
of a minimal solution counts, and the proofs the project ships.

* :func:`check_record`: why a ``results.jsonl`` record (``generate``, ``solve``) cannot be
  trusted — types and ranges, its solution through the exact verifier, its provenance;
  :func:`strength` / :func:`strongest`: which of two records proves more;
* :func:`proof_problem`: the one rule for a claim of a minimal solution in a problem-set row
  (``train-data --from`` and ``eval --dataset``): ``proven_minimal`` with ``lower_bound`` equal
  to the solution's vertex count, backed by the set's checked ``results.jsonl`` record where it
  has one (:func:`proof_records`), and where the search's levels are recorded, every smaller
  vertex count searched and found empty;
* :func:`shipped_proof`: what the project ships about a problem up to equivalence (the leakage
  rule, :func:`ramseygadgets.problems.leakage.problem_key`: isomorphic patterns, renamed colours) — the
  paper's 70 and the extended set with their proven minimal solutions, the atlas' other entries
  with their proven lower bounds and best known solutions.  A problem-set file never overrides
  a shipped proof, and one that contradicts it is refused
  (:func:`ramseygadgets.verification.selection.load_selection`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ramseygadgets.core.gadgets import Candidate, GadgetKind
from ramseygadgets.infra.files import parse_json
from ramseygadgets.problems.atlas_entries import load_atlas
from ramseygadgets.problems.catalog import all_problems
from ramseygadgets.problems.extended import extended_problems
from ramseygadgets.problems.leakage import ProblemKey, problem_key
from ramseygadgets.problems.problem import Problem
from ramseygadgets.problems.solutions import load_solutions
from ramseygadgets.verification.problemfile import (
    PARSE_ERRORS,
    RESULTS_FILE,
    ProblemSetError,
    problem_of_record,
)
from ramseygadgets.verification.verifier import verify

__all__ = [
    "LEVEL_OUTCOMES",
    "RECORD_MAX_VERTICES",
    "STATUSES",
    "ShippedProof",
    "check_record",
    "proof_problem",
    "proof_records",
    "shipped_proof",
    "strength",
    "strongest",
]

STATUSES = ("found", "none-up-to-limit", "timeout")
LEVEL_OUTCOMES = ("none", "found", "timeout")
#: The largest solution a record may claim (``solve --max-vertices`` allows 40).
RECORD_MAX_VERTICES = 40


# -- checking records read back ------------------------------------------------------------------
def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return (_is_int(value) or isinstance(value, float)) and math.isfinite(value)


def _limits_problem(record: dict[str, Any]) -> str | None:
    """Why status, lower_bound, max_vertices, the flags or the times are malformed."""
    status: Any = record.get("status")
    bound: Any = record.get("lower_bound")
    limit: Any = record.get("max_vertices")
    if status not in STATUSES:
        return f"status must be one of {', '.join(STATUSES)}, got {status!r}"
    if not _is_int(bound) or bound < 0:
        return f"lower_bound must be a whole number ≥ 0, got {bound!r}"
    if limit is not None and (not _is_int(limit) or limit < 1):
        return f"max_vertices must be a whole number ≥ 1, got {limit!r}"
    for key in ("proven_minimal", "edges_minimal"):
        if not isinstance(record.get(key, False), bool):
            return f"{key} must be true or false, got {record.get(key)!r}"
    seconds, timeout = record.get("seconds", 0.0), record.get("timeout")
    if not _is_number(seconds) or seconds < 0:
        return f"seconds must be a finite number ≥ 0, got {seconds!r}"
    if timeout is not None and (not _is_number(timeout) or timeout <= 0):
        return f"timeout must be a finite number > 0 or null, got {timeout!r}"
    return None


def _field_problem(record: dict[str, Any]) -> str | None:
    """Why the fields of a record are not of the right types and ranges (None: they are)."""
    why = _limits_problem(record)
    if why is not None:
        return why
    status, bound, limit = record["status"], record["lower_bound"], record.get("max_vertices")
    if status != "found":
        if record.get("solution") is not None or record.get("proven_minimal"):
            return f"a {status} record has no solution"
        if limit is not None and bound > limit + 1:
            return f"lower_bound {bound} is more than max_vertices + 1 = {limit + 1}"
        return None
    n: Any = record.get("n")
    m: Any = record.get("m")
    if not (_is_int(n) and _is_int(m)) or not 1 <= n <= RECORD_MAX_VERTICES or m < 0:
        return f"a found record needs whole numbers 1 ≤ n ≤ {RECORD_MAX_VERTICES}, m ≥ 0"
    if bound > n:
        return f"lower_bound {bound} is above the solution's n = {n}"
    if record.get("proven_minimal") and not (record.get("edges_minimal") and bound == n):
        return "proven_minimal needs edges_minimal and lower_bound = n"
    return None


def _level_problem(level: Any, lower_bound: int) -> str | None:
    """Why one entry of ``levels`` is malformed (None: it is well-formed)."""
    if not isinstance(level, dict):
        return f"a level must be an object, got {level!r}"
    n: Any = level.get("n")
    seconds: Any = level.get("seconds", 0.0)
    if not _is_int(n) or not 1 <= n <= RECORD_MAX_VERTICES:
        return f"a level's n must be a whole number 1 … {RECORD_MAX_VERTICES}, got {n!r}"
    if level.get("outcome") not in LEVEL_OUTCOMES:
        return f"level {n}: outcome must be one of {', '.join(LEVEL_OUTCOMES)}"
    if not _is_number(seconds) or seconds < 0:
        return f"level {n}: seconds must be a finite number ≥ 0, got {seconds!r}"
    for key in ("candidates", "lemmas"):
        if not _is_int(level.get(key, 0)) or level.get(key, 0) < 0:
            return f"level {n}: {key} must be a whole number ≥ 0, got {level.get(key)!r}"
    if level["outcome"] == "none" and n >= lower_bound:
        return f"level {n} is proven empty but lower_bound is {lower_bound}"
    return None


def _provenance_problem(record: dict[str, Any]) -> str | None:
    """Why the optional search provenance is malformed (None: absent or well-formed):
    ``engine`` a name, ``min_vertices`` the first vertex count tried (1 … 40), ``levels`` one
    entry per vertex count tried (n, outcome, seconds, counts)."""
    engine: Any = record.get("engine")
    start: Any = record.get("min_vertices")
    if engine is not None and (not isinstance(engine, str) or not engine):
        return f"engine must be a non-empty string, got {engine!r}"
    if start is not None and (not _is_int(start) or not 1 <= start <= RECORD_MAX_VERTICES):
        return (
            f"min_vertices must be a whole number 1 … {RECORD_MAX_VERTICES} or null, got {start!r}"
        )
    levels = record.get("levels", [])
    if not isinstance(levels, list):
        return f"levels must be a list, got {type(levels).__name__}"
    for level in levels:
        why = _level_problem(level, record["lower_bound"])
        if why is not None:
            return why
    return None


def _shipped_problem(record: dict[str, Any], problem: Problem, candidate: Candidate) -> str | None:
    """Why a record's shipped solution (the ``solutions.json`` entry) is not its solution."""
    shipped = record.get("shipped")
    if shipped is None:
        return None
    if not record.get("proven_minimal") or not isinstance(shipped, dict):
        return "only a proven-minimal record ships a solution"
    copy = Candidate.from_json(shipped, problem.kind, max_vertices=RECORD_MAX_VERTICES)
    same = (shipped.get("problem_id"), shipped.get("n"), shipped.get("m")) == (
        problem.id,
        record["n"],
        record["m"],
    )
    if not same or copy.to_json(problem.kind) != candidate.to_json(problem.kind):
        return "its shipped solution differs from its solution"
    return None


def _solution_problem(record: dict[str, Any], problem: Problem) -> str | None:
    """Why a found record's solution is not a solution of size (n, m) (None: it is one)."""
    candidate = Candidate.from_json(
        record.get("solution"), problem.kind, max_vertices=RECORD_MAX_VERTICES
    )
    if (candidate.graph.n, candidate.graph.m) != (record["n"], record["m"]):
        return (
            f"the solution has n = {candidate.graph.n}, m = {candidate.graph.m}, the record "
            f"says n = {record['n']}, m = {record['m']}"
        )
    verdict = verify(problem, candidate)
    if not verdict.correct:
        return f"the solution is not a {problem.title}: {verdict.reason}"
    return _shipped_problem(record, problem, candidate)


def check_record(record: Any) -> str | None:
    """Why a ``results.jsonl`` record cannot be trusted, or None when it can: the problem
    parses and has the record's id; status, n, m, lower_bound, limits and flags have the right
    types and ranges; a solution has the claimed (n, m) and passes the verifier; the search
    provenance (engine, min_vertices, levels) is well-formed."""
    if not isinstance(record, dict):
        return f"not a JSON object but {type(record).__name__}"
    if not isinstance(record.get("id"), str):
        return f"id must be a string, got {record.get('id')!r}"
    try:
        problem = problem_of_record(record)
        if problem.id != record["id"]:
            return f"id {record['id']!r} does not match its problem {problem.id!r}"
        why = _field_problem(record)
        if why is None and record["status"] == "found":
            why = _solution_problem(record, problem)
        if why is None:
            why = _provenance_problem(record)
    except PARSE_ERRORS as exc:
        return str(exc) or type(exc).__name__
    return why


def strength(record: dict[str, Any]) -> tuple[bool, bool, int, int, int]:
    """How much a (checked) record proves: a minimal solution beats any other record, then any
    solution beats none, then the larger proven lower bound, then the smaller solution."""
    return (
        bool(record.get("proven_minimal")),
        record.get("solution") is not None,
        record["lower_bound"],
        -(record.get("n") or 0),
        -(record.get("m") or 0),
    )


def strongest(old: dict[str, Any] | None, new: dict[str, Any]) -> dict[str, Any]:
    """The record to keep for a problem: the stronger one (the older one on a tie)."""
    return new if old is None or strength(new) > strength(old) else old


# -- a problem-set row's claim of a minimal solution ---------------------------------------------
def proof_problem(
    problem: Problem,
    vertices: int,
    record: dict[str, Any],
    proofs: dict[str, dict[str, Any]] | None,
) -> str | None:
    """Why a problem-set row's claim that its (verified) solution on ``vertices`` vertices is
    minimal does not count, or ``None`` when it does: ``min_vertices`` (if given) is the
    solution's size; the proof — the problem's checked ``results.jsonl`` record where the set
    has one (``proofs``, :func:`proof_records`), else the row itself — says ``proven_minimal``
    with ``lower_bound`` = ``vertices``; and where the search's levels are recorded, every
    smaller vertex count was searched and found empty."""
    if record.get("min_vertices") not in (None, vertices):
        return f"min_vertices {record['min_vertices']} is not its solution's size {vertices}"
    if proofs is not None and problem.id not in proofs:
        return "no checked proof record in the set's results.jsonl"
    proof = proofs[problem.id] if proofs is not None else record
    if proof.get("proven_minimal") is not True or proof.get("lower_bound") != vertices:
        return f"no proof that none is smaller than its solution's {vertices} vertices"
    return _levels_problem(problem, proof, vertices)


def _levels_problem(problem: Problem, proof: dict[str, Any], n: int) -> str | None:
    """Why the recorded levels do not show "none below n" (``None``: they do, or none recorded)."""
    levels = proof.get("levels")
    if not levels:
        return None
    if not isinstance(levels, list):
        return f"its proof's levels are not a list but {type(levels).__name__}"
    outcomes = {
        level["n"]: level.get("outcome")
        for level in levels
        if isinstance(level, dict) and _is_int(level.get("n"))
    }
    smallest = 2 if problem.kind is GadgetKind.DETERMINER else 3
    empty = [k for k in range(smallest, n) if outcomes.get(k) != "none"]
    if empty:
        return f"its proof claims none below {n} vertices but does not show it on {empty[0]}"
    return None


def proof_records(path: str | Path) -> dict[str, dict[str, Any]] | None:
    """The proof records of a ``generate`` folder: the strongest record of each problem in the
    ``results.jsonl`` of ``path`` (a folder, or a file in one) that passes
    :func:`check_record`; ``None`` where there is no ``results.jsonl``.  Lines that do not
    parse or do not check prove nothing (``generate`` names them when it reads the folder)."""
    path = Path(path)
    results = (path if path.is_dir() else path.parent) / RESULTS_FILE
    try:
        text = results.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ProblemSetError(f"cannot read {results}: {exc.strerror or exc}") from None
    out: dict[str, dict[str, Any]] = {}
    for line in text.splitlines():
        try:
            record = parse_json(line)
        except ValueError:
            continue
        if check_record(record) is None:
            out[record["id"]] = strongest(out.get(record["id"]), record)
    return out


# -- the proofs the project ships ----------------------------------------------------------------
@dataclass(frozen=True)
class ShippedProof:
    """What the project ships about a problem: none of its solutions has fewer than ``bound``
    vertices, and ``candidate`` is its smallest known solution (verified), whose edge count is
    proven minimal on its vertex count where ``edges_proven``.  ``source`` names where it
    ships; ``problem`` is the shipped problem (equivalent to the one asked about)."""

    source: str
    problem: Problem
    bound: int
    candidate: Candidate | None
    edges_proven: bool = False
    #: the shipped atlas entry this comes from (its re-checked basis: :mod:`ramseygadgets.verification.basis`)
    atlas_id: str | None = None

    @property
    def minimal(self) -> bool:
        """Whether the shipped solution is proven minimal (its vertex count is the bound)."""
        return self.candidate is not None and self.candidate.graph.n == self.bound

    def describe(self) -> str:
        """``the paper's dataset ships p3_k3_red_determiner with a solution on 5 vertices, 7 edges and
        the proof that none has fewer vertices``."""
        facts = []
        if self.candidate is not None:
            graph = self.candidate.graph
            facts.append(f"a solution on {graph.n} vertices, {graph.m} edges")
        if self.minimal:
            facts.append("the proof that none has fewer vertices")
        elif self.bound:
            facts.append(f"the proof that none has fewer than {self.bound} vertices")
        return f"{self.source} ships {self.problem.id} with {' and '.join(facts)}"

    def contradiction(self, candidate: Candidate | None, record: dict[str, Any]) -> str | None:
        """What a problem-set record (its verified solution, its claims) says against this
        proof, or ``None``: a solution below the proven bound, or below a proven edge count;
        a claimed minimal solution larger than the shipped one; a claimed lower bound above
        the shipped solution."""
        known = self.candidate
        if candidate is not None:
            n, m = candidate.graph.n, candidate.graph.m
            if n < self.bound:
                return f"its solution has {n} vertices"
            if self.minimal and self.edges_proven and known and (n, m) < _size(known):
                return f"its solution has {m} edges on {n} vertices"
            if record.get("proven_minimal") is True and known and (n, m) > _size(known):
                return f"it claims its solution on {n} vertices, {m} edges is minimal"
        bound: Any = record.get("lower_bound")
        if _is_int(bound) and known is not None and bound > known.graph.n:
            return f"it claims no solution has fewer than {bound} vertices"
        return None


def _size(candidate: Candidate) -> tuple[int, int]:
    return candidate.graph.n, candidate.graph.m


@lru_cache(maxsize=1)
def _shipped_index() -> dict[ProblemKey, ShippedProof]:
    """Every shipped proof by the leakage rule's canonical form: the 70 first, then the
    extended set, then the atlas' entries that are neither (open: a lower bound, maybe a
    solution)."""
    index: dict[ProblemKey, ShippedProof] = {}
    shipped = load_solutions()
    for problem in all_problems():
        found = shipped.get(problem.id)
        if found is not None and found.candidate is not None:
            n = found.candidate.graph.n
            proof = ShippedProof("the paper's dataset", problem, n, found.candidate, True)
            index.setdefault(problem_key(problem), proof)
    for entry in extended_problems():
        n = entry.candidate.graph.n
        atlas_id = entry.id if entry.source.startswith("atlas:") else None
        proof = ShippedProof(
            "the extended set", entry.problem, n, entry.candidate, entry.edges_minimal, atlas_id
        )
        index.setdefault(problem_key(entry.problem), proof)
    for atlas in load_atlas().entries.values():
        if atlas.impossible or (atlas.solution is None and not atlas.bound):
            continue
        candidate = atlas.candidate() if atlas.solution is not None else None
        edges = bool(atlas.solution and atlas.solution.get("edges_minimal"))
        proof = ShippedProof("the atlas", atlas.problem, atlas.bound, candidate, edges, atlas.id)
        index.setdefault(problem_key(atlas.problem), proof)
    return index


def shipped_proof(problem: Problem) -> ShippedProof | None:
    """The proof the project ships for ``problem`` or an equivalent one (``None``: none)."""
    return _shipped_index().get(problem_key(problem))
