"""One append-only JSON Lines checkpoint log, the project's only one.

Used for a run folder's ``samples.jsonl`` (:mod:`ramseygadgets.runs.folder`) and the atlas's
``crosscheck.jsonl``; open to any other checkpoint (``generate``'s ``results.jsonl``, search
cube logs)::

    log = CheckpointLog(path)            # nothing is opened or created yet
    records = log.read(repair=True)      # every record; a torn last line is cut off
    log.append({"id": "p3_k3_red_determiner", ...})      # durable when it returns
    log.append_many([record, record])    # one write + one fsync for the batch
    log.close()                          # or: with CheckpointLog(path) as log: ...

Safety rules:

* records are appended as complete lines in one ``os.write`` (looped only if the kernel writes
  less) to a file opened with ``O_APPEND | O_NOFOLLOW`` (a planted symlink is refused), then
  ``fsync``: a kill loses at most the records not yet appended; a write that fails (disk full)
  is cut back off, so the log never holds half a line before a later one;
* a last line without its newline that is not JSON is *torn* (a kill or power loss during a
  write): :meth:`CheckpointLog.read` skips it and, with ``repair=True``, cuts it off (a last
  line that parses just gets its newline back), so the next append starts on a fresh line;
* any other bad line (malformed JSON, not an object, JSON nested too deeply, or refused by the
  ``check`` callback) is named by file and line number: with ``corrupt="raise"`` (default) it
  is an error, with ``corrupt="skip"`` it is left out and its description is kept in
  :attr:`CheckpointLog.warnings` and issued as a :class:`CheckpointWarning` (``"collect"``:
  kept, not issued); with ``corrupt="compact"`` (a reader that is about to append, holding the
  log's lock) the log is rewritten atomically without the bad lines — every valid line kept
  byte for byte — and one warning names what was removed, so the next run reads a clean log
  instead of warning about the same line forever;
* text is UTF-8; lone UTF-16 surrogates (half an emoji) become U+FFFD and the record is flagged
  ``"replaced_surrogates": true`` (the default encoder, :func:`json_line`), so one odd record
  never stops the others of its batch from being written.
"""

from __future__ import annotations

import json
import os
import re
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Literal

from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.infra.files import JSONTooDeepError, atomic_write, parse_json

__all__ = [
    "APPEND_FLAGS",
    "SURROGATES_FLAG",
    "CheckpointError",
    "CheckpointLog",
    "CheckpointWarning",
    "Encoder",
    "ascii_json_line",
    "json_line",
    "write_all",
]

#: Flags of every append: never follow a planted symlink, never write in the middle.
APPEND_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW

#: Turns a record into one JSON line (UTF-8, no newline) and the record as it is stored.
Encoder = Callable[[dict[str, Any]], tuple[bytes, dict[str, Any]]]
#: Checks a decoded record; raises ``ValueError`` (its text names the problem) to refuse it.
Check = Callable[[dict[str, Any]], object]

#: Flag set on a record whose texts held lone surrogates (replaced by U+FFFD).
SURROGATES_FLAG = "replaced_surrogates"
_SURROGATE = re.compile("[\ud800-\udfff]")


