"""The report names and draws every problem it shows: three colours and generated pattern names
included, from ``--dataset`` or from the problem-set file the runs recorded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.problems.problem import Problem
from ramseygadgets.search.minimal import solve_minimal
from ramseygadgets.search.options import SearchOptions

runner = CliRunner()
PROBLEMS = [
    Problem.of_colors("P3 | P3 | C4", "green-determiner"),
    Problem.make("K1,3", "0-1 1-2 2-3 3-4 4-0 0-5", "blue-determiner"),  # a generated name
]


@pytest.fixture(scope="module")
def run_of_a_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A problem-set file with both problems and their minimal solutions, and an eval run of
    the reference solver on it."""
    root = tmp_path_factory.mktemp("report_problems")
    path = root / "problems.jsonl"
    lines = []
    for problem in PROBLEMS:
        solution = solve_minimal(problem, SearchOptions(max_vertices=8, timeout=60)).candidate
        assert solution is not None
        lines.append(json.dumps({**problem.to_json(), "solution": solution.to_json(problem.kind)}))
    path.write_text("\n".join(lines) + "\n")
    run = root / "run"
    args = ["eval", "--dataset", str(path), "--setting", "zero-shot", "--runs", "1"]
    result = runner.invoke(app, [*args, "--out", str(run)])
    assert result.exit_code == 0, result.output
    return path, run


def _report(run: Path, out: Path, *extra: str) -> str:
    result = runner.invoke(app, ["report", str(run), "--out", str(out), *extra])
    assert result.exit_code == 0, result.output
    return (out / "report.html").read_text()


@pytest.mark.parametrize("how", ["--dataset", "recorded"])
def test_every_problem_is_titled_and_its_shipped_solution_drawn(run_of_a_file, tmp_path, how):
    path, run = run_of_a_file
    extra = ("--dataset", str(path)) if how == "--dataset" else ()
    page = _report(run, tmp_path / "report", *extra)
    for problem in PROBLEMS:
        assert f"{problem.title}: shipped minimal solution" in page, problem.title
    assert page.count("shipped minimal solution") == len(PROBLEMS)


def test_without_the_file_the_generated_problem_is_shown_by_id(run_of_a_file, tmp_path):
    """A moved problem-set file: the three-colour problem still names itself (its id reads back),
    the generated name cannot, and the report still builds."""
    path, run = run_of_a_file
    moved = path.with_suffix(".moved")
    path.rename(moved)
    try:
        page = _report(run, tmp_path / "report")
    finally:
        moved.rename(path)
    assert "(P3, P3, C4)-green-determiner" in page
    assert PROBLEMS[1].id in page


def test_a_missing_dataset_is_one_clear_error(tmp_path):
    result = runner.invoke(
        app, ["report", str(tmp_path), "--out", str(tmp_path / "r"), "--dataset", "nope.jsonl"]
    )
    assert result.exit_code == 2 and result.output.startswith("error: ")
    assert "nope.jsonl" in result.output and "Traceback" not in result.output
