"""Helpers shared by the framework integrations (no framework imports here)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ramseygadgets.catalog import Problem, get_problem, split_problem_ids
from ramseygadgets.errors import UnknownProblemError

__all__ = [
    "split_problem_selection",
    "problem_fields",
    "problem_from_fields",
    "reasoning_text",
]


def split_problem_selection(
    problems: str | Sequence[str] | None,
) -> tuple[list[str] | None, str | None]:
    """A framework's ``problems`` option as (ids, tier) for :func:`~ramseygadgets.harness.problems.select_problems`.

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


def problem_fields(problem: Problem, with_colors: bool) -> dict[str, Any]:
    """A record's problem fields: ``F`` (red), ``H`` (blue), ``gadget`` and, ``with_colors`` (a
    selection holding problems with three or more colours: every row gets it, so that a table
    has one schema), ``colors``, the forbidden pattern of every colour."""
    fields: dict[str, Any] = {"F": problem.F.spec, "H": problem.H.spec}
    if with_colors:
        fields["colors"] = [p.spec for p in problem.patterns]
    fields["gadget"] = problem.gadget_name
    return fields


def problem_from_fields(fields: dict[str, Any]) -> Problem:
    """The problem a record is about: its ``problem_id`` (a catalog id or the id of a problem with
    more colours), else its ``colors`` (or ``F`` and ``H``) and ``gadget``."""
    try:
        return get_problem(str(fields["problem_id"]))
    except (UnknownProblemError, KeyError):
        return Problem.from_json(fields)


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
