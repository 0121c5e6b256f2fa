"""CLI commands on a three-colour problem (by id or title): verify, check, show, prompt; solve
and bad input give one clear line."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ramseygadgets.cli import app

GREEN_ID = "p3__p3__c4_green_determiner"
GREEN_TITLE = "(P3, P3, C4)-green-determiner"
ANSWER = {
    "edges": [[0, 1], [0, 2], [0, 3], [0, 4], [0, 5], [1, 2], [1, 3], [1, 4], [1, 5]],
    "e": [0, 1],
}


def run(*args: str, stdin: str | None = None):
    return CliRunner().invoke(app, list(args), input=stdin)


def one_line_error(result, *words: str) -> None:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in result.output
    for word in words:
        assert word in lines[0], lines[0]


@pytest.mark.parametrize("name", [GREEN_ID, GREEN_TITLE])
def test_verify_a_three_color_answer(name):
    result = run("verify", name, "-", stdin=json.dumps(ANSWER))
    assert result.exit_code == 0, result.output
    assert f"CORRECT {GREEN_TITLE}: G is good and edge e = 0-1 is green" in result.stdout
    wrong = run("verify", "p3__p3__c4_red_determiner", "-", "--json", stdin=json.dumps(ANSWER))
    assert wrong.exit_code == 1
    verdict = json.loads(wrong.stdout)
    assert verdict["problem_id"] == "p3__p3__c4_red_determiner" and not verdict["correct"]
    assert set(verdict["witness"]) == {"red", "blue", "green"}


def test_check_a_raw_reply():
    reply = "After some thought:\n```json\n" + json.dumps(ANSWER) + "\n```\n"
    result = run("check", GREEN_ID, "-", stdin=reply)
    assert result.exit_code == 0 and "CORRECT (P3, P3, C4)-green-determiner" in result.stdout


def test_show_draws_a_three_color_coloring(tmp_path):
    out = tmp_path / "green.svg"
    result = run("show", GREEN_TITLE, "-", "--out", str(out), "--json", stdin=json.dumps(ANSWER))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["correct"] and data["coloring_kind"] == "good"
    assert [0, 1] in data["coloring"]["green"]
    assert "#2ca02c" in out.read_text()  # green edges are drawn green


def test_prompt_of_a_three_color_problem():
    result = run("prompt", GREEN_ID, "--setting", "structural-hint")
    assert result.exit_code == 0, result.output
    assert "There are 3 colors, red, blue and green." in result.stdout
    # an extended-set problem brings its minimal size; one outside every set has none
    sized = run("prompt", GREEN_ID, "--setting", "size-hint")
    assert sized.exit_code == 0 and "exactly 6 vertices" in sized.stdout, sized.output
    outside = "p3__p3__p5_green_determiner"
    one_line_error(run("prompt", outside, "--setting", "size-hint"), "size hint", outside)


@pytest.mark.parametrize(
    "args, words",
    [
        (("verify", "(P3, P3, C4)-purple-determiner", "-"), ("purple-determiner", "3 colours")),
        (("verify", "p3__p3__c4_clause_gadget", "-"), ("two colours only",)),
        (("solve", GREEN_ID), ("3 colours", "generate --spec")),
    ],
)
def test_unusable_requests_are_one_line(args, words):
    one_line_error(run(*args, stdin=json.dumps(ANSWER)), *words)
