"""Records: the problem part of a record, the check of every record read back
(:func:`check_record`), how much a record proves (:func:`strength`), and the
``problems.jsonl`` row of a solved problem (:func:`export_row`, schema version
:data:`~ramseygadgets.problem.PROBLEM_SCHEMA_VERSION`)."""

from __future__ import annotations

import math
from typing import Any

from ramseygadgets.errors import RamseyGadgetsError
from ramseygadgets.gadgets import Candidate
from ramseygadgets.problem import PROBLEM_SCHEMA_VERSION, Problem
from ramseygadgets.problemsets.base import ProblemSetError
from ramseygadgets.prompts import settings_for
from ramseygadgets.verify import verify

__all__ = [
    "LEVEL_OUTCOMES",
    "PARSE_ERRORS",
    "RECORD_MAX_VERTICES",
    "STATUSES",
    "candidate_of_record",
    "check_record",
    "export_row",
    "problem_json",
    "problem_of_record",
    "strength",
    "strongest",
]

STATUSES = ("found", "none-up-to-limit", "timeout")
LEVEL_OUTCOMES = ("none", "found", "timeout")
#: The largest solution a record may claim (``solve --max-vertices`` allows 40).
RECORD_MAX_VERTICES = 40
#: What reading a malformed record may raise.
PARSE_ERRORS = (
    RamseyGadgetsError,
    ValueError,
    TypeError,
    KeyError,
    AttributeError,
    IndexError,
    RecursionError,
)


# -- the problem of a record ----------------------------------------------------------------------
def problem_json(problem: Problem) -> dict[str, Any]:
    """The problem part of a record (:meth:`Problem.to_json`)."""
    return problem.to_json()


def problem_of_record(record: dict[str, Any]) -> Problem:
    """The problem a record describes: ``colors`` and ``gadget`` (any number of colours;
    ``colors`` entries a pattern or a list of patterns) or, in two-colour records written
    before schema version 2, ``F``, ``H`` and ``gadget``."""
    try:
        return Problem.from_json(record)
    except (KeyError, RamseyGadgetsError, ValueError, TypeError) as exc:
        raise ProblemSetError(f"unusable problem record {record.get('id', '?')}: {exc}") from None


def candidate_of_record(record: dict[str, Any], problem: Problem) -> Candidate | None:
    """The solution of a record (None: it has none)."""
    data = record.get("solution")
    if not data:
        return None
    return Candidate.from_json(data, problem.kind, max_vertices=None)


# -- the exported row ----------------------------------------------------------------------------
def _problem_columns(problem: Problem) -> dict[str, Any]:
    """The problem's columns: ``colors`` (and ``F``/``H`` for pairs), the colour names, each
    colour's forbidden patterns as edge lists (``F_edges``/``H_edges`` for pairs)."""
    row: dict[str, Any] = {"schema_version": PROBLEM_SCHEMA_VERSION, **problem.to_json()}
    row["color_names"] = list(problem.color_names)
    row["forbidden_edges"] = [
        [[list(e) for e in p.graph.edges] for p in col.forbidden] for col in problem.spec.colors
    ]
    if problem.is_pair:
        row["F_edges"] = [list(e) for e in problem.F.graph.edges]
        row["H_edges"] = [list(e) for e in problem.H.graph.edges]
    return row


def export_row(record: dict[str, Any]) -> dict[str, Any]:
    """A ``problems.jsonl`` row of a solved record, one schema for every number of colours:
    the problem's columns, ``designated``, ``settings`` (the prompt settings; none for a colour
    with several forbidden patterns, which has no prompt), the solution and its proof fields."""
    problem = problem_of_record(record)
    candidate = candidate_of_record(record, problem)
    if candidate is None:
        raise ProblemSetError(f"record {problem.id} has no solution to export")
    kind = problem.kind
    designated = candidate.designated
    edges = dict(zip(kind.edge_names, designated.edges))
    n, m = candidate.graph.n, candidate.graph.m
    return {
        **_problem_columns(problem),
        "designated": [*kind.edge_names, *kind.vertex_names],
        "settings": settings_for(problem, min_vertices=n) if problem.spec.is_simple else [],
        "min_vertices": n,
        "min_edges": m,
        "solution_edges": [list(e) for e in candidate.graph.edges],
        "solution_e": list(edges["e"]) if "e" in edges else None,
        "solution_f": list(edges["f"]) if "f" in edges else None,
        "solution_vertices": list(designated.vertices) if designated.vertices else None,
        "solution_method": record.get("method", ""),
        "solution": candidate.to_json(kind),
        "status": record["status"],
        "proven_minimal": record.get("proven_minimal", False),
        "lower_bound": record.get("lower_bound"),
    }


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
