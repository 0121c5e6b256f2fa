"""Problems fan out as tasks: each worker solves one problem (minimal solution with proofs) and
returns a JSON record; the parent checkpoints every record as it arrives.

Two-colour pairs (F, H) (:attr:`~ramseygadgets.problems.problem.Problem.is_pair`) go to a two-colour
search engine (:data:`ENGINES`; default ``cegar``: :func:`ramseygadgets.search.solve`, all six
gadget types); every other problem (three or more colours, or a colour with several forbidden
patterns) to :func:`ramseygadgets.multicolor.solve_multi`.  Every record names the engine and its budget.
"""

from __future__ import annotations

import functools
import importlib
import json
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ramseygadgets.infra.executors import Executor, LocalExecutor, ScaleoutError
from ramseygadgets.infra.workers import sigint_gate
from ramseygadgets.problems.problem import Problem
from ramseygadgets.problemsets import (
    ProblemSetPlan,
    ProblemSetWriter,
    problem_json,
    problem_of_record,
)
from ramseygadgets.search.dataset import search_method, solution_record
from ramseygadgets.search.multi import solve_multi
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.search.solve import SearchResult

__all__ = [
    "ENGINES",
    "DEFAULT_ENGINE",
    "engine_function",
    "SolveTask",
    "solve_task",
    "result_record",
    "GenerateOutcome",
    "generate_problem_set",
    "hardest_last",
]


#: Two-colour search engines: name -> (``"module:function"``, fixed fields of the options); the
#: function has the signature of :func:`ramseygadgets.search.solve` (``problem, options`` ->
#: :class:`~ramseygadgets.search.SearchResult`).  ``cegar`` lets ``solve`` pick its engine
#: (``auto``); ``lazy`` and ``eager`` fix it.  A new engine registers with one line.
ENGINES: dict[str, tuple[str, dict[str, Any]]] = {
    "cegar": ("ramseygadgets.search:solve", {}),
    "lazy": ("ramseygadgets.search:solve", {"engine": "lazy"}),
    "eager": ("ramseygadgets.search:solve", {"engine": "eager"}),
}
DEFAULT_ENGINE = "cegar"
#: The ``method`` of a record solved by :func:`~ramseygadgets.multicolor.solve_multi`.
MULTI_METHOD = "cegar-sat, c colours (ramseygadgets.multicolor)"


def engine_function(name: str) -> Callable[[Problem, SearchOptions], SearchResult]:
    """The search function of a registered engine, its fixed options applied (unknown names are
    a clear error)."""
    if name not in ENGINES:
        raise ScaleoutError(f"unknown search engine {name!r}; known: {', '.join(sorted(ENGINES))}")
    target, fixed = ENGINES[name]
    module, _, function = target.partition(":")
    search = getattr(importlib.import_module(module), function)
    return functools.partial(_with_fixed, search, fixed)


def _with_fixed(
    search: Callable[[Problem, SearchOptions], SearchResult],
    fixed: dict[str, Any],
    problem: Problem,
    options: SearchOptions,
) -> SearchResult:
    return search(problem, replace(options, **fixed))


@dataclass(frozen=True)
class SolveTask:
    """One problem to solve, as plain data (it travels to worker processes and Ray nodes).

    ``min_vertices``: start the search there (smaller counts already proven to have no solution).
    """

    problem: str  # JSON problem record
    max_vertices: int
    timeout: float | None
    engine: str = DEFAULT_ENGINE
    min_vertices: int | None = None

    def __str__(self) -> str:
        return json.loads(self.problem)["id"]


def solve_task(task: SolveTask) -> dict[str, Any]:
    """Solve one problem; the result record (status, n, m, proof bounds, solution, seconds).

    Two-colour pairs (:attr:`Problem.is_pair`) go to the task's core engine, every other
    problem to :func:`~ramseygadgets.multicolor.solve_multi`."""
    problem = problem_of_record(json.loads(task.problem))
    started = time.monotonic()
    options = SearchOptions(max_vertices=task.max_vertices, timeout=task.timeout)
    if problem.is_pair:
        pair_options = replace(options, min_vertices=task.min_vertices)
        result = engine_function(task.engine)(problem, pair_options)
    else:
        result = solve_multi(problem, options)
    record = result_record(
        problem,
        result,
        max_vertices=task.max_vertices,
        timeout=task.timeout,
        seconds=time.monotonic() - started,
        engine=task.engine,
        min_vertices=task.min_vertices,
    )
    if record["proven_minimal"] and problem.is_pair:
        record["shipped"] = solution_record(result)
    return record


