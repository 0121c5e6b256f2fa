"""Dataset export: JSONL and Parquet, loadable with datasets; the card describes every field."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ramseygadgets.answers import parse_answer
from ramseygadgets.cli import app
from ramseygadgets.core.gadgets import Candidate, Designated
from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.catalog import get_problem
from ramseygadgets.prompts import SETTINGS, build_prompt
from ramseygadgets.tools.python import PythonLimits
from ramseygadgets.training.export import ExportError, export_dataset
from ramseygadgets.verification.verifier import verify


def test_jsonl_export_loads_with_datasets(tmp_path, solutions):
    datasets = pytest.importorskip("datasets")
    result = export_dataset(tmp_path, "jsonl")
    assert result.counts["problems"] == 70 and result.counts["prompts"] == 70 * 4 + 30
    problems = datasets.load_dataset(
        "json",
        data_files=str(result.files["problems"]),
        split="train",
        cache_dir=str(tmp_path / "cache"),
    )
    prompts = datasets.load_dataset(
        "json",
        data_files=str(result.files["prompts"]),
        split="train",
        cache_dir=str(tmp_path / "cache"),
    )
    assert problems.num_rows == 70 and prompts.num_rows == 310
    assert sorted(set(prompts["setting"])) == sorted(
        ["zero-shot", "structural-hint", "size-hint", "example-hint", "multiround"]
    )
    card = result.files["card"].read_text()
    assert ".)." not in card  # a profile description's full stop inside the parentheses
    for field in (*problems.column_names, *prompts.column_names):
        assert f"`{field}`" in card or f"`{field}`," in card or field in card, field
    # every exported solution is correct, and every reference answer parses back to it
    for row in problems:
        problem = get_problem(row["id"])
        designated = Designated(
            tuple(tuple(e) for e in (row["solution_e"], row["solution_f"]) if e),
            tuple(row["solution_vertices"] or ()),
        )
        candidate = Candidate(
            Graph(row["min_vertices"], tuple(tuple(e) for e in row["solution_edges"])), designated
        )
        assert verify(problem, candidate).correct, row["id"]
    for row in prompts.select(range(0, 310, 7)):
        problem = get_problem(row["problem_id"])
        assert (
            parse_answer(row["reference_answer"], problem.kind).candidate.graph.n
            == row["min_vertices"]
        )
        assert row["messages"][-1]["content"] == row["user"]


def test_parquet_export_and_profile(tmp_path, solutions):
    pq = pytest.importorskip("pyarrow.parquet")
    result = export_dataset(tmp_path, "parquet", profile="deepseek-r1")
    table = pq.read_table(result.files["prompts"])
    assert table.num_rows == 310
    row = table.slice(0, 1).to_pylist()[0]
    assert (
        row["system"] is None
        and row["user"].startswith("Instructions:")
        and row["assistant_prefix"] == "<think>\n"
    )
    assert "deepseek-r1" in result.files["card"].read_text()


def test_export_errors(tmp_path):
    with pytest.raises(ExportError, match="unknown export format"):
        export_dataset(tmp_path, "xml")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ExportError, match="cannot create"):
        export_dataset(blocker / "sub", "jsonl")


def test_export_leaves_no_temporary_files(tmp_path, solutions):
    export_dataset(tmp_path, "jsonl", problems=[get_problem("p3_k3_red_determiner")])
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "README.md",
        "problems.jsonl",
        "prompts.jsonl",
    ]
    rows = [json.loads(line) for line in (tmp_path / "prompts.jsonl").read_text().splitlines()]
    assert [r["setting"] for r in rows] == [
        "zero-shot",
        "structural-hint",
        "size-hint",
        "multiround",
    ]


def test_a_set_problem_without_a_minimal_solution_is_named(tmp_path):
    from ramseygadgets.problems.catalog import Problem
    from ramseygadgets.verification.selection import Selection

    problem = Problem.make("K3", "P4", "red-determiner")
    unsolved = Selection([problem], {}, source="mine")
    with pytest.raises(
        ExportError, match="k3_p4_red_determiner has no minimal solution in the set"
    ):
        export_dataset(tmp_path / "out", problem_set=unsolved)


def test_python_rows_only_when_asked(tmp_path, solutions):
    """The default export holds the paper's five settings; ``settings`` (``--setting``) adds the
    python setting, whose rows hold the prompt that describes the sandboxed tool."""
    chosen = [get_problem("p3_k3_red_determiner"), get_problem("k13_k4_red_determiner")]
    default = export_dataset(tmp_path / "paper", problems=chosen)
    rows = [json.loads(x) for x in default.files["prompts"].read_text().splitlines()]
    assert "python" not in {r["setting"] for r in rows}
    assert "`python`" not in default.files["card"].read_text()

    both = export_dataset(tmp_path / "six", problems=chosen, settings=[*SETTINGS, "python"])
    rows = [json.loads(x) for x in both.files["prompts"].read_text().splitlines()]
    problems = [json.loads(x) for x in both.files["problems"].read_text().splitlines()]
    assert [r["setting"] for r in rows if r["problem_id"] == "k13_k4_red_determiner"] == [
        *SETTINGS,
        "python",
    ]
    assert problems[1]["settings"] == [*SETTINGS, "python"]
    python = next(r for r in rows if r["id"] == "k13_k4_red_determiner/python")
    expected = build_prompt("k13_k4_red_determiner", "python", min_vertices=python["min_vertices"])
    assert python["messages"] == expected.messages and python["rounds"] == PythonLimits().rounds
    assert "# Running Python" in python["system"] and "```python run" in python["system"]
    assert "60 s wall clock" in python["system"]  # the limits the prompt states
    card = both.files["card"].read_text()
    assert "6 for `python`" in card and "`python` is not one of the paper's settings" in card

    result = CliRunner().invoke(
        app, ["export", "--out", str(tmp_path / "cli"), "--setting", "python", "--json"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["counts"]["prompts"] == 70
    rows = [json.loads(x) for x in (tmp_path / "cli" / "prompts.jsonl").read_text().splitlines()]
    assert {r["setting"] for r in rows} == {"python"} and all(r["rounds"] == 6 for r in rows)
    with pytest.raises(ExportError, match="unknown setting 'one-shot'"):
        export_dataset(tmp_path / "bad", settings=["one-shot"])
