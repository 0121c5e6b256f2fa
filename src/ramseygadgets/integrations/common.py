"""Helpers shared by the framework integrations (no framework imports here)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ramseygadgets.catalog import split_problem_ids

__all__ = [
    "split_problem_selection",
    "reasoning_text",
]


def split_problem_selection(
    problems: str | Sequence[str] | None,
) -> tuple[list[str] | None, str | None]:
    """A framework's ``problems`` option as (ids, tier) for :func:`~ramseygadgets.selection.select_problems`.

    ``None``, ``""`` or ``all`` → every problem; ``easy`` / ``hard`` → that tier; otherwise problem
    ids, as a list or one comma-separated string.
    """
    if problems is None:
        return None, None
    items = [problems] if isinstance(problems, str) else list(problems)
    ids = [part for item in items for part in split_problem_ids(str(item))]
    if ids in (["all"], []):
        return None, None
    if len(ids) == 1 and ids[0] in ("easy", "hard"):
        return None, ids[0]
    return ids, None


def reasoning_text(output: Any) -> str | None:
    """The separate reasoning of an Inspect ``ModelOutput``'s reply (its reasoning content
    blocks, e.g. vLLM's reasoning field), or ``None``."""
    if output is None or not output.choices or isinstance(output.message.content, str):
        return None
    parts = [
        getattr(c, "reasoning", "")
        for c in output.message.content
        if getattr(c, "type", None) == "reasoning"
    ]
    return "\n".join(p for p in parts if p) or None
