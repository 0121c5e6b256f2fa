"""Problem-set files: the one reader behind ``eval --dataset`` (and every other ``--dataset``
option) and ``train-data --from``.  What is read is judged by the caller:
:func:`ramseygadgets.verification.selection.load_selection` (a :class:`~ramseygadgets.verification.selection.Selection`
to evaluate: a wrong solution refuses the file) and
:func:`ramseygadgets.problemsets.load_generated` (the records as read, for
:mod:`ramseygadgets.training.sets`, which leaves out what it cannot trust).

A problem-set file is JSON Lines (or a JSON list, or ``{"problems": [...]}``) of records with
``F``, ``H``, ``gadget`` (or, for any number of colours, ``colors`` — one forbidden pattern, or
a list of patterns, per colour — and ``gadget``: the records of
:meth:`~ramseygadgets.problems.problem.Problem.to_json`, of ``generate``'s ``problems.jsonl`` and of
``ramseygadgets export``), or just a catalog ``id``; a solution as ``solution: {"edges": ...,
"e": ...}`` or as top-level ``edges``/``e``/``f``/``vertices``.  A ``generate`` folder is read
as its ``problems.jsonl`` plus, from releases before schema version 2, its ``multicolor.jsonl``;
rows of every schema version load.  Each problem counts once (its first record), and every
record keeps where it was read (``file:line``).

What a record *claims* (a minimal solution, a lower bound) is judged by
:mod:`ramseygadgets.verification.proofs`, never here.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.infra.files import JSONTooDeepError, parse_json, read_capped
from ramseygadgets.problems.catalog import get_problem
from ramseygadgets.problems.problem import Problem

__all__ = [
    "LEGACY_MULTICOLOR_FILE",
    "MAX_PROBLEM_FILE_BYTES",
    "PARSE_ERRORS",
    "PROBLEMS_FILE",
    "RESULTS_FILE",
    "FileRecord",
    "ProblemFile",
    "ProblemSetError",
    "candidate_of_record",
    "problem_of_record",
    "problem_set_files",
    "read_problem_set",
]

#: A ``generate`` folder's problem file, its checkpoint of search records, and the problem file
#: of three-colour problems written by releases before schema version 2 (read, never written).
PROBLEMS_FILE = "problems.jsonl"
RESULTS_FILE = "results.jsonl"
LEGACY_MULTICOLOR_FILE = "multicolor.jsonl"
#: Largest problem-set file read (the size cap of graph input).
MAX_PROBLEM_FILE_BYTES = 32 * 2**20
#: What reading a malformed record may raise.
PARSE_ERRORS = (
    RamseyGadgetsError,
    ValueError,
    TypeError,
    KeyError,
    AttributeError,
    IndexError,
    RecursionError,
)


class ProblemSetError(RamseyGadgetsError):
    """A problem set is unusable: a problem-set file or one of its records, the problem
    selection, a generation request or its output folder."""


@dataclass(frozen=True)
class FileRecord:
    """One problem of a problem-set file: the problem, its solution (``None``: none given), the
    record as read, and where (``file:line``, or ``file record N`` in a JSON document)."""

    problem: Problem
    candidate: Candidate | None
    record: dict[str, Any]
    where: str


@dataclass(frozen=True)
class ProblemFile:
    """The records of a problem set (each problem once) and the sha256 of its bytes."""

    records: list[FileRecord]
    digest: str


def problem_of_record(record: dict[str, Any]) -> Problem:
    """The problem a record describes: ``colors`` and ``gadget`` (any number of colours;
    ``colors`` entries a pattern or a list of patterns) or, in two-colour records written
    before schema version 2, ``F``, ``H`` and ``gadget``."""
    try:
        return Problem.from_json(record)
    except (KeyError, RamseyGadgetsError, ValueError, TypeError) as exc:
        raise ProblemSetError(f"unusable problem record {record.get('id', '?')}: {exc}") from None


def candidate_of_record(record: dict[str, Any], problem: Problem) -> Candidate | None:
    """The solution of a record (None: it has none)."""
    data = record.get("solution")
    if not data:
        return None
    return Candidate.from_json(data, problem.kind, max_vertices=None)


def problem_set_files(path: str | Path) -> list[Path]:
    """The files of a generated set: ``path`` itself, or a folder's ``problems.jsonl`` and (from
    an older release) its ``multicolor.jsonl``, those that exist."""
    path = Path(path)
    files = [path / PROBLEMS_FILE, path / LEGACY_MULTICOLOR_FILE] if path.is_dir() else [path]
    return [file for file in files if file.exists()]


# -- reading ------------------------------------------------------------------------------------
def _decoded(raw: bytes, file: Path) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ProblemSetError(f"problem set {file} is not UTF-8 text") from None


def _document(text: str, file: Path) -> list[Any] | None:
    """The records of a JSON document (a list, or ``{"problems": [...]}``); ``None`` when the
    text is JSON Lines."""
    stripped = text.lstrip()
    if not (stripped.startswith("[") or stripped.startswith("{") and "\n{" not in stripped.strip()):
        return None
    try:
        data = parse_json(text)
    except JSONTooDeepError as exc:
        raise ProblemSetError(f"{file}: {exc}") from None
    except ValueError:
        return None
    if isinstance(data, dict):
        data = data.get("problems")
    return data if isinstance(data, list) else None


def _raw_records(text: str, file: Path) -> list[tuple[str, int, Any]]:
    """(where, index, record) of every record of one file, in order."""
    document = _document(text, file)
    if document is not None:
        return [(f"{file} record {i}", i, record) for i, record in enumerate(document, 1)]
    out: list[tuple[str, int, Any]] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append((f"{file}:{number}", len(out) + 1, parse_json(line)))
        except ValueError as exc:
            reason = exc if isinstance(exc, JSONTooDeepError) else "not valid JSON"
            raise ProblemSetError(f"{file}:{number}: {reason}") from None
    return out


def _problem_of(record: dict[str, Any], where: str, index: int) -> Problem:
    """The problem of a record: ``colors`` (or ``F`` and ``H``) and ``gadget``, else a catalog
    ``id``."""
    try:
        if "gadget" in record and ("colors" in record or "F" in record and "H" in record):
            return Problem.from_json(record)
        if "id" in record or "problem_id" in record:
            return get_problem(str(record.get("id") or record.get("problem_id")))
    except PARSE_ERRORS as exc:
        raise ProblemSetError(f"{where}: {exc}") from None
    prefix = where if " record " in where else f"{where}: record {index}"
    raise ProblemSetError(f"{prefix} needs F, H and gadget, or colors and gadget (or a catalog id)")


def _solution_of(record: dict[str, Any], problem: Problem, where: str) -> Candidate | None:
    """The record's solution: ``solution``, or the record's own ``edges`` (``export`` rows)."""
    data = record.get("solution")
    if data is None and "edges" in record:
        data = record
    if not data:
        return None
    try:
        return Candidate.from_json(data, problem.kind, max_vertices=None)
    except PARSE_ERRORS as exc:
        raise ProblemSetError(f"{where}: unusable solution: {exc}") from None


def _file_records(file: Path, max_bytes: int) -> tuple[bytes, list[FileRecord]]:
    raw = read_capped(file, max_bytes, "problem set", ProblemSetError)
    out = []
    for where, index, record in _raw_records(_decoded(raw, file), file):
        if not isinstance(record, dict):
            raise ProblemSetError(f"{where}: not a JSON object")
        problem = _problem_of(record, where, index)
        out.append(FileRecord(problem, _solution_of(record, problem, where), record, where))
    return raw, out


def read_problem_set(path: str | Path, max_bytes: int = MAX_PROBLEM_FILE_BYTES) -> ProblemFile:
    """The records of a problem-set file, or of a ``generate`` folder's files
    (:func:`problem_set_files`), each problem once (its first record counts), with the sha256
    of the bytes read; a malformed record is refused naming its file and line."""
    path = Path(path)
    files = problem_set_files(path) if path.is_dir() else [path]
    digest = hashlib.sha256()
    records: list[FileRecord] = []
    seen: set[str] = set()
    for file in files:
        raw, found = _file_records(file, max_bytes)
        digest.update(raw)
        for entry in found:
            if entry.problem.id not in seen:
                seen.add(entry.problem.id)
                records.append(entry)
    return ProblemFile(records, digest.hexdigest())
