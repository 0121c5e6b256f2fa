"""The answer format: the JSON object a perfect model writes, and the outcome of reading a reply
(:class:`ParsedAnswer`, failure kinds)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ramseygadgets.core.gadgets import Candidate, GadgetForm, GadgetKind, GadgetType
from ramseygadgets.problems.problem import Problem

__all__ = [
    "NO_ANSWER",
    "TRUNCATED",
    "MALFORMED",
    "MISSING_ITEM",
    "TOO_LARGE",
    "ERROR_KINDS",
    "ParsedAnswer",
    "AnswerError",
    "failure",
    "answer_object",
    "format_answer",
    "as_gadget",
    "GadgetLike",
    "SNIPPET_CHARS",
]

#: Failure kinds of :class:`ParsedAnswer`.
NO_ANSWER, TRUNCATED, MALFORMED, MISSING_ITEM, TOO_LARGE = (
    "no_answer",
    "truncated",
    "malformed",
    "missing_item",
    "too_large",
)
ERROR_KINDS = (NO_ANSWER, TRUNCATED, MALFORMED, MISSING_ITEM, TOO_LARGE)

SNIPPET_CHARS = 4000


@dataclass(frozen=True)
class ParsedAnswer:
    """The outcome of reading a reply: a candidate, or the reason there is none."""

    candidate: Candidate | None
    error: str | None = None
    error_kind: str | None = None
    source: str | None = None
    answer_text: str | None = None
    label_map: dict[str, int] | None = None
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.candidate is not None

    def to_json(self, gadget: GadgetForm | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "parsed": self.ok,
            "parse_error": self.error,
            "error_kind": self.error_kind,
            "source": self.source,
            "notes": list(self.notes),
        }
        if self.candidate is not None and gadget is not None:
            out["answer"] = self.candidate.to_json(gadget)
        if self.label_map is not None:
            out["label_map"] = self.label_map
        return out


def failure(
    kind: str,
    message: str,
    *,
    source: str | None = None,
    text: str | None = None,
    notes: Iterable[str] = (),
) -> ParsedAnswer:
    snippet = None if text is None else text[:SNIPPET_CHARS]
    return ParsedAnswer(None, message, kind, source, snippet, None, tuple(notes))


class AnswerError(Exception):
    """Internal: an answer container was found but cannot be read exactly."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


# =============================================================================================
# Formatting
# =============================================================================================
def answer_object(candidate: Candidate, gadget: GadgetForm) -> dict[str, Any]:
    """The answer as the documented JSON object (designated vertices by name)."""
    out: dict[str, Any] = {"edges": [list(e) for e in candidate.graph.edges]}
    for name, (u, v) in zip(gadget.edge_names, candidate.designated.edges):
        out[name] = [u, v]
    for name, x in zip(gadget.vertex_names, candidate.designated.vertices):
        out[name] = x
    return out


def format_answer(candidate: Candidate, gadget: GadgetLike) -> str:
    """The final answer exactly as a perfect model writes it: a fenced JSON object."""
    return "```json\n" + json.dumps(answer_object(candidate, as_gadget(gadget))) + "\n```"


#: What names a gadget's designated items: its kind or type, a problem, or a gadget name.
GadgetLike = GadgetForm | Problem | str


def as_gadget(gadget: GadgetLike) -> GadgetForm:
    """The designated-items form of a gadget kind or type, a problem, or a gadget name."""
    if isinstance(gadget, (GadgetType, GadgetKind)):
        return gadget
    if isinstance(gadget, Problem):
        return gadget.kind
    return GadgetType.parse(str(gadget))
