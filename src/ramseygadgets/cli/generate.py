"""CLI command ``generate``: build a new problem set (issue 8); see docs/generate.md."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ramseygadgets.cli.app import app, console, err_console, guarded, print_json
from ramseygadgets.errors import RamseyGadgetsError

GENERATE_HELP = """Generate a new problem set: every pair (F, H) from the --F and --H lists (deduplicated up to colour swap) and every multi-colour --spec, with the gadget types that make sense for it, each solved to a minimal solution with proofs.

Patterns: names (P3, K1,3, C5, K4-e, paw ...), graph6, or connected:k for every connected graph on k vertices; lists are comma-separated. A spec gives each colour's forbidden patterns, colours separated by '|': --spec "P3 | K3,C4 | K4".

Rules: determiners need F and H non-isomorphic (for specs: a colour whose forbidden set no other colour shares); clause/variable gadgets only for F = K1,k, H not a star (two stars are polynomial), and pairs not in the polynomial list (built in: the paper's four, (P3,K3) (P3,K1,3) (P3,P4) (P3,TK3); --polynomial-pairs FILE or none); other pairs are treated as NP-hard. Problems not solved within --max-vertices / --timeout are recorded with their status, never dropped.

OUT gets results.jsonl (checkpoint: one line per finished problem; re-running resumes), problems.jsonl (two-colour problems with solutions, for 'ramseygadgets eval --dataset OUT/problems.jsonl'), multicolor.jsonl, solutions.json and manifest.json. Exit 0: all solved; 1: some not solved within the limits (or a cross-check disagreement); 130: interrupted (finished work is kept).
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
        None, "--jobs", "-j", min=1, help="Local worker processes (default: all cores)."
    ),
    ray: str | None = typer.Option(
        None, "--ray", help="Run on Ray: auto, local, or a cluster address."
    ),
    out: Path | None = typer.Option(
        None, "--out", "-o", help="Output directory (created; resumed if it exists)."
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
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Only list the problems that would be solved."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON summary."),
) -> None:
    from ramseygadgets.problemsets import ProblemSetWriter, plan_problem_set
    from ramseygadgets.scaleout.executors import make_executor
    from ramseygadgets.scaleout.fanout import generate_problem_set, hardest_last

    plan = plan_problem_set(
        F or [], H or [], spec or [], gadgets=gadgets, polynomial_pairs=polynomial_pairs
    )
    if dry_run:
        if as_json:
            print_json({"problems": [p.to_json() for p in plan.problems], "skipped": plan.skipped})
        else:
            for p in plan.problems:
                console.print(f"{p.id}  {p.title}", highlight=False, markup=False)
            console.print(
                f"{len(plan.problems)} problems; {len(plan.skipped)} left out by the rules",
                highlight=False,
            )
        return
    if out is None:
        raise RamseyGadgetsError(
            "--out DIR is required (the directory that receives the problem set)"
        )
    writer = ProblemSetWriter(out)
    command = (
        "ramseygadgets " + shlex.join(sys.argv[1:])
        if sys.argv and sys.argv[0].endswith("ramseygadgets")
        else "ramseygadgets generate"
    )
    options = {
        "command": command,
        "F": F or [],
        "H": H or [],
        "spec": spec or [],
        "gadgets": gadgets,
        "polynomial_pairs": polynomial_pairs,
    }
    with make_executor(jobs, ray) as executor:
        show = not as_json
        todo = sum(1 for p in plan.problems if not writer.done(p.id, retry_unsolved))
        if show:
            console.print(
                f"{len(plan.problems)} problems ({len(plan.problems) - todo} already recorded in {out}); "
                f"solving {todo} on {executor.describe()}",
                highlight=False,
            )
        columns = (
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
        )
        with Progress(*columns, console=err_console, transient=True, disable=not show) as progress:
            bar = progress.add_task("solving", total=todo)

            def on_result(record: dict[str, Any]) -> None:
                progress.advance(bar)
                if show:
                    progress.console.print(_line(record), highlight=False)

            outcome = generate_problem_set(
                plan,
                writer,
                max_vertices=max_vertices,
                timeout=timeout,
                executor=executor,
                retry_unsolved=retry_unsolved,
                options=options,
                on_result=on_result,
                order=hardest_last,
            )
        manifest = outcome.manifest
        check = None
        if cross_check is not None and not outcome.interrupted:
            from ramseygadgets.scaleout.crosscheck import cross_check as run_cross_check

            records = [writer.results[pid] for pid in plan.ids if pid in writer.results]
            check = run_cross_check(
                records,
                cross_check,
                executor=executor,
                checkpoint_dir=Path(out) / "census",
                mod=max(4, 2 * executor.workers),
            )
            manifest = writer.finish(
                plan,
                {**options, "max_vertices": max_vertices, "timeout": timeout, "cross_check": check},
            )
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
    else:
        status = ", ".join(f"{v} {k}" for k, v in manifest["status"].items())
        sizes = ", ".join(f"n={n}: {c}" for n, c in manifest["minimal_sizes"].items())
        console.print(
            f"{manifest['finished']}/{manifest['planned']} problems recorded ({status}); minimal sizes: "
            f"{sizes or 'none'}; search time {manifest['search_seconds']:.1f} s; wall {outcome.seconds:.1f} s",
            highlight=False,
        )
        console.print(f"eval-ready: {Path(out) / 'problems.jsonl'}", highlight=False)
        if check is not None:
            console.print(
                f"cross-check up to {check['max_vertices']} vertices: {check['agree']} agree, "
                f"{len(check['disagree'])} disagree",
                highlight=False,
            )
    if outcome.interrupted:
        err_console.print(
            f"interrupted: {len(outcome.ran)} problems finished in this run and kept; re-run the same "
            f"command to continue",
            highlight=False,
        )
        raise typer.Exit(130)
    if manifest["not_solved"] or manifest["unfinished"] or (check and check["disagree"]):
        raise typer.Exit(1)
