"""Turn a finished conversation into its sample record: parse the final answer, verify it.

Outcome fields (docs/eval.md, "The run directory"): ``error`` (no response obtained), else ``parse_error`` (the
reply holds no readable answer), else the verifier's ``correct``/``reason``/``witness``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ramseygadgets.catalog import Problem
from ramseygadgets.graphs import DEFAULT_MAX_VERTICES
from ramseygadgets.harness.conversation import Conversation

if TYPE_CHECKING:
    from ramseygadgets.answers import ParsedAnswer


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def judge(
    problem: Problem,
    response: str | None,
    reasoning: str | None,
    max_vertices: int = DEFAULT_MAX_VERTICES,
) -> dict[str, Any]:
    """Parse ``response`` with the project's parser and verify the candidate exactly."""
    from ramseygadgets.answers import parse_answer
    from ramseygadgets.verify import verify

    parsed: ParsedAnswer | None = None
    parse_error: str | None
    try:
        answer = parse_answer(
            response or "", problem.kind, reasoning=reasoning, max_vertices=max_vertices
        )
    except Exception as exc:  # noqa: BLE001 - the parser promises not to raise; never lose a sample if it does
        parse_error = f"parser failed: {type(exc).__name__}: {exc}"
    else:
        parsed = answer
        parse_error = None if answer.ok else (answer.error or "no answer found")
    if parse_error is not None or parsed is None or parsed.candidate is None:
        parse_error = parse_error or "no answer found"
        kind = getattr(parsed, "error_kind", None) if parsed is not None else "parser-failure"
        return {
            "parse_error": parse_error,
            "parse_error_kind": kind,
            "candidate": None,
            "correct": False,
            "reason": parse_error,
            "check": "parse",
            "witness": None,
        }
    candidate = parsed.candidate
    try:
        verdict = verify(problem, candidate)
    except Exception as exc:  # noqa: BLE001 - a verifier failure is recorded, not fatal
        return {
            "parse_error": None,
            "candidate": candidate.to_json(problem.kind),
            "correct": False,
            "reason": f"verification failed: {type(exc).__name__}: {exc}",
            "check": "error",
            "witness": None,
        }
    return {
        "parse_error": None,
        "candidate": candidate.to_json(problem.kind),
        "correct": verdict.correct,
        "reason": verdict.reason,
        "check": verdict.check,
        "witness": verdict.witness.to_json() if verdict.witness is not None else None,
    }


def sample_record(
    conversation: Conversation,
    *,
    model: str,
    min_vertices: int | None,
    max_vertices: int = DEFAULT_MAX_VERTICES,
) -> dict[str, Any]:
    """The full run-directory record (docs/eval.md) of a finished conversation."""
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
    if conversation.error is not None:
        record.update(
            {
                "parse_error": None,
                "candidate": None,
                "correct": False,
                "reason": conversation.error,
                "check": "error",
                "witness": None,
            }
        )
    else:
        record.update(judge(problem, conversation.response, conversation.reasoning, max_vertices))
    record["finished_at"] = utc_now()
    return record
