"""What a report counts: every grade re-derived, every run counted once, each under its own
problem set (table ``disputed``).

:func:`regrade_runs` prepares the runs a report is built from:

1. **Each run once.** A run read twice (the same folder or log given twice, through another
   path or a symlink) is kept once, with a warning (:func:`distinct_runs`).
2. **Its own problem set.** The problem set a run was asked from is read from what its
   ``config.json`` records (:class:`SetLoader`): the named set (``paper``, with any extended ids
   it ran, or ``extended``; an Inspect log's ``paper+extended`` too), its ``--dataset`` file
   (read by :func:`~ramseygadgets.selection.load_selection`, which keeps only the optima it
   can prove), or the ``problems.jsonl`` of a fresh run's folder, checked by drawing it again
   (:func:`~ramseygadgets.problemsets.fresh.checked_fresh_problems`).  One that cannot be read falls back to ``report --dataset/--set``, else to the
   paper's set (a warning says so).  Runs of one model label over different problem sets are
   never merged: each gets its set's tag in its label (``alpha [extended]``,
   ``alpha [my-set.jsonl 1a2b3c4d]``); fresh runs keep their `` [fresh]``.
3. **Grades re-derived.** Every sample is graded again against that set
   (:class:`~ramseygadgets.runs.regrade.Regrader`); a sample whose record disagrees is counted
   by the re-derived grade and listed as a :class:`~ramseygadgets.runs.regrade.Dispute`
   (``file:line``) in the table ``disputed``, the leaderboard and the warnings.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ramseygadgets.errors import RamseyGadgetsError
from ramseygadgets.problemsets.base import PROBLEMS_FILE
from ramseygadgets.problemsets.fresh import checked_fresh_problems
from ramseygadgets.report.runs import FRESH_SET, Run
from ramseygadgets.report.tables import Column, Record, Table
from ramseygadgets.runs.regrade import Dispute, Regrader
from ramseygadgets.runs.stats import row_label
from ramseygadgets.selection import (
    Selection,
    base_problem_set,
    load_selection,
    named_problem_set,
    with_extended_ids,
)

__all__ = [
    "DISPUTED_TABLE",
    "LISTED",
    "Regraded",
    "RunSet",
    "SetLoader",
    "disputed_table",
    "disputes_at",
    "distinct_runs",
    "regrade_runs",
]

#: The name of the table (and files) listing the disputed samples.
DISPUTED_TABLE = "disputed"
#: How many ``file:line`` places a warning or a leaderboard cell names before "… (N more)".
LISTED = 5


@dataclass(frozen=True)
class RunSet:
    """The problem set of a run: ``group`` tells sets apart (``paper``, ``extended``,
    ``fresh``, ``file:<sha256>``), ``key`` names the exact set (a fresh draw by its file's
    hash), ``tag`` is shown in a label, ``problems`` is ``None`` when nothing could be read."""

    group: str
    key: str
    tag: str
    problems: Selection | None


@dataclass
class Regraded:
    """Runs ready to report (each once, each graded again), the disputed samples, warnings."""

    runs: list[Run]
    disputes: list[Dispute] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    samples: int = 0
    verified: int = 0


# ---------------------------------------------------------------------------------------------
# 1. Each run once
# ---------------------------------------------------------------------------------------------
def _identity(source: str) -> Any:
    """The file or folder a source names, whatever path reaches it (device and inode)."""
    try:
        stat = os.stat(source)
    except OSError:
        return os.path.realpath(source)
    return (stat.st_dev, stat.st_ino)


def distinct_runs(runs: Sequence[Run]) -> tuple[list[Run], list[str]]:
    """The runs with every repeat of one source's run left out (and a warning for each)."""
    kept: list[Run] = []
    seen: dict[Any, str] = {}
    warnings: list[str] = []
    for run in runs:
        if not run.source:
            kept.append(run)
            continue
        key = (_identity(run.source), run.label, run.model, run.settings, run.runs, run.problems)
        if key in seen:
            warnings.append(
                f"{run.source}: the same run as {seen[key]}; counted once"
                if run.source != seen[key]
                else f"{run.source}: given more than once; counted once"
            )
            continue
        seen[key] = run.source
        kept.append(run)
    return kept, warnings