def result_record(
    problem: Problem,
    result: SearchResult,
    *,
    max_vertices: int,
    timeout: float | None,
    seconds: float,
    engine: str = DEFAULT_ENGINE,
    min_vertices: int | None = None,
) -> dict[str, Any]:
    """The ``results.jsonl`` record of one search of ``problem`` (without ``shipped``): its
    outcome, the proof bounds (``proven_minimal``: a solution, edges minimal and no solution on
    fewer vertices), the solution, the levels searched and the search's budget and method."""
    if problem.is_pair:
        method = search_method(result.n if result.n is not None else max_vertices)
        method = method if engine == DEFAULT_ENGINE else f"{method}, engine {engine}"
    else:
        method = MULTI_METHOD
    proven = bool(result.found and result.edges_minimal and result.lower_bound == result.n)
    record = problem_json(problem)
    record.update(
        {
            "status": result.status,
            "n": result.n,
            "m": result.m,
            "lower_bound": result.lower_bound,
            "edges_minimal": result.edges_minimal,
            "proven_minimal": proven,
            "max_vertices": max_vertices,
            "timeout": timeout,
            "seconds": round(seconds, 4),
            "method": method,
            "engine": engine if problem.is_pair else "multicolor",
            "min_vertices": min_vertices,
            "levels": [lv.to_json() for lv in result.levels],
            "solution": (
                result.candidate.to_json(problem.kind) if result.candidate is not None else None
            ),
        }
    )
    return record


@dataclass
class GenerateOutcome:
    """What a generation run did: records finished now, skipped (already recorded), interrupted."""

    ran: list[dict[str, Any]] = field(default_factory=list)
    skipped: int = 0
    interrupted: bool = False
    seconds: float = 0.0
    manifest: dict[str, Any] = field(default_factory=dict)


def generate_problem_set(
    plan: ProblemSetPlan,
    writer: ProblemSetWriter,
    *,
    max_vertices: int = 10,
    timeout: float | None = 60.0,
    executor: Executor | None = None,
    retry_unsolved: bool = False,
    extend: bool = False,
    options: dict[str, Any] | None = None,
    on_result: Callable[[dict[str, Any]], None] | None = None,
    order: Callable[[Sequence[Problem]], list[Problem]] | None = None,
    engine: str = DEFAULT_ENGINE,
    start: Mapping[str, int] | None = None,
    only: Collection[str] | None = None,
) -> GenerateOutcome:
    """Solve every planned problem not yet recorded in ``writer``; checkpoint each; write the set.

    The folder's plan is adopted first (:meth:`ProblemSetWriter.adopt_plan`: another problem
    set is refused unless ``extend``).  ``only``: the ids of the plan to solve (None: all; the
    output files still cover the whole plan).  ``engine``: a name in :data:`ENGINES`;
    ``start``: per problem id, the first vertex count to try (counts below it are already
    proven to hold no solution).  Ctrl-C stops the solving, keeps every finished record and
    still writes the output files; any further Ctrl-C is held off until that write is done
    (:func:`ramseygadgets.infra.workers.sigint_gate`).
    """
    engine_function(engine)  # an unknown engine fails before any work
    outcome = GenerateOutcome()
    started = time.monotonic()
    options = dict(options or {})
    plan = writer.adopt_plan(plan, options, extend=extend)
    selected = [p for p in plan.problems if only is None or p.id in only]
    todo = [p for p in selected if not writer.done(p.id, retry_unsolved, max_vertices)]
    outcome.skipped = len(selected) - len(todo)
    if order is not None:
        todo = order(todo)
    start = start or {}
    tasks = [
        SolveTask(json.dumps(problem_json(p)), max_vertices, timeout, engine, start.get(p.id))
        for p in todo
    ]
    executor = executor or LocalExecutor()
    with sigint_gate() as gate:
        try:
            for _, record in executor.run(solve_task, tasks):
                if writer.record(record) and on_result is not None:
                    on_result(record)
        except KeyboardInterrupt:
            outcome.interrupted = True
        finally:
            gate.close()  # from here on a Ctrl-C waits for the write below
        writer.reload()  # Ctrl-C may land between a durable write and the bookkeeping
        outcome.ran = list(writer.new)
        outcome.seconds = time.monotonic() - started
        options.update({"max_vertices": max_vertices, "timeout": timeout, "engine": engine})
        outcome.manifest = writer.finish(plan, options)
    outcome.interrupted = outcome.interrupted or gate.caught > 0
    return outcome


def hardest_last(problems: Sequence[Problem]) -> list[Problem]:
    """Determiners and senders first, hardness gadgets last (they are the ones that time out)."""

    def rank(p: Problem) -> int:
        return 1 if p.kind.is_hardness else 0

    return sorted(problems, key=rank)
