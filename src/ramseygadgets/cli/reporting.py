"""CLI commands: report, show (issue 6)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich import box
from rich.table import Table as RichTable

from ramseygadgets.cli.app import app, console, err_console, guarded, print_json, read_text_input
from ramseygadgets.cli.core import resolve_problem
from ramseygadgets.cli.options import (
    DatasetOption,
    EdgeEOption,
    EdgeFOption,
    JsonOption,
    SetOption,
    VerticesOption,
)
from ramseygadgets.cli.progress import progress_bar
from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.core.graphs import DEFAULT_MAX_VERTICES
from ramseygadgets.infra.terminal import terminal_text

if TYPE_CHECKING:
    from ramseygadgets.colorings.multi import MultiColoring
    from ramseygadgets.colorings.red_blue import Coloring
    from ramseygadgets.core.gadgets import Candidate
    from ramseygadgets.problems.catalog import Problem
    from ramseygadgets.report.metrics import CellStats
    from ramseygadgets.runs.regrade import Dispute
    from ramseygadgets.verification.verifier import Verdict

__all__ = [
    "report",
    "disputed_line",
    "table1_console",
    "show",
    "read_answer",
    "drawn_coloring",
]


@app.command()
@guarded
def report(
    paths: list[str] = typer.Argument(
        ..., help="Run directories, folders holding run directories, or Inspect .eval logs."
    ),
    out: str = typer.Option(
        "report", "--out", "-o", help="Output directory for tables, figures and report.html."
    ),
    title: str = typer.Option("RamseyGadgets evaluation report", help="Report title."),
    bootstrap: int = typer.Option(
        2000, min=0, help="Bootstrap resamples over problems for 95% CIs (0: none)."
    ),
    seed: int = typer.Option(0, help="Seed of the bootstrap."),
    html: bool = typer.Option(
        True, "--html/--no-html", help="Write the self-contained report.html."
    ),
    drawings: bool = typer.Option(
        True, "--drawings/--no-drawings", help="Draw each model's graphs in the HTML."
    ),
    set_name: str | None = typer.Option(
        None,
        "--set",
        help="Problem set of the runs (default: as recorded in their config.json); extended "
        "adds accuracy by size tier.",
    ),
    dataset: str | None = typer.Option(
        None,
        "--dataset",
        help="Problem-set file of the runs (default: as recorded in their config.json): names "
        "and draws their problems and shipped solutions.",
    ),
    as_json: JsonOption = False,
) -> None:
    """Tables (Markdown, CSV), figures (PNG, SVG) and an HTML report from evaluation runs."""
    from ramseygadgets.report import ReportOptions, build_report, load_runs
    from ramseygadgets.verification.selection import base_problem_set, check_set_name

    if set_name is not None:
        check_set_name(set_name)
    if dataset is not None:
        base_problem_set(dataset, set_name)  # a clear error before any work
    runs = load_runs(paths)
    options = ReportOptions(
        title=title,
        resamples=bootstrap,
        seed=seed,
        html=html,
        drawings=drawings,
        problem_set=set_name,
        dataset=dataset,
    )
    with progress_bar(disable=as_json or not err_console.is_terminal) as progress:

        def hook(description: str, total: int) -> Callable[[], None]:
            task = progress.add_task(description, total=total)
            return lambda: progress.advance(task)

        result = build_report(runs, out, options, progress=hook)
    if as_json:
        print_json(result.summary())
        return
    for warning in result.warnings:
        err_console.print(
            f"warning: {terminal_text(warning, markup=False)}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    console.print(table1_console(result.stats))
    if result.disputes:
        console.print(disputed_line(result.disputes), markup=False, highlight=False, soft_wrap=True)
    where = terminal_text(result.out_dir)
    console.print(
        f"wrote {len(result.files)} files to {where}"
        + (f" (open {where}/report.html)" if html else ""),
        highlight=False,
    )


def disputed_line(disputes: Sequence[Dispute]) -> str:
    """One line naming the samples whose recorded grade the report did not take."""
    from ramseygadgets.report.regrade import DISPUTED_TABLE, disputes_at

    return terminal_text(
        f"disputed: {len(disputes)} sample(s) whose recorded grade disagrees with the one "
        f"re-derived from the answer, counted as re-derived ({DISPUTED_TABLE}.md): "
        f"{disputes_at(disputes)}",
        markup=False,
    )


def table1_console(stats: Sequence[CellStats]) -> RichTable:
    """Table 1 for the terminal, readable at 80 columns: names wrap, numbers never do."""
    ks = {st.runs for st in stats}
    k = ks.pop() if len(ks) == 1 else None
    table = RichTable(
        title="Table 1: accuracy % (mean ± sd over runs), Pass@k, avg total tokens",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    table.add_column("model", overflow="fold", min_width=8)
    table.add_column("setting", overflow="fold", min_width=7)
    for column in ("accuracy %", f"pass@{k} %" if k else "pass@k %", "tokens", "missing"):
        table.add_column(column, justify="right", no_wrap=True)
    for st in stats:
        accuracy = "—" if st.mean is None else f"{100 * st.mean:.2f}"
        if st.mean is not None:
            accuracy += " ± " + ("—" if st.std is None else f"{100 * st.std:.2f}")
        passed = "—" if st.pass_at_runs is None else f"{100 * st.pass_at_runs:.2f}"
        if k is None:
            passed += f" (k={st.runs})"
        tokens = "—" if st.avg_tokens is None else f"{st.avg_tokens:,.0f}"
        table.add_row(
            terminal_text(st.model),
            terminal_text(st.setting),
            accuracy,
            passed,
            tokens,
            str(st.missing),
        )
    return table


@app.command()
@guarded
def show(
    problem_id: str = typer.Argument(..., help="Problem id, e.g. k13_k4_red_determiner."),
    file: str | None = typer.Argument(
        None,
        help="Answer file (JSON, edge list or graph6, or a raw model reply as for 'check'; "
        "'-': stdin). Default: the shipped minimal solution.",
    ),
    out: str | None = typer.Option(
        None, "--out", "-o", help="Output .png or .svg (default PROBLEM_ID.png)."
    ),
    e: EdgeEOption = None,
    f: EdgeFOption = None,
    vertices: VerticesOption = None,
    max_vertices: int = typer.Option(
        DEFAULT_MAX_VERTICES, min=1, help="Refuse graphs with more vertices."
    ),
    set_name: SetOption = None,
    dataset: DatasetOption = None,
    as_json: JsonOption = False,
) -> None:
    """Draw a graph with its designated items marked, to PNG or SVG: a correct answer with a good
    coloring (red/blue), an incorrect one with the verifier's counterexample coloring."""
    from ramseygadgets.report.drawing import graph_picture, save_picture
    from ramseygadgets.verification.verifier import verify

    problem, problem_set = resolve_problem(problem_id, set_name, dataset)
    target = Path(out) if out else Path(f"{problem.id}.png")
    if target.suffix.lower() not in (".png", ".svg"):
        raise RamseyGadgetsError(f"--out must end in .png or .svg, got {target.name!r}")
    if file is None:
        known = problem_set.solution(problem)
        if known is None:
            raise RamseyGadgetsError(
                f"{problem.id} has no known minimal solution in this problem set; give an answer file"
            )
        candidate = known
        source = "shipped minimal solution"
    else:
        text = read_text_input(file)
        candidate = read_answer(text, problem, e, f, vertices, max_vertices)
        source = "stdin" if file == "-" else file
    verdict = verify(problem, candidate)
    coloring, kind, what = drawn_coloring(problem, candidate, verdict)
    picture = graph_picture(candidate.graph, candidate.designated, problem.kind, coloring)
    graph = candidate.graph
    verdict_word = "correct" if verdict.correct else "incorrect"
    caption = f"{graph.n} vertices, {graph.m} edges; {what}; {verdict_word}"
    try:
        save_picture(picture, target, title=problem.title, caption=caption)
    except OSError as exc:
        raise RamseyGadgetsError(f"cannot write {target}: {exc.strerror}") from None
    if as_json:
        print_json(
            {
                "problem_id": problem.id,
                "source": source,
                "out": str(target),
                "n": graph.n,
                "m": graph.m,
                "coloring": coloring.to_json() if coloring is not None else None,
                "coloring_kind": kind,
                "correct": verdict.correct,
                "reason": verdict.reason,
            }
        )
        return
    mark = "[green]correct[/green]" if verdict.correct else "[red]incorrect[/red]"
    where = terminal_text(source)
    console.print(f"{problem.title} ({where}): {mark}: ", end="", highlight=False)
    console.print(verdict.reason, markup=False, highlight=False)
    console.print(
        f"wrote {terminal_text(target)} ({graph.n} vertices, {graph.m} edges, {what})",
        highlight=False,
    )


