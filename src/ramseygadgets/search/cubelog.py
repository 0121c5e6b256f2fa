"""Append-only JSONL checkpoint log of finished cubes (:mod:`.parallel`): nothing decided is lost.

The smallest interface, ``append(record)`` and ``read() -> list[dict]``, so that a shared
checkpoint module can replace it later.  The approach is that of
:mod:`ramseygadgets.harness.runlog`:

* each record is one complete JSON line written with a single ``os.write`` to a file opened
  with ``O_APPEND | O_NOFOLLOW``, then ``fsync``-ed: a kill loses at most the record in flight;
  a short write is cut back off so the log never holds half a line before a later one;
* a torn last line (a kill or power loss during the write) is cut off when the log is opened
  again, so the log always parses;
* any other malformed line is an error naming the file and the line number (never skipped:
  a checkpoint that silently drops a decided cube would only cost time, but one that
  misreads a record could claim a cube decided that was not);
* one writer at a time: an exclusive ``flock`` on ``DIR/.lock``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ramseygadgets.errors import RamseyGadgetsError
from ramseygadgets.files import lock_directory, make_output_dir

#: The log's file name inside the ``--out`` directory.
CUBES_FILE = "cubes.jsonl"
_APPEND_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW


class CubeLogError(RamseyGadgetsError):
    """The checkpoint log cannot be used (locked, unreadable, malformed)."""


def read_log(path: Path, *, repair: bool = False) -> list[dict[str, Any]]:
    """The records of a cube log; a torn last line is ignored (cut off with ``repair``)."""
    if not path.exists():
        return []
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CubeLogError(f"cannot read {path}: {exc.strerror or exc}") from None
    lines = data.split(b"\n")
    tail = lines.pop()  # bytes after the last newline ("" when the file ends cleanly)
    records = []
    for number, raw in enumerate(lines, 1):
        if raw.strip():
            records.append(_parse(raw, path, number))
    if tail.strip():
        try:
            records.append(_parse(tail, path, len(lines) + 1))
            if repair:
                _fix_end(path, None, b"\n")
        except CubeLogError:
            if repair:
                _fix_end(path, len(data) - len(tail), b"")
    return records


def _parse(raw: bytes, path: Path, number: int) -> dict[str, Any]:
    try:
        record = json.loads(raw)
    except ValueError:
        raise CubeLogError(
            f"{path} line {number} is not a cube record (malformed JSON); fix or delete that line"
        ) from None
    if not isinstance(record, dict) or not isinstance(record.get("kind"), str):
        raise CubeLogError(f"{path} line {number} is not a cube record (no 'kind')")
    return record


def _fix_end(path: Path, truncate_to: int | None, append: bytes) -> None:
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW)
        try:
            if truncate_to is not None:
                os.ftruncate(fd, truncate_to)
            os.lseek(fd, 0, os.SEEK_END)
            if append:
                os.write(fd, append)
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        raise CubeLogError(f"cannot repair {path}: {exc.strerror or exc}") from None


class CubeLog:
    """The open log ``DIR/cubes.jsonl``, locked for this process (close it to release)."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = make_output_dir(Path(directory), "output directory", CubeLogError)
        self.path = self.directory / CUBES_FILE
        self._lock: int | None = lock_directory(self.directory, "search", CubeLogError)
        self._records = read_log(self.path, repair=True)
        try:
            self._fd: int | None = os.open(self.path, _APPEND_FLAGS, 0o644)
        except OSError as exc:
            self.close()
            raise CubeLogError(f"cannot open {self.path}: {exc.strerror or exc}") from None

    def read(self) -> list[dict[str, Any]]:
        """Every record, the ones appended by this process included."""
        return list(self._records)

    def append(self, record: dict[str, Any]) -> None:
        """Write ``record`` as one line (one ``os.write``, then ``fsync``)."""
        assert self._fd is not None, "the log is closed"
        line = (json.dumps(record, separators=(",", ":")) + "\n").encode()
        start = os.lseek(self._fd, 0, os.SEEK_END)
        try:
            written = os.write(self._fd, line)
            if written != len(line):
                raise OSError(0, f"short write ({written} of {len(line)} bytes)")
            os.fsync(self._fd)
        except OSError as exc:
            os.ftruncate(self._fd, start)  # never leave half a line before a later one
            raise CubeLogError(f"cannot write {self.path}: {exc.strerror or exc}") from None
        self._records.append(record)

    def close(self) -> None:
        for fd in (self._fd, self._lock):
            if fd is not None:
                os.close(fd)
        self._fd = self._lock = None

    def __enter__(self) -> CubeLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
