"""The ``python`` setting in the Inspect task (needs the ``inspect`` extra): the model runs
Python programs in the project's sandbox while it works, then answers.

The same tool as ``eval``'s: every program runs through
:class:`~ramseygadgets.tools.python.PythonTool` (the bubblewrap sandbox of
:mod:`ramseygadgets.sandbox`, its per-program and per-problem limits), with the prompts'
round messages (:func:`~ramseygadgets.prompts.python_followup_message`).

* **Limits**: :func:`~ramseygadgets.tools.python.python_limits` (as ``eval``'s) from the task
  options ``python_rounds``, ``python_total_seconds``, ``python_wall_s``, ``python_cpu_s`` and
  ``python_memory_mb`` (defaults: :class:`~ramseygadgets.tools.python.PythonLimits`); the prompt
  states them, and every sample's metadata holds them as ``python_limits``.
* **Solver** (:func:`python_rounds`): up to ``rounds`` rounds.  ``tool_mode=text``: a reply
  with a ```` ```python run ```` block (:func:`~ramseygadgets.tools.python.extract_program`) has
  its program run and the next round opens with its output; ``tool_mode=native``: the model
  calls the Inspect tool :func:`run_python` (one call answered per round).  A reply without a
  program is the final answer; in the last round tools stay declared but ``tool_choice`` is
  ``none``.  The store records each program's record (``programs``) and their seconds
  (``tool_seconds``), which the scorer puts in the score's metadata.
* **Refusal**: where the sandbox cannot run, the task raises :class:`SandboxRefusal` (a
  :class:`~ramseygadgets.sandbox.SandboxUnavailableError`, which ``inspect eval`` prints as its
  one line) when it is made, before the first request (and so does every
  :class:`~ramseygadgets.tools.python.PythonTool`); model code never runs outside the sandbox.
"""

from __future__ import annotations

from typing import Any

import anyio
from inspect_ai.solver import Generate, TaskState
from inspect_ai.tool import Tool, ToolDef, ToolError, ToolParams, tool
from inspect_ai.util import store

from ramseygadgets.integrations.inspect_state import (
    CALLS_LEFT_KEY,
    PROGRAMS_KEY,
    ROUNDS_KEY,
    TOOL_SECONDS_KEY,
    TOOL_USES_KEY,
    chat_message,
)
from ramseygadgets.prompts import python_followup_message
from ramseygadgets.sandbox import SandboxUnavailableError, require_sandbox
from ramseygadgets.tools.python import (
    TOOL_NAME,
    ProgramRequest,
    PythonLimits,
    PythonTool,
    extract_program,
    program_from_arguments,
    python_limits,
    tool_spec,
)

try:  # Inspect's CLI prints a PrerequisiteError as its message alone, without a traceback
    from inspect_ai._util.error import PrerequisiteError
except ImportError:  # pragma: no cover - another Inspect: a traceback that ends in the line
    PrerequisiteError = Exception  # type: ignore[misc,assignment]

__all__ = [
    "LIMITS_KEY",
    "python_limits",
    "limits_of",
    "SandboxRefusal",
    "require_python_sandbox",
    "run_python",
    "python_rounds",
    "program_record",
]

#: The sample-metadata key of the setting's limits (:meth:`PythonLimits.to_json`).
LIMITS_KEY = "python_limits"


def limits_of(metadata: dict[str, Any]) -> PythonLimits:
    """The limits a sample carries (the defaults when it carries none)."""
    data = metadata.get(LIMITS_KEY)
    return PythonLimits.from_json(data) if data else PythonLimits()


class SandboxRefusal(SandboxUnavailableError, PrerequisiteError):
    """:class:`~ramseygadgets.sandbox.SandboxUnavailableError` as Inspect's CLI shows a
    prerequisite that is missing: its one line, no traceback."""

    def __init__(self, message: str) -> None:
        SandboxUnavailableError.__init__(self, message)
        self.message = message


