"""Turn a finished conversation into its sample record: parse the final answer, verify it.

Outcome fields (docs/eval.md, "The run directory"): ``error`` (no response obtained), else
``parse_error`` (the reply holds no readable answer), else the verifier's
``correct``/``reason``/``witness``, decided by :func:`ramseygadgets.runs.grading.grade` with the
size grade of :func:`~ramseygadgets.runs.grading.size_fields` (the code ``report`` grades every
sample again with; import grading from there).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.core.graphs import DEFAULT_MAX_VERTICES
from ramseygadgets.harness.conversation import Conversation
from ramseygadgets.runs.grade import Grade
from ramseygadgets.runs.grading import grade, size_fields
from ramseygadgets.verification.selection import Optimum

__all__ = ["sample_record", "utc_now"]


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


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
