"""The run directory: ``config.json`` and the append-only ``samples.jsonl`` (format: docs/eval.md, "The run directory").

Safety rules:

* each sample is one ``os.write`` of a complete JSON line to a file opened with ``O_APPEND``,
  followed by ``fsync``: a kill loses at most the samples still in flight;
* a torn last line (a kill or power loss during a write) is detected on the next open and cut
  off, so the log always parses;
* ``config.json`` is replaced atomically (temp file + ``os.replace``);
* one writer at a time: an exclusive ``flock`` on ``DIR/.lock``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ramseygadgets.errors import RamseyGadgetsError
from ramseygadgets.files import atomic_write, lock_directory, make_output_dir
from ramseygadgets.harness.types import SampleKey

CONFIG_FILE = "config.json"
SAMPLES_FILE = "samples.jsonl"
#: Samples that ended with a backend error and were re-run on resume (kept for inspection).
ERRORS_FILE = "errors.jsonl"


class RunLogError(RamseyGadgetsError):
    """The run directory cannot be used (locked, unreadable, malformed)."""


def sample_key(record: dict[str, Any]) -> SampleKey:
    return SampleKey(str(record["problem_id"]), str(record["setting"]), int(record["run"]))


def read_samples(path: Path, *, repair: bool = False) -> tuple[list[dict[str, Any]], int]:
    """Records of a ``samples.jsonl`` and the number of torn bytes found at its end.

    A last line without its newline that does not parse is torn; with ``repair`` it is cut off
    (a parseable last line just gets its newline back).  Any other malformed line is an error
    naming the line.
    """
    if not path.exists():
        return [], 0
    data = path.read_bytes()
    records: list[dict[str, Any]] = []
    lines = data.split(b"\n")
    tail = lines.pop()  # bytes after the last newline ("" when the file ends cleanly)
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        records.append(_parse_line(raw, path, number))
    torn = 0
    if tail.strip():
        try:
            records.append(_parse_line(tail, path, len(lines) + 1))
            if repair:
                with open(path, "ab") as fh:
                    fh.write(b"\n")
                    fh.flush()
                    os.fsync(fh.fileno())
        except RunLogError:
            torn = len(tail)
            if repair:
                with open(path, "r+b") as fh:
                    fh.truncate(len(data) - len(tail))
                    fh.flush()
                    os.fsync(fh.fileno())
    return records, torn


def _parse_line(raw: bytes, path: Path, number: int) -> dict[str, Any]:
    try:
        record = json.loads(raw)
        sample_key(record)
    except (ValueError, KeyError, TypeError):
        raise RunLogError(
            f"{path} line {number} is not a sample record (malformed JSON or missing "
            f"problem_id/setting/run); fix or delete that line"
        ) from None
    if not isinstance(record, dict):
        raise RunLogError(f"{path} line {number} is not a JSON object")
    return record


class RunLog:
    """Open run directory with its recorded samples, locked for this process."""

    def __init__(self, directory: str | os.PathLike[str]):
        self.directory = Path(directory)
        self.config_path = self.directory / CONFIG_FILE
        self.samples_path = self.directory / SAMPLES_FILE
        self._lock_fd: int | None = None
        self._fd: int | None = None
        self.records: dict[SampleKey, dict[str, Any]] = {}
        self.torn_bytes = 0
        self.duplicates = 0

    # -- lifecycle ------------------------------------------------------------------------
    def open(self) -> RunLog:
        make_output_dir(self.directory, "run directory", RunLogError)
        if not os.access(self.directory, os.W_OK):
            raise RunLogError(f"run directory {self.directory} is not writable")
        self._lock()
        records, self.torn_bytes = read_samples(self.samples_path, repair=True)
        for record in records:
            key = sample_key(record)
            if key in self.records:
                self.duplicates += 1
                continue
            self.records[key] = record
        self._fd = os.open(self.samples_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        return self

    def close(self) -> None:
        for attr in ("_fd", "_lock_fd"):
            fd = getattr(self, attr)
            if fd is not None:
                os.close(fd)
                setattr(self, attr, None)

    def __enter__(self) -> RunLog:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _lock(self) -> None:
        self._lock_fd = lock_directory(self.directory, "eval", RunLogError)

    # -- config ---------------------------------------------------------------------------
    def read_config(self) -> dict[str, Any] | None:
        if not self.config_path.exists():
            return None
        try:
            data = json.loads(self.config_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise RunLogError(
                f"{self.config_path} is unreadable ({exc}); move it away or choose another --out"
            ) from None
        if not isinstance(data, dict):
            raise RunLogError(f"{self.config_path} is not a JSON object")
        return data

    def write_config(self, config: dict[str, Any]) -> None:
        atomic_write(self.config_path, json.dumps(config, indent=2) + "\n")

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
        (group commit: samples that finish together cost one disk flush)."""
        if self._fd is None:
            raise RunLogError("run log is not open")
        keys = [sample_key(r) for r in records]
        for key in keys:
            if key in self.records or keys.count(key) > 1:
                raise RunLogError(
                    f"sample {key.label()} is already recorded in {self.samples_path}"
                )
        data = "".join(
            json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in records
        )
        view = memoryview(data.encode("utf-8"))
        try:
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
            os.fsync(self._fd)
        except OSError as exc:
            raise RunLogError(f"cannot write {self.samples_path}: {exc.strerror or exc}") from None
        for key, record in zip(keys, records):
            self.records[key] = record

    def forget_errors(self) -> int:
        """Move samples that ended with a backend error to ``errors.jsonl`` so they run again.

        Returns how many were moved.  The archive is written (and synced) before the samples
        file is atomically replaced, so a kill in between at worst leaves a record in both.
        """
        keep = [r for r in self.records.values() if not r.get("error")]
        failed = [r for r in self.records.values() if r.get("error")]
        dropped = len(failed)
        if dropped:
            with open(self.directory / ERRORS_FILE, "a", encoding="utf-8") as fh:
                for record in failed:
                    fh.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
            text = "".join(
                json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in keep
            )
            atomic_write(self.samples_path, text)
            if self._fd is not None:
                os.close(self._fd)
            self._fd = os.open(self.samples_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            self.records = {sample_key(r): r for r in keep}
        return dropped
