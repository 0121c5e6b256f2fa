"""Reading a generated problem set back (for ``eval`` and training): ``problems.jsonl`` rows of
every schema version, and the ``multicolor.jsonl`` of releases before schema version 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ramseygadgets.gadgets import Candidate
from ramseygadgets.problem import Problem
from ramseygadgets.problemsets.base import LEGACY_MULTICOLOR_FILE, PROBLEMS_FILE, ProblemSetError
from ramseygadgets.problemsets.records import PARSE_ERRORS, candidate_of_record, problem_of_record

__all__ = ["GeneratedEntry", "load_generated", "problem_set_files"]

#: A problem of a generated set, its solution (None: none given) and its row.
GeneratedEntry = tuple[Problem, Candidate | None, dict[str, Any]]


def problem_set_files(path: str | Path) -> list[Path]:
    """The files of a generated set: ``path`` itself, or a folder's ``problems.jsonl`` and (from
    an older release) its ``multicolor.jsonl``, those that exist."""
    path = Path(path)
    files = [path / PROBLEMS_FILE, path / LEGACY_MULTICOLOR_FILE] if path.is_dir() else [path]
    return [file for file in files if file.exists()]


def _rows(file: Path) -> list[tuple[int, Any]]:
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ProblemSetError(f"cannot read {file}: {exc}") from None
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                out.append((number, json.loads(line)))
            except (ValueError, RecursionError) as exc:
                raise ProblemSetError(f"{file} line {number}: not a JSON record ({exc})") from None
    return out


def load_generated(path: str | Path) -> list[GeneratedEntry]:
    """Problems, solutions and rows of a generated set (a directory or one of its JSONL files),
    each problem once (the first row of an id counts).  Rows of schema version 2 give every
    problem by ``colors``; older two-colour rows by ``F``/``H``, older ``multicolor.jsonl`` rows
    by ``colors`` as lists of patterns."""
    out: list[GeneratedEntry] = []
    seen: set[str] = set()
    for file in problem_set_files(path):
        for number, record in _rows(file):
            if not isinstance(record, dict):
                raise ProblemSetError(f"{file} line {number}: not a JSON object")
            try:
                problem = problem_of_record(record)
                candidate = candidate_of_record(record, problem)
            except PARSE_ERRORS as exc:
                raise ProblemSetError(f"{file} line {number}: {exc}") from None
            if problem.id not in seen:
                seen.add(problem.id)
                out.append((problem, candidate, record))
    return out
