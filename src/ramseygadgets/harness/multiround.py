"""The multiround setting's text protocol: after each reply, run the coloring tool or end.

Round r < 3 with a ``coloring_tool`` block gets the tool's report on the requested graph in the
message that opens round r + 1; a reply without one, and every reply of round 3, is final.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ramseygadgets.problems.catalog import get_problem
from ramseygadgets.problems.problem import Problem
from ramseygadgets.prompts import MULTIROUND_ROUNDS, PromptError, followup_message
from ramseygadgets.tools.coloring import extract_tool_request, run_coloring_tool

__all__ = ["MultiroundStep", "multiround_step"]


@dataclass(frozen=True)
class MultiroundStep:
    """What happens after a model reply in a text-mode multiround conversation.

    ``final`` replies are graded (no tool request, or round 3).  Otherwise ``request`` is the
    graph asked about (or its parse error), ``tool_text`` the tool's output and ``followup``
    the user message that opens the next round.
    """

    final: bool
    request: Any = None
    tool_text: str | None = None
    followup: dict[str, Any] | None = None


def multiround_step(
    problem: Problem | str, round_no: int, reply_text: str | None
) -> MultiroundStep:
    """Apply the text protocol to the reply of ``round_no``: run the tool or end the conversation.

    In rounds 1 and 2 a reply with a ``coloring_tool`` block gets the tool's output (an
    unreadable request gets the tool's error text) in the message opening the next round; a
    reply without one is final.  The reply of round :data:`MULTIROUND_ROUNDS` is always final.
    """

    problem = problem if isinstance(problem, Problem) else get_problem(problem)
    if not 1 <= round_no <= MULTIROUND_ROUNDS:
        raise PromptError(f"round {round_no} is outside 1..{MULTIROUND_ROUNDS}")
    if round_no == MULTIROUND_ROUNDS:
        return MultiroundStep(final=True)
    request = extract_tool_request(reply_text)
    if request is None:
        return MultiroundStep(final=True)
    tool_text = run_coloring_tool(problem, request)
    return MultiroundStep(
        False, request, tool_text, followup_message(problem, round_no + 1, tool_text)
    )
