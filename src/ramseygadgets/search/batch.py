"""Solve many problems, in parallel worker processes, keeping every finished result on Ctrl-C.

Workers ignore SIGINT; the parent catches it, terminates the pool and returns what finished.
Workers die with the parent if it is killed (:mod:`ramseygadgets.workers`).
Each problem's own time limit is enforced inside :func:`~ramseygadgets.search.solve.solve`.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ramseygadgets.catalog import Problem
from ramseygadgets.search.cegar import DEFAULT_ENGINE
from ramseygadgets.search.solve import DEFAULT_MAX_VERTICES, SearchResult, solve
from ramseygadgets.workers import init_worker

__all__ = [
    "BatchOutcome",
    "solve_many",
]


@dataclass
class BatchOutcome:
    """Finished results (in completion order), what cut the batch short (Ctrl-C, or SIGTERM
    raised as a ``KeyboardInterrupt``), wall time."""

    results: list[SearchResult] = field(default_factory=list)
    interruption: KeyboardInterrupt | None = None
    seconds: float = 0.0
    unfinished: list[str] = field(default_factory=list)
    partial: dict[str, Any] | None = None  # what an interrupted single problem had proven

    @property
    def interrupted(self) -> bool:
        return self.interruption is not None


def _solve_one(args: tuple[Problem, dict[str, Any]]) -> SearchResult:
    problem, options = args
    return solve(problem, **options)


def solve_many(
    problems: Iterable[Problem],
    *,
    jobs: int = 1,
    max_vertices: int = DEFAULT_MAX_VERTICES,
    timeout: float | None = None,
    minimize_edges: bool = True,
    seed: int | None = None,
    engine: str = DEFAULT_ENGINE,
    on_start: Callable[[Problem], None] | None = None,
    on_result: Callable[[SearchResult], None] | None = None,
) -> BatchOutcome:
    """Solve every problem (``timeout`` is per problem); ``on_result`` is called as each finishes.

    ``on_start`` is called before each problem when ``jobs`` is 1 (workers give no such signal).
    """
    todo = list(problems)
    options: dict[str, Any] = {
        "max_vertices": max_vertices,
        "timeout": timeout,
        "minimize_edges": minimize_edges,
        "seed": seed,
        "engine": engine,
    }
    outcome = BatchOutcome()
    start = time.monotonic()
    done: set[str] = set()

    def record(result: SearchResult) -> None:
        outcome.results.append(result)
        done.add(result.problem_id)
        if on_result is not None:
            on_result(result)

    try:
        if jobs <= 1 or len(todo) <= 1:
            for problem in todo:
                if on_start is not None:
                    on_start(problem)
                record(solve(problem, **options))
        else:
            ctx = (
                mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
            )
            pool = ctx.Pool(
                processes=min(jobs, len(todo)), initializer=init_worker, initargs=(os.getpid(),)
            )
            try:
                for result in pool.imap_unordered(
                    _solve_one, [(p, options) for p in todo], chunksize=1
                ):
                    record(result)
                pool.close()
            finally:
                pool.terminate()
                pool.join()
    except KeyboardInterrupt as exc:
        outcome.interruption = exc
    outcome.unfinished = [p.id for p in todo if p.id not in done]
    outcome.seconds = time.monotonic() - start
    return outcome
