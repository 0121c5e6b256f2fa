"""Turn a finished conversation into its sample record: parse the final answer, verify it.

Outcome fields (docs/eval.md, "The run directory"): ``error`` (no response obtained), else
``parse_error`` (the reply holds no readable answer), else the verifier's
``correct``/``reason``/``witness``.  :func:`grade` decides a :class:`~ramseygadgets.runs.grade.Grade`;
:func:`judge` is the same as a dict of record fields (for callers that want JSON).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from ramseygadgets.answers import ParsedAnswer, parse_answer
from ramseygadgets.gadgets import Candidate
from ramseygadgets.graphs import DEFAULT_MAX_VERTICES
from ramseygadgets.harness.conversation import Conversation
from ramseygadgets.problem import Problem
from ramseygadgets.recheck import recheck
from ramseygadgets.runs.grade import Grade
from ramseygadgets.runs.sizes import SizeGrade
from ramseygadgets.selection import Optimum
from ramseygadgets.verify import verify

__all__ = ["Grade", "grade", "judge", "sample_record", "size_fields", "utc_now"]


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


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
    candidate = parsed.candidate.to_json(problem.kind)
    try:
        verdict = verify(problem, parsed.candidate)
    except Exception as exc:  # noqa: BLE001 - a verifier failure is recorded, not fatal
        return Grade.verifier_failed(candidate, f"{type(exc).__name__}: {exc}")
    return Grade(
        correct=verdict.correct,
        reason=verdict.reason,
        check=verdict.check,
        candidate=candidate,
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


def sample_record(
    conversation: Conversation,
    *,
    model: str,
    min_vertices: int | None,
    max_vertices: int = DEFAULT_MAX_VERTICES,
    optimum: Optimum | None = None,
    best_known: Candidate | None = None,
) -> dict[str, Any]:
    """The full run-directory record (docs/eval.md) of a finished conversation: the reply, its
    grade and its size grade against the problem's proven ``optimum`` (``best_known``: the
    smallest solution known where no optimum is proven)."""
    problem, key = conversation.problem, conversation.key
    record: dict[str, Any] = {
        "problem_id": key.problem_id,
        "setting": key.setting,
        "run": key.run,
        "model": model,
        "tier": problem.tier,
        "gadget": problem.gadget_name,
        "colors": problem.c,
        "min_vertices": min_vertices,
        "messages": conversation.transcript(),
        "response": conversation.response,
        "reasoning": conversation.reasoning,
        "rounds": conversation.calls,
        "tool_calls": conversation.tool_uses,
        "usage": conversation.usage.to_json(),
        "finish_reason": conversation.finish_reason,
        "latency_s": round(conversation.latency_s, 4),
        "retries": conversation.retries,
        "error": conversation.error,
    }
    if conversation.python is not None:  # the python setting: every program's record
        record["tool_seconds"] = round(conversation.tool_seconds, 4)
        record["programs"] = conversation.program_runs
    if conversation.error is not None:
        verdict = Grade.no_reply(conversation.error)
    else:
        verdict = grade(problem, conversation.response, conversation.reasoning, max_vertices)
    record.update(verdict.to_json())
    record.update(size_fields(problem, verdict, optimum, best_known))
    record["finished_at"] = utc_now()
    return record


def size_fields(
    problem: Problem, verdict: Grade, optimum: Optimum | None, best_known: Candidate | None
) -> dict[str, Any]:
    """The size grade's record fields, plus ``discovery`` (``new-best-known`` or
    ``contradicts-proof``, :mod:`ramseygadgets.runs.sizes`) and ``recheck`` (the independent
    second verification of that candidate, :mod:`ramseygadgets.recheck`) when it is one."""
    sizes = SizeGrade.of(verdict, optimum)
    fields = sizes.to_json()
    known = None if best_known is None else (best_known.graph.n, best_known.graph.m)
    discovery = sizes.discovery(known)
    fields["discovery"] = discovery
    if discovery is not None and verdict.candidate is not None:
        candidate = Candidate.from_json(verdict.candidate, problem.kind, max_vertices=None)
        fields["recheck"] = recheck(problem, candidate).to_json()
    return fields
