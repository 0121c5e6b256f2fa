"""CLI command ``generate``: build a new problem set (issue 8); see docs/generate.md."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from ramseygadgets.cli.app import app, console, err_console, guarded, print_json
from ramseygadgets.cli.options import (
    JsonOption,
    RayOption,
)
from ramseygadgets.cli.progress import progress_bar
from ramseygadgets.core.errors import RamseyGadgetsError

if TYPE_CHECKING:
    from ramseygadgets.infra.executors import Executor
    from ramseygadgets.problemsets import ProblemSetPlan, ProblemSetWriter
    from ramseygadgets.scaleout.fanout import GenerateOutcome

__all__ = [
    "GENERATE_HELP",
    "generate",
]


GENERATE_HELP = """Generate a new problem set: every pair (F, H) from the --F and --H lists (deduplicated up to colour swap) and every multi-colour --spec, with the gadget types that make sense for it, each solved to a minimal solution with proofs.

Patterns: names (P3, K1,3, C5, K4-e, paw ...), graph6, or connected:k for every connected graph on k vertices; lists are comma-separated. A spec gives each colour's forbidden patterns, colours separated by '|': --spec "P3 | K3,C4 | K4".

Rules: determiners need F and H non-isomorphic (for specs: a colour whose forbidden set no other colour shares); clause/variable gadgets only for F = K1,k, H not a star (two stars are polynomial), and pairs not in the polynomial list (built in: the paper's four, (P3,K3) (P3,K1,3) (P3,P4) (P3,TK3); --polynomial-pairs FILE or none); other pairs are treated as NP-hard. Problems not solved within --max-vertices / --timeout are recorded with their status, never dropped. connected:k is counted first (OEIS A001349); plans above 100,000 problems need --force.

OUT gets results.jsonl (checkpoint: one line per finished problem; re-running resumes; every record read back is checked again, a failing one is named and its problem solved again), plan.json (the folder's one problem set: another is refused unless --extend; one run at a time), problems.jsonl (every problem with a solution, two colours or more, one row each with schema_version and colors; for 'ramseygadgets eval --dataset OUT/problems.jsonl'), solutions.json and manifest.json. Exit 0: all solved; 1: some not solved within the limits (or a cross-check disagreement); 130: interrupted (finished work is kept).
"""


def _line(record: dict[str, Any]) -> str:
    if record.get("solution"):
        proof = "minimal" if record.get("proven_minimal") else "not proven minimal"
        return (
            f"[green]✓[/green] {record['id']}: n = {record['n']}, m = {record['m']} ({proof})  "
            f"[dim]{record['seconds']:.2f} s[/dim]"
        )
    why = (
        "time limit"
        if record["status"] == "timeout"
        else f"none on ≤ {record.get('max_vertices')} vertices"
    )
    return (
        f"[yellow]✗[/yellow] {record['id']}: not solved ({why}; none below {record.get('lower_bound')})  "
        f"[dim]{record['seconds']:.2f} s[/dim]"
    )


@app.command("generate", help=GENERATE_HELP)
@guarded
def generate(
    F: list[str] | None = typer.Option(
        None, "--F", help="Patterns forbidden in red (comma list, repeatable)."
    ),
    H: list[str] | None = typer.Option(
        None,
        "--H",
        help="Patterns forbidden in blue (comma list, repeatable; "
        "connected:k = all connected graphs on k vertices).",
    ),
    spec: list[str] | None = typer.Option(
        None, "--spec", help="Multi-colour spec, e.g. 'P3 | K3,C4 | K4' (repeatable)."
    ),
    gadgets: str = typer.Option(
        "all",
        "--gadgets",
        help="all, or a comma list of: determiners, senders, hardness, "
        "red-determiner, positive-sender, clause-gadget, ...",
    ),
    polynomial_pairs: str = typer.Option(
        "builtin",
        "--polynomial-pairs",
        help="builtin (the paper's four), none, or a file of pairs 'F H' per line.",
    ),
    max_vertices: int = typer.Option(
        10, "--max-vertices", min=2, max=16, help="Largest vertex count searched."
    ),
    timeout: float | None = typer.Option(60.0, "--timeout", min=0.001, help="Seconds per problem."),
    jobs: int | None = typer.Option(
        None,
        "--jobs",
        "-j",
        min=1,
        help="Local worker processes (default and at most: the CPU cores; never more than the "
        "problems).",
    ),
    oversubscribe: bool = typer.Option(
        False, "--oversubscribe", help="Allow --jobs above the number of CPU cores."
    ),
    ray: RayOption = None,
    out: Path | None = typer.Option(
        None, "--out", "-o", help="Output directory (created; resumed if it exists)."
    ),
    extend: bool = typer.Option(
        False, "--extend", help="Add this command's new problems to the set already in --out."
    ),
    retry_unsolved: bool = typer.Option(
        False, "--retry-unsolved", help="Re-run recorded problems that were not solved."
    ),
    cross_check: int | None = typer.Option(
        None,
        "--cross-check",
        min=2,
        max=9,
        help="Also scan every graph on ≤ N vertices (geng slices) and compare.",
    ),
    force: bool = typer.Option(
        False, "--force", help="Plan beyond the limit of 100,000 problems (connected:9 and up)."
    ),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Only list the problems that would be solved."
    ),
    as_json: JsonOption = False,
) -> None:
    from ramseygadgets.infra.executors import make_executor
    from ramseygadgets.problemsets import ProblemSetWriter

    show = not as_json
    request = _request(F or [], H or [], spec or [], gadgets, polynomial_pairs)
    plan = _plan(request, force=force, show=show)
    if dry_run:
        _print_plan(plan, as_json)
        return
    if out is None:
        raise RamseyGadgetsError(
            "--out DIR is required (the directory that receives the problem set)"
        )
    with ProblemSetWriter(out) as writer:
        plan = writer.adopt_plan(plan, request, extend=extend)
        _report_rejected(writer.rejected)
        todo = sum(1 for p in plan.problems if not writer.done(p.id, retry_unsolved, max_vertices))
        workers = _workers(jobs, oversubscribe, todo if cross_check is None else None)
        with make_executor(workers, ray) as executor:
            if show:
                console.print(
                    f"{len(plan.problems)} problems ({len(plan.problems) - todo} already recorded "
                    f"in {out}); solving {todo} on {executor.describe(todo)}",
                    highlight=False,
                )
            limits = {"max_vertices": max_vertices, "timeout": timeout}
            outcome = _solve(plan, writer, executor, request, limits, retry_unsolved, show)
            manifest, check = outcome.manifest, None
            if cross_check is not None and not outcome.interrupted:
                check = _cross_check(plan, writer, executor, cross_check)
                manifest = writer.finish(plan, {**request, **limits, "cross_check": check})
    _print_summary(out, outcome, manifest, check, as_json)
    if outcome.interrupted:
        err_console.print(
            f"interrupted: {len(outcome.ran)} problems finished in this run and kept; re-run the same "
            f"command to continue",
            highlight=False,
        )
        raise typer.Exit(130)
    if manifest["not_solved"] or manifest["unfinished"] or (check and check["disagree"]):
        raise typer.Exit(1)


def _request(
    F: list[str], H: list[str], spec: list[str], gadgets: str, polynomial_pairs: str
) -> dict[str, Any]:
    """The options that define the problem set (kept in the folder's plan and manifest)."""
    command = (
        "ramseygadgets " + shlex.join(sys.argv[1:])
        if sys.argv and sys.argv[0].endswith("ramseygadgets")
        else "ramseygadgets generate"
    )
    return {
        "command": command,
        "F": F,
        "H": H,
        "spec": spec,
        "gadgets": gadgets,
        "polynomial_pairs": polynomial_pairs,
    }


def _plan(request: dict[str, Any], *, force: bool, show: bool) -> ProblemSetPlan:
    """The plan, announced with its estimate first when it enumerates graphs, and with a
    progress bar over the known number of graphs while it does."""
    from ramseygadgets.problemsets import estimate_plan, plan_problem_set

    estimate = estimate_plan(request["F"], request["H"], request["spec"])
    if show and estimate.enumerations:
        err_console.print(f"planning {estimate.describe()}", highlight=False)
    with progress_bar(disable=not show) as progress:
        bars: dict[str, Any] = {}

        def on_enumerated(label: str, done: int, total: int) -> None:
            if label not in bars:
                bars[label] = progress.add_task(f"enumerating {label}", total=total)
            progress.update(bars[label], completed=done)

        return plan_problem_set(
            request["F"],
            request["H"],
            request["spec"],
            gadgets=request["gadgets"],
            polynomial_pairs=request["polynomial_pairs"],
            force=force,
            on_enumerated=on_enumerated,
        )


def _print_plan(plan: ProblemSetPlan, as_json: bool) -> None:
    if as_json:
        print_json({"problems": [p.to_json() for p in plan.problems], "skipped": plan.skipped})
        return
    for p in plan.problems:
        console.print(f"{p.id}  {p.title}", highlight=False, markup=False)
    console.print(
        f"{len(plan.problems)} problems; {len(plan.skipped)} left out by the rules",
        highlight=False,
    )


def _report_rejected(rejected: list[str]) -> None:
    for line in rejected:
        err_console.print(
            f"warning: {line}; left out, its problem is solved again",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )


def _workers(jobs: int | None, oversubscribe: bool, todo: int | None) -> int:
    """Worker processes: --jobs, at most the CPU cores (unless --oversubscribe) and, when only
    the solving needs them, at most the problems to solve; a capped --jobs is said."""
    from ramseygadgets.infra.workers import usable_cores

    cores = usable_cores()
    workers = jobs or cores
    if not oversubscribe:
        workers = min(workers, cores)
    if todo is not None:
        workers = min(workers, max(1, todo))
    if jobs is not None and workers < jobs:
        why = [f"{cores} CPU cores"] if jobs > cores and not oversubscribe else []
        why += [f"{todo} problems to solve"] if todo is not None and jobs > todo else []
        more = "; --oversubscribe to run more processes than cores" if jobs > cores else ""
        err_console.print(
            f"note: --jobs {jobs} capped at {workers} ({', '.join(why)}){more}",
            highlight=False,
        )
    return workers


def _solve(
    plan: ProblemSetPlan,
    writer: ProblemSetWriter,
    executor: Executor,
    request: dict[str, Any],
    limits: dict[str, Any],
    retry_unsolved: bool,
    show: bool,
) -> GenerateOutcome:
    """Solve what is not yet recorded, one line per finished problem under a progress bar."""
    from ramseygadgets.scaleout.fanout import generate_problem_set, hardest_last

    todo = sum(
        1 for p in plan.problems if not writer.done(p.id, retry_unsolved, limits["max_vertices"])
    )
    with progress_bar(disable=not show) as progress:
        bar = progress.add_task("solving", total=todo)

        def on_result(record: dict[str, Any]) -> None:
            progress.advance(bar)
            if show:
                progress.console.print(_line(record), highlight=False)

        return generate_problem_set(
            plan,
            writer,
            executor=executor,
            retry_unsolved=retry_unsolved,
            options=request,
            on_result=on_result,
            order=hardest_last,
            **limits,
        )


def _cross_check(
    plan: ProblemSetPlan, writer: ProblemSetWriter, executor: Executor, up_to: int
) -> dict[str, Any]:
    from ramseygadgets.scaleout.crosscheck import cross_check

    records = [writer.results[pid] for pid in plan.ids if pid in writer.results]
    return cross_check(
        records,
        up_to,
        executor=executor,
        checkpoint_dir=writer.dir / "census",
        mod=max(4, 2 * executor.workers),
    )


def _print_summary(
    out: Path,
    outcome: GenerateOutcome,
    manifest: dict[str, Any],
    check: dict[str, Any] | None,
    as_json: bool,
) -> None:
    from ramseygadgets.problemsets import PROBLEMS_FILE

    if as_json:
        print_json(
            {
                "out": str(out),
                "ran": len(outcome.ran),
                "skipped": outcome.skipped,
                "interrupted": outcome.interrupted,
                "seconds": round(outcome.seconds, 3),
                **manifest,
            }
        )
        return
    status = ", ".join(f"{v} {k}" for k, v in manifest["status"].items())
    sizes = ", ".join(f"n={n}: {c}" for n, c in manifest["minimal_sizes"].items())
    console.print(
        f"{manifest['finished']}/{manifest['planned']} problems recorded ({status}); minimal sizes: "
        f"{sizes or 'none'}; search time {manifest['search_seconds']:.1f} s; wall {outcome.seconds:.1f} s",
        highlight=False,
    )
    console.print(f"eval-ready: {out / PROBLEMS_FILE}", highlight=False)
    if check is not None:
        console.print(
            f"cross-check up to {check['max_vertices']} vertices: {check['agree']} agree, "
            f"{len(check['disagree'])} disagree",
            highlight=False,
        )
