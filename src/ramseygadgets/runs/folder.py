"""The run folder (format: docs/eval.md, "The run directory"), read and written here only:
``config.json``, the append-only ``samples.jsonl``, ``errors.jsonl`` and ``results.json``
(:mod:`.results`).  The harness writes a folder through :class:`RunFolder`; the reports read one
with :func:`read_run_dir`; both read samples with :func:`read_samples`.

Safety rules:

* ``samples.jsonl`` is a :class:`~ramseygadgets.infra.checkpoint.CheckpointLog`: each batch of
  samples is one ``os.write`` of complete JSON lines to a file opened with ``O_APPEND |
  O_NOFOLLOW``, followed by ``fsync``; a failed write (disk full) is cut back off; a torn last
  line is cut off when the harness opens the folder (skipped, with a warning, by the reports);
  lone surrogates in a reply become U+FFFD (flagged in the record);
* every field read back is checked (:mod:`.records`); a bad line is an error naming the file
  and the line;
* ``config.json`` is replaced atomically (:func:`ramseygadgets.infra.files.atomic_write`) and written
  only with the first sample: a run that records nothing (failed pre-flight) leaves nothing;
* one writer at a time: an exclusive ``flock`` on ``DIR/.lock`` (opened with ``O_NOFOLLOW``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.infra.checkpoint import CheckpointLog
from ramseygadgets.infra.files import LOCK_FILE, atomic_write, lock_directory, make_output_dir
from ramseygadgets.runs.records import (
    FieldError,
    SampleKey,
    check_config,
    check_sample_fields,
    drop_hostile_numbers,
    parse_json,
    sample_key,
)
from ramseygadgets.runs.samples import (
    Run,
    RunFormatError,
    Sample,
    setting_sort_key,
    unknown_usage_as_zero,
)

__all__ = [
    "CONFIG_FILE",
    "ERRORS_FILE",
    "RESULTS_FILE",
    "SAMPLES_FILE",
    "RunFolder",
    "RunLog",
    "RunLogError",
    "is_run_dir",
    "read_config",
    "read_run_dir",
    "read_samples",
    "read_samples_file",
    "sample_key",
    "write_file",
]

CONFIG_FILE = "config.json"
SAMPLES_FILE = "samples.jsonl"
#: Samples that ended with a backend error and were re-run on resume (kept for inspection).
ERRORS_FILE = "errors.jsonl"
RESULTS_FILE = "results.json"


class RunLogError(RamseyGadgetsError):
    """The run directory cannot be used (locked, unreadable, malformed)."""


def samples_log(path: Path) -> CheckpointLog:
    """The checkpoint log of a ``samples.jsonl``."""
    return CheckpointLog(path, what="sample record", error=RunLogError)


def read_samples(
    path: Path, *, repair: bool = False, runs: int | None = None
) -> tuple[list[dict[str, Any]], int]:
    """Records of a ``samples.jsonl`` and the number of torn bytes found at its end.

    A last line without its newline that does not parse is torn; with ``repair`` it is cut off
    (a parseable last line just gets its newline back).  Any other malformed line, or a field
    that fails its check (a run outside ``0 .. runs − 1``), is an error naming the line (the
    harness resumes only from a log it can read whole; the reports skip such lines instead:
    :func:`read_samples_file`).
    """
    log = samples_log(path)
    records = log.read(repair=repair, check=_sample_check(runs))
    return records, log.torn_bytes


def _sample_check(runs: int | None) -> Callable[[dict[str, Any]], None]:
    def check(record: dict[str, Any]) -> None:
        sample_key(record, runs)
        check_sample_fields(record)

    return check


def read_config(
    path: Path, error: type[RamseyGadgetsError] = RunLogError, *, writing: bool = False
) -> dict[str, Any] | None:
    """A ``config.json``, checked (:func:`~.records.check_config`); ``None`` when absent.

    Failures raise ``error`` naming the file; ``writing``: for a run about to write into the
    folder (the message says how to get past an unreadable file)."""
    if not path.exists():
        return None
    try:
        data = parse_json(path.read_bytes())
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        if writing:
            raise error(
                f"{path} is unreadable ({reason}); move it away or choose another --out"
            ) from None
        raise error(f"cannot read {path}: {reason}") from None
    if not isinstance(data, dict):
        raise error(f"{path} {'is not' if writing else 'must hold'} a JSON object")
    try:
        check_config(data)
    except FieldError as exc:
        raise error(f"{path}: {exc}") from None
    return data


def write_file(path: Path, text: str | bytes) -> None:
    """:func:`~ramseygadgets.infra.files.atomic_write`, with a failure (disk full) as one sentence."""
    try:
        atomic_write(path, text)
    except OSError as exc:
        raise RunLogError(f"cannot write {path}: {exc.strerror or exc}") from None


class RunFolder:
    """Open run directory with its recorded samples, locked for this process.

    Nothing but the lock is created until the first sample is appended; :meth:`close` removes
    the lock (and the directories :meth:`open` created) when the directory holds no run.
    """

    def __init__(self, directory: str | os.PathLike[str]):
        self.directory = Path(directory)
        self.config_path = self.directory / CONFIG_FILE
        self.samples_path = self.directory / SAMPLES_FILE
        self._samples = samples_log(self.samples_path)
        self._lock_fd: int | None = None
        self._created_dirs: list[Path] = []
        self._locked = False
        self.records: dict[SampleKey, dict[str, Any]] = {}
        self.torn_bytes = 0
        self.duplicates = 0
        #: Written to ``config.json`` just before the first sample (see :meth:`set_config`).
        self.pending_config: dict[str, Any] | None = None

    # -- lifecycle ------------------------------------------------------------------------
    def open(self) -> RunFolder:
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
        self._samples.close()
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

    def __enter__(self) -> RunFolder:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _lock(self) -> None:
        self._lock_fd = lock_directory(self.directory, "eval", RunLogError)
        self._locked = True

    # -- config ---------------------------------------------------------------------------
    def read_config(self) -> dict[str, Any] | None:
        return read_config(self.config_path, writing=True)

    def write_config(self, config: dict[str, Any]) -> None:
        write_file(self.config_path, json.dumps(config, indent=2, allow_nan=False) + "\n")

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
        data, stored = self._samples.encode(records)
        self._write_pending_config()
        self._samples.append_bytes(data)
        for key, record in zip(keys, stored):
            self.records[key] = record

    def forget_errors(self) -> int:
        """Move samples that ended with a backend error to ``errors.jsonl`` so they run again.

        Returns how many were moved.  The archive is written (and synced) before the samples
        file is atomically replaced, so a kill in between at worst leaves a record in both.
        """
        keep = [r for r in self.records.values() if not r.get("error")]
        failed = [r for r in self.records.values() if r.get("error")]
        if not failed:
            return 0
        with CheckpointLog(self.directory / ERRORS_FILE, error=RunLogError) as archive:
            archive.append_many(failed)
        self._samples.rewrite(keep)
        self.records = {sample_key(r): r for r in keep}
        return len(failed)


#: The name the harness has always used for :class:`RunFolder`.
RunLog = RunFolder


# ---------------------------------------------------------------------------------------------
# Reading a run folder (the reports)
# ---------------------------------------------------------------------------------------------


def is_run_dir(path: Path) -> bool:
    return path.is_dir() and ((path / SAMPLES_FILE).is_file() or (path / CONFIG_FILE).is_file())


#: Stands for ``file:line`` in a warning made before the line number is known.
_HERE = "\0"


def read_samples_file(
    path: Path,
    warnings: list[str],
    runs: int | None = None,
    config: dict[str, Any] | None = None,
) -> list[Sample]:
    """The samples of a ``samples.jsonl`` for a report (every field checked, and a run index
    below ``runs``; never repaired).

    A number out of range (:mod:`ramseygadgets.infra.numbers`: a NaN, 10^400 in ``latency_s``) is
    read as missing, with a warning naming ``file:line`` and the field.  A line that cannot be
    used (malformed JSON, not UTF-8, another field that fails its check), a torn
    last line (a run killed while writing) and a record whose key was already seen (the first
    record of a key is used) are skipped, each with a warning naming ``file:line``: the report
    shows what the file holds rather than nothing.  ``config``: the run's ``config.json``
    (how it recorded unknown token counts: :func:`~.samples.unknown_usage_as_zero`).  Each
    sample's ``where`` is ``file:line``.
    """
    log = samples_log(path)
    dropped: dict[int, list[str]] = {}  # id(record) -> the numbers read as missing
    check = _sample_check(runs)

    def lenient(record: dict[str, Any]) -> None:
        dropped[id(record)] = drop_hostile_numbers(record, _HERE)
        check(record)

    try:
        records = log.read(repair=False, corrupt="collect", check=lenient)
    except RunLogError as exc:  # the file itself cannot be read
        raise RunFormatError(str(exc)) from None
    for record, line in zip(records, log.lines, strict=True):
        here = f"{path}:{line}"
        warnings.extend(here + w.removeprefix(_HERE) for w in dropped.get(id(record), ()))
    for number, problem in log.skipped:
        warnings.append(f"{path}:{number}: {problem}; line skipped")
    if log.torn_bytes:
        warnings.append(
            f"{path}:{log.torn_line}: unfinished last line ({log.torn_bytes} bytes) skipped"
        )
    samples: list[Sample] = []
    seen: set[tuple[str, str, int]] = set()
    legacy = unknown_usage_as_zero(config)
    for data, line in zip(records, log.lines, strict=True):
        sample = Sample.from_record(data, zeros_unknown=legacy, where=f"{path}:{line}")
        if sample.key in seen:
            warnings.append(
                f"{path}: sample {'/'.join(map(str, sample.key))} recorded twice; the first record is used"
            )
            continue
        seen.add(sample.key)
        samples.append(sample)
    return samples


def read_run_dir(path: Path) -> list[Run]:
    """A run directory (docs/eval.md).  Without ``config.json`` the expected sample set is
    inferred from the samples (with a warning)."""
    warnings: list[str] = []
    config_path = path / CONFIG_FILE
    config: dict[str, Any] = {}
    if config_path.is_file():
        config = read_config(config_path, RunFormatError) or {}
    else:
        warnings.append(
            f"{path}: no {CONFIG_FILE}; the expected samples are inferred from those recorded"
        )
    samples_path = path / SAMPLES_FILE
    bound = config.get("runs")
    samples = (
        read_samples_file(samples_path, warnings, bound, config) if samples_path.is_file() else []
    )
    model = str(
        config.get("model") or (samples[0].record.get("model") if samples else None) or path.name
    )
    label = str(config.get("model_label") or config.get("profile") or model)
    settings = _str_tuple(config.get("settings"), f"{config_path} 'settings'")
    problems = _str_tuple(config.get("problems"), f"{config_path} 'problems'")
    runs = config.get("runs")
    if not settings:
        settings = tuple(sorted({s.setting for s in samples}, key=setting_sort_key))
    if not problems:
        problems = tuple(dict.fromkeys(s.problem_id for s in samples))
    if not isinstance(runs, int) or isinstance(runs, bool) or runs < 1:
        if config:
            warnings.append(
                f"{config_path}: no valid 'runs'; using the largest recorded run index + 1"
            )
        runs = max((s.run for s in samples), default=0) + 1
    return [
        Run(
            label=label,
            model=model,
            settings=settings,
            runs=runs,
            problems=problems,
            samples=samples,
            config=config,
            source=str(path),
            warnings=warnings,
        )
    ]


def _str_tuple(value: Any, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise RunFormatError(f"{what} must be a list of strings")
    return tuple(value)
