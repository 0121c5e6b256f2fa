"""CLI commands: ``prompt`` (print a prompt), ``check`` (parse and verify a raw model reply),
``export`` (write the dataset as JSONL or Parquet)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from ramseygadgets.cli.app import (
    app,
    console,
    err_console,
    fail,
    guarded,
    print_json,
    read_text_input,
)
from ramseygadgets.cli.core import (
    resolve_problem,
    size_grade,
    size_text,
)
from ramseygadgets.cli.options import (
    EXTRA_SETTING_NAMES,
    SETTING_NAMES,
    DatasetOption,
    JsonOption,
    ModelProfileOption,
    ProfilesFileOption,
    SetOption,
    ToolModeOption,
)
from ramseygadgets.cli.progress import progress_bar
from ramseygadgets.cli.python_limits import (
    CPU_SECONDS_OPTION,
    MEMORY_MB_OPTION,
    PYTHON_SETTING_HELP,
    ROUNDS_OPTION,
    TOTAL_SECONDS_OPTION,
    WALL_SECONDS_OPTION,
    limits_from_options,
)
from ramseygadgets.core.graphs import DEFAULT_MAX_VERTICES
from ramseygadgets.infra.terminal import terminal_text
from ramseygadgets.problems.problem import Problem
from ramseygadgets.tools.python import PYTHON_SETTING

__all__ = [
    "prompt",
    "check",
    "export",
]


@app.command()
@guarded
def prompt(
    problem_id: str = typer.Argument(..., help="Problem id, e.g. k13_k4_red_determiner."),
    setting: str = typer.Option(
        "zero-shot",
        "--setting",
        "-s",
        help=f"One of: {', '.join(SETTING_NAMES)} ({PYTHON_SETTING_HELP}).",
    ),
    model_profile: ModelProfileOption = None,
    profiles_file: ProfilesFileOption = None,
    tool_mode: ToolModeOption = "text",
    python_rounds: int | None = ROUNDS_OPTION,
    python_total_seconds: float | None = TOTAL_SECONDS_OPTION,
    python_wall_seconds: float | None = WALL_SECONDS_OPTION,
    python_cpu_seconds: int | None = CPU_SECONDS_OPTION,
    python_memory_mb: int | None = MEMORY_MB_OPTION,
    set_name: SetOption = None,
    dataset: DatasetOption = None,
    as_json: JsonOption = False,
) -> None:
    """Print the exact messages a model sees for a problem in a setting (as 'eval' sends them; python: with the limits of the --python-* options, as eval states them)."""
    python = limits_from_options(
        python_rounds,
        python_total_seconds,
        python_wall_seconds,
        python_cpu_seconds,
        python_memory_mb,
    )
    if python is not None and setting != PYTHON_SETTING:
        fail("the --python-* limits go with --setting python only")
    from ramseygadgets.prompts import build_prompt
    from ramseygadgets.prompts.profiles import get_profile

    problem, problem_set = resolve_problem(problem_id, set_name, dataset)
    profile = get_profile(model_profile, profiles_file=profiles_file)
    built = build_prompt(
        problem,
        setting,
        profile,
        tool_mode=tool_mode,
        min_vertices=problem_set.min_vertices(problem),
        python=python,
    )
    if as_json:
        print_json(built.to_json())
        return
    for message in built.messages:
        console.print(f"===== {message['role']} =====", style="bold", highlight=False)
        console.print(message["content"], markup=False, highlight=False)
    if built.assistant_prefix:
        console.print("===== assistant (forced start) =====", style="bold", highlight=False)
        console.print(repr(built.assistant_prefix), markup=False, highlight=False)
    if built.tools:
        console.print(
            f"===== tools: {', '.join(t['function']['name'] for t in built.tools)} =====",
            style="bold",
            highlight=False,
        )
    console.print(
        f"===== sampling ({built.profile}): {built.sampling} =====", style="dim", highlight=False
    )


@app.command()
@guarded
def check(
    problem_id: str = typer.Argument(..., help="Problem id, e.g. k13_k4_red_determiner."),
    reply_file: str = typer.Argument(..., help="File with the raw model reply; '-' for stdin."),
    max_vertices: int = typer.Option(
        DEFAULT_MAX_VERTICES, min=1, help="Answers with more vertices are parse failures."
    ),
    set_name: SetOption = None,
    dataset: DatasetOption = None,
    as_json: JsonOption = False,
) -> None:
    """Parse a raw model reply and verify its answer. Exit 0: correct, 1: wrong or unparsable, 2: unusable input.

    --json adds the size grade exactly as 'eval' records it: minimal, the excesses over the proven optimum and discovery.
    """
    from ramseygadgets.runs.grading import grade

    problem, problem_set = resolve_problem(problem_id, set_name, dataset)
    reply = read_text_input(reply_file)
    graded = grade(problem, reply, None, max_vertices)
    parsed = graded.kind != "parse-failure"
    result: dict[str, Any] = {
        "parsed": parsed,
        "parse_error": graded.parse_error,
        "correct": graded.correct,
        "reason": graded.reason
        if parsed
        else f"parse failure ({graded.parse_error_kind}): {graded.parse_error}",
        "witness": graded.witness,
        **size_grade(problem, problem_set, graded),
    }
    if as_json:
        print_json(result)
    else:
        _print_check(problem, reply, max_vertices, result)
    raise typer.Exit(0 if result["correct"] else 1)


def _print_check(problem: Problem, reply: str, max_vertices: int, result: dict[str, Any]) -> None:
    """``check``'s console output: the answer read (where from, the parser's notes), the verdict,
    the witness coloring of a wrong answer and the size grade of a correct one."""
    from ramseygadgets.answers import format_answer, parse_answer
    from ramseygadgets.verification.verifier import verify

    parsed = parse_answer(reply, problem.kind, max_vertices=max_vertices)
    if parsed.candidate is not None:
        console.print(
            f"answer read from {parsed.source}: {format_answer(parsed.candidate, problem.kind)}",
            markup=False,
            highlight=False,
        )
        for note in parsed.notes:
            note_text = terminal_text(note, markup=False)  # may quote labels from the reply
            console.print(f"  note: {note_text}", markup=False, highlight=False, style="dim")
    mark = (
        "[green]CORRECT[/green]"
        if result["correct"]
        else ("[red]INCORRECT[/red]" if result["parsed"] else "[red]UNPARSABLE[/red]")
    )
    console.print(f"{mark} {problem.title}: ", end="", highlight=False)
    console.print(terminal_text(result["reason"], markup=False), markup=False, highlight=False)
    if result["witness"] is not None and parsed.candidate is not None:  # as 'verify' shows it
        witness = verify(problem, parsed.candidate).witness
        if witness is not None:
            console.print(f"  witness coloring: {witness.describe()}", highlight=False)
    if (line := size_text(result)) is not None:
        console.print(f"  size: {line}", highlight=False)


@app.command()
@guarded
def export(
    fmt: str = typer.Option("jsonl", "--format", "-f", help="jsonl or parquet."),
    out: Path = typer.Option(..., "--out", "-o", help="Output directory (created if needed)."),
    model_profile: ModelProfileOption = None,
    profiles_file: ProfilesFileOption = None,
    set_name: SetOption = None,
    dataset: DatasetOption = None,
    setting: list[str] | None = typer.Option(
        None,
        "--setting",
        "-s",
        help=f"Settings whose prompts are exported, comma-separated (default: the paper's five; "
        f"also: {', '.join(EXTRA_SETTING_NAMES)}).",
    ),
    as_json: JsonOption = False,
) -> None:
    """Write the problems, their prompts for the paper's five settings (or those of --setting) and their minimal solutions, with a dataset card."""
    from ramseygadgets.prompts.profiles import get_profile
    from ramseygadgets.training.export import export_dataset
    from ramseygadgets.verification.selection import base_problem_set

    problem_set = base_problem_set(dataset, set_name)
    profile = get_profile(model_profile, profiles_file=profiles_file)
    with progress_bar(
        "exporting", elapsed=False, disable=as_json or not err_console.is_terminal
    ) as bar:
        task = bar.add_task("export", total=None)
        result = export_dataset(
            out,
            fmt,
            profile=profile,
            problem_set=problem_set,
            progress=lambda done, total: bar.update(task, completed=done, total=total),
            settings=_split_settings(setting),
        )
    if as_json:
        print_json(result.to_json())
        return
    counts = result.counts
    console.print(
        f"wrote {counts['problems']} problems and {counts['prompts']} prompts to {result.out_dir}:",
        highlight=False,
    )
    for path in result.files.values():
        console.print(f"  {path}", highlight=False)


def _split_settings(values: list[str] | None) -> list[str] | None:
    """``--setting a,b --setting c`` as a list (``None`` when not given)."""
    if not values:
        return None
    return [part.strip() for value in values for part in value.split(",") if part.strip()]