def json_line(record: dict[str, Any]) -> tuple[bytes, dict[str, Any]]:
    """One JSON line for ``record`` as UTF-8 (without the newline), and the record it holds.

    Lone surrogates become U+FFFD and the record gets :data:`SURROGATES_FLAG`; values JSON
    cannot hold are written as text; a NaN or an infinity is a ``ValueError`` (never written as
    bare ``NaN``, which is not JSON: readers drop such numbers first, :mod:`ramseygadgets.infra.numbers`).
    """
    text = json.dumps(
        record, ensure_ascii=False, separators=(",", ":"), default=str, allow_nan=False
    )
    try:
        return text.encode("utf-8"), record
    except UnicodeEncodeError:  # only lone surrogates fail to encode
        pass
    repaired = parse_json(_SURROGATE.sub("\ufffd", text))
    repaired[SURROGATES_FLAG] = True
    line = json.dumps(repaired, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return line.encode("utf-8"), repaired


def ascii_json_line(record: dict[str, Any]) -> tuple[bytes, dict[str, Any]]:
    """``json.dumps(record)`` with its default separators and ASCII escapes (the atlas's and
    ``generate``'s checkpoint lines)."""
    return json.dumps(record, allow_nan=False).encode("ascii"), record


class CheckpointError(RamseyGadgetsError):
    """A checkpoint log cannot be read or written; ``str()`` names the file (and the line)."""


class CheckpointWarning(UserWarning):
    """A corrupt line skipped by ``read(corrupt="skip")``."""


class _TornLine(ValueError):
    """A line that is not JSON (for the last line: the remains of an interrupted write)."""


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd`` (``os.write`` may write less) and ``fsync``."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.fsync(fd)


class CheckpointLog:
    """An append-only JSON Lines file of records (JSON objects); see the module docstring.

    ``what`` names a record in error messages ("line 3 is not a sample record"); ``error`` is
    the exception class raised (a subclass of :class:`RamseyGadgetsError` whose constructor takes
    the message); ``encoder`` writes one line (:func:`json_line` or :func:`ascii_json_line`).
    The file is opened on the first append and kept open until :meth:`close`.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        what: str = "record",
        error: type[RamseyGadgetsError] = CheckpointError,
        encoder: Encoder = json_line,
    ):
        self.path = Path(path)
        self.what = what
        self.error = error
        self.encoder = encoder
        self._fd: int | None = None
        #: Bytes of a torn last line found by the last :meth:`read` (0: none), and its number.
        self.torn_bytes = 0
        self.torn_line: int | None = None
        #: Corrupt lines skipped by the last ``read(corrupt="skip")``, one sentence each.
        self.warnings: list[str] = []
        #: The same lines as (line number, what is wrong with it).
        self.skipped: list[tuple[int, str]] = []
        #: The line number of each record the last :meth:`read` returned (same order).
        self.lines: list[int] = []

    # -- reading ----------------------------------------------------------------------------
    def read(
        self,
        *,
        repair: bool = True,
        corrupt: Literal["raise", "skip", "collect", "compact"] = "raise",
        check: Check | None = None,
        start: int = 0,
    ) -> list[dict[str, Any]]:
        """Every record in file order (a missing file has none); see the module docstring.

        ``repair``: cut a torn last line off the file (else it is only skipped).  ``corrupt``:
        what a bad line does: ``"raise"`` the log's error naming file and line, ``"skip"`` it
        with a :class:`CheckpointWarning`, ``"collect"`` it silently, or ``"compact"``: skip it
        and rewrite the log without it (:meth:`compact`, one warning; only with ``start`` 0, by
        a reader that holds the log for writing); skipped lines are described in
        :attr:`warnings`.  ``check(record)`` may refuse a record by raising
        ``ValueError``.  ``start``: only the records from this byte offset on (a line start,
        e.g. an earlier :meth:`size`: the records appended since then); line numbers still
        count from the top of the file.
        """
        if corrupt == "compact" and start:
            raise ValueError("a log is compacted only when it is read from its start")
        self.torn_bytes, self.torn_line, self.warnings, self.skipped = 0, None, [], []
        self.lines = []
        data = self._read_bytes()
        records: list[dict[str, Any]] = []
        kept: list[bytes] = []  # the raw lines of the records (what a compaction keeps)
        first = data.count(b"\n", 0, start) + 1 if start else 1
        data, offset = data[start:], start
        lines = data.split(b"\n")
        tail = lines.pop()  # bytes after the last newline ("" when the file ends cleanly)
        for number, raw in enumerate(lines, first):
            if raw.strip() and self._collect(records, raw, number, corrupt, check):
                kept.append(raw)
        if tail.strip():
            number = first + len(lines)
            try:
                record = self._parse(tail, number, check)
            except _TornLine:
                self.torn_bytes, self.torn_line = len(tail), number
                if repair and not (corrupt == "compact" and self.skipped):
                    self._repair_end(truncate_to=offset + len(data) - len(tail))
            except ValueError as exc:
                self._corrupt(str(exc), corrupt, number)
            else:
                records.append(record)
                self.lines.append(number)
                kept.append(tail)
                if repair and not (corrupt == "compact" and self.skipped):
                    self._repair_end(append=b"\n")
        if corrupt == "compact" and self.skipped:
            self.compact(kept)
        return records

    def compact(self, kept: list[bytes]) -> None:
        """Replace the log atomically by the lines ``kept`` (the raw valid lines a
        ``read(corrupt="compact")`` found), dropping the corrupt lines in :attr:`skipped` and a
        torn last line; one :class:`CheckpointWarning` names what was removed."""
        self.close()
        try:
            atomic_write(self.path, b"".join(line + b"\n" for line in kept))
        except OSError as exc:
            raise self.error(f"cannot compact {self.path}: {exc.strerror or exc}") from None
        removed = "; ".join(f"line {number} ({problem})" for number, problem in self.skipped)
        warnings.warn(
            f"{self.path} compacted (every valid line kept), removed {self.path.name} {removed}",
            CheckpointWarning,
            stacklevel=3,
        )

    def size(self) -> int:
        """The file's length in bytes now (0 when it does not exist): a ``start`` for :meth:`read`."""
        try:
            return self.path.stat().st_size
        except FileNotFoundError:
            return 0
        except OSError as exc:
            raise self.error(f"cannot read {self.path}: {exc.strerror or exc}") from None

    def _read_bytes(self) -> bytes:
        if not self.path.exists():
            return b""
        try:
            return self.path.read_bytes()
        except OSError as exc:
            raise self.error(f"cannot read {self.path}: {exc.strerror or exc}") from None

    def _collect(
        self,
        records: list[dict[str, Any]],
        raw: bytes,
        number: int,
        corrupt: str,
        check: Check | None,
    ) -> bool:
        """Add the record of line ``number`` (True), or deal with a bad line (False)."""
        try:
            records.append(self._parse(raw, number, check))
        except ValueError as exc:
            self._corrupt(str(exc), corrupt, number)
            return False
        self.lines.append(number)
        return True

    def _corrupt(self, message: str, corrupt: str, number: int) -> None:
        if corrupt == "raise":
            raise self.error(message) from None
        self.warnings.append(message)
        where = f"{self.path} line {number}"
        problem = message.removeprefix(where).lstrip(": ").removesuffix("; fix or delete that line")
        self.skipped.append((number, problem))
        if corrupt == "skip":
            warnings.warn(message, CheckpointWarning, stacklevel=4)

    def _parse(self, raw: bytes, number: int, check: Check | None) -> dict[str, Any]:
        where = f"{self.path} line {number}"
        try:
            text: str | bytes = raw.decode("utf-8")  # decoded once, then parsed
        except UnicodeDecodeError as exc:
            if exc.reason != "unexpected end of data":  # not a character cut by a torn write
                raise ValueError(
                    f"{where}: not UTF-8 text (byte {exc.start + 1}); fix or delete that line"
                ) from None
            text = raw  # a torn write: json.loads fails below and the line counts as torn
        try:
            record = parse_json(text)
        except JSONTooDeepError as exc:
            raise ValueError(f"{where}: {exc}; fix or delete that line") from None
        except ValueError:
            raise _TornLine(
                f"{where}: not a {self.what} (malformed JSON); fix or delete that line"
            ) from None
        if not isinstance(record, dict):
            raise ValueError(f"{where} is not a JSON object")
        if check is not None:
            try:
                check(record)
            except ValueError as exc:
                raise ValueError(f"{where}: {exc}; fix or delete that line") from None
        return record

    def _repair_end(self, *, truncate_to: int | None = None, append: bytes = b"") -> None:
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_NOFOLLOW)
            try:
                if truncate_to is not None:
                    os.ftruncate(fd, truncate_to)
                os.lseek(fd, 0, os.SEEK_END)
                write_all(fd, append)
            finally:
                os.close(fd)
        except OSError as exc:
            raise self.error(f"cannot repair {self.path}: {exc.strerror or exc}") from None

    # -- writing ----------------------------------------------------------------------------
    def encode(self, records: Iterable[dict[str, Any]]) -> tuple[bytes, list[dict[str, Any]]]:
        """The lines of ``records`` (each ending in a newline) and the records as stored."""
        lines, stored = [], []
        for record in records:
            line, kept = self.encoder(record)
            lines.append(line + b"\n")
            stored.append(kept)
        return b"".join(lines), stored

    def append(self, record: dict[str, Any]) -> dict[str, Any]:
        """Append one record durably; returns it as stored (see :func:`json_line`)."""
        return self.append_many([record])[0]

    def append_many(self, records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        """Append records durably: complete lines in one ``write``, then one ``fsync`` (group
        commit).  On failure the file is cut back to where it was and the error raised."""
        data, stored = self.encode(records)
        self.append_bytes(data)
        return stored

    def append_bytes(self, data: bytes) -> None:
        """Append complete lines (as :meth:`encode` makes them) durably: one ``write``, one
        ``fsync``; on failure the file is cut back to where it was and the error raised."""
        if not data:
            return
        try:
            if self._fd is None:
                self._fd = os.open(self.path, APPEND_FLAGS, 0o644)
            start = os.lseek(self._fd, 0, os.SEEK_END)
        except OSError as exc:
            raise self.error(f"cannot write {self.path}: {exc.strerror or exc}") from None
        try:
            write_all(self._fd, data)
        except OSError as exc:
            try:
                os.ftruncate(self._fd, start)
            except OSError:
                pass
            raise self.error(f"cannot write {self.path}: {exc.strerror or exc}") from None

    def rewrite(self, records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        """Replace the whole log atomically by ``records`` (a fresh file, fsync, rename)."""
        data, stored = self.encode(records)
        self.close()
        try:
            atomic_write(self.path, data)
        except OSError as exc:
            raise self.error(f"cannot write {self.path}: {exc.strerror or exc}") from None
        return stored

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> CheckpointLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"CheckpointLog({str(self.path)!r})"
