"""Grading one answer: parse the reply with the project's parser, verify the candidate exactly,
and grade its size against the problem's proven optimum.

``eval`` grades each finished conversation with these functions
(:mod:`ramseygadgets.harness.scoring` re-exports them) and ``report`` grades every recorded
sample again with the same ones (:mod:`.regrade`), so a grade is decided by one piece of code.

* :func:`grade`: ``response`` (and ``reasoning``) parsed with
  :func:`~ramseygadgets.answers.parse_answer`, then :func:`grade_candidate`;
* :func:`grade_candidate`: a parsed candidate decided by :func:`~ramseygadgets.verify.verify`;
* :func:`size_fields`: the size grade (:mod:`.sizes`), ``discovery`` and the independent
  ``recheck`` (:mod:`ramseygadgets.verification.recheck`) of a discovery.
"""

from __future__ import annotations

from typing import Any

from ramseygadgets.answers import ParsedAnswer, parse_answer
from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.core.graphs import DEFAULT_MAX_VERTICES
from ramseygadgets.problems.problem import Problem
from ramseygadgets.runs.grade import Grade
from ramseygadgets.runs.sizes import SizeGrade
from ramseygadgets.verification.recheck import recheck
from ramseygadgets.verification.selection import Optimum
from ramseygadgets.verification.verifier import verify

__all__ = ["grade", "grade_candidate", "judge", "size_fields"]


def _parse(
    problem: Problem, response: str | None, reasoning: str | None, max_vertices: int
) -> ParsedAnswer | str:
    """The parsed answer, or why the parser itself failed (it promises not to raise)."""
    try:
        return parse_answer(
            response or "", problem.kind, reasoning=reasoning, max_vertices=max_vertices
        )
    except Exception as exc:  # noqa: BLE001 - never lose a sample if the parser raises
        return f"parser failed: {type(exc).__name__}: {exc}"


def grade(
    problem: Problem,
    response: str | None,
    reasoning: str | None,
    max_vertices: int = DEFAULT_MAX_VERTICES,
) -> Grade:
    """Parse ``response`` with the project's parser and verify the candidate exactly."""
    parsed = _parse(problem, response, reasoning, max_vertices)
    if isinstance(parsed, str):
        return Grade.parse_failure(parsed, "parser-failure")
    if not parsed.ok or parsed.candidate is None:
        error = (None if parsed.ok else parsed.error) or "no answer found"
        return Grade.parse_failure(error, parsed.error_kind)
    return grade_candidate(problem, parsed.candidate)


def grade_candidate(problem: Problem, candidate: Candidate) -> Grade:
    """Verify a parsed ``candidate`` exactly (a verifier failure is recorded, never raised)."""
    data = candidate.to_json(problem.kind)
    try:
        verdict = verify(problem, candidate)
    except Exception as exc:  # noqa: BLE001 - a verifier failure is recorded, not fatal
        return Grade.verifier_failed(data, f"{type(exc).__name__}: {exc}")
    return Grade(
        correct=verdict.correct,
        reason=verdict.reason,
        check=verdict.check,
        candidate=data,
        witness=verdict.witness.to_json() if verdict.witness is not None else None,
    )


def judge(
    problem: Problem,
    response: str | None,
    reasoning: str | None,
    max_vertices: int = DEFAULT_MAX_VERTICES,
) -> dict[str, Any]:
    """:func:`grade` as the record fields it writes (:meth:`Grade.to_json`)."""
    return grade(problem, response, reasoning, max_vertices).to_json()


def size_fields(
    problem: Problem, verdict: Grade, optimum: Optimum | None, best_known: Candidate | None
) -> dict[str, Any]:
    """The size grade's record fields, plus ``discovery`` (``new-best-known`` or
    ``contradicts-proof``, :mod:`ramseygadgets.runs.sizes`) and ``recheck`` (the independent
    second verification of that candidate, :mod:`ramseygadgets.verification.recheck`) when it is one."""
    sizes = SizeGrade.of(verdict, optimum)
    fields = sizes.to_json()
    known = None if best_known is None else (best_known.graph.n, best_known.graph.m)
    discovery = sizes.discovery(known)
    fields["discovery"] = discovery
    if discovery is not None and verdict.candidate is not None:
        candidate = Candidate.from_json(verdict.candidate, problem.kind, max_vertices=None)
        fields["recheck"] = recheck(problem, candidate).to_json()
    return fields
