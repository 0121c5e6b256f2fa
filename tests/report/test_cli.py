"""``ramseygadgets show`` and ``ramseygadgets report`` from the command line, the drawings they make,
and the end-to-end path ``eval`` (embedded solver) → ``report``."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.colorings.copies import find_copies
from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.catalog import get_problem
from ramseygadgets.problems.solutions import get_solution
from ramseygadgets.report import graph_picture, picture_svg
from ramseygadgets.report.drawing import BLUE, RED

runner = CliRunner()
SVG = "{http://www.w3.org/2000/svg}"


def assert_good(problem_id: str, graph: Graph, coloring: dict) -> None:
    """Independent check of a coloring: no red copy of F, no blue copy of H."""
    problem = get_problem(problem_id)
    red = {tuple(e) for e in coloring["red"]}
    assert red | {tuple(e) for e in coloring["blue"]} == set(graph.edges)
    for copy in find_copies(problem.F, graph):
        assert not all(graph.edges[i] in red for i in copy)
    for copy in find_copies(problem.H, graph):
        assert any(graph.edges[i] in red for i in copy)


@pytest.mark.parametrize(
    "problem_id", ["k13_k4_red_determiner", "p3_c4_negative_sender", "k13_k4e_clause_gadget"]
)
def test_show_shipped_solution(tmp_path, problem_id):
    out = tmp_path / "g.png"
    result = runner.invoke(app, ["show", problem_id, "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["correct"] and data["source"] == "shipped minimal solution"
    solution = get_solution(problem_id)
    assert (data["n"], data["m"]) == (solution.n, solution.m)
    assert_good(problem_id, solution.candidate.graph, data["coloring"])
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 5000


def test_show_file_to_svg_marks_designated_items(tmp_path):
    answer = tmp_path / "answer.txt"
    answer.write_text("0 1\n1 2\n2 0\n2 3\n")  # a triangle with a pendant edge
    out = tmp_path / "g.svg"
    result = runner.invoke(
        app,
        [
            "show",
            "p3_k3_positive_sender",
            str(answer),
            "--e",
            "0-1",
            "--f",
            "2-3",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "incorrect" in result.output  # drawn anyway, with the verdict
    root = ET.parse(out).getroot()
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "e" in texts and "f" in texts and "p3_k3_positive_sender" not in texts


def test_show_errors_are_one_line(tmp_path):
    cases = [
        (["show", "no_such_problem"], "unknown problem id"),
        (["show", "p3_k3_red_determiner", "--out", str(tmp_path / "x.jpg")], ".png or .svg"),
        (["show", "p3_k3_red_determiner", str(tmp_path / "missing.txt")], "no such file"),
    ]
    for args, message in cases:
        result = runner.invoke(app, args)
        assert (
            result.exit_code == 2 and message in result.output and "Traceback" not in result.output
        )


def test_picture_svg_colors_and_marks():
    problem = get_problem("k13_k4_variable_gadget")
    solution = get_solution(problem.id)
    graph = solution.candidate.graph
    red = [e for i, e in enumerate(graph.edges) if i % 3 == 0]
    coloring = {
        "red": [list(e) for e in red],
        "blue": [list(e) for e in graph.edges if e not in red],
    }
    svg = picture_svg(graph_picture(graph, solution.candidate.designated, problem.kind, coloring))
    root = ET.fromstring(svg)
    strokes = [line.get("stroke") for line in root.iter(f"{SVG}line")]
    assert strokes.count(RED) == len(red) and strokes.count(BLUE) == graph.m - len(red)
    labels = [t.text for t in root.iter(f"{SVG}text")]
    assert {"u1", "u2", "n1"} <= set(labels)
    assert sorted(int(t) for t in labels if t.isdigit()) == list(range(graph.n))


def test_report_cli_json_and_errors(tmp_path, run_dir_factory, sample):
    path = run_dir_factory(
        problems=["p3_k3_red_determiner", "p3_k4_red_determiner"],
        settings=["zero-shot"],
        runs=2,
        samples=[
            sample("p3_k3_red_determiner", "zero-shot", 0, "correct"),
            sample("p3_k4_red_determiner", "zero-shot", 0, "wrong"),
            sample("p3_k3_red_determiner", "zero-shot", 1, "truncated"),
        ],
    )
    out = tmp_path / "out"
    result = runner.invoke(
        app, ["report", str(path), "--out", str(out), "--no-html", "--json", "--bootstrap", "0"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    (row,) = data["table1"]
    assert (
        row["mean_accuracy_pct"] == 25.0 and row["samples_missing"] == 1 and row["n_truncated"] == 1
    )
    assert row["accuracy_without_truncated_pct"] == pytest.approx(100 * (0.5 + 0.0) / 2)
    assert not (out / "report.html").exists() and (out / "table1.md").is_file()
    bad = runner.invoke(app, ["report", str(tmp_path / "nothing"), "--out", str(out)])
    assert bad.exit_code == 2 and "no such file or directory" in bad.output
    a_file = tmp_path / "a_file"
    a_file.write_text("keep me")
    for target, message in (
        (a_file, "it is a file, not a directory"),
        (a_file / "sub", "cannot create the report"),
    ):
        bad = runner.invoke(
            app, ["report", str(path), "--out", str(target), "--no-html", "--bootstrap", "0"]
        )
        assert bad.exit_code == 2 and bad.output.startswith("error: ") and message in bad.output, (
            bad.output
        )
        assert bad.output.count("\n") == 1 and a_file.read_text() == "keep me"


def test_eval_then_report_end_to_end(tmp_path):
    """The embedded default solver through the harness, then the full report."""
    if "eval" not in {c.name or c.callback.__name__ for c in app.registered_commands}:
        pytest.skip("the eval command (harness) is not available")
    problems = "p3_k3_red_determiner,k13_k3_negative_sender,k13_k4_variable_gadget"
    run = tmp_path / "runs" / "solver"
    result = runner.invoke(app, ["eval", "--problems", problems, "--runs", "2", "--out", str(run)])
    assert result.exit_code == 0, result.output
    out = tmp_path / "report"
    result = runner.invoke(
        app, ["report", str(tmp_path / "runs"), "--out", str(out), "--bootstrap", "100"]
    )
    assert result.exit_code == 0, result.output
    import csv

    rows = {r["setting"]: r for r in csv.DictReader((out / "table1.csv").open())}
    config = json.loads((run / "config.json").read_text())
    assert set(rows) == set(config["settings"])
    for _setting, row in rows.items():
        assert (
            row["model"] == config["model_label"]
            and row["runs"] == "2"
            and row["samples_missing"] == "0"
        )
        # the reference solver answers every problem with a verified solution
        assert float(row["mean_accuracy_pct"]) == 100.0, row
    assert rows["example-hint"]["problems"] == "2"  # (P3,K3) has no K1,3 counterpart problem
    html = (out / "report.html").read_text()
    assert html.count('<svg xmlns="http://www.w3.org/2000/svg" class="graph"') == 3 + 3 * 4 + 2
    for name in ("table2.md", "by_tier.csv", "by_size.csv", "figures/accuracy_vs_size.svg"):
        assert (out / name).is_file()


def test_show_draws_an_incorrect_answer_with_the_verifiers_counterexample(tmp_path):
    """As report.html does: a good coloring would make a wrong answer look right."""
    answer = tmp_path / "answer.txt"
    answer.write_text("0 1\n1 2\n2 0\n2 3\n")
    options = ["--e", "0-1", "--f", "2-3", "--json"]
    verified = runner.invoke(app, ["verify", "p3_k3_positive_sender", str(answer), *options])
    assert verified.exit_code == 1 and json.loads(verified.output)["witness"] is not None
    out = tmp_path / "g.svg"
    shown = runner.invoke(
        app, ["show", "p3_k3_positive_sender", str(answer), *options, "--out", str(out)]
    )
    assert shown.exit_code == 0, shown.output
    data = json.loads(shown.output)
    assert data["coloring_kind"] == "counterexample" and not data["correct"]
    assert data["coloring"] == json.loads(verified.output)["witness"]


def test_show_accepts_a_raw_model_reply_as_check_does(tmp_path):
    problem_id = "k13_k4_red_determiner"
    solution = get_solution(problem_id).candidate.to_json(get_problem(problem_id).gadget)
    reply = tmp_path / "reply.txt"
    reply.write_text(
        "Thinking about claws and K4s...\n\nThe final answer is:\n```json\n"
        + json.dumps(solution)
        + "\n```\n"
    )
    assert runner.invoke(app, ["check", problem_id, str(reply)]).exit_code == 0
    result = runner.invoke(
        app, ["show", problem_id, str(reply), "--out", str(tmp_path / "g.png"), "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["correct"] and data["coloring_kind"] == "good"
    assert_good(problem_id, get_solution(problem_id).candidate.graph, data["coloring"])
    junk = tmp_path / "junk.txt"
    junk.write_text("There is no graph in this reply.")
    bad = runner.invoke(app, ["show", problem_id, str(junk), "--out", str(tmp_path / "j.png")])
    assert bad.exit_code == 2 and bad.output.startswith("error: no answer to draw")
    assert bad.output.count("\n") == 1
