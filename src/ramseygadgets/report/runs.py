"""Loading evaluation runs: a registry of readers, the run folder's among them.

A *run set* is what one source holds: one model, some settings, ``runs`` repetitions of a list
of problems.  :func:`load_runs` turns paths into :class:`Run` objects with the first registered
reader whose predicate accepts the path; readers for other formats (for example Inspect
``.eval`` logs) plug in with :func:`register_reader`::

    from ramseygadgets.report import Run, Sample, register_reader

    def is_eval_log(path: Path) -> bool:
        return path.suffix == ".eval"

    def read_eval_log(path: Path) -> list[Run]:
        ...  # build Sample.from_record(dict) objects in the run-directory record shape (docs/eval.md)
        return [Run(label=..., model=..., settings=..., runs=..., problems=..., samples=...)]

    register_reader("inspect-eval", is_eval_log, read_eval_log)

Readers are registered by importing a module that calls :func:`register_reader`: the modules in
:data:`BUILTIN_READER_MODULES` (the Inspect log reader) and the entry points of the group
``ramseygadgets.report_readers`` are imported on the first :func:`load_runs`.

The run folder itself is read by :func:`ramseygadgets.runs.folder.read_run_dir` (the data layer
the harness writes through); :class:`Run`, :class:`Sample` and the outcome names live in
:mod:`ramseygadgets.runs.samples` and are re-exported here.

A directory that no reader accepts is searched one level down, so
``ramseygadgets report runs/`` reads every run under ``runs/``.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path

from ramseygadgets.runs.folder import is_run_dir, read_run_dir, read_samples_file
from ramseygadgets.runs.samples import (
    EXAMPLE_HINT,
    FRESH_SET,
    OUTCOMES,
    SETTINGS_ORDER,
    Run,
    RunFormatError,
    Sample,
    Usage,
    example_hint_applies,
    problem_colors,
    problem_gadget,
    problem_of_id,
    problem_pair,
    problem_tier,
    setting_sort_key,
)

__all__ = [
    "BUILTIN_READER_MODULES",
    "EXAMPLE_HINT",
    "FRESH_SET",
    "OUTCOMES",
    "READER_ENTRY_POINT_GROUP",
    "SETTINGS_ORDER",
    "Predicate",
    "Reader",
    "RegisteredReader",
    "Run",
    "RunFormatError",
    "Sample",
    "Usage",
    "example_hint_applies",
    "is_run_dir",
    "load_reader_plugins",
    "load_runs",
    "problem_colors",
    "problem_gadget",
    "problem_of_id",
    "problem_pair",
    "problem_tier",
    "read_run_dir",
    "read_samples_file",
    "register_reader",
    "registered_readers",
    "setting_sort_key",
]

Predicate = Callable[[Path], bool]
Reader = Callable[[Path], list[Run]]


@dataclass(frozen=True)
class RegisteredReader:
    name: str
    predicate: Predicate
    reader: Reader


_READERS: list[RegisteredReader] = []


def register_reader(name: str, predicate: Predicate, reader: Reader, *, first: bool = True) -> None:
    """Add a reader: ``predicate(path)`` says whether it handles ``path``, ``reader(path)`` returns
    the runs.  A reader registered again under the same name replaces the old one.  New readers are
    tried before the built-in ones unless ``first=False``."""
    _READERS[:] = [r for r in _READERS if r.name != name]
    entry = RegisteredReader(name, predicate, reader)
    if first:
        _READERS.insert(0, entry)
    else:
        _READERS.append(entry)


#: Modules of this package that register readers when imported (skipped if their import fails).
BUILTIN_READER_MODULES = ("ramseygadgets.integrations.inspect_log",)
#: Entry-point group through which other packages register readers: each entry point is a module
#: (or callable) whose loading calls :func:`register_reader`.
READER_ENTRY_POINT_GROUP = "ramseygadgets.report_readers"
_plugins_loaded = False


def load_reader_plugins() -> None:
    """Import the built-in reader modules and the ``ramseygadgets.report_readers`` entry points
    once, so that their readers are registered before paths are read."""
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True

    for module in BUILTIN_READER_MODULES:
        try:
            importlib.import_module(module)
        except ImportError:
            continue
    for entry in entry_points(group=READER_ENTRY_POINT_GROUP):
        try:
            loaded = entry.load()
        except Exception as exc:  # a broken plugin must not stop reports of run directories
            warnings.warn(
                f"report reader plugin {entry.name!r} failed to load: {exc}", stacklevel=2
            )
            continue
        if callable(loaded):
            loaded()


def registered_readers() -> list[str]:
    load_reader_plugins()
    return [r.name for r in _READERS]


def load_runs(paths: Iterable[str | Path]) -> list[Run]:
    """Read every path with the first reader that accepts it; a directory that none accepts is
    searched one level down.  Raises :class:`RunFormatError` for a path nothing can read."""
    load_reader_plugins()
    out: list[Run] = []
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise RunFormatError(f"{raw}: no such file or directory")
        runs = _read_one(path)
        if runs is None and path.is_dir():
            children = sorted(p for p in path.iterdir() if not p.name.startswith("."))
            for child in children:
                found = _read_one(child)
                if found:
                    runs = (runs or []) + found
        if not runs:
            raise RunFormatError(
                f"{raw}: not a run directory (expected config.json and samples.jsonl) nor any log format "
                f"known to the report (readers: {', '.join(registered_readers())})"
            )
        out.extend(runs)
    return out


def _read_one(path: Path) -> list[Run] | None:
    for entry in _READERS:
        try:
            accepted = entry.predicate(path)
        except OSError:
            accepted = False
        if accepted:
            return entry.reader(path)
    return None


register_reader("run-dir", is_run_dir, read_run_dir, first=False)