def require_python_sandbox() -> None:
    """Refuse the task in one line (:class:`SandboxRefusal`) where the sandbox cannot run; the
    probe runs once per process."""
    try:
        require_sandbox()
    except SandboxUnavailableError as exc:
        raise SandboxRefusal(str(exc)) from None


async def _run(python: PythonTool, request: ProgramRequest) -> str:
    """Run a request in a worker thread (the event loop never waits on a program) and record
    the sample's programs and seconds in the store."""
    text = await anyio.to_thread.run_sync(python.run, request)
    store().set(PROGRAMS_KEY, [dict(r) for r in python.runs])
    store().set(TOOL_SECONDS_KEY, python.seconds)
    return text


@tool(name="run_python")
def run_python(limits: dict[str, Any] | None = None) -> Tool:
    """The python setting's ``run_python`` tool for one sample, as an Inspect tool.

    ``limits`` are :meth:`PythonLimits.to_json`'s (default: the defaults).  Each call runs its
    program through one :class:`~ramseygadgets.tools.python.PythonTool` (the sandbox; made here,
    so a tool is never made where the sandbox cannot run), which also counts the sample's
    program seconds.  The model-facing name, description and parameters are the project's
    :func:`~ramseygadgets.tools.python.tool_spec`; unusable requests raise
    :class:`~inspect_ai.tool.ToolError` (the model sees the message).  Inside
    :func:`python_rounds` only the first call of a round is answered.
    """

    python = PythonTool(PythonLimits.from_json(limits) if limits else None)

    async def execute(**kwargs: Any) -> str:
        calls_left = store().get(CALLS_LEFT_KEY)
        if calls_left is not None:
            if calls_left <= 0:
                raise ToolError("only one program is run per round; this call was ignored")
            store().set(CALLS_LEFT_KEY, calls_left - 1)
        text = await _run(python, program_from_arguments(dict(kwargs)))
        if text.startswith("Tool error:"):
            raise ToolError(text.removeprefix("Tool error:").strip())
        return text

    function = tool_spec(python.limits)["function"]
    return ToolDef(
        execute,
        name=TOOL_NAME,
        description=function["description"],
        parameters=ToolParams.model_validate(function["parameters"]),
        parallel=False,
    ).as_tool()


async def python_rounds(state: TaskState, generate: Generate) -> TaskState:
    """The python setting's conversation (see the module docs)."""
    limits = limits_of(state.metadata)
    native = state.metadata.get("tool_mode") == "native"
    # made before the first request: refuses in one line where the sandbox cannot run
    python = None if native else PythonTool(limits)
    if native:
        state.tools = [run_python(limits.to_json())]
    tool_uses = 0
    for round_no in range(1, limits.rounds + 1):
        last = round_no == limits.rounds
        store().set(ROUNDS_KEY, round_no)
        if native:
            state.tool_choice = "none" if last else "auto"
            store().set(CALLS_LEFT_KEY, 0 if last else 1)
            state = await generate(state, tool_calls="none" if last else "single")
            if last or not state.output.message.tool_calls:
                break
            followup = python_followup_message(
                round_no + 1, limits.rounds, None, tool_mode="native"
            )
        else:
            assert python is not None
            state = await generate(state, tool_calls="none")
            request = None if last else extract_program(state.output.completion)
            if request is None:
                break
            text = await _run(python, request)
            followup = python_followup_message(round_no + 1, limits.rounds, text)
        state.messages.append(chat_message(followup))
        tool_uses += 1
        store().set(TOOL_USES_KEY, tool_uses)
        if state.completed:
            break
    return state


def program_record() -> dict[str, Any]:
    """The score metadata of a python sample: ``programs`` (each program's record, in order)
    and ``tool_seconds`` (their wall seconds), as ``eval``'s samples have them."""
    return {
        "programs": store().get(PROGRAMS_KEY, []),
        "tool_seconds": store().get(TOOL_SECONDS_KEY, 0.0),
    }
