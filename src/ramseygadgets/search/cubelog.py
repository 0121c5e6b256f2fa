"""The checkpoint of finished cubes (:mod:`.parallel`), ``DIR/cubes.jsonl``: nothing decided is
lost.  It is the project's one append-only log (:class:`~ramseygadgets.infra.checkpoint.CheckpointLog`):

* each record is one complete JSON line written with a single ``write`` to a file opened with
  ``O_APPEND | O_NOFOLLOW``, then ``fsync``-ed: a kill loses at most the record in flight; a
  failed write is cut back off so the log never holds half a line before a later one;
* a torn last line (a kill or power loss during the write) is cut off when the log is opened;
* any other malformed line is an error naming the file and the line number (never skipped: a
  checkpoint that misread a record could claim a cube decided that was not);
* one writer at a time: an exclusive ``flock`` on ``DIR/.lock``.

Only the driver writes it; a cube record names where the cube ran (``node``, ``host``, ``pid``,
``ip`` on Ray, :func:`.runners.placement`) — optional fields, absent from older logs.
:func:`cubes_by_node` counts a log's cube outcomes by node.
"""

from __future__ import annotations

import json
import os
import warnings
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.infra import numbers
from ramseygadgets.infra.checkpoint import CheckpointLog
from ramseygadgets.infra.files import lock_directory, make_output_dir

__all__ = ["CUBES_FILE", "CubeLog", "CubeLogError", "cubes_by_node", "read_log", "read_numbered"]

#: The log's file name inside the ``--out`` directory.
CUBES_FILE = "cubes.jsonl"


class CubeLogError(RamseyGadgetsError):
    """The checkpoint log cannot be used (locked, unreadable, malformed)."""


def _compact_line(record: dict[str, Any]) -> tuple[bytes, dict[str, Any]]:
    return json.dumps(record, separators=(",", ":"), allow_nan=False).encode("utf-8"), record


def _log(path: Path) -> CheckpointLog:
    return CheckpointLog(path, what="cube record", error=CubeLogError, encoder=_compact_line)


def _check(record: dict[str, Any]) -> None:
    if not isinstance(record.get("kind"), str):
        raise ValueError("not a cube record (no 'kind')")


#: The numbers of a cube record a reader adds up (:mod:`ramseygadgets.infra.numbers`).
CUBE_NUMBERS = (("cpu_seconds", "seconds"), ("wall_seconds", "seconds"))


def _read_checked(log: CheckpointLog, *, repair: bool) -> list[dict[str, Any]]:
    """The records of ``log``, each checked; a number out of range (a NaN, 10^400 in
    ``cpu_seconds``) is removed, read as missing, with a :class:`~ramseygadgets.infra.numbers.
    NumberWarning` naming ``file:line`` and the field."""
    dropped: dict[int, list[str]] = {}

    def check(record: dict[str, Any]) -> None:
        _check(record)
        dropped[id(record)] = numbers.drop_hostile(record, CUBE_NUMBERS, "")

    records = log.read(repair=repair, check=check)
    for record, line in zip(records, log.lines, strict=True):
        for problem in dropped.get(id(record), ()):
            warnings.warn(f"{log.path}:{line}{problem}", numbers.NumberWarning, stacklevel=3)
    return records


def read_log(path: Path, *, repair: bool = False) -> list[dict[str, Any]]:
    """The records of a cube log; a torn last line is ignored (cut off with ``repair``)."""
    return _read_checked(_log(path), repair=repair)


def read_numbered(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """The records of a cube log with their line numbers (for refusals naming ``file:line``);
    a torn last line is ignored, nothing is written."""
    log = _log(path)
    records = _read_checked(log, repair=False)
    return list(zip(log.lines, records, strict=True))


#: The node of a cube record written before records named their node.
UNKNOWN_NODE = "?"


def cubes_by_node(records: Iterable[dict[str, Any]]) -> dict[str, Counter[str]]:
    """Per node (a record's ``node``; :data:`UNKNOWN_NODE` for older records), how many of the
    cube records ended with each outcome (``none``, ``found``, ``split``, ``timeout``)."""
    out: dict[str, Counter[str]] = {}
    for record in records:
        if record.get("kind") == "cube":
            node = str(record.get("node") or UNKNOWN_NODE)
            out.setdefault(node, Counter())[str(record.get("outcome"))] += 1
    return out


class CubeLog:
    """The open log ``DIR/cubes.jsonl``, locked for this process (close it to release)."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = make_output_dir(Path(directory), "output directory", CubeLogError)
        self.path = self.directory / CUBES_FILE
        self._lock: int | None = lock_directory(self.directory, "search", CubeLogError)
        try:
            self._log = _log(self.path)
            self._records = _read_checked(self._log, repair=True)
            #: the line number of each record read when the log was opened
            self.lines = list(self._log.lines)
        except BaseException:
            self.close()
            raise

    def read(self) -> list[dict[str, Any]]:
        """Every record, the ones appended by this process included."""
        return list(self._records)

    def append(self, record: dict[str, Any]) -> None:
        """Write ``record`` as one line (one ``write``, then ``fsync``)."""
        if self._lock is None:
            raise CubeLogError(f"{self.path} is closed")
        self._records.append(self._log.append(record))

    def close(self) -> None:
        if getattr(self, "_log", None) is not None:
            self._log.close()
        if self._lock is not None:
            os.close(self._lock)
        self._lock = None

    def __enter__(self) -> CubeLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
