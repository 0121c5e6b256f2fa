"""CLI commands ``atlas run`` and ``atlas table`` (issue 14); see docs/atlas.md."""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from ramseygadgets.cli.app import HELP_MARKUP, app, console, err_console, guarded, print_json
from ramseygadgets.cli.options import (
    JsonOption,
    RayOption,
    RecheckTimeoutOption,
)
from ramseygadgets.cli.progress import progress_bar

if TYPE_CHECKING:
    from ramseygadgets.atlas.run import AtlasOutcome

__all__ = [
    "ADOPT_HELP",
    "adopt",
    "atlas_app",
    "RUN_HELP",
    "run",
    "table",
]


atlas_app = typer.Typer(
    help="The atlas of minimal gadgets for every small pair (docs/atlas.md).",
    no_args_is_help=True,
    rich_markup_mode=HELP_MARKUP,
)
app.add_typer(atlas_app, name="atlas")

RUN_HELP = """Compute the atlas: every pair {F, H} of the paper's eight graphs (determiners and senders) and the stars K1,2, K1,3, K1,4 against every connected 5-vertex graph (all six types), identified up to colour swap; per problem the minimal solution with both proofs, or the largest n with 'no solution on at most n vertices' proven within the budget.

Starts from --base (default: the shipped atlas) and the paper's 70 shipped solutions; searches only open problems, each from its proven lower bound, so a rerun (more time, another --engine) only improves entries. Minimal solutions on at most --cross-check vertices are re-checked by the exhaustive nauty scan.

OUT gets results.jsonl and crosscheck.jsonl (checkpoints: re-running resumes; --retry-unsolved re-runs recorded open problems), atlas.json (copy it over src/ramseygadgets/data/atlas.json to ship it) and atlas.md. Exit 0: done; 1: a scan disagrees with the search; 130: interrupted (finished work is kept).
"""


def _line(record: dict[str, Any]) -> str:
    if record.get("solution"):
        return f"[green]✓[/green] {record['id']}: n = {record['n']}, m = {record['m']}  [dim]{record['seconds']:.1f} s[/dim]"
    # the search started at min_vertices, the bound proven before (base atlas): report both
    bound = max(record.get("lower_bound") or 0, record.get("min_vertices") or 0)
    return (
        f"[yellow]…[/yellow] {record['id']}: none below {bound} vertices "
        f"({record['status']})  [dim]{record['seconds']:.1f} s[/dim]"
    )


def _check_line(check: dict[str, Any]) -> str:
    mark = "[green]=[/green]" if check["agree"] else "[red]≠[/red]"
    return (
        f"{mark} scan {check['id']}: census {check['census']}, search [{check['n']}, {check['m']}]"
    )