# ---------------------------------------------------------------------------------------------
# 2. Its own problem set
# ---------------------------------------------------------------------------------------------
def recorded_dataset(run: Run) -> str | None:
    """The problem-set file a run records: ``config.json`` ``dataset``, for a fresh run the
    ``problems.jsonl`` of its own folder, for an Inspect log its task's ``dataset``."""
    config = run.config
    if config.get("problem_set") == FRESH_SET and run.source:
        own = Path(run.source) / PROBLEMS_FILE
        if own.is_file():
            return str(own)
    dataset = config.get("dataset")
    if not dataset:
        task = config.get("inspect_task_args")
        dataset = task.get("dataset") if isinstance(task, dict) else None
    return dataset if isinstance(dataset, str) and dataset else None


class SetLoader:
    """Reads each problem set once; ``dataset``/``set_name``: ``report --dataset/--set``, the
    set of runs whose own set cannot be read."""

    def __init__(self, dataset: str | None = None, set_name: str | None = None) -> None:
        self.dataset, self.set_name = dataset, set_name
        self._files: dict[str, Selection | str] = {}
        self._named: dict[str, Selection] = {}

    def named(self, name: str) -> Selection:
        if name not in self._named:
            self._named[name] = named_problem_set(name)
        return self._named[name]

    def file(self, path: str) -> Selection | str:
        """The problem-set file, or why it cannot be read."""
        if path not in self._files:
            try:
                self._files[path] = load_selection(path)
            except RamseyGadgetsError as exc:
                self._files[path] = str(exc)
        return self._files[path]

    def fresh(self, directory: str) -> Selection | str:
        """A fresh run's problems, checked by drawing them again (seconds per folder), or why
        they do not check."""
        key = f"fresh:{directory}"
        if key not in self._files:
            try:
                self._files[key] = checked_fresh_problems(directory)
            except RamseyGadgetsError as exc:
                self._files[key] = str(exc)
        return self._files[key]

    def for_run(self, run: Run) -> tuple[RunSet, str | None]:
        """The run's problem set and, when it had to fall back, a warning."""
        dataset = recorded_dataset(run)
        name = run.config.get("problem_set")
        if dataset is None:
            parts = set(str(name).split("+")) if name else {"paper"}
            if parts == {"extended"}:
                return RunSet("extended", "extended", "extended", self.named("extended")), None
            if "paper" in parts and parts <= {"paper", "extended"}:  # with any extended ids
                return self._paper(run), None
            return self._fallback(run, str(name), "not a problem set this version knows")
        fresh = name == FRESH_SET and run.source and Path(dataset).parent == Path(run.source)
        found = self.fresh(run.source) if fresh else self.file(dataset)
        if isinstance(found, str):
            return self._fallback(run, dataset, found)
        digest = found.content_hash or dataset
        if name == FRESH_SET:
            return RunSet(FRESH_SET, f"fresh:{digest}", FRESH_SET, found), None
        tag = f"{Path(dataset).name} {digest[:8]}"
        return RunSet(f"file:{digest}", f"file:{digest}", tag, found), None

    def _paper(self, run: Run) -> RunSet:
        problems = with_extended_ids(self.named("paper"), run.problems)
        return RunSet("paper", "paper", "paper", problems)

    def _fallback(self, run: Run, wanted: str, why: str) -> tuple[RunSet, str]:
        where = run.source or run.label
        if self.dataset is not None or self.set_name is not None:
            problems = base_problem_set(self.dataset, self.set_name)
            given = self.dataset or self.set_name or ""
            note = f"graded against {given} (report --dataset/--set)"
            group = f"file:{problems.content_hash}" if problems.content_hash else given
            return RunSet(group, group, Path(given).name, problems), f"{where}: {why}; {note}"
        note = "graded against the paper's problems (give report --dataset to grade against it)"
        return RunSet(f"unread:{wanted}", "paper", Path(wanted).name, self._paper(run).problems), (
            f"{where}: its problem set {wanted} cannot be read ({why}); {note}"
        )


