"""The grade of one answer: a typed value, written into (and read back from) a sample record.

A grade is what :func:`ramseygadgets.runs.grading.grade` decides for a reply: ``correct``,
else why not.  In ``samples.jsonl`` it is the fields ``parse_error``, ``parse_error_kind`` (parse
failures only), ``candidate``, ``correct``, ``reason``, ``check`` and ``witness``, in that order
(docs/eval.md, "The run directory"); :meth:`Grade.to_json` writes exactly those keys and
:meth:`Grade.from_json` reads them back from any record, old run folders included.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["GRADE_FIELDS", "GRADE_KINDS", "Grade"]

#: The record fields a grade owns, in the order they are written.
GRADE_FIELDS = (
    "parse_error",
    "parse_error_kind",
    "candidate",
    "correct",
    "reason",
    "check",
    "witness",
)
#: What a grade says about the reply, in the order they are decided (:attr:`Grade.kind`).
GRADE_KINDS = ("correct", "parse-failure", "error", "wrong")

#: ``check`` of a reply without a readable answer, and of a sample without a reply or verdict.
PARSE_CHECK = "parse"
ERROR_CHECK = "error"


@dataclass(frozen=True)
class Grade:
    """Whether an answer is correct, and why (or why not).

    ``check`` is the verifier's deciding clause (``ok``, ``good``, ``gadget``...), ``parse`` when
    the reply held no readable answer, ``error`` when there was no reply (backend error) or the
    verifier failed.  ``candidate`` is the parsed answer as JSON (``edges`` and the designated
    items), ``witness`` the verifier's counterexample coloring.
    """

    correct: bool
    reason: str
    check: str
    candidate: dict[str, Any] | None = None
    witness: dict[str, Any] | None = None
    parse_error: str | None = None
    parse_error_kind: str | None = None

    # -- the ways a grade is made -----------------------------------------------------------
    @classmethod
    def parse_failure(cls, error: str, kind: str | None) -> Grade:
        """No readable answer in the reply."""
        return cls(False, error, PARSE_CHECK, parse_error=error, parse_error_kind=kind)

    @classmethod
    def no_reply(cls, error: str) -> Grade:
        """The sample ended without a reply (backend error): nothing to grade."""
        return cls(False, error, ERROR_CHECK)

    @classmethod
    def verifier_failed(cls, candidate: dict[str, Any], error: str) -> Grade:
        """The verifier raised on a parsed answer (recorded, never fatal)."""
        return cls(False, f"verification failed: {error}", ERROR_CHECK, candidate=candidate)

    # -- reading ----------------------------------------------------------------------------
    @property
    def kind(self) -> str:
        """``correct``, ``parse-failure``, ``error`` (no reply or no verdict) or ``wrong``."""
        if self.correct:
            return "correct"
        if self.parse_error is not None or self.check == PARSE_CHECK:
            return "parse-failure"
        if self.check == ERROR_CHECK:
            return "error"
        return "wrong"

    @property
    def edge_count(self) -> int | None:
        """Edges of the candidate graph (``None`` without a candidate)."""
        edges = (self.candidate or {}).get("edges")
        return len(edges) if isinstance(edges, list) else None

    @property
    def vertex_count(self) -> int | None:
        """Vertices of the candidate graph: its ``n`` when given, else 1 + the largest vertex
        of its edges and designated items (``None`` without a candidate)."""
        if self.candidate is None:
            return None
        n = self.candidate.get("n")
        if isinstance(n, int) and not isinstance(n, bool):
            return n
        largest = max(_vertices(self.candidate.values()), default=-1)
        return largest + 1

    # -- JSON -------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The grade's record fields, in record order (``parse_error_kind`` only for parse
        failures), byte for byte as ``samples.jsonl`` has always held them."""
        out: dict[str, Any] = {"parse_error": self.parse_error}
        if self.check == PARSE_CHECK:
            out["parse_error_kind"] = self.parse_error_kind
        out.update(
            candidate=self.candidate,
            correct=self.correct,
            reason=self.reason,
            check=self.check,
            witness=self.witness,
        )
        return out

    @classmethod
    def from_json(cls, record: Mapping[str, Any]) -> Grade:
        """The grade held by a record (a whole sample record will do); lenient as the reports
        are: a missing or ill-typed field reads as absent."""
        parse_error = record.get("parse_error")
        parse_error = str(parse_error) if parse_error else None
        check = _text(record.get("check"))
        if check is None:
            check = PARSE_CHECK if parse_error else ERROR_CHECK if record.get("error") else ""
        return cls(
            correct=record.get("correct") is True,
            reason=str(record.get("reason") or ""),
            check=check,
            candidate=_object(record.get("candidate")),
            witness=_object(record.get("witness")),
            parse_error=parse_error,
            parse_error_kind=_text(record.get("parse_error_kind")),
        )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _object(value: Any) -> dict[str, Any] | None:
    return dict(value) if isinstance(value, Mapping) else None


def _vertices(values: Any) -> list[int]:
    """Every integer inside (nested lists of) ``values``."""
    out: list[int] = []
    for value in values:
        if isinstance(value, int) and not isinstance(value, bool):
            out.append(value)
        elif isinstance(value, (list, tuple)):
            out.extend(_vertices(value))
    return out
