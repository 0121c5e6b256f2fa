"""What a report counts: every grade re-derived, every run counted once, each under its own
problem set (table ``disputed``).

:func:`regrade_runs` prepares the runs a report is built from:

1. **Each run once.** A run read twice (the same folder or log given twice, through another
   path or a symlink) or a run whose samples are another's (a ``cp -r`` copy, whatever its
   ``config.json`` says) is kept once, with a warning (:func:`distinct_runs`).
2. **Its own problem set.** The problem set a run was asked from is read from what its
   ``config.json`` records (:class:`SetLoader`): the named set (``paper``, with any extended ids
   it ran, or ``extended``; an Inspect log's ``paper+extended`` too), its ``--dataset`` file
   (read by :func:`~ramseygadgets.verification.selection.load_selection`, which keeps only the optima it
   can prove), or the ``problems.jsonl`` of a fresh run's folder, checked by drawing it again
   (:func:`~ramseygadgets.problemsets.fresh.checked_fresh_problems`).  One that cannot be read falls back to ``report --dataset/--set``, else to the
   paper's set (a warning says so).  Runs of one model label over different problem sets are
   never merged: each gets its set's tag in its label (``alpha [extended]``,
   ``alpha [my-set.jsonl 1a2b3c4d]``); fresh runs keep their `` [fresh]``.  A run is fresh only
   when its own folder's draw checks out, whatever ``config.json`` says, and the
   ``dataset_hash`` a report shows is re-derived from the problems graded against
   (:func:`rederived_config`).
3. **Grades re-derived.** Every sample is graded again against that set
   (:class:`~ramseygadgets.runs.regrade.Regrader`); a sample whose record disagrees is counted
   by the re-derived grade and listed as a :class:`~ramseygadgets.runs.regrade.Dispute`
   (``file:line``) in the table ``disputed``, the leaderboard and the warnings.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.problemsets.base import PROBLEMS_FILE
from ramseygadgets.problemsets.fresh import checked_fresh_problems
from ramseygadgets.report.runs import FRESH_SET, Run
from ramseygadgets.report.tables import Column, Record, Table
from ramseygadgets.runs.config import dataset_hash
from ramseygadgets.runs.regrade import Dispute, Regrader
from ramseygadgets.runs.stats import row_label
from ramseygadgets.verification.selection import (
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


def content_digest(run: Run) -> str:
    """sha256 over the run's sample records (each as canonical JSON, in sorted order): two
    folders whose samples are the same — a ``cp -r`` copy, whatever its ``config.json`` says —
    have one digest."""
    lines = sorted(
        json.dumps(s.record, sort_keys=True, separators=(",", ":"), default=str)
        for s in run.samples
    )
    return hashlib.sha256("\n".join(lines).encode("utf-8", "surrogatepass")).hexdigest()


def _shape(run: Run) -> tuple[int, int]:
    """What two runs with the same samples share, cheaply: the count and the sample keys."""
    return len(run.samples), hash(frozenset(s.key for s in run.samples))


def distinct_runs(runs: Sequence[Run]) -> tuple[list[Run], list[str]]:
    """The runs with every repeat left out (and a warning for each): a source given twice
    (through any path), and a run whose samples are another's (a copy, :func:`content_digest`)."""
    kept: list[Run] = []
    seen: dict[Any, str] = {}
    warnings: list[str] = []
    shapes = Counter(_shape(run) for run in runs if run.samples)
    for run in runs:
        if not run.source:
            kept.append(run)
            continue
        where = (_identity(run.source), run.label, run.model, run.settings, run.runs, run.problems)
        # the digest only where another run has as many samples with the same keys (cheap)
        copy = run.samples and shapes[_shape(run)] > 1
        content = ("samples", content_digest(run)) if copy else where
        first = seen.get(where) or seen.get(content)
        if first is not None:
            warnings.append(
                f"{run.source}: given more than once; counted once"
                if run.source == first
                else f"{run.source}: the same samples as {first} (a copy); counted once"
            )
            continue
        seen[where] = seen[content] = run.source
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
            if name == FRESH_SET:  # a run relabelled fresh, with no draw of its own
                return self._paper(run), (
                    f"{run.source or run.label}: config.json says problem_set fresh, but its "
                    f"folder holds no {PROBLEMS_FILE} to draw again; not counted as fresh, "
                    "graded against the paper's problems"
                )
            return self._fallback(run, str(name), "not a problem set this version knows")
        own = bool(run.source) and Path(dataset).parent == Path(run.source)
        drawn = name == FRESH_SET and own
        found = self.fresh(run.source) if drawn else self.file(dataset)
        if isinstance(found, str):
            return self._fallback(run, dataset, found)
        digest = found.content_hash or dataset
        if drawn:  # drawn again from its recorded seed: fresh
            return RunSet(FRESH_SET, f"fresh:{digest}", FRESH_SET, found), None
        tag = f"{Path(dataset).name} {digest[:8]}"
        found_set = RunSet(f"file:{digest}", f"file:{digest}", tag, found)
        if name == FRESH_SET:  # "fresh" in config.json, problems from elsewhere
            return found_set, (
                f"{run.source or run.label}: config.json says problem_set fresh, but its "
                f"problems ({dataset}) are not its own folder's draw; not counted as fresh"
            )
        return found_set, None

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


