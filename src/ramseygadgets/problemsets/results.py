"""The ``results.jsonl`` checkpoint: one record per finished problem, appended durably.

Everything that reads or appends the log goes through :func:`append_record` and
:func:`read_results_file` (plus the tolerant :func:`iter_records`), so that the project's shared
append-only log can replace them in one place."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ramseygadgets.problemsets.base import ProblemSetError
from ramseygadgets.problemsets.records import check_record, strongest

__all__ = [
    "ResultsRead",
    "append_record",
    "iter_records",
    "read_results",
    "read_results_file",
    "repair_torn_tail",
]


@dataclass
class ResultsRead:
    """The checked records of a ``results.jsonl``, with where each line starts, and the
    rejected lines (file, line, reason)."""

    records: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)

    def by_id(self) -> dict[str, dict[str, Any]]:
        """The strongest record of each problem."""
        out: dict[str, dict[str, Any]] = {}
        for _, record in self.records:
            out[record["id"]] = strongest(out.get(record["id"]), record)
        return out


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes() if path.exists() else b""
    except OSError as exc:
        raise ProblemSetError(f"cannot read {path}: {exc.strerror or exc}") from None


def _parse_line(raw: bytes) -> tuple[Any, str | None]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"not UTF-8 text (byte {exc.start + 1})"
    try:
        return json.loads(text), None
    except (ValueError, RecursionError) as exc:
        return None, f"not a JSON record ({type(exc).__name__})"


def read_results_file(path: Path, verdicts: dict[bytes, str | None] | None = None) -> ResultsRead:
    """Every line of ``results.jsonl`` checked with :func:`check_record` (``verdicts`` caches
    the outcome by line).  A last line without its newline is a torn write and is skipped."""
    out = ResultsRead()
    verdicts = {} if verdicts is None else verdicts
    offset = 0
    for number, raw in enumerate(_read_bytes(path).split(b"\n")[:-1], 1):
        start, offset = offset, offset + len(raw) + 1
        if not raw.strip():
            continue
        record, why = _parse_line(raw)
        if why is None:
            if raw not in verdicts:
                verdicts[raw] = check_record(record)
            why = verdicts[raw]
        if why is None:
            out.records.append((start, record))
        else:
            out.rejected.append(f"{path} line {number}: {why}")
    return out


def read_results(path: Path) -> dict[str, dict[str, Any]]:
    """The strongest checked record of each problem in ``results.jsonl``."""
    return read_results_file(path).by_id()


def iter_records(path: Path) -> Iterator[dict[str, Any]]:
    """Every record (a JSON object with an ``id``) of a checkpoint JSONL file in order; other
    lines, such as a torn last line left by a kill, are skipped; a missing file has none.
    ``results.jsonl`` is read through :func:`read_results_file`, which checks each record."""
    for raw in _read_bytes(path).splitlines():
        record, why = _parse_line(raw)
        if why is None and isinstance(record, dict) and "id" in record:
            yield record


def append_record(path: Path, record: dict[str, Any]) -> None:
    """Append one record as a JSON line (one write of the whole line) to a checkpoint file,
    durable (fsynced) before returning."""
    line = json.dumps(record).encode("utf-8") + b"\n"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            view = memoryview(line)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        raise ProblemSetError(f"cannot write {path}: {exc.strerror or exc}") from None


def repair_torn_tail(path: Path) -> None:
    """Cut a partial last line (a kill during a write) so that appends start on a new line."""
    if not path.exists():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        with path.open("r+b") as fh:
            fh.truncate(data.rfind(b"\n") + 1)
