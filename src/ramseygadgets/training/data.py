"""Training datasets: prompt messages plus the problem's columns, as a Hugging Face dataset.

One row per (training problem, setting)::

    prompt        the project's prompt (OpenAI chat messages: system + user), as ``eval`` sends it
    problem_id, colors, F, H, gadget, tier, title    the problem (:meth:`Problem.fields`: the
                  reward reads colors and gadget; F and H are null unless the problem is a pair)
    setting       zero-shot | structural-hint | size-hint
    min_vertices  the proven minimal size (the difficulty)
    solution      a minimal solution in the answer format (JSON text), for SFT or analysis
    source        the problem set it came from, or ``stream:seed=S``

The single-turn training settings are ``zero-shot``, ``structural-hint`` and ``size-hint``.
``example-hint`` is refused: its hint *is* the minimal solution of a benchmark problem, which
would put benchmark answers into the training data.  ``multiround`` needs the tool loop: train
it through the verifiers environment (:mod:`ramseygadgets.integrations.verifiers_env`).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ramseygadgets.answers import format_answer
from ramseygadgets.infra.files import (
    atomic_write,
    check_writable,
    fsync_dir,
    fsync_tree,
    make_output_dir,
    make_temp_dir,
)
from ramseygadgets.problems.leakage import EXTENDED_SET, published_set
from ramseygadgets.problems.problem import Problem
from ramseygadgets.problemsets.stream import TrainingDataError, TrainingItem
from ramseygadgets.prompts import build_prompt

__all__ = [
    "TRAINING_SETTINGS",
    "COLUMNS",
    "check_settings",
    "leaked_problems",
    "training_row",
    "training_rows",
    "write_dataset",
]


#: Settings a training row can have (see the module docs for the other two).
TRAINING_SETTINGS: tuple[str, ...] = ("zero-shot", "structural-hint", "size-hint")

#: The columns of a training row, in order.
COLUMNS: tuple[str, ...] = (
    "prompt",
    "problem_id",
    "colors",
    "F",
    "H",
    "gadget",
    "tier",
    "title",
    "setting",
    "min_vertices",
    "solution",
    "source",
)


def check_settings(settings: Sequence[str]) -> list[str]:
    """The requested settings, or a :class:`TrainingDataError` naming the unusable one."""
    out = []
    for setting in settings:
        if setting == "example-hint":
            raise TrainingDataError(
                "example-hint is not a training setting: its hint is the solution of a benchmark "
                "problem (that would leak the benchmark); use zero-shot, structural-hint or size-hint"
            )
        if setting == "multiround":
            raise TrainingDataError(
                "multiround needs the coloring-tool loop: train it with the verifiers environment "
                "(ramseygadgets.integrations.verifiers_env); train-data writes single-turn settings"
            )
        if setting not in TRAINING_SETTINGS:
            raise TrainingDataError(
                f"unknown setting {setting!r}; expected one of {', '.join(TRAINING_SETTINGS)}"
            )
        out.append(setting)
    if not out:
        raise TrainingDataError("no setting given")
    return out


def training_row(item: TrainingItem, setting: str, profile: str | None = None) -> dict[str, Any]:
    """The dataset row of one training problem in one single-turn setting."""

    problem = item.problem
    prompt = build_prompt(problem, setting, profile, min_vertices=item.min_vertices)
    return {
        "prompt": prompt.messages,
        **problem.fields(),
        "tier": problem.tier,
        "title": problem.title,
        "problem_id": problem.id,
        "setting": setting,
        "min_vertices": item.min_vertices,
        "solution": format_answer(item.solution, problem.kind),
        "source": item.source,
    }


def training_rows(
    items: Iterable[TrainingItem], settings: Sequence[str], profile: str | None = None
) -> Iterator[dict[str, Any]]:
    """Rows for every item in every setting, columns in :data:`COLUMNS` order."""
    chosen = check_settings(settings)
    for item in items:
        for setting in chosen:
            row = training_row(item, setting, profile)
            yield {name: row[name] for name in COLUMNS}


def leaked_problems(
    rows: Iterable[Mapping[str, Any]], include_extended: bool = False
) -> list[tuple[str, str]]:
    """``(problem_id, published set)`` of each distinct problem of ``rows`` (dataset rows with
    the problem columns ``colors`` or ``F``/``H``, and ``gadget``) that training data may not
    hold: equivalent to one of the 70 (``paper``) or, unless ``include_extended``, to an
    extended problem (``extended``); the leakage rule of :mod:`ramseygadgets.problems.leakage`."""
    out: list[tuple[str, str]] = []
    seen: set[tuple[Any, ...]] = set()
    for row in rows:
        fields = (json.dumps(row.get("colors")), row.get("F"), row.get("H"), row.get("gadget"))
        if fields in seen:
            continue
        seen.add(fields)
        problem = Problem.from_json(row)
        where = published_set(problem)
        if where is not None and not (where == EXTENDED_SET and include_extended):
            out.append((str(row.get("problem_id", problem.id)), where))
    return out


#: What the manifest of a ``train-data`` folder says it is (``kind``): the one folder it replaces.
MANIFEST_KIND = "ramseygadgets train-data"


def check_replaceable(out: Path) -> None:
    """Refuse an output path that ``train-data`` may not replace: a file (or a link), or a
    non-empty folder whose ``manifest.json`` does not name it a train-data dataset (a
    ``generate`` or atlas folder, an eval run, anything else), or a place where no folder can
    be written (a read-only folder or file system).  Called before any work."""
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise TrainingDataError(f"--out {out} is a file, not a directory; refusing to replace it")
    parent = next((p for p in out.absolute().parents if p.exists()), None)
    if parent is not None and parent.is_dir():
        try:
            check_writable(parent)
        except OSError as exc:
            raise TrainingDataError(
                f"cannot write the dataset {out}: {parent} is not writable ({exc.strerror})"
            ) from None
    if not out.exists() or not any(out.iterdir()):
        return
    try:
        manifest = json.loads((out / "manifest.json").read_text("utf-8"))
    except (OSError, ValueError):
        manifest = None
    # datasets of earlier releases have no kind, but only train-data writes a leakage rule
    if isinstance(manifest, dict) and (
        manifest.get("kind") == MANIFEST_KIND or "leakage_rule" in manifest
    ):
        return
    raise TrainingDataError(
        f"--out {out} exists and is not a dataset written by train-data (its manifest.json does "
        f"not say so); refusing to replace it: choose another --out or remove it yourself"
    )


def write_dataset(rows: list[dict[str, Any]], out: str | Path, manifest: dict[str, Any]) -> Path:
    """Save ``rows`` as a Hugging Face dataset (``datasets.load_from_disk(out)``), plus
    ``rows.jsonl`` (the same rows) and ``manifest.json`` (``kind``: :data:`MANIFEST_KIND`); the
    directory is replaced atomically, and only when it is a train-data dataset
    (:func:`check_replaceable`).  A failure to write (disk full, no permission) is a
    :class:`TrainingDataError` naming ``out``; the dataset there before is kept whole and the
    partial one removed."""
    from datasets import Dataset, disable_progress_bars

    out = Path(out)
    make_output_dir(out.parent, "output directory", TrainingDataError)
    check_replaceable(out)
    manifest = {"kind": MANIFEST_KIND, **manifest}
    disable_progress_bars()
    tmp: Path | None = None
    old = out.with_name(f".{out.name}.old") if out.exists() else None
    moved = False  # the old dataset is at ``old`` and must come back on failure
    try:
        tmp = make_temp_dir(out.parent, f".{out.name}.")
        Dataset.from_list(rows).save_to_disk(str(tmp))
        atomic_write(tmp / "rows.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
        atomic_write(tmp / "manifest.json", json.dumps(manifest, indent=2) + "\n")
        fsync_tree(tmp)  # the dataset's own files too, before the folder counts as written
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
            os.replace(out, old)  # the old dataset survives until the new one is in place
            moved = True
        os.replace(tmp, out)
        moved = False
        fsync_dir(out.parent)
    except BaseException as exc:
        if moved and old is not None:
            with contextlib.suppress(OSError):
                os.replace(old, out)
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(exc, OSError):
            kept = f"; the dataset already in {out} is kept" if old is not None else ""
            reason = exc.strerror or str(exc)
            raise TrainingDataError(f"cannot write the dataset {out}: {reason}{kept}") from None
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    return out
