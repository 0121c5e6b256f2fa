"""Cross-check a generated set against the exhaustive census: for every problem, the least
(n, m) of a solution among all graphs on at most N vertices must be the search's answer.

The census (:mod:`.census`) scans every graph with minimum degree ≥ 1 on 2..N vertices (geng, in
checkpointed slices); a minimal solution never has an isolated vertex, so within N vertices the
census minimum is the true minimum.  Agreement means: a proven-minimal search result with
n ≤ N has the census' (n, m); a search that proved "none up to max_vertices ≥ N", or that
found its minimum above N, has no census hit.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ramseygadgets.infra.executors import Executor
from ramseygadgets.problemsets import problem_of_record
from ramseygadgets.scaleout.census import CensusResult, SliceTask, run_census

__all__ = [
    "cross_check",
]


def cross_check(
    records: list[dict[str, Any]],
    max_vertices: int,
    *,
    executor: Executor | None = None,
    checkpoint_dir: str | Path | None = None,
    mod: int = 4,
    on_slice: Callable[[SliceTask, bool], None] | None = None,
) -> dict[str, Any]:
    """Compare search records with the census up to ``max_vertices``; a JSON summary."""
    problems = [problem_of_record(r) for r in records]
    census: CensusResult = run_census(
        problems,
        range(2, max_vertices + 1),
        mod=mod,
        checkpoint_dir=checkpoint_dir,
        executor=executor,
        on_slice=on_slice,
    )
    agree: list[dict[str, Any]] = []
    disagree: list[dict[str, Any]] = []
    undecided: list[dict[str, Any]] = []
    for record, problem in zip(records, problems):
        seen = census.minimum(problem.id)
        n = record.get("n")
        if record.get("proven_minimal") and n is not None and n <= max_vertices:
            ok = seen == (n, record["m"])
        elif (record.get("proven_minimal") and n is not None) or (
            record.get("status") == "none-up-to-limit"
            and record.get("max_vertices", 0) >= max_vertices
        ):
            ok = seen is None
        else:  # a timeout: the census decides what the search could not (within N)
            undecided.append({"id": problem.id, "census": seen})
            continue
        (agree if ok else disagree).append(
            {"id": problem.id, "search": [n, record.get("m")], "census": seen}
        )
    return {
        "max_vertices": max_vertices,
        "graphs": census.graphs,
        "slices_computed": len(census.computed),
        "slices_loaded": len(census.loaded),
        "agree": len(agree),
        "disagree": disagree,
        "decided_by_census_only": undecided,
    }
