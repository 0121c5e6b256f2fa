"""``DIR/results.json``: the summary of a run directory, written (atomically) at the end of every
``eval`` session, so also after a resume or an interruption.

The numbers are the report's (:func:`ramseygadgets.runs.stats.cell_stats` over the
directory as :func:`ramseygadgets.runs.folder.read_run_dir` reads it), per setting:

* ``accuracy``: mean over runs of the per-run accuracy; ``accuracy_sd``: sample standard
  deviation over runs (``null`` for one run); ``accuracy_ci95``: bootstrap interval;
* ``pass_at_k`` with ``k`` = runs (solved in at least one run) and ``pass_at`` (unbiased
  pass@k for k < runs);
* ``avg_tokens`` over samples that report usage; ``outcomes``: correct, wrong, parse-failure,
  truncated, error, missing;
* grades by distance to the optimum: ``graded`` (correct samples with an optimum, whatever is
  known of its edges: the denominator), ``minimal`` (of them, fully minimal: as few vertices
  as an optimum proven in full), ``minimal_in_vertices`` (as few vertices as an optimum whose
  edge count or vertex bound is not proven: never counted as minimal), ``minimal_rate`` and
  ``minimal_rate_ci95``, ``mean_excess_vertices``, ``mean_excess_edges``, ``excess_vertices``
  (graded samples per excess vertex count); ``null`` (never 0) where nothing is graded;
* ``tiers``: per tier (``easy``, ``hard``) the accuracy, its interval and the grades above.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ramseygadgets.runs.folder import RESULTS_FILE, read_run_dir, write_file
from ramseygadgets.runs.stats import Cell, CellStats, build_cells, cell_stats

__all__ = ["RESULTS_FILE", "run_results", "size_results", "write_results"]


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
                **size_results(stats),
                "tiers": _tiers(cell),
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


def size_results(stats: CellStats) -> dict[str, Any]:
    """The grades by distance to the optimum of one cell (see the module docstring)."""
    sizes = stats.sizes
    return {
        "graded": sizes.graded,
        "minimal": sizes.minimal if sizes.graded else None,
        "minimal_in_vertices": sizes.minimal_in_vertices if sizes.graded else None,
        "minimal_rate": sizes.minimal_rate,
        "minimal_rate_ci95": asdict(sizes.minimal_ci) if sizes.minimal_ci else None,
        "mean_excess_vertices": sizes.mean_excess_vertices,
        "mean_excess_edges": sizes.mean_excess_edges,
        "excess_vertices": {str(k): v for k, v in sizes.excess_vertices.items()},
    }


def _tiers(cell: Cell) -> list[dict[str, Any]]:
    tier_of = {problem: info.tier for problem, info in cell.infos().items()}
    out = []
    for tier, part in sorted(cell.partition(tier_of).items(), key=lambda item: str(item[0])):
        stats = cell_stats(part)
        out.append(
            {
                "tier": tier,
                "problems": stats.problems,
                "accuracy": stats.mean,
                "accuracy_ci95": asdict(stats.mean_ci) if stats.mean_ci else None,
                **size_results(stats),
            }
        )
    return out


def write_results(directory: Path) -> Path:
    """Write ``DIR/results.json`` atomically; returns its path."""
    path = Path(directory) / RESULTS_FILE
    write_file(path, json.dumps(run_results(Path(directory)), indent=2) + "\n")
    return path
