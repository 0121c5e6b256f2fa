"""Solve many problems, in parallel on :mod:`ramseygadgets.infra.executors`, keeping every finished
result on Ctrl-C.

Workers ignore SIGINT; the parent catches it, stops the pool and returns what finished.
Workers die with the parent if it is killed (:mod:`ramseygadgets.infra.workers`); a worker that dies
costs only its problem, which runs again (:class:`~ramseygadgets.infra.executors.LocalExecutor`).
Each problem's own time limit is enforced inside :func:`~ramseygadgets.search.solve.solve`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ramseygadgets.infra.executors import make_executor
from ramseygadgets.problems.catalog import Problem
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.search.solve import SearchResult, solve

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


def _solve_one(args: tuple[Problem, SearchOptions]) -> SearchResult:
    problem, options = args
    return solve(problem, options)


def solve_many(
    problems: Iterable[Problem],
    options: SearchOptions = SearchOptions(),
    *,
    on_start: Callable[[Problem], None] | None = None,
    on_result: Callable[[SearchResult], None] | None = None,
) -> BatchOutcome:
    """Solve every problem (``options.timeout`` is per problem) on ``options.jobs`` worker
    processes or ``options.ray`` (:func:`ramseygadgets.infra.executors.make_executor`); ``on_result``
    is called as each finishes.

    ``on_start`` is called before each problem when they run in this process (workers give no
    such signal).
    """
    todo = list(problems)
    outcome = BatchOutcome()
    start = time.monotonic()
    done: set[str] = set()

    def record(result: SearchResult) -> None:
        outcome.results.append(result)
        done.add(result.problem_id)
        if on_result is not None:
            on_result(result)

    try:
        if options.ray is None and (options.jobs <= 1 or len(todo) <= 1):
            for problem in todo:
                if on_start is not None:
                    on_start(problem)
                record(solve(problem, options))
        else:
            with make_executor(options.jobs, options.ray) as executor:
                items = [(p, options) for p in todo]
                for _, result in executor.run(_solve_one, items, describe=_problem_id):
                    record(result)
    except KeyboardInterrupt as exc:
        outcome.interruption = exc
    outcome.unfinished = [p.id for p in todo if p.id not in done]
    outcome.seconds = time.monotonic() - start
    return outcome


def _problem_id(item: tuple[Problem, SearchOptions]) -> str:
    return item[0].id
