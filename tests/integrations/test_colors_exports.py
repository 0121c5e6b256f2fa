"""Three-colour problems in the exports: the HF dataset export, lm-eval rows and scoring, and the
Inspect task (zero-shot metadata, multiround with native tool calls) — graded by the same judge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ramseygadgets.answers import format_answer, parse_answer
from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.integrations import lm_eval as glue
from ramseygadgets.problems.catalog import Problem
from ramseygadgets.runs.grading import judge
from ramseygadgets.tools.coloring import run_coloring_tool
from ramseygadgets.training.export import export_dataset
from ramseygadgets.verification.selection import load_selection

GREEN = Problem.of_colors("P3 | P3 | C4", "green-determiner")
SOLUTION = {
    "edges": [[0, 1], [0, 2], [0, 3], [0, 4], [0, 5], [1, 2], [1, 3], [1, 4], [1, 5]],
    "e": [0, 1],
}
ANSWER = "My graph:\n" + format_answer(Candidate.from_json(SOLUTION, GREEN.kind), GREEN.kind)
WRONG = '```json\n{"edges": [[0, 1], [0, 2]], "e": [0, 1]}\n```'  # e can be red or blue


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    path = tmp_path / "set.jsonl"
    rows = [{**GREEN.to_json(), "solution": SOLUTION}, {"id": "p3_k3_red_determiner"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_hf_export_carries_colors_prompts_and_solutions(dataset, tmp_path):
    problem_set = load_selection(dataset)
    result = export_dataset(tmp_path / "out", problem_set=problem_set)
    problems = [json.loads(x) for x in result.files["problems"].read_text().splitlines()]
    prompts = [json.loads(x) for x in result.files["prompts"].read_text().splitlines()]
    green = next(r for r in problems if r["id"] == GREEN.id)
    assert green["colors"] == ["P3", "P3", "C4"] and green["gadget"] == "green-determiner"
    assert green["colors_edges"][2] == [[0, 1], [0, 3], [1, 2], [2, 3]]
    assert green["settings"] == ["zero-shot", "structural-hint", "size-hint", "multiround"]
    assert (green["min_vertices"], green["solution_e"]) == (6, [0, 1])
    assert next(r for r in problems if r["id"] == "p3_k3_red_determiner")["colors"] == ["P3", "K3"]
    rows = [r for r in prompts if r["problem_id"] == GREEN.id]
    assert [r["setting"] for r in rows] == green["settings"]
    for row in rows:
        assert "There are 3 colors, red, blue and green." in row["system"]
        problem = Problem.from_json(row)
        assert problem == GREEN and judge(problem, row["reference_answer"], None)["correct"]
    assert "`colors`" in result.files["card"].read_text()


def test_every_export_row_has_one_schema_with_colors(tmp_path):
    """A catalog problem's row has colors too (one schema for any colour count); F and H are
    the pair's aliases, null for three colours."""
    from ramseygadgets.verification.selection import select_problems

    chosen = select_problems(["p3_k3_red_determiner", GREEN.id])  # GREEN: from the extended set
    result = export_dataset(tmp_path / "out", problem_set=chosen)
    pair, green = [json.loads(x) for x in result.files["problems"].read_text().splitlines()]
    assert set(pair) == set(green) and "`colors`" in result.files["card"].read_text()
    assert (pair["colors"], pair["F"], pair["H"]) == (["P3", "K3"], "P3", "K3")
    assert (green["colors"], green["F"], green["H"]) == (["P3", "P3", "C4"], None, None)


def test_lm_eval_rows_and_scoring(dataset):
    rows = glue.dataset_rows("zero-shot", "all", dataset=str(dataset))
    green = next(r for r in rows if r["problem_id"] == GREEN.id)
    assert green["colors"] == ["P3", "P3", "C4"] and green["gadget"] == "green-determiner"
    assert "e is green in every (P3, P3, C4)-good coloring" in green["user"]
    # GREEN is an extended problem: the file keeps the extended set's proof of its 6 vertices
    assert glue.process_results(green, [ANSWER]) == {
        "acc": 1.0,
        "parse_failure": 0.0,
        "minimal": 1.0,
        "excess_vertices": 0.0,
    }
    assert glue.process_results(green, [WRONG]) == {"acc": 0.0, "parse_failure": 0.0}
    # a row read back without its id still names the three-colour problem
    assert glue.process_results({**green, "problem_id": "x"}, [ANSWER])["acc"] == 1.0
    sized = glue.dataset_rows("size-hint", GREEN.id, dataset=str(dataset))
    assert [r["min_vertices"] for r in sized] == [6] and "exactly 6 vertices" in sized[0]["user"]


def test_inspect_zero_shot_samples(dataset):
    pytest.importorskip("inspect_ai", reason="the inspect extra is not installed")
    from ramseygadgets.integrations.inspect_task import build_samples

    samples = {s.id: s for s in build_samples("zero-shot", dataset=str(dataset))}
    sample = samples[GREEN.id]
    assert sample.metadata["colors"] == ["P3", "P3", "C4"]
    assert sample.metadata["gadget"] == "green-determiner"
    parsed = parse_answer(str(sample.target), GREEN)
    assert parsed.candidate is not None and judge(GREEN, str(sample.target), None)["correct"]


@pytest.mark.filterwarnings("ignore:The .initial. parameter is deprecated:DeprecationWarning")
def test_inspect_multiround_native_tool_on_three_colors(dataset, tmp_path):
    pytest.importorskip("inspect_ai", reason="the inspect extra is not installed")
    from inspect_scripted import Calls, ScriptedModel, Text, run_task

    asked = SOLUTION["edges"]
    script = ScriptedModel(
        {GREEN.id: [[Calls(({"edges": asked},)), Text(ANSWER)]]},
        setting="multiround",
        tool_mode="native",
        problems={GREEN.id: GREEN},
    )
    log = run_task(
        script,
        tmp_path / "logs",
        setting="multiround",
        tool_mode="native",
        dataset=str(dataset),
        problems=GREEN.id,
    )
    [sample] = log.samples
    assert sample.scores["ramsey_scorer"].value == "C"
    [tool_message] = [m for m in sample.messages if m.role == "tool"]
    assert tool_message.text == run_coloring_tool(GREEN, {"edges": asked})
    assert "Edges green in every good coloring: 0-1." in tool_message.text
    [first] = [c for c in script.for_problem(GREEN.id) if c.round_no == 1]
    assert "forbidden graph" in first.tools[0].description
