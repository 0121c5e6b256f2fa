"""``DIR/results.json``: the summary of a run directory, written (atomically) at the end of every
``eval`` session, so also after a resume or an interruption.

The numbers are the report's (:func:`ramseygadgets.runs.stats.cell_stats` over the
directory as :func:`ramseygadgets.runs.folder.read_run_dir` reads it), per setting:

* ``accuracy``: mean over runs of the per-run accuracy; ``accuracy_sd``: sample standard
  deviation over runs (``null`` for one run); ``accuracy_ci95``: bootstrap interval;
* ``pass_at_k`` with ``k`` = runs (solved in at least one run) and ``pass_at`` (unbiased
  pass@k for k < runs);
* ``avg_tokens`` over samples that report usage; ``outcomes``: correct, wrong, parse-failure,
  truncated, error, missing.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ramseygadgets.runs.folder import RESULTS_FILE, read_run_dir, write_file
from ramseygadgets.runs.stats import build_cells, cell_stats

__all__ = ["RESULTS_FILE", "run_results", "write_results"]


def run_results(directory: Path) -> dict[str, Any]:
    """The summary of one run directory as a JSON object (see the module docstring)."""
    (run,) = read_run_dir(directory)
    settings = []
    for cell in build_cells([run]):
        stats = cell_stats(cell)
        settings.append(
            {
                "setting": stats.setting,
                "problems": stats.problems,
                "runs": stats.runs,
                "expected": stats.expected,
                "recorded": stats.present,
                "accuracy": stats.mean,
                "accuracy_sd": stats.std,
                "accuracy_ci95": asdict(stats.mean_ci) if stats.mean_ci else None,
                "k": stats.runs,
                "pass_at_k": stats.pass_at_runs,
                "pass_at": {str(k): v for k, v in stats.pass_at.items()},
                "avg_tokens": stats.avg_tokens,
                "token_samples": stats.token_samples,
                "outcomes": stats.outcomes,
            }
        )
    return {
        "model": run.model,
        "model_label": run.label,
        "runs": run.runs,
        "problems": len(run.problems),
        "samples": len(run.samples),
        "settings": settings,
    }


def write_results(directory: Path) -> Path:
    """Write ``DIR/results.json`` atomically; returns its path."""
    path = Path(directory) / RESULTS_FILE
    write_file(path, json.dumps(run_results(Path(directory)), indent=2) + "\n")
    return path
