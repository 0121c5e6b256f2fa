"""One sample's conversation with a model, as a small state machine.

``request()`` gives the next call (or ``None`` once finished) and ``feed(completion)`` takes its
result, so the same conversation runs under the async runner (one call at a time per sample)
and under batch engines (vLLM offline: every conversation's next call in one batch).

Multiround (three rounds, :data:`ramseygadgets.prompts.MULTIROUND_ROUNDS`): in rounds 1 and 2
a reply that asks the coloring tool about a graph (text protocol: a tool request in the reply,
read by :func:`ramseygadgets.tools.coloring.extract_tool_request`; native: an OpenAI tool call)
is answered with the tool's output and the next round starts.  A reply without a tool request
is the final answer, so a model may answer early.  Round 3 must answer: natively the tools stay
declared but ``tool_choice`` is ``none``; a tool request there is not an answer (parse failure).

Python (:data:`~ramseygadgets.tools.python.PYTHON_SETTING`, :class:`PythonLimits` rounds): the
same loop with a program instead of a graph (a ```` ```python run ```` block, or a
``run_python`` call), run in the sandbox by :class:`~ramseygadgets.tools.python.PythonTool`,
which is made with the conversation: where the sandbox cannot run, the conversation is never
made (one line, before the first request).  A conversation of one round (replay) runs nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ramseygadgets.harness.multiround import multiround_step
from ramseygadgets.harness.types import ChatRequest, Completion, SampleKey, Sampling, Usage
from ramseygadgets.problems.catalog import Problem
from ramseygadgets.prompts import (
    MULTIROUND_ROUNDS,
    followup_message,
    python_followup_message,
    tool_result_message,
)
from ramseygadgets.tools.coloring import TOOL_NAME, run_coloring_tool
from ramseygadgets.tools.python import (
    PYTHON_SETTING,
    PythonLimits,
    PythonTool,
    extract_program,
    program_from_arguments,
)
from ramseygadgets.tools.python import TOOL_NAME as PYTHON_TOOL_NAME

__all__ = [
    "MULTIROUND",
    "Conversation",
]


MULTIROUND = "multiround"


class Conversation:
    """The messages, counters and final reply of one (problem, setting, run) sample."""

    def __init__(
        self,
        key: SampleKey,
        problem: Problem,
        prompt: Any,
        sampling: Sampling,
        *,
        tool_mode: str = "text",
        max_rounds: int | None = None,
        python: PythonLimits | None = None,
    ):
        self.key = key
        self.problem = problem
        self.sampling = sampling
        self.tool_mode = tool_mode
        is_python = key.setting == PYTHON_SETTING
        self.multiround = key.setting == MULTIROUND or is_python  # a tool between calls
        default_rounds = (python or PythonLimits()).rounds if is_python else MULTIROUND_ROUNDS
        self.max_rounds = (max_rounds or default_rounds) if self.multiround else 1
        # made before the first request: refuses in one line where the sandbox cannot run
        self.python = PythonTool(python) if is_python and self.max_rounds > 1 else None
        self.messages: list[dict[str, Any]] = [dict(m) for m in prompt.messages]
        self.tools = (
            getattr(prompt, "tools", None) if self.multiround and tool_mode == "native" else None
        )
        self.assistant_prefix: str | None = getattr(prompt, "assistant_prefix", None)
        self.round_no = 1
        self.calls = 0
        self.tool_uses = 0
        self.usage = Usage()
        self.retries = 0
        self.latency_s = 0.0
        self.error: str | None = None
        self.error_kind: str | None = None
        self.response: str | None = None
        self.reasoning: str | None = None
        self.finish_reason: str | None = None
        self.finished = False

    @property
    def last_round(self) -> bool:
        return self.round_no >= self.max_rounds

    def request(self) -> ChatRequest | None:
        """The next model call, or ``None`` when the conversation is over."""
        if self.finished:
            return None
        return ChatRequest(
            key=self.key,
            problem=self.problem,
            messages=self.messages,
            sampling=self.sampling,
            round_no=self.round_no,
            last_round=self.last_round,
            tools=self.tools,
            tool_mode=self.tool_mode,
            assistant_prefix=self.assistant_prefix,
        )

    def feed(self, completion: Completion) -> None:
        """Take a call's result: record it, run the coloring tool if asked, or finish."""
        self.calls += 1
        # a call without counts makes the sample's unknown (not an undercount)
        self.usage = completion.usage if self.calls == 1 else self.usage.plus(completion.usage)
        self.retries += completion.retries
        self.latency_s += completion.latency_s
        if completion.error is not None:
            self.error, self.error_kind, self.finished = (
                completion.error,
                completion.error_kind,
                True,
            )
            return
        assistant: dict[str, Any] = {"role": "assistant", "content": completion.content}
        if completion.tool_calls:
            assistant["tool_calls"] = completion.tool_calls
            # "" rather than null beside tool calls: both are valid OpenAI, and some servers
            # (llama-cpp-python 0.3.36) refuse null
            assistant["content"] = completion.content or ""
        if completion.reasoning:
            assistant["reasoning"] = completion.reasoning
        self.messages.append(assistant)
        self.response, self.reasoning = completion.content, completion.reasoning
        self.finish_reason = completion.finish_reason
        if self.multiround and not self.last_round:
            turn = self._tool_turn(completion)
            if turn:
                self.messages.extend(turn)
                self.tool_uses += 1
                self.round_no += 1
                return
        self.finished = True

    def transcript(self) -> list[dict[str, Any]]:
        """The full conversation (assistant turns carry their ``reasoning`` when there was one)."""
        return self.messages

    def stop_tool(self) -> None:
        """Kill the program this conversation runs now, and run no other (python setting; an
        interrupted run, whose sample is not recorded)."""
        if self.python is not None:
            self.python.stop()

    @property
    def tool_seconds(self) -> float:
        """Wall seconds of the programs run (python setting)."""
        return self.python.seconds if self.python is not None else 0.0

    @property
    def program_runs(self) -> list[dict[str, Any]]:
        """Each program's record (:meth:`SandboxResult.to_json`), in order."""
        return self.python.runs if self.python is not None else []

    # -- the tools ----------------------------------------------------------------------
    def _tool_turn(self, completion: Completion) -> list[dict[str, Any]] | None:
        """The messages opening the next round, or ``None`` when the reply is final."""
        if self.python is not None:
            return self._python_turn(completion)
        if self.tool_mode == "native":
            return self._native_tool_turn(completion)
        step = multiround_step(self.problem, self.round_no, completion.content or "")
        return None if step.final or step.followup is None else [step.followup]

    def _native_tool_turn(self, completion: Completion) -> list[dict[str, Any]] | None:
        if not completion.tool_calls:
            return None
        turn = answer_tool_calls(
            completion.tool_calls,
            TOOL_NAME,
            "only one coloring-tool call is answered per round",
            lambda arguments: run_coloring_tool(self.problem, arguments or ""),
        )
        turn.append(followup_message(self.problem, self.round_no + 1, None, tool_mode="native"))
        return turn

    def _python_turn(self, completion: Completion) -> list[dict[str, Any]] | None:
        """Run the reply's program (one per round) and open the next round with its output."""
        assert self.python is not None
        follow = self.round_no + 1
        if self.tool_mode != "native":
            request = extract_program(completion.content)
            if request is None:
                return None
            text = self.python.run(request)
            return [python_followup_message(follow, self.max_rounds, text)]
        if not completion.tool_calls:
            return None
        python = self.python
        turn = answer_tool_calls(
            completion.tool_calls,
            PYTHON_TOOL_NAME,
            "only one program is run per round",
            lambda arguments: python.run(program_from_arguments(arguments)),
        )
        turn.append(python_followup_message(follow, self.max_rounds, None, tool_mode="native"))
        return turn


def answer_tool_calls(
    calls: list[dict[str, Any]], name: str, one_per_round: str, run: Callable[[Any], str]
) -> list[dict[str, Any]]:
    """The tool messages answering one round's native tool calls: the first call of the tool
    ``name`` is run (``run(arguments)``), any other is answered with a tool error."""
    turn: list[dict[str, Any]] = []
    for index, call in enumerate(calls):
        function = call.get("function") or {}
        if index > 0:
            result = f"Tool error: {one_per_round}; this call was ignored."
        elif function.get("name") != name:
            result = (
                f"Tool error: unknown tool {function.get('name')!r}; the only tool is {name!r}."
            )
        else:
            result = run(function.get("arguments"))
        turn.append(tool_result_message(call.get("id") or f"call_{index}", result))
    return turn
