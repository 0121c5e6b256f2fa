"""What every part of :mod:`ramseygadgets.problemsets` shares: its error and its file names (the
error and the names of the files a set is read from are :mod:`ramseygadgets.verification.problemfile`'s: one
error for every problem-set file, generated or not)."""

from __future__ import annotations

from ramseygadgets.verification.problemfile import (
    LEGACY_MULTICOLOR_FILE,
    PROBLEMS_FILE,
    RESULTS_FILE,
    ProblemSetError,
)

__all__ = [
    "LEGACY_MULTICOLOR_FILE",
    "MANIFEST_FILE",
    "PLAN_FILE",
    "PROBLEMS_FILE",
    "RESULTS_FILE",
    "SOLUTIONS_FILE",
    "ProblemSetError",
]

SOLUTIONS_FILE = "solutions.json"
MANIFEST_FILE = "manifest.json"
PLAN_FILE = "plan.json"
