"""What the Inspect solvers share (needs the ``inspect`` extra): the per-sample store keys the
solvers write and the scorer reads, and the prompts' message dicts as Inspect messages.

Used by :mod:`~ramseygadgets.integrations.inspect_task` (the task, the multiround coloring
tool, the scorer) and :mod:`~ramseygadgets.integrations.inspect_python` (the python setting).
"""

from __future__ import annotations

from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
)

__all__ = [
    "ROUNDS_KEY",
    "TOOL_USES_KEY",
    "CALLS_LEFT_KEY",
    "PROGRAMS_KEY",
    "TOOL_SECONDS_KEY",
    "chat_message",
]

#: Per-sample store keys written by the solvers.
ROUNDS_KEY = "ramseygadgets:rounds"
TOOL_USES_KEY = "ramseygadgets:tool_uses"
CALLS_LEFT_KEY = "ramseygadgets:tool_calls_left"
#: The python setting: each program's record (``SandboxResult.to_json``) and their seconds.
PROGRAMS_KEY = "ramseygadgets:programs"
TOOL_SECONDS_KEY = "ramseygadgets:tool_seconds"


def chat_message(message: dict[str, Any]) -> ChatMessage:
    """An OpenAI-style message dict (as the prompt builders return them) as an Inspect message."""
    role, content = message.get("role"), message.get("content") or ""
    if role == "system":
        return ChatMessageSystem(content=content)
    if role == "user":
        return ChatMessageUser(content=content)
    if role == "assistant":
        return ChatMessageAssistant(content=content)
    if role == "tool":
        return ChatMessageTool(content=content, tool_call_id=message.get("tool_call_id"))
    raise ValueError(f"prompt message with unknown role {role!r}")
