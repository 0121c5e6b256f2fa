"""The ``results.jsonl`` checkpoint of a generation run: one record per finished problem, on the
project's one append-only log (:class:`~ramseygadgets.infra.checkpoint.CheckpointLog`): each record
one durable write of a whole line, a torn last line cut off, a corrupt line named by file and
line and left out (its problem is solved again)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ramseygadgets.infra.checkpoint import CheckpointLog, ascii_json_line
from ramseygadgets.problemsets.base import ProblemSetError
from ramseygadgets.problemsets.records import check_record, strongest

__all__ = [
    "ResultsRead",
    "append_record",
    "iter_records",
    "read_results",
    "read_results_file",
    "repair_torn_tail",
    "results_log",
]


def results_log(path: Path) -> CheckpointLog:
    """The checkpoint log at ``path`` (lines as ``json.dumps`` writes them)."""
    return CheckpointLog(path, what="result record", error=ProblemSetError, encoder=ascii_json_line)


@dataclass
class ResultsRead:
    """The checked records of a ``results.jsonl`` in file order, and the rejected lines (file,
    line, reason)."""

    records: list[dict[str, Any]] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)

    def by_id(self) -> dict[str, dict[str, Any]]:
        """The strongest record of each problem."""
        out: dict[str, dict[str, Any]] = {}
        for record in self.records:
            out[record["id"]] = strongest(out.get(record["id"]), record)
        return out


def read_results_file(
    path: Path, verdicts: dict[bytes, str | None] | None = None, *, start: int = 0
) -> ResultsRead:
    """Every record of ``results.jsonl`` from byte ``start`` on, checked with
    :func:`check_record` (``verdicts`` caches the outcome by encoded record).  A torn last line
    is skipped (not cut: reading never writes)."""
    verdicts = {} if verdicts is None else verdicts

    def check(record: dict[str, Any]) -> None:
        key = json.dumps(record).encode("utf-8")
        if key not in verdicts:
            verdicts[key] = check_record(record)
        if verdicts[key] is not None:
            raise ValueError(verdicts[key])

    log = results_log(path)
    records = log.read(repair=False, corrupt="collect", check=check, start=start)
    return ResultsRead(records, [w.removesuffix("; fix or delete that line") for w in log.warnings])


def read_results(path: Path) -> dict[str, dict[str, Any]]:
    """The strongest checked record of each problem in ``results.jsonl``."""
    return read_results_file(path).by_id()


def iter_records(path: Path) -> list[dict[str, Any]]:
    """Every record (a JSON object with an ``id``) of a checkpoint file in order, unchecked;
    other lines are skipped and a missing file has none (``results.jsonl`` is read through
    :func:`read_results_file`, which checks each record)."""
    return [r for r in results_log(path).read(repair=False, corrupt="collect") if "id" in r]


def append_record(path: Path, record: dict[str, Any]) -> None:
    """Append one record durably (one write of the whole line, fsynced) before returning."""
    with results_log(path) as log:
        log.append(record)


def repair_torn_tail(path: Path) -> None:
    """Cut a partial last line (a kill during a write) so that appends start on a new line."""
    results_log(path).read(repair=True, corrupt="collect")
