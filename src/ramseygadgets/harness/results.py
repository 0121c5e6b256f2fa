"""Moved to :mod:`ramseygadgets.runs.results` (the data layer); re-exported for old imports."""

from __future__ import annotations

from ramseygadgets.runs.results import RESULTS_FILE, run_results, write_results

__all__ = ["RESULTS_FILE", "run_results", "write_results"]
