"""An extended-set id without ``--set extended`` reaches every command that takes a problem id,
and ``problems --set extended`` lists every colour and whole ids in a narrow terminal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from ramseygadgets.answers import format_answer
from ramseygadgets.cli import app
from ramseygadgets.cli import core as cli_core
from ramseygadgets.cli.core import _pattern_column
from ramseygadgets.problems.extended import three_color_entries
from ramseygadgets.verification.selection import extended_problem_set

runner = CliRunner()
ATLAS_ID = "p3_house_red_determiner"  # in the extended set (the atlas), not among the paper's 70


def run(*args: str, stdin: str | None = None, env: dict[str, str] | None = None):
    return runner.invoke(app, list(args), input=stdin, env=env)


def test_an_extended_id_without_set_reaches_every_problem_command(tmp_path: Path) -> None:
    problem_set = extended_problem_set()
    problem = problem_set.get(ATLAS_ID)
    candidate = problem_set.solution(problem)
    assert candidate is not None

    prompt = run("prompt", ATLAS_ID, "--json")
    assert prompt.exit_code == 0, prompt.output
    assert json.loads(prompt.stdout)["problem_id"] == ATLAS_ID

    reply = "<think>done</think>\n" + format_answer(candidate, problem.kind)
    check = run("check", ATLAS_ID, "-", "--json", stdin=reply)
    assert check.exit_code == 0 and json.loads(check.stdout)["correct"], check.output

    answer = json.dumps(candidate.to_json(problem.kind))
    verify = run("verify", ATLAS_ID, "-", "--json", stdin=answer)
    assert verify.exit_code == 0, verify.output

    out = tmp_path / "g.svg"
    show = run("show", ATLAS_ID, "--out", str(out), "--json")
    assert show.exit_code == 0, show.output
    assert json.loads(show.stdout)["correct"]

    solve = run("solve", ATLAS_ID, "--json", "--timeout", "30")
    assert solve.exit_code == 0, solve.output
    assert json.loads(solve.stdout)["results"][0]["n"] == problem_set.min_vertices(problem)


def test_a_typo_of_a_paper_id_still_suggests_close_ids() -> None:
    result = run("prompt", "k13_k4_red_determine")
    assert result.exit_code == 2 and "did you mean" in result.stderr


def test_a_three_color_problem_lists_its_patterns_not_characters() -> None:
    three = three_color_entries()[0].problem
    record = three.to_json()
    f_column, h_column = _pattern_column(record)
    assert f_column == ", ".join(record["colors"]) and h_column == ""
    assert "P, 3" not in f_column
    # a pair record carrying "F": null (Problem.fields) is not read as a pair
    assert _pattern_column({"colors": ["P3", "P3", "K3"], "F": None, "H": None}) == (
        "P3, P3, K3",
        "",
    )
    assert _pattern_column({"colors": [["P3"], ["K3", "C4"]]}) == ("{P3}; {K3, C4}", "")


def _listing(monkeypatch: pytest.MonkeyPatch, width: int):
    """``problems --set extended`` on a terminal ``width`` columns wide (the CLI's console reads
    COLUMNS once, when it is made: pytest-xdist workers may have set it already)."""
    monkeypatch.setattr(cli_core, "console", Console(soft_wrap=True, width=width))
    return run("problems", "--set", "extended")


@pytest.mark.parametrize("width", [80, 60])
def test_problems_extended_never_cuts_ids(monkeypatch: pytest.MonkeyPatch, width: int) -> None:
    result = _listing(monkeypatch, width)
    assert result.exit_code == 0, result.output
    shown = {cell.strip() for line in result.stdout.splitlines() for cell in line.split("│")}
    missing = [p for p in extended_problem_set().ids if p not in shown]
    assert not missing, missing[:5]
    assert "…" not in result.stdout


def test_a_narrow_terminal_leaves_out_the_least_needed_columns_and_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    narrow = _listing(monkeypatch, 80)
    assert narrow.exit_code == 0, narrow.output
    lines = narrow.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    header = next(line for line in lines if "┃ id" in line)
    assert "gadget" in header and "tier" in header and "source" not in header
    assert "source, size tier left out at this width: --json lists every field" in narrow.stdout
    assert "positive-" in narrow.stdout  # a gadget name folds at its hyphen, not mid-word
    wide = _listing(monkeypatch, 200)
    header = next(line for line in wide.stdout.splitlines() if "┃ id" in line)
    assert "size tier" in header and "source" in header and "left out" not in wide.stdout


def test_the_listing_marks_every_vertex_count_a_cube_log_holds_and_no_other(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 45: the table says what ``--json`` says — a † exactly where the vertex count rests
    on cube outcomes not all re-run, with the caption that explains it."""
    listed = _listing(monkeypatch, 200)
    assert listed.exit_code == 0, listed.output
    marked = {
        cells[1].strip()
        for line in listed.stdout.splitlines()
        if len(cells := line.split("│")) > 6 and "†" in line
    }
    records = json.loads(run("problems", "--set", "extended", "--json").stdout)
    on_trust = {r["id"] for r in records if r["optimum_basis"]["vertices"] == "cube log"}
    assert marked == on_trust
    assert (cli_core.ON_TRUST_NOTE in listed.stdout) == bool(on_trust)


def test_a_vertex_cell_says_what_the_count_rests_on() -> None:
    cell = cli_core._vertex_cell
    assert cell({"min_vertices": 9, "optimum_basis": {"vertices": "proven"}}) == "9"
    assert cell({"min_vertices": 15, "optimum_basis": {"vertices": "cube log"}}) == "15†"
    assert cell({"min_vertices": None, "optimum_basis": {"vertices": "disputed"}}) == "disputed"
