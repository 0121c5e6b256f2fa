"""CLI command ``solve``: minimal gadgets with proofs (the search engine, :mod:`ramseygadgets.search`)."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

import typer
from rich.table import Table

from ramseygadgets.cli.app import (
    Terminated,
    app,
    console,
    err_console,
    guarded,
    print_json,
    sigterm_raises,
)
from ramseygadgets.cli.core import resolve_problem
from ramseygadgets.cli.options import (
    SEARCH_ENGINE,
    SEARCH_MAX_VERTICES,
    DatasetOption,
    JsonOption,
    RayOption,
    RecheckTimeoutOption,
    SetOption,
)
from ramseygadgets.cli.progress import progress_bar
from ramseygadgets.cli.search_status import percent, print_status
from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.core.patterns import canonical_graph6
from ramseygadgets.problems.catalog import Problem

if TYPE_CHECKING:
    from ramseygadgets.search.batch import BatchOutcome
    from ramseygadgets.search.options import SearchOptions
    from ramseygadgets.search.solve import LevelRecord, SearchResult


def _problems(
    problem_id: str | None,
    all_: bool,
    F: str | None,
    H: str | None,
    gadget: str | None,
    set_name: str | None = None,
    dataset: str | None = None,
) -> list[Problem]:
    custom = [x is not None for x in (F, H, gadget)]
    chosen = sum([problem_id is not None, all_, any(custom)])
    if chosen != 1:
        raise RamseyGadgetsError(
            "give exactly one of: a PROBLEM_ID, --all, or --F X --H Y --gadget TYPE"
        )
    if any(custom) and (set_name is not None or dataset is not None):
        raise RamseyGadgetsError(
            "--F/--H/--gadget name a problem outside any set: drop --set/--dataset"
        )
    if any(custom):
        if not all(custom):
            raise RamseyGadgetsError("--F, --H and --gadget must be given together")
        problem = Problem.make(F, H, gadget)  # type: ignore[arg-type]
        if problem.gadget.value.endswith("-determiner") and canonical_graph6(
            problem.F.graph
        ) == canonical_graph6(problem.H.graph):
            raise RamseyGadgetsError(
                f"no {problem.title} exists: F and H are isomorphic, so exchanging the colours "
                f"of a good coloring gives a good coloring with e of the other colour"
            )
        _refuse_polynomial_hardness(problem)
        return [problem]
    if all_:
        from ramseygadgets.verification.selection import base_problem_set

        return list(base_problem_set(dataset, set_name).problems)
    return [resolve_problem(problem_id, set_name, dataset)[0]]  # type: ignore[arg-type]


def _refuse_polynomial_hardness(problem: Problem) -> None:
    """A clause or variable gadget of a polynomial pair exists only if P = NP: no search."""
    from ramseygadgets.problemsets import load_polynomial_pairs, polynomial_reason

    if not problem.gadget.is_hardness:
        return
    reason = polynomial_reason(problem.F, problem.H, load_polynomial_pairs("builtin"))
    if reason is not None:
        raise RamseyGadgetsError(
            f"({problem.F.name}, {problem.H.name}) is a polynomial pair ({reason}): a "
            f"{problem.gadget.value} for it should not exist unless P = NP, so none is searched for"
        )


def _result_line(r: SearchResult) -> str:
    mark = "[green]✓[/green]" if r.found else "[yellow]✗[/yellow]"
    hint = ""
    if r.status == "none-up-to-limit" and r.max_vertices is not None:
        hint = f"; search larger graphs with --max-vertices {r.max_vertices + 4}"
    return f"{mark} {r.problem_id}: {r.describe()}{hint}  [dim]{r.seconds:.2f} s[/dim]"


def _summary_table(results: list[SearchResult]) -> Table:
    table = Table(title=f"{len(results)} problem(s)")
    for column in ("problem", "status", "n", "m", "proof", "seconds"):
        table.add_column(column, justify="right" if column in ("n", "m", "seconds") else "left")
    for r in results:
        proof = r.proof()  # the levels decided and what each rests on, as on one problem
        if r.found and r.edges_minimal:
            proof += f"; none with {r.m - 1} edges" if r.m else ""
        table.add_row(
            r.problem_id,
            r.status,
            str(r.n or "-"),
            str(r.m or "-"),
            proof.strip("; "),
            f"{r.seconds:.2f}",
        )
    return table


@app.command()
@guarded
def solve(
    problem_id: str | None = typer.Argument(None, help="Problem id, e.g. k13_k4_red_determiner."),
    all_: bool = typer.Option(
        False, "--all", help="Solve every problem of the set (default: the 70 catalog problems)."
    ),
    F: str | None = typer.Option(
        None, "--F", help="Pattern forbidden in red, for a pair outside the catalog."
    ),
    H: str | None = typer.Option(
        None, "--H", help="Pattern forbidden in blue, for a pair outside the catalog."
    ),
    gadget: str | None = typer.Option(
        None, "--gadget", help="Gadget type, e.g. red-determiner (with --F, --H)."
    ),
    max_vertices: int = typer.Option(
        SEARCH_MAX_VERTICES, "--max-vertices", min=1, max=40, help="Largest vertex count tried."
    ),
    timeout: float | None = typer.Option(
        None, "--timeout", min=0.001, help="Seconds per problem (default: none)."
    ),
    jobs: int = typer.Option(
        1,
        "--jobs",
        "-j",
        min=1,
        help="Worker processes: for several problems, or (one problem) for its cubes.",
    ),
    minimize_edges: bool = typer.Option(
        True,
        "--minimize-edges/--any-edges",
        help="Also minimise edges at the minimal vertex count.",
    ),
    max_edges: int | None = typer.Option(
        None,
        "--max-edges",
        min=0,
        help="Search only graphs with at most M edges: a level's 'none' then reads 'none with "
        "at most M edges' (with a solution of M + 1 edges there, a proof that it is "
        "edge-minimal; with --out the cube log records the cap).",
    ),
    seed: int | None = typer.Option(
        None,
        "--seed",
        help="Symmetry seed (random SAT variable order); also seeds the --recheck sample "
        "(default: a fresh random one, printed in the proof).",
    ),
    engine: str = typer.Option(
        SEARCH_ENGINE,
        "--engine",
        help="Finder engine: auto (default: lazy unless F is a star), lazy (witnesses checked "
        "by a coloring oracle) or eager (witnesses encoded in the SAT model).",
    ),
    min_vertices: int | None = typer.Option(
        None,
        "--min-vertices",
        min=1,
        max=40,
        help="Smallest vertex count searched; smaller ones are not searched (the proof says so).",
    ),
    assume_none_below: str | None = typer.Option(
        None,
        "--assume-none-below",
        help="Cube log (file or --out directory) of an earlier run proving no solution on "
        "min-vertices - 1 vertices: its records must name this problem and level and its UNSAT "
        "cubes cover the level (re-derived); their outcomes are taken on trust except those "
        "--recheck runs again (the proof line says which).",
    ),
    recheck: str = typer.Option(
        "none",
        "--recheck",
        help="With --assume-none-below: run again all, none (default) or a fraction F of the "
        "log's UNSAT cubes (a random sample of ceil(F * N), drawn with --seed) before they count; "
        "any disagreement is an error.",
    ),
    recheck_timeout: RecheckTimeoutOption = None,
    cubes: int | None = typer.Option(
        None,
        "--cubes",
        min=1,
        help="Cube-and-conquer: split each level into at least this many cubes "
        "(default 8 per worker with --jobs/--ray/--out). A small level has fewer edges to fix, "
        "so it gets fewer cubes than asked (one per placement of the designated items on the "
        "smallest levels); prefixes refuted by propagation are dropped, not counted.",
    ),
    ray: RayOption = None,
    split_after: float | None = typer.Option(
        None,
        "--split-after",
        min=0.01,
        help="Cube-and-conquer: a cube still running after S seconds is replaced by its two "
        "halves (balances the cubes).",
    ),
    out: str | None = typer.Option(
        None,
        "--out",
        help="Checkpoint directory: every finished cube is logged; a rerun resumes there.",
    ),
    status: bool = typer.Option(
        False,
        "--status",
        help="With --out: search nothing; print what its cube log has decided (the planned "
        "cubes of --cubes, per layout), the open cubes and the parts a rerun with these options "
        "searches, and each sitting's cubes, CPU time and candidates.",
    ),
    set_name: SetOption = None,
    dataset: DatasetOption = None,
    as_json: JsonOption = False,
) -> None:
    """Find minimal gadgets (fewest vertices, then fewest edges) with a proof that none is smaller.

    Exit 0: every problem solved; 1: some not found within the limits; 130: interrupted by Ctrl-C, 143: by SIGTERM (the finished results are still printed; with --out every finished cube is in the log and what the cubes in flight learned in OUT/stopped-cubes.jsonl, for the rerun). Solutions are printed as JSON answers that 'ramseygadgets verify PROBLEM_ID -' reads.
    """
    from ramseygadgets.search.options import SearchOptions
    from ramseygadgets.search.solve import check_engine

    check_engine(engine)
    problems = _problems(problem_id, all_, F, H, gadget, set_name, dataset)
    cube_options = {
        "jobs": jobs,
        "ray": ray,
        "out": out,
        "cubes": cubes,
        "assume_none_below": assume_none_below,
        "split_after": split_after,
    }
    if assume_none_below is not None:
        cube_options.update(recheck=recheck, recheck_timeout=recheck_timeout)
    elif recheck != "none" or recheck_timeout is not None:
        raise RamseyGadgetsError("--recheck and --recheck-timeout go with --assume-none-below")
    single = problem_id is not None or F is not None
    cube_mode = _check_single_problem_options(single, cube_options, min_vertices, max_vertices)
    options = SearchOptions(
        engine=engine,
        max_vertices=max_vertices,
        min_vertices=min_vertices,
        timeout=timeout,
        minimize_edges=minimize_edges,
        max_edges=max_edges,
        seed=seed,
        jobs=jobs,
        ray=ray,
        out=out,
        cubes=cubes,
        split_after=split_after,
        assume_none_below=assume_none_below,
        recheck=recheck,
        recheck_timeout=recheck_timeout,
    )
    if status:
        _print_log_status(problems, options, single, as_json)
        return
    with sigterm_raises():
        if single and (cube_mode or jobs > 1):
            outcome = _solve_single(problems[0], options, not as_json, cubes=True)
        elif len(problems) == 1:
            outcome = _solve_single(problems[0], options, show=not as_json)
        else:
            outcome = _solve_batch(problems, options, show=not as_json)
    _report_outcome(outcome, len(problems), as_json)
    if outcome.interrupted:
        raise typer.Exit(143 if isinstance(outcome.interruption, Terminated) else 130)
    raise typer.Exit(0 if all(r.found for r in outcome.results) else 1)


def _check_single_problem_options(
    single: bool, cube_options: dict, min_vertices: int | None, max_vertices: int
) -> bool:
    """Refuse the options that take one problem when several are asked, and inconsistent
    level bounds; whether cube-and-conquer is asked (beyond ``--jobs``)."""
    cube_mode = any(
        cube_options[k] is not None for k in cube_options if k not in ("jobs", "recheck")
    )
    if not single and (cube_mode or min_vertices is not None):
        raise RamseyGadgetsError(
            "--min-vertices, --assume-none-below, --cubes, --split-after, --ray and --out take "
            "one problem"
        )
    if cube_options["assume_none_below"] is not None and min_vertices is None:
        raise RamseyGadgetsError("--assume-none-below needs --min-vertices N (it proves N - 1)")
    if min_vertices is not None and min_vertices > max_vertices:
        raise RamseyGadgetsError(
            f"--min-vertices {min_vertices} is above --max-vertices {max_vertices}"
        )
    return cube_mode


def _print_log_status(
    problems: list[Problem], options: SearchOptions, single: bool, as_json: bool
) -> None:
    """``--status``: the state of the ``--out`` cube log for a rerun with ``options``."""
    from ramseygadgets.search.cubestatus import log_status
    from ramseygadgets.search.parallel import CUBES_PER_SLOT

    if not single or options.out is None:
        raise RamseyGadgetsError(
            "--status reads the cube log of one problem: give it and --out DIR"
        )
    if options.ray is not None and options.cubes is None:
        raise RamseyGadgetsError(
            "--status with --ray needs --cubes N (the cluster's size set the run's default)"
        )
    target = options.cubes or CUBES_PER_SLOT * options.jobs
    levels = range(options.min_vertices or 1, options.max_vertices + 1)
    statuses = log_status(
        problems[0],
        options.out,
        target,
        engine=options.engine,
        max_edges=options.max_edges,
        levels=levels,
    )
    print_status(problems[0], statuses, as_json)


def _report_outcome(outcome: BatchOutcome, problem_count: int, as_json: bool) -> None:
    """Print the results: JSON, or the summary table (several problems) and the total time."""
    results = outcome.results
    if as_json:
        data = {
            "results": [r.to_json() for r in results],
            "interrupted": outcome.interrupted,
            "unfinished": outcome.unfinished,
            "seconds": round(outcome.seconds, 3),
        }
        if outcome.partial:
            data["partial"] = outcome.partial
        print_json(data)
        return
    if problem_count > 1 and results:
        console.print(_summary_table(results))
    if outcome.interrupted:
        err_console.print(
            f"interrupted: {len(results)} finished, {len(outcome.unfinished)} not run or unfinished"
        )
    else:
        console.print(f"total {outcome.seconds:.2f} s", highlight=False)


#: Seconds between two progress lines of a cube-and-conquer level.
HEARTBEAT_SECONDS = 10.0


class CubeHeartbeat:
    """Every :data:`HEARTBEAT_SECONDS` while cubes finish, one line on stderr: the cubes decided
    and split since the start, how many of the level's planned cubes are decided (whole or by
    their split parts) and the share of each layout's prefix assignments decided (a lower bound);
    both count the checkpoint log too (:mod:`ramseygadgets.search.parallel`).  :meth:`flush`
    prints the line of cubes that finished since the last beat, so the last line holds them all."""

    def __init__(self) -> None:
        self.start = self.last = time.monotonic()
        self.decided = self.split = 0
        self.level: int | None = None
        self.unshown: dict | None = None  # the newest record no line has counted yet

    def __call__(self, record: dict) -> None:
        if record.get("n") != self.level:
            self.level, self.decided, self.split = record.get("n"), 0, 0
        self.decided += record.get("outcome") == "none"
        self.split += record.get("outcome") == "split"
        self.unshown = record
        if time.monotonic() - self.last >= HEARTBEAT_SECONDS:
            self.flush()

    def flush(self) -> None:
        """The line, where a cube finished since the last one."""
        record, self.unshown = self.unshown, None
        if record is None:
            return
        self.last = now = time.monotonic()
        shares = ", ".join(
            f"{percent(share)} of '{name}'"
            for name, share in sorted(record.get("decided_share", {}).items(), key=lambda x: x[1])
        )
        elapsed = int(now - self.start)
        planned = record.get("planned_decided")
        planned_text = f"{planned[0]} of {planned[1]} planned cubes, " if planned else ""
        err_console.print(
            f"  n = {self.level}: {self.decided} cubes decided, {self.split} split in "
            f"{elapsed // 3600}:{elapsed // 60 % 60:02d}:{elapsed % 60:02d}; decided "
            f"{planned_text}at least {shares}",
            highlight=False,
            markup=False,
            soft_wrap=True,  # one line per beat, whatever the width: logs are grepped
        )


def _solve_single(
    problem: Problem, options: SearchOptions, show: bool, cubes: bool = False
) -> BatchOutcome:
    """One problem, level by level (with ``cubes``: by cube-and-conquer, :mod:`.parallel`)."""
    from ramseygadgets.search.batch import BatchOutcome
    from ramseygadgets.search.solve import solve as solve_problem

    levels: list[LevelRecord] = []
    heartbeat = CubeHeartbeat() if show and cubes else None
    started: list[SearchResult] = []  # the result as it grows (on_start), for an interruption

    def on_level(level: LevelRecord) -> None:
        levels.append(level)
        if heartbeat is not None:
            heartbeat.flush()  # the level's last cubes, before its verdict
        if show:
            _print_level(level)

    if show:
        console.print(f"solving {problem.title} ({problem.id})", highlight=False)
    outcome = BatchOutcome()
    try:
        if cubes:
            from ramseygadgets.search.parallel import solve_cubes

            result = solve_cubes(
                problem, options, on_level=on_level, on_cube=heartbeat, on_start=started.append
            )
        else:
            result = solve_problem(problem, options, on_level=on_level, on_start=started.append)
    except KeyboardInterrupt as exc:
        if heartbeat is not None:
            heartbeat.flush()
        _record_interruption(outcome, exc, problem, levels, options)
        if show:
            _print_interrupted_proof(problem, levels, options, started[0] if started else None)
            _print_stopped_cubes(options)
        return outcome
    outcome.results.append(result)
    outcome.seconds = result.seconds
    if show:
        _print_result(problem, result, options)
    return outcome


def _print_level(level: LevelRecord) -> None:
    cubes = f"{level.cubes} cubes ({level.cubes_from_log} from the log), " if level.cubes else ""
    console.print(
        f"  n = {level.n}: {level.outcome} ({cubes}{level.candidates} candidates, "
        f"{level.lemmas} lemmas, {level.arrowing} arrowing, {level.seconds:.2f} s)",
        highlight=False,
    )


def _record_interruption(
    outcome: BatchOutcome,
    exc: KeyboardInterrupt,
    problem: Problem,
    levels: list[LevelRecord],
    options: SearchOptions,
) -> None:
    """What an interrupted search keeps: its finished levels and the lower bound they prove."""
    outcome.interruption = exc
    outcome.unfinished = [problem.id]
    proven = [lv.n for lv in levels if lv.outcome == "none"]
    outcome.partial = {
        "problem_id": problem.id,
        "levels": [lv.to_json() for lv in levels],
        "lower_bound": max(proven) + 1 if proven else None,
        "max_edges": options.max_edges,
    }


def _print_result(problem: Problem, result: SearchResult, options: SearchOptions) -> None:
    console.print(_result_line(result))
    console.print(f"  proof: {result.proof() or 'no level decided'}", markup=False, highlight=False)
    if result.status == "timeout":
        _print_stopped_cubes(options)
    if result.candidate is not None:
        answer = json.dumps(result.candidate.to_json(problem.kind))
        console.print(f"  solution: {answer}", markup=False, highlight=False)


def _print_stopped_cubes(options: SearchOptions) -> None:
    """Where what the cubes in flight learned went (``--out``: search/stopped.py)."""
    from pathlib import Path

    from ramseygadgets.search.stopped import STOPPED_FILE

    path = Path(options.out) / STOPPED_FILE if options.out is not None else None
    if path is not None and path.exists() and path.stat().st_size:
        err_console.print(
            f"kept what the cubes in flight learned in {path}; the same command goes on with it",
            highlight=False,
        )


def _print_interrupted_proof(
    problem: Problem,
    levels: list[LevelRecord],
    options: SearchOptions,
    started: SearchResult | None,
) -> None:
    """The ``proof:`` line of the levels decided before an interruption (docs/search.md: every
    run prints one), and the lower bound they prove (under the run's edge cap, if any).
    ``started``: the search's own result (``on_start``), which knows whether
    ``--assume-none-below`` was checked; None when the search stopped before that check."""
    from ramseygadgets.search.options import cap_words
    from ramseygadgets.search.solve import SearchResult, smallest_vertex_count

    partial = started
    if partial is None:
        first = smallest_vertex_count(problem)
        partial = SearchResult(*(problem.id, problem, "timeout", None, first, 0.0), levels=levels)
        partial.max_edges = options.max_edges
        partial.searched_from = max(first, options.min_vertices or first)
    proven = [lv.n for lv in levels if lv.outcome == "none"]
    if proven:
        err_console.print(
            f"interrupted: proven so far that no solution{cap_words(options.max_edges)} has "
            f"fewer than {max(proven) + 1} vertices",
            highlight=False,
        )
    else:
        err_console.print("interrupted: no level decided", highlight=False)
    console.print(
        f"  proof: {partial.proof() or 'no level decided'}", markup=False, highlight=False
    )


def _solve_batch(problems: list[Problem], options: SearchOptions, show: bool) -> BatchOutcome:
    from ramseygadgets.search.batch import solve_many

    if not show:
        return solve_many(problems, options)
    with progress_bar(console=console) as progress:
        task = progress.add_task(
            f"solving ({options.jobs} job{'s' if options.jobs > 1 else ''})", total=len(problems)
        )

        def on_start(problem: Problem) -> None:
            progress.update(task, description=f"solving {problem.id}")

        def on_result(result: SearchResult) -> None:
            progress.console.print(_result_line(result))
            progress.advance(task)

        return solve_many(problems, options, on_start=on_start, on_result=on_result)