def read_answer(
    text: str,
    problem: Problem,
    e: str | None,
    f: str | None,
    vertices: str | None,
    max_vertices: int,
) -> Candidate:
    """An answer as ``verify`` reads it (JSON, edge list, graph6 with the designated options),
    else, without designated options, a raw model reply as ``check`` reads it."""
    from ramseygadgets.answers import parse_answer
    from ramseygadgets.cli.core import read_candidate

    try:
        return read_candidate(text, problem.kind, e, f, vertices, max_vertices)
    except RamseyGadgetsError as exc:
        if e is not None or f is not None or vertices is not None:
            raise
        parsed = parse_answer(text, problem.kind, max_vertices=max_vertices)
        if parsed.candidate is None:
            raise RamseyGadgetsError(
                f"no answer to draw: not an answer file ({exc}), and as a model reply: "
                f"{parsed.error}"
            ) from None
        return parsed.candidate


def drawn_coloring(
    problem: Problem, candidate: Candidate, verdict: Verdict
) -> tuple[Coloring | MultiColoring | None, str | None, str]:
    """The coloring to draw, its kind and a caption phrase: a good coloring for a correct answer,
    the verifier's counterexample for an incorrect one (as report.html draws them), else a good
    coloring if the graph has one (the designated items are what is wrong), else none."""
    from ramseygadgets.verification.verifier import good_coloring

    if verdict.witness is not None and not verdict.correct:
        return verdict.witness, "counterexample", "the verifier's counterexample coloring"
    coloring = good_coloring(problem, candidate.graph)
    if coloring is None:
        return None, None, f"no {problem.colors_label}-good coloring exists"
    return coloring, "good", "a good coloring"
