"""What every part of :mod:`ramseygadgets.problemsets` shares: its error and its file names."""

from __future__ import annotations

from ramseygadgets.errors import RamseyGadgetsError

__all__ = [
    "LEGACY_MULTICOLOR_FILE",
    "MANIFEST_FILE",
    "PLAN_FILE",
    "PROBLEMS_FILE",
    "RESULTS_FILE",
    "SOLUTIONS_FILE",
    "ProblemSetError",
]

RESULTS_FILE = "results.jsonl"
PROBLEMS_FILE = "problems.jsonl"
SOLUTIONS_FILE = "solutions.json"
MANIFEST_FILE = "manifest.json"
PLAN_FILE = "plan.json"
#: Written by releases before schema version 2 (problems with three or more colours); read by
#: :func:`~ramseygadgets.problemsets.load.load_generated`, never written again.
LEGACY_MULTICOLOR_FILE = "multicolor.jsonl"


class ProblemSetError(RamseyGadgetsError):
    """The generation request or an output directory is unusable."""
