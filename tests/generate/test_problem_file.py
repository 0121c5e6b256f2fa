"""One problem file for every colour count: ``generate --spec`` writes three-colour rows to
``problems.jsonl`` (``colors``, ``schema_version``) that ``eval --dataset`` reads back as the same
problems, and the files of the previous release (two-colour ``problems.jsonl`` rows with F/H
only, ``multicolor.jsonl``) still load."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.harness import EvalOptions, run_eval
from ramseygadgets.problem import PROBLEM_SCHEMA_VERSION, Problem
from ramseygadgets.problemsets import (
    ProblemSetPlan,
    ProblemSetWriter,
    load_generated,
    plan_problem_set,
)
from ramseygadgets.scaleout.fanout import SolveTask, solve_task
from ramseygadgets.selection import select_problems
from ramseygadgets.verify import verify

runner = CliRunner()
SPEC = "P3 | P3 | K3"  # red and blue matchings (twins: no red or blue determiner), green K3-free
GADGETS = ("green-determiner", "positive-sender", "negative-sender")
RELEASE_1 = Path(__file__).parent / "fixtures" / "release_1"


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def spec_set(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("spec") / "set"
    args = ["generate", "--spec", SPEC, "--max-vertices", "8", "--timeout", "60", "--jobs", "1"]
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert f"eval-ready: {out / 'problems.jsonl'}" in result.output
    return out


def test_a_spec_set_writes_three_colour_rows_with_colors_and_the_schema_version(spec_set):
    rows = _lines(spec_set / "problems.jsonl")
    assert [r["id"] for r in rows] == [Problem.of_colors(SPEC, g).id for g in GADGETS]
    for row in rows:
        assert row["schema_version"] == PROBLEM_SCHEMA_VERSION == 2
        assert row["colors"] == ["P3", "P3", "K3"] and row["color_names"] == [
            "red",
            "blue",
            "green",
        ]
        assert "F" not in row and "H" not in row  # the aliases are for two colours only
        assert row["settings"] and row["status"] == "found" and row["proven_minimal"]
        assert {"min_vertices", "min_edges", "solution", "solution_edges", "designated"} <= set(row)
    assert [r["gadget"] for r in rows] == list(GADGETS)
    assert not (spec_set / "multicolor.jsonl").exists()
    manifest = json.loads((spec_set / "manifest.json").read_text())
    assert manifest["schema_version"] == 2 and "multicolor" not in manifest["files"]


def test_eval_dataset_reads_the_same_problems_and_solutions(spec_set):
    planned = plan_problem_set(specs=[SPEC]).problems
    generated = load_generated(spec_set)
    dataset = select_problems(dataset=spec_set / "problems.jsonl")
    assert dataset.problems == [p for p, _, _ in generated] == planned
    assert all(p.c == 3 and not p.is_pair for p in dataset.problems)
    for problem, candidate, row in generated:
        assert candidate is not None and verify(problem, candidate).correct
        assert dataset.solutions[problem.id].to_json(problem.kind) == row["solution"]


def test_eval_dataset_scores_the_spec_set_senders(spec_set, tmp_path):
    senders = [Problem.of_colors(SPEC, g).id for g in GADGETS[1:]]
    outcome = run_eval(
        EvalOptions(
            out=tmp_path / "eval",
            model="solver",
            settings=["zero-shot"],
            runs=1,
            dataset=str(spec_set / "problems.jsonl"),
            problems=senders,
            progress=False,
        )
    )
    assert outcome.stats.recorded == 2
    samples = _lines(tmp_path / "eval" / "samples.jsonl")
    assert sorted(s["problem_id"] for s in samples) == sorted(senders)
    assert all(s.get("correct") for s in samples)


def test_eval_dataset_scores_a_green_determiner(spec_set, tmp_path):
    outcome = run_eval(
        EvalOptions(
            out=tmp_path / "eval",
            model="solver",
            settings=["zero-shot"],
            runs=1,
            dataset=str(spec_set / "problems.jsonl"),
            problems=[Problem.of_colors(SPEC, "green-determiner").id],
            progress=False,
        )
    )
    assert outcome.stats.recorded == 1


# -- files of the previous release (fixtures written by it) --------------------------------------
RELEASE_1_IDS = [
    "p3_k3_red_determiner",
    "k13_k3_negative_sender",
    "p3__p3__k3_green_determiner",
    "p3__p3__p3_negative_sender",
]


def test_a_folder_of_the_previous_release_loads(tmp_path):
    folder = tmp_path / "old"
    shutil.copytree(RELEASE_1, folder)
    old_pairs = _lines(folder / "problems.jsonl")
    assert all("colors" not in r and "schema_version" not in r for r in old_pairs)
    loaded = load_generated(folder)
    assert [p.id for p, _, _ in loaded] == RELEASE_1_IDS
    for problem, candidate, _ in loaded:
        assert candidate is not None and verify(problem, candidate).correct, problem.id
    assert loaded[2][0] == Problem.of_colors(SPEC, "green-determiner")
    assert loaded[0][0] == Problem.make("P3", "K3", "red-determiner")
    # each file alone, and through eval --dataset
    assert [p.id for p, _, _ in load_generated(folder / "multicolor.jsonl")] == RELEASE_1_IDS[2:]
    for name, ids in (
        ("problems.jsonl", RELEASE_1_IDS[:2]),
        ("multicolor.jsonl", RELEASE_1_IDS[2:]),
    ):
        dataset = select_problems(dataset=folder / name)
        assert [p.id for p in dataset.problems] == ids
        assert dataset.problems == [p for p, _, _ in loaded if p.id in ids]
        assert set(dataset.solutions) == set(ids)


def _release_1_record(problem: Problem) -> dict:
    """A results.jsonl record as the previous release wrote it: pairs by F/H only, other
    problems by colors as lists of patterns."""
    record = solve_task(SolveTask(json.dumps(problem.to_json()), 8, 60.0))
    if problem.is_pair:
        record.pop("colors")
    else:
        record = {**record, "colors": problem.spec.to_json()}
        record.pop("F", None), record.pop("H", None)
    return record


def test_a_folder_of_the_previous_release_resumes_into_one_problem_file(tmp_path):
    folder = tmp_path / "old"
    shutil.copytree(RELEASE_1, folder)
    problems = [
        Problem.make("P3", "K3", "red-determiner"),
        Problem.of_colors("P3 | P3 | P3", "negative-sender"),
    ]
    records = [_release_1_record(p) for p in problems]
    assert "colors" not in records[0] and records[1]["colors"] == [["P3"], ["P3"], ["P3"]]
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    with ProblemSetWriter(folder) as writer:
        assert writer.rejected == [] and set(writer.results) == {p.id for p in problems}
        plan = writer.adopt_plan(ProblemSetPlan(problems=problems), {"command": "test"})
        assert all(writer.done(p.id) for p in plan.problems)
        writer.finish(plan, {})
    rows = _lines(folder / "problems.jsonl")
    assert [r["id"] for r in rows] == [p.id for p in problems]
    assert all(r["schema_version"] == 2 for r in rows)
    assert rows[0]["colors"] == ["P3", "K3"] and (rows[0]["F"], rows[0]["H"]) == ("P3", "K3")
    assert rows[1]["colors"] == ["P3", "P3", "P3"] and "F" not in rows[1]
    assert not (folder / "multicolor.jsonl").exists()  # its rows live in problems.jsonl now
