"""Records: the problem part of a record and the ``problems.jsonl`` row of a solved problem
(:func:`export_row`, schema version :data:`~ramseygadgets.problems.problem.PROBLEM_SCHEMA_VERSION`).

Reading records back is :mod:`ramseygadgets.verification.problemfile` (the problem and solution of a record)
and :mod:`ramseygadgets.verification.proofs` (the check of every record read back, :func:`check_record`; how
much a record proves, :func:`strength`; when a row's claim of a minimal solution counts,
:func:`proof_problem`); their names are re-exported here."""

from __future__ import annotations

from typing import Any

from ramseygadgets.problems.problem import PROBLEM_SCHEMA_VERSION, Problem
from ramseygadgets.prompts import settings_for
from ramseygadgets.verification.problemfile import (
    PARSE_ERRORS,
    ProblemSetError,
    candidate_of_record,
    problem_of_record,
)
from ramseygadgets.verification.proofs import (
    LEVEL_OUTCOMES,
    RECORD_MAX_VERTICES,
    STATUSES,
    check_record,
    proof_problem,
    strength,
    strongest,
)

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
    "proof_problem",
    "strength",
    "strongest",
]


def problem_json(problem: Problem) -> dict[str, Any]:
    """The problem part of a record (:meth:`Problem.to_json`)."""
    return problem.to_json()


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
