"""The run directory: ``config.json`` and the append-only ``samples.jsonl`` (format: docs/eval.md, "The run directory").

Safety rules:

* each batch of samples is one ``os.write`` of complete JSON lines to a file opened with
  ``O_APPEND``, followed by ``fsync``: a kill loses at most the samples still in flight; a
  failed write (disk full) is cut back off, so the log never holds half a line before a later
  one;
* every line encodes: lone surrogates in a reply become U+FFFD (flagged in the record), so one
  odd reply never stops the others of its batch from being written;
* a torn last line (a kill or power loss during a write) is detected on the next open and cut
  off, so the log always parses; every field read back is checked (:mod:`.records`);
* ``config.json`` is replaced atomically (:func:`ramseygadgets.files.atomic_write`) and written
  only with the first sample: a run that records nothing (failed pre-flight) leaves nothing;
* one writer at a time: an exclusive ``flock`` on ``DIR/.lock`` (opened with ``O_NOFOLLOW``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ramseygadgets.errors import RamseyGadgetsError
from ramseygadgets.files import (
    LOCK_FILE,
    JSONTooDeepError,
    atomic_write,
    lock_directory,
    make_output_dir,
)
from ramseygadgets.harness.records import (
    FieldError,
    check_config,
    check_run,
    check_sample_fields,
    encodable_json,
    parse_json,
)
from ramseygadgets.harness.types import SampleKey

CONFIG_FILE = "config.json"
SAMPLES_FILE = "samples.jsonl"
#: Samples that ended with a backend error and were re-run on resume (kept for inspection).
ERRORS_FILE = "errors.jsonl"
#: Flags for the files of a run directory: never follow a planted symlink.
_APPEND_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW


class RunLogError(RamseyGadgetsError):
    """The run directory cannot be used (locked, unreadable, malformed)."""


def sample_key(record: dict[str, Any], runs: int | None = None) -> SampleKey:
    """The key of a record, checked: string ids and a run in ``0 .. runs − 1``."""
    for name in ("problem_id", "setting"):
        if not isinstance(record.get(name), str):
            raise FieldError(name, "must be a string")
    return SampleKey(record["problem_id"], record["setting"], check_run(record.get("run"), runs))


def read_samples(
    path: Path, *, repair: bool = False, runs: int | None = None
) -> tuple[list[dict[str, Any]], int]:
    """Records of a ``samples.jsonl`` and the number of torn bytes found at its end.

    A last line without its newline that does not parse is torn; with ``repair`` it is cut off
    (a parseable last line just gets its newline back).  Any other malformed line, or a field
    that fails its check (a run outside ``0 .. runs − 1``), is an error naming the line.
    """
    if not path.exists():
        return [], 0
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise RunLogError(f"cannot read {path}: {exc.strerror or exc}") from None
    records: list[dict[str, Any]] = []
    lines = data.split(b"\n")
    tail = lines.pop()  # bytes after the last newline ("" when the file ends cleanly)
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        records.append(_parse_line(raw, path, number, runs))
    torn = 0
    if tail.strip():
        try:
            record = _parse_line(tail, path, len(lines) + 1, runs)
        except _TornLine:
            torn = len(tail)
            if repair:
                _rewrite_end(path, truncate_to=len(data) - len(tail))
        else:
            records.append(record)
            if repair:
                _rewrite_end(path, append=b"\n")
    return records, torn


class _TornLine(RunLogError):
    """A line that is not JSON (for the last line: the remains of an interrupted write)."""


def _rewrite_end(path: Path, *, truncate_to: int | None = None, append: bytes = b"") -> None:
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW)
        try:
            if truncate_to is not None:
                os.ftruncate(fd, truncate_to)
            os.lseek(fd, 0, os.SEEK_END)
            _write_all(fd, append)
        finally:
            os.close(fd)
    except OSError as exc:
        raise RunLogError(f"cannot repair {path}: {exc.strerror or exc}") from None


def _parse_line(raw: bytes, path: Path, number: int, runs: int | None) -> dict[str, Any]:
    try:
        record = parse_json(raw)
    except JSONTooDeepError as exc:
        raise RunLogError(f"{path} line {number}: {exc}; fix or delete that line") from None
    except ValueError:
        raise _TornLine(
            f"{path} line {number} is not a sample record (malformed JSON); fix or delete that line"
        ) from None
    if not isinstance(record, dict):
        raise RunLogError(f"{path} line {number} is not a JSON object")
    try:
        sample_key(record, runs)
        check_sample_fields(record)
    except FieldError as exc:
        raise RunLogError(f"{path} line {number}: {exc}; fix or delete that line") from None
    return record


class RunLog:
    """Open run directory with its recorded samples, locked for this process.

    Nothing but the lock is created until the first sample is appended; :meth:`close` removes
    the lock (and the directories :meth:`open` created) when the directory holds no run.
    """

    def __init__(self, directory: str | os.PathLike[str]):
        self.directory = Path(directory)
        self.config_path = self.directory / CONFIG_FILE
        self.samples_path = self.directory / SAMPLES_FILE
        self._lock_fd: int | None = None
        self._fd: int | None = None
        self._created_dirs: list[Path] = []
        self._locked = False
        self.records: dict[SampleKey, dict[str, Any]] = {}
        self.torn_bytes = 0
        self.duplicates = 0
        #: Written to ``config.json`` just before the first sample (see :meth:`set_config`).
        self.pending_config: dict[str, Any] | None = None

    # -- lifecycle ------------------------------------------------------------------------
    def open(self) -> RunLog:
        self._created_dirs = [
            p for p in (self.directory, *self.directory.parents) if not p.exists()
        ]
        make_output_dir(self.directory, "run directory", RunLogError)
        if not os.access(self.directory, os.W_OK):
            raise RunLogError(f"run directory {self.directory} is not writable")
        try:
            self._lock()
            config = self.read_config()
            runs = config.get("runs") if config else None
            records, self.torn_bytes = read_samples(self.samples_path, repair=True, runs=runs)
        except BaseException:
            self.close()
            raise
        for record in records:
            key = sample_key(record)
            if key in self.records:
                self.duplicates += 1
                continue
            self.records[key] = record
        return self

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        self._remove_if_empty()  # while the lock is still held
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None
        self._locked = False

    def _remove_if_empty(self) -> None:
        """Leave nothing behind when no run was recorded: the lock (only when this process got
        it; another eval's lock stays) and the directories :meth:`open` created."""
        if self.config_path.exists() or self.samples_path.exists():
            return
        try:
            if self._locked:
                (self.directory / LOCK_FILE).unlink(missing_ok=True)
            for directory in self._created_dirs:
                directory.rmdir()
        except OSError:
            pass
        self._created_dirs = []

    def __enter__(self) -> RunLog:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _lock(self) -> None:
        self._lock_fd = lock_directory(self.directory, "eval", RunLogError)
        self._locked = True

    # -- config ---------------------------------------------------------------------------
    def read_config(self) -> dict[str, Any] | None:
        if not self.config_path.exists():
            return None
        try:
            data = parse_json(self.config_path.read_bytes())
        except (OSError, ValueError) as exc:
            reason = getattr(exc, "strerror", None) or exc
            raise RunLogError(
                f"{self.config_path} is unreadable ({reason}); move it away or choose another --out"
            ) from None
        if not isinstance(data, dict):
            raise RunLogError(f"{self.config_path} is not a JSON object")
        try:
            check_config(data)
        except FieldError as exc:
            raise RunLogError(f"{self.config_path}: {exc}") from None
        return data

    def write_config(self, config: dict[str, Any]) -> None:
        write_file(self.config_path, json.dumps(config, indent=2) + "\n")

    def set_config(self, config: dict[str, Any]) -> None:
        """Write ``config`` with the first sample (at once when samples are already recorded)."""
        self.pending_config = config
        if self.records:
            self._write_pending_config()

    def _write_pending_config(self) -> None:
        if self.pending_config is not None:
            self.write_config(self.pending_config)
            self.pending_config = None

    # -- samples --------------------------------------------------------------------------
    def __contains__(self, key: SampleKey) -> bool:
        return key in self.records

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.records.values())

    def __len__(self) -> int:
        return len(self.records)

    def append(self, record: dict[str, Any]) -> None:
        """Record one finished sample durably (one write + fsync)."""
        self.append_many([record])

    def append_many(self, records: list[dict[str, Any]]) -> None:
        """Record finished samples durably: complete lines in one ``write``, then one ``fsync``
        (group commit: samples that finish together cost one disk flush).  Linear in the batch."""
        if self._lock_fd is None:
            raise RunLogError("run log is not open")
        keys = [sample_key(r) for r in records]
        batch: set[SampleKey] = set()
        for key in keys:
            if key in self.records or key in batch:
                raise RunLogError(
                    f"sample {key.label()} is already recorded in {self.samples_path}"
                )
            batch.add(key)
        lines, stored = [], []
        for record in records:
            line, kept = encodable_json(record)
            lines.append(line)
            stored.append(kept)
        self._write_pending_config()
        self._write_durably(b"\n".join(lines) + b"\n")
        for key, record in zip(keys, stored):
            self.records[key] = record

    def _write_durably(self, data: bytes) -> None:
        """Append ``data`` and fsync; on failure cut the file back to where it was."""
        try:
            if self._fd is None:
                self._fd = os.open(self.samples_path, _APPEND_FLAGS, 0o644)
            start = os.lseek(self._fd, 0, os.SEEK_END)
        except OSError as exc:
            raise RunLogError(f"cannot write {self.samples_path}: {exc.strerror or exc}") from None
        try:
            _write_all(self._fd, data)
        except OSError as exc:
            try:
                os.ftruncate(self._fd, start)
            except OSError:
                pass
            raise RunLogError(f"cannot write {self.samples_path}: {exc.strerror or exc}") from None

    def forget_errors(self) -> int:
        """Move samples that ended with a backend error to ``errors.jsonl`` so they run again.

        Returns how many were moved.  The archive is written (and synced) before the samples
        file is atomically replaced, so a kill in between at worst leaves a record in both.
        """
        keep = [r for r in self.records.values() if not r.get("error")]
        failed = [r for r in self.records.values() if r.get("error")]
        if not failed:
            return 0
        archive = b"".join(encodable_json(r)[0] + b"\n" for r in failed)
        path = self.directory / ERRORS_FILE
        try:
            fd = os.open(path, _APPEND_FLAGS, 0o644)
            try:
                _write_all(fd, archive)
            finally:
                os.close(fd)
        except OSError as exc:
            raise RunLogError(f"cannot write {path}: {exc.strerror or exc}") from None
        write_file(self.samples_path, b"".join(encodable_json(r)[0] + b"\n" for r in keep))
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        self.records = {sample_key(r): r for r in keep}
        return len(failed)


def _write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd`` (``os.write`` may write less) and ``fsync``."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.fsync(fd)


def write_file(path: Path, text: str | bytes) -> None:
    """:func:`~ramseygadgets.files.atomic_write`, with a failure (disk full) as one sentence."""
    try:
        atomic_write(path, text)
    except OSError as exc:
        raise RunLogError(f"cannot write {path}: {exc.strerror or exc}") from None