def tag_runs(runs: Sequence[Run], sets: Sequence[RunSet]) -> list[Run]:
    """Each run with its problem set, and the set's tag where its label has runs of several
    (fresh runs are apart already)."""
    groups: dict[str, set[str]] = {}
    for run, found in zip(runs, sets, strict=True):
        if not run.fresh:
            groups.setdefault(run.label, set()).add(found.group)
    return [
        replace(
            run,
            problem_set=found.problems,
            set_tag=found.tag if not run.fresh and len(groups[run.label]) > 1 else "",
        )
        for run, found in zip(runs, sets, strict=True)
    ]


# ---------------------------------------------------------------------------------------------
# 3. Grades re-derived
# ---------------------------------------------------------------------------------------------
def disputes_at(disputes: Sequence[Dispute], limit: int = LISTED) -> str:
    """``file:line, file:line, … (N more)`` of the first ``limit`` disputes."""
    shown = ", ".join(d.where for d in disputes[:limit])
    more = len(disputes) - limit
    return shown + (f", … ({more} more)" if more > 0 else "")


def regrade_runs(
    runs: Sequence[Run],
    *,
    dataset: str | None = None,
    set_name: str | None = None,
    regrader: Regrader | None = None,
) -> Regraded:
    """The runs a report counts (module docstring)."""
    started = time.perf_counter()
    kept, warnings = distinct_runs(runs)
    loader = SetLoader(dataset, set_name)
    sets: list[RunSet] = []
    for run in kept:
        found, warning = loader.for_run(run)
        sets.append(found)
        if warning is not None:
            warnings.append(warning)
    regrader = regrader or Regrader()
    out = Regraded([], warnings=warnings)
    tagged = zip(tag_runs(kept, sets), sets, strict=True)
    jobs = [(run, row_label(run), found.key) for run, found in tagged]
    for run, disputes in regrader.runs(jobs):
        out.runs.append(run)
        out.disputes.extend(disputes)
        out.samples += len(run.samples)
        if disputes:
            warnings.append(
                f"{run.source or run.label}: {len(disputes)} sample(s) whose recorded grade "
                f"disagrees with the re-derived one, counted as re-derived (table "
                f"{DISPUTED_TABLE}): {disputes_at(disputes)}"
            )
    out.verified = regrader.verified
    out.seconds = time.perf_counter() - started
    return out


def disputed_table(disputes: Sequence[Dispute]) -> Table:
    """One row per disputed sample: where it was read, the recorded and re-derived values."""
    records: list[Record] = [
        {
            "where": d.where,
            "model": d.model,
            "setting": d.setting,
            "problem": d.problem_id,
            "run": d.run,
            "fields": ", ".join(name for name, _, _ in d.differences),
            "recorded": d.text(1),
            "rederived": d.text(2),
        }
        for d in disputes
    ]

    def text(title: str, key: str) -> Column:
        return Column(title, lambda r: str(r[key]), lambda r: r[key], numeric=False)

    columns = [
        text("Where (file:line)", "where"),
        text("Model", "model"),
        text("Setting", "setting"),
        text("Problem", "problem"),
        Column("Run", lambda r: str(r["run"]), lambda r: r["run"]),
        text("Recorded", "recorded"),
        text("Re-derived (counted)", "rederived"),
    ]
    caption = (
        f"{len(disputes)} sample(s) whose recorded grade (correct, minimal, excess, discovery, "
        "recheck) disagrees with the grade this report re-derived from the answer: the recorded "
        "candidate verified exactly (else the reply parsed again), minimal and excess against "
        "the proven optimum of the run's problem set, each discovery rechecked independently. "
        "They are counted by the re-derived grade."
    )
    if not disputes:
        caption = "None: every recorded grade agrees with the re-derived one."
    return Table(DISPUTED_TABLE, "Disputed samples", caption, columns, records)
