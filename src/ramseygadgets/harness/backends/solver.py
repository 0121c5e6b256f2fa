"""``solver``: the reference solver, answering like a perfect model.

It answers each problem with its minimal solution — the shipped one (``data/solutions.json``)
or, for problems outside it, one found by :func:`ramseygadgets.search.minimal.solve_minimal` — written in the
documented answer format by :func:`ramseygadgets.answers.format_answer`.  In multiround it
first asks the coloring tool about that graph (a text-protocol request or a native tool call)
and gives its answer in the next round, so the whole pipeline runs offline.
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

from ramseygadgets.answers import format_answer
from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.harness.types import ChatRequest, Completion
from ramseygadgets.problems.problem import Problem
from ramseygadgets.search.minimal import solve_minimal
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.tools import coloring as coloring_tool

__all__ = ["SEARCH_TIMEOUT_S", "SolverBackend"]

#: Time limit for searching a solution of a problem that ships none.
SEARCH_TIMEOUT_S = 120.0


def _search(problem: Problem, timeout: float) -> Candidate | None:
    """A minimal solution by the search (:func:`~ramseygadgets.multicolor.solve_multi` for three
    or more colours), or ``None`` when none is found in time."""
    return solve_minimal(problem, SearchOptions(timeout=timeout)).candidate


class SolverBackend:
    name = "solver"

    def __init__(self, problem_set: Any, search_timeout: float = SEARCH_TIMEOUT_S):
        self.problem_set = problem_set
        self.search_timeout = search_timeout
        self._found: dict[str, Candidate | None] = {}
        self._lock = threading.Lock()

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "solver",
            "source": "shipped minimal solutions, else ramseygadgets.search.solve",
        }

    async def start(self) -> None:
        return None

    async def close(self) -> None:
        return None

    def solution(self, problem: Problem) -> Candidate | None:
        known = self.problem_set.solution(problem)
        if known is not None:
            return known
        with self._lock:
            if problem.id not in self._found:
                self._found[problem.id] = _search(problem, self.search_timeout)
            return self._found[problem.id]

    async def complete(self, request: ChatRequest) -> Completion:
        problem = request.problem
        candidate = self.problem_set.solution(problem)
        if candidate is None:
            try:
                candidate = await asyncio.to_thread(self.solution, problem)
            except Exception as exc:  # noqa: BLE001 - a failed search ends this sample, not the run
                return Completion(
                    error=f"reference search failed for {problem.id}: {type(exc).__name__}: {exc}",
                    error_kind="no-solution",
                )
        if candidate is None:
            return Completion(
                content="I could not find a solution within my search limits.", finish_reason="stop"
            )
        if request.key.setting == "multiround" and request.round_no == 1 and not request.last_round:
            return self._ask_tool(request, candidate)
        text = f"My answer:\n\n{format_answer(candidate, problem.kind)}"
        return Completion(content=text, finish_reason="stop")

    def _ask_tool(self, request: ChatRequest, candidate: Candidate) -> Completion:
        arguments = {"edges": [list(e) for e in candidate.graph.edges]}
        if request.tool_mode == "native":
            call = {
                "id": "call_solver_1",
                "type": "function",
                "function": {"name": coloring_tool.TOOL_NAME, "arguments": json.dumps(arguments)},
            }
            return Completion(content=None, tool_calls=[call], finish_reason="tool_calls")
        # The text protocol of ramseygadgets.tools.coloring: a ```coloring_tool block holding the graph.
        text = (
            "Let me check the good colorings of my graph first.\n\n```coloring_tool\n"
            + json.dumps(arguments)
            + "\n```"
        )
        return Completion(content=text, finish_reason="stop")