@atlas_app.command("run", help=RUN_HELP)
@guarded
def run(
    out: Path = typer.Option(..., "--out", "-o", help="Output directory (created; resumed)."),
    section: list[str] | None = typer.Option(
        None, "--section", help="paper, stars or all (default; repeatable)."
    ),
    problem: list[str] | None = typer.Option(
        None, "--problem", help="Only this problem id (repeatable; default: the sections)."
    ),
    engine: str = typer.Option(
        "cegar",
        "--engine",
        help="Two-colour search engine: cegar (the search picks lazy or eager), lazy or eager.",
    ),
    timeout: float = typer.Option(30.0, "--timeout", min=0.001, help="Seconds per problem."),
    max_vertices: int = typer.Option(
        12, "--max-vertices", min=2, max=16, help="Largest vertex count searched."
    ),
    cross_check: int = typer.Option(
        8, "--cross-check", min=0, max=9, help="Exhaustive scan up to N vertices (0: none)."
    ),
    base: str = typer.Option(
        "builtin", "--base", help="Atlas to improve: builtin (shipped), none, or a file."
    ),
    jobs: int | None = typer.Option(
        None, "--jobs", "-j", min=1, help="Local worker processes (default: all cores)."
    ),
    ray: RayOption = None,
    retry_unsolved: bool = typer.Option(
        False, "--retry-unsolved", help="Re-run recorded open problems."
    ),
    search: bool = typer.Option(
        True, "--search/--no-search", help="--no-search: only cross-check and rebuild the atlas."
    ),
    edges: bool = typer.Option(
        False,
        "--edges",
        help="Also search minimal entries whose edge count is not proven ('≤ m'), to lower it "
        "and prove it minimal.",
    ),
    as_json: JsonOption = False,
) -> None:
    from ramseygadgets.atlas import load_atlas
    from ramseygadgets.atlas.plan import parse_sections
    from ramseygadgets.atlas.run import AtlasOptions, run_atlas
    from ramseygadgets.infra.executors import make_executor
    from ramseygadgets.problems.atlas_entries import Atlas
    from ramseygadgets.scaleout.fanout import engine_function

    sections = tuple(s.name for s in parse_sections(section))
    engine_function(engine)
    prior = Atlas() if base == "none" else load_atlas(None if base == "builtin" else base)
    only = tuple(problem or ())
    options = AtlasOptions(
        sections, engine, timeout, max_vertices, retry_unsolved, cross_check, only, search, edges
    )
    show = not as_json
    with make_executor(jobs, ray) as executor:
        if show:
            console.print(f"atlas: {', '.join(sections)} on {executor.describe()}", highlight=False)
        outcome = run_atlas(
            out,
            options,
            executor=executor,
            base=prior,
            on_result=(lambda r: console.print(_line(r), highlight=False)) if show else None,
            on_check=(lambda c: console.print(_check_line(c), highlight=False)) if show else None,
        )
    disagree = _report_run(outcome, out, as_json)
    for line in disagree:
        err_console.print(f"disagreement: {line}", highlight=False, markup=False)
    if outcome.interrupted:
        err_console.print("interrupted: finished work is kept; re-run to continue")
        raise typer.Exit(130)
    if disagree:
        raise typer.Exit(1)


def _report_run(outcome: AtlasOutcome, out: Path, as_json: bool) -> list[str]:
    """Print what an atlas run did (entries by status, searched, scanned, where it wrote);
    returns the disagreements between an entry and its cross-check."""
    entries = list(outcome.atlas.entries.values())
    disagree = [e.disagreement for e in entries if e.disagreement]
    status = dict(Counter(e.status for e in entries))
    if as_json:
        print_json(
            {
                "out": str(out),
                "searched": len(outcome.searched),
                "checked": len(outcome.checked),
                "interrupted": outcome.interrupted,
                "seconds": round(outcome.seconds, 3),
                "status": status,
                "disagree": disagree,
            }
        )
    else:
        counts = ", ".join(f"{v} {k}" for k, v in sorted(status.items()))
        console.print(
            f"{len(entries)} problems ({counts}); searched {len(outcome.searched)}, scanned "
            f"{len(outcome.checked)} in {outcome.seconds:.1f} s; wrote {out / 'atlas.json'} and "
            f"{out / 'atlas.md'}",
            highlight=False,
        )
    return disagree


ADOPT_HELP = """Add to an atlas the facts that cube logs prove (`solve --jobs K --out DIR` writes DIR/cubes.jsonl; give the file or DIR).

Every cube record of an atlas problem must name that problem and one level (its n and its key agree), or the log is refused. A level whose UNSAT cubes cover it (coverage re-derived here, never read from the log) and that holds no logged solution gives the lower bound n + 1, once a random sample of its cubes (--recheck, default 0.1; all: every cube) has been run again and agrees; the fact carries the cubes and which were re-run, so that `atlas table` proves the coverage again and says what the bound rests on. A logged solution is taken when the verifier and an independent second check (brute force or the second SAT encoding) accept it. Levels still undecided and problems outside the atlas are listed and left out.

Reads --base (default: the shipped atlas) and writes the merged atlas to --out (it may be the same file: the write is atomic). Exit 0: written; 2: an unusable or refused log (a record of another problem or level, a re-run cube that finds a solution or does not finish within --recheck-timeout), or a fact that contradicts a proof in the atlas (nothing written).
"""


#: The columns of ``atlas adopt``'s bar while it re-runs a log's cubes.


