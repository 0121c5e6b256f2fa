"""Reading a generated problem set back (``train-data --from``): ``problems.jsonl`` rows of every
schema version, and the ``multicolor.jsonl`` of releases before schema version 2, through the one
reader of problem-set files (:func:`ramseygadgets.verification.problemfile.read_problem_set`), as read: nothing
judged (:mod:`ramseygadgets.training.sets` judges each row;
:func:`ramseygadgets.verification.selection.load_selection` is the judged read for evaluation)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.problems.problem import Problem
from ramseygadgets.verification.problemfile import problem_set_files, read_problem_set

__all__ = ["GeneratedEntry", "load_generated", "problem_set_files"]

#: A problem of a generated set, its solution (None: none given) and its row.
GeneratedEntry = tuple[Problem, Candidate | None, dict[str, Any]]


def load_generated(path: str | Path) -> list[GeneratedEntry]:
    """Problems, solutions and rows of a generated set (a directory or one of its files), each
    problem once (its first row counts): :func:`~ramseygadgets.verification.problemfile.read_problem_set`."""
    return [(r.problem, r.candidate, r.record) for r in read_problem_set(path).records]