def graded_hash(run: Run, found: RunSet) -> str | None:
    """:func:`~ramseygadgets.runs.config.dataset_hash` of the problems the run is graded
    against (its problems in the set it was resolved to, its settings): what ``config.json``'s
    ``dataset_hash`` claims, re-derived; ``None`` when no set could be read."""
    if found.problems is None:
        return None
    chosen = [found.problems.by_id[p] for p in run.problems if p in found.problems.by_id]
    return dataset_hash(found.problems.subset(chosen), run.settings)


def rederived_config(run: Run, found: RunSet, digest: str | None) -> dict[str, Any]:
    """The run's ``config.json`` as the report uses it: ``problem_set`` ``fresh`` only for a
    run whose problems were drawn again (:meth:`SetLoader.for_run`), ``dataset_hash`` the hash
    of the set graded against (the recorded ones kept under ``recorded``)."""
    config = dict(run.config)
    recorded = {k: config.get(k) for k in ("problem_set", "dataset_hash")}
    if config.get("problem_set") == FRESH_SET and found.group != FRESH_SET:
        config["problem_set"] = "paper" if found.key == "paper" else None
    config["dataset_hash"] = digest
    config["recorded"] = recorded
    return config


def tag_runs(runs: Sequence[Run], sets: Sequence[RunSet]) -> tuple[list[Run], list[str]]:
    """Each run with its problem set, its re-derived config (:func:`rederived_config`) and
    the set's tag where its label has runs of several (fresh runs are apart already); a warning
    for each run whose recorded ``dataset_hash`` is not the one re-derived."""
    groups: dict[str, set[str]] = {}
    hashes: dict[tuple[str, tuple[str, ...], tuple[str, ...]], str | None] = {}
    tagged, warnings = [], []
    for run, found in zip(runs, sets, strict=True):
        key = (found.key, run.problems, run.settings)
        if key not in hashes:
            hashes[key] = graded_hash(run, found)
        digest = hashes[key]
        fresh_run = replace(run, config=rederived_config(run, found, digest))
        recorded = run.config.get("dataset_hash")
        if isinstance(recorded, str) and digest is not None and recorded != digest:
            warnings.append(
                f"{run.source or run.label}: config.json dataset_hash {recorded[:12]}… is not "
                f"the hash of the problems graded against ({digest[:12]}…), which is shown"
            )
        tagged.append(fresh_run)
        if not fresh_run.fresh:
            groups.setdefault(run.label, set()).add(found.group)
    return [
        replace(
            run,
            problem_set=found.problems,
            set_tag=found.tag if not run.fresh and len(groups[run.label]) > 1 else "",
        )
        for run, found in zip(tagged, sets, strict=True)
    ], warnings


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
    tagged_runs, hash_warnings = tag_runs(kept, sets)
    warnings.extend(hash_warnings)
    tagged = zip(tagged_runs, sets, strict=True)
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