@atlas_app.command("adopt", help=ADOPT_HELP)
@guarded
def adopt(
    logs: list[Path] = typer.Argument(..., help="Cube logs (cubes.jsonl) or their directories."),
    out: Path = typer.Option(..., "--out", "-o", help="Write the merged atlas here."),
    base: str = typer.Option(
        "builtin", "--base", help="Atlas to add to: builtin (shipped) or a file."
    ),
    recheck: str = typer.Option(
        "0.1",
        "--recheck",
        help="Cubes of each adopted level to run again before it counts: all, none, or a "
        "fraction F (a random sample of ceil(F * N) of N cubes).",
    ),
    seed: int | None = typer.Option(
        None, "--seed", help="Seed of the --recheck sample (default: a fresh random one, recorded)."
    ),
    recheck_timeout: RecheckTimeoutOption = None,
    rerun_log: list[Path] = typer.Option(
        [],
        "--rerun-log",
        help="Take each level's re-run from this re-run log (bench/rerun_cubes.py writes it, in "
        "sittings) instead of running cubes here (replaces --recheck; repeatable).",
    ),
    as_json: JsonOption = False,
) -> None:
    from ramseygadgets.atlas import load_atlas
    from ramseygadgets.atlas.adopt import CubeRecheck, adopt_cube_log
    from ramseygadgets.atlas.reruns import LoggedRecheck
    from ramseygadgets.search.cubeproof import parse_recheck

    atlas = load_atlas(None if base == "builtin" else base)
    with progress_bar() as progress:
        bar = progress.add_task("re-running cubes", total=None, visible=False)

        def on_rerun(what: str, done: int, total: int) -> None:
            text = f"re-running cubes of {what}"
            progress.update(bar, description=text, completed=done, total=total, visible=True)

        options = (
            LoggedRecheck(progress=on_rerun, logs=tuple(rerun_log))
            if rerun_log
            else CubeRecheck(parse_recheck(recheck), seed, recheck_timeout, on_rerun)
        )
        report = [item for log in logs for item in adopt_cube_log(atlas, log, options)]
    atlas.write(out)
    if as_json:
        print_json({"out": str(out), "facts": [dataclasses.asdict(a) for a in report]})
        return
    for item in report:
        console.print(str(item), highlight=False, markup=False)
    adopted = sum(a.outcome == "adopted" for a in report)
    console.print(f"{adopted} of {len(report)} facts adopted; wrote {out}", highlight=False)


@atlas_app.command(
    "table",
    help="Print the atlas as Markdown (the source of docs/atlas.md). Every solution shown is "
    "re-verified, every cross-check re-checked and every lower bound from a cube log has its "
    "coverage re-derived (the prover column says how many of its cubes were re-run; † marks a "
    "bound resting on cube outcomes not all re-run); a record that fails is shown as DISPUTED "
    "(--json: status disputed), named on stderr, and the exit code is 1.",
)
@guarded
def table(
    data: str | None = typer.Option(
        None, "--data", help="An atlas.json or an atlas run folder (default: the shipped one)."
    ),
    out: Path | None = typer.Option(None, "--out", "-o", help="Write to this file instead."),
    as_json: JsonOption = False,
) -> None:
    from ramseygadgets.atlas import load_atlas
    from ramseygadgets.atlas.table import audit, entry_json, render_markdown
    from ramseygadgets.infra.files import atomic_write
    from ramseygadgets.problems.atlas_entries import ATLAS_FILE, AtlasError

    if data is not None and Path(data).is_dir():
        data = str(Path(data) / ATLAS_FILE)
    atlas = load_atlas(data)
    if not atlas.entries:
        raise AtlasError("the atlas is empty: no shipped data/atlas.json; give --data FILE")
    disputes = audit(atlas)
    if as_json:
        print_json([entry_json(e, disputes.get(e.id)) for e in atlas.entries.values()])
    else:
        text = render_markdown(atlas, disputes)
        if out is None:
            typer.echo(text, nl=False)
        else:
            atomic_write(out, text)
            console.print(f"wrote {out}", highlight=False)
    for pid, why in disputes.items():
        err_console.print(f"disputed: {pid}: {why}", highlight=False, markup=False)
    if disputes:
        raise typer.Exit(1)
