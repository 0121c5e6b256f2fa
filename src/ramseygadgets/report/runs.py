"""Loading evaluation runs: the run-directory format (``config.json`` + ``samples.jsonl``) and a
registry of readers for other log formats.

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

A directory that no reader accepts is searched one level down for run directories, so
``ramseygadgets report runs/`` reads every run under ``runs/``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ramseygadgets.catalog import Problem, find_problem, parse_colored_problem
from ramseygadgets.errors import RamseyGadgetsError
from ramseygadgets.gadgets import GadgetType
from ramseygadgets.harness.records import FieldError, check_config, parse_json
from ramseygadgets.harness.runlog import CONFIG_FILE, SAMPLES_FILE, RunLogError, read_samples

#: The paper's settings, in display order.  Unknown settings sort after these, alphabetically.
SETTINGS_ORDER = ("zero-shot", "structural-hint", "size-hint", "example-hint", "multiround")

#: The setting that exists only for the 30 problems with a P3 counterpart.
EXAMPLE_HINT = "example-hint"

#: Sample outcomes, mutually exclusive, in the order they are decided (see :meth:`Sample.outcome`).
OUTCOMES = ("correct", "wrong", "parse-failure", "truncated", "error", "missing")


class RunFormatError(RamseyGadgetsError):
    """A run directory or log cannot be read."""


def setting_sort_key(setting: str) -> tuple[int, str]:
    try:
        return (SETTINGS_ORDER.index(setting), setting)
    except ValueError:
        return (len(SETTINGS_ORDER), setting)


def example_hint_applies(problem_id: str) -> bool:
    """Whether the example-hint setting exists for a problem: F = K1,3 and the P3 problem with the
    same H and gadget type is in the catalog (30 problems).  Problems outside the catalog: False."""
    problem = find_problem(problem_id)
    if problem is None or problem.F.name != "K1,3":
        return False
    return find_problem(f"p3_{problem.H.slug}_{problem.gadget.slug}") is not None


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning_tokens: int | None = None
    total_tokens: int | None = None

    @classmethod
    def from_json(cls, data: Any) -> Usage:
        if not isinstance(data, Mapping):
            return cls()

        def num(key: str) -> int | None:
            value = data.get(key)
            return (
                int(value)
                if isinstance(value, (int, float))
                and not isinstance(value, bool)
                and math.isfinite(value)
                else None
            )

        total = num("total_tokens")
        prompt, completion = num("prompt_tokens"), num("completion_tokens")
        if total is None and prompt is not None and completion is not None:
            total = prompt + completion
        return cls(prompt, completion, num("reasoning_tokens"), total)


@dataclass(frozen=True)
class Sample:
    """One (problem, setting, run) record of a run directory (docs/eval.md), with the fields reports use.

    ``record`` keeps the original JSON object (minus the bulky ``messages``) for the HTML report.
    """

    problem_id: str
    setting: str
    run: int
    correct: bool
    tier: str
    gadget: str
    min_vertices: int | None
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None
    error: str | None = None
    parse_error: str | None = None
    candidate: dict[str, Any] | None = None
    reason: str = ""
    witness: dict[str, Any] | None = None
    rounds: int | None = None
    latency_s: float | None = None
    response: str | None = None
    record: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.problem_id, self.setting, self.run)

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"

    @property
    def outcome(self) -> str:
        """``correct``; else ``error`` (backend error), ``truncated`` (finish_reason length),
        ``parse-failure`` (answer unreadable) or ``wrong`` (parsed, verifier said no), first match."""
        if self.correct:
            return "correct"
        if self.error:
            return "error"
        if self.truncated:
            return "truncated"
        if self.parse_error:
            return "parse-failure"
        return "wrong"

    @classmethod
    def from_record(cls, data: Mapping[str, Any]) -> Sample:
        """Read one decoded ``samples.jsonl`` line; missing tier/gadget come from the catalog."""
        for key in ("problem_id", "setting", "run"):
            if key not in data:
                raise RunFormatError(f"sample has no {key!r} field")
        problem_id = str(data["problem_id"])
        run = data["run"]
        if isinstance(run, bool) or not isinstance(run, int) or run < 0:
            raise RunFormatError(
                f"sample {problem_id}: 'run' must be a non-negative integer, got {run!r}"
            )
        tier, gadget = data.get("tier"), data.get("gadget")
        if not tier or not gadget:
            tier, gadget = tier or problem_tier(problem_id), gadget or problem_gadget(problem_id)
        min_vertices = data.get("min_vertices")
        if not isinstance(min_vertices, int) or isinstance(min_vertices, bool):
            min_vertices = None
        record = {k: v for k, v in data.items() if k != "messages"}
        return cls(
            problem_id=problem_id,
            setting=str(data["setting"]),
            run=run,
            correct=data.get("correct") is True,
            tier=str(tier),
            gadget=str(gadget),
            min_vertices=min_vertices,
            usage=Usage.from_json(data.get("usage")),
            finish_reason=data.get("finish_reason"),
            error=data.get("error") or None,
            parse_error=data.get("parse_error") or None,
            candidate=data.get("candidate") if isinstance(data.get("candidate"), Mapping) else None,
            reason=str(data.get("reason") or ""),
            witness=data.get("witness") if isinstance(data.get("witness"), Mapping) else None,
            rounds=data.get("rounds") if isinstance(data.get("rounds"), int) else None,
            latency_s=data.get("latency_s")
            if isinstance(data.get("latency_s"), (int, float))
            else None,
            response=data.get("response") if isinstance(data.get("response"), str) else None,
            record=record,
        )


def problem_of_id(problem_id: str) -> Problem | None:
    """The catalog problem, or the problem with three or more colours an id names, else ``None``."""
    found = find_problem(problem_id)
    if found is not None:
        return found
    try:
        return parse_colored_problem(problem_id)
    except RamseyGadgetsError:
        return None


def problem_tier(problem_id: str) -> str:
    """Tier from the catalog, or from the gadget named in the id for problems outside it."""
    problem = problem_of_id(problem_id)
    if problem is not None:
        return problem.tier
    try:
        return GadgetType(problem_gadget(problem_id)).tier
    except ValueError:
        return "unknown"


def problem_gadget(problem_id: str) -> str:
    problem = problem_of_id(problem_id)
    if problem is not None:
        return problem.gadget_name
    for g in GadgetType:
        if problem_id.endswith("_" + g.slug):
            return g.value
    return "unknown"


def problem_pair(problem_id: str) -> str:
    """``(F, H)`` as display text, e.g. ``(K1,3, K4)``; ``(P3, P3, C4)`` with more colours."""
    problem = problem_of_id(problem_id)
    if problem is not None:
        return problem.colors_label
    for g in GadgetType:
        if problem_id.endswith("_" + g.slug):
            return problem_id[: -len(g.slug) - 1]
    return "unknown"


def problem_colors(problem_id: str) -> int:
    """The number of colours of the problem an id names (2 unless it names more)."""
    problem = problem_of_id(problem_id)
    return problem.c if problem is not None else 2


@dataclass
class Run:
    """A set of runs from one source: one model, some settings, ``runs`` repetitions.

    ``expected`` is the sample set the source was meant to produce: every problem × setting ×
    run, where ``example-hint`` covers only the problems it applies to.  Samples outside it that
    are present anyway are added to it (a report never drops a recorded sample).
    """

    label: str
    model: str
    settings: tuple[str, ...]
    runs: int
    problems: tuple[str, ...]
    samples: list[Sample]
    config: dict[str, Any] = field(default_factory=dict)
    source: str = ""
    warnings: list[str] = field(default_factory=list)

    def problems_for(self, setting: str) -> tuple[str, ...]:
        if setting == EXAMPLE_HINT:
            return tuple(p for p in self.problems if example_hint_applies(p))
        return self.problems

    def expected_keys(self) -> set[tuple[str, str, int]]:
        keys = {
            (p, s, r) for s in self.settings for p in self.problems_for(s) for r in range(self.runs)
        }
        return keys | {s.key for s in self.samples}

    def missing_keys(self) -> set[tuple[str, str, int]]:
        return self.expected_keys() - {s.key for s in self.samples}


# ---------------------------------------------------------------------------------------------
# Reader registry
# ---------------------------------------------------------------------------------------------
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
    import importlib
    from importlib.metadata import entry_points

    for module in BUILTIN_READER_MODULES:
        try:
            importlib.import_module(module)
        except ImportError:
            continue
    for entry in entry_points(group=READER_ENTRY_POINT_GROUP):
        try:
            loaded = entry.load()
        except Exception as exc:  # a broken plugin must not stop reports of run directories
            import warnings

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


# ---------------------------------------------------------------------------------------------
# The run-directory reader (docs/eval.md)
# ---------------------------------------------------------------------------------------------


def is_run_dir(path: Path) -> bool:
    return path.is_dir() and ((path / SAMPLES_FILE).is_file() or (path / CONFIG_FILE).is_file())


def read_samples_file(path: Path, warnings: list[str], runs: int | None = None) -> list[Sample]:
    """The records of a ``samples.jsonl`` (read with the harness's own reader, which checks every
    field and a run index below ``runs``; never repaired).

    A torn last line (a run killed while writing) is skipped with a warning; a record whose
    key was already seen is skipped with a warning (the first record of a key is used).
    """
    try:
        records, torn = read_samples(path, repair=False, runs=runs)
    except RunLogError as exc:
        raise RunFormatError(str(exc)) from None
    if torn:
        warnings.append(f"{path}: unfinished last line ({torn} bytes) skipped")
    samples: list[Sample] = []
    seen: set[tuple[str, str, int]] = set()
    for data in records:
        sample = Sample.from_record(data)
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
    config: dict[str, Any] = {}
    config_path = path / CONFIG_FILE
    if config_path.is_file():
        try:
            config = parse_json(config_path.read_bytes())
        except (OSError, ValueError) as exc:
            raise RunFormatError(
                f"cannot read {config_path}: {getattr(exc, 'strerror', None) or exc}"
            ) from None
        if not isinstance(config, dict):
            raise RunFormatError(f"{config_path} must hold a JSON object")
        try:
            check_config(config)
        except FieldError as exc:
            raise RunFormatError(f"{config_path}: {exc}") from None
    else:
        warnings.append(
            f"{path}: no {CONFIG_FILE}; the expected samples are inferred from those recorded"
        )
    samples_path = path / SAMPLES_FILE
    bound = config.get("runs")
    samples = read_samples_file(samples_path, warnings, bound) if samples_path.is_file() else []
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


register_reader("run-dir", is_run_dir, read_run_dir, first=False)
