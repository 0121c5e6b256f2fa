"""One problem file for every colour count: ``generate --spec`` writes three-colour rows to
``problems.jsonl`` (``colors``, ``schema_version``) that ``eval --dataset`` reads back as the same
problems, and the files of the previous release (two-colour ``problems.jsonl`` rows with F/H
only, ``multicolor.jsonl``) still load.  A problem-set file proves what it claims or claims
nothing: a shipped proof is kept whatever the file says, a contradiction is refused, other
claims count only with a proof that checks."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.harness.runner import EvalOptions, run_eval
from ramseygadgets.problems.catalog import get_problem
from ramseygadgets.problems.problem import PROBLEM_SCHEMA_VERSION, Problem
from ramseygadgets.problems.solutions import get_solution
from ramseygadgets.problemsets import (
    ProblemSetPlan,
    ProblemSetWriter,
    load_generated,
    plan_problem_set,
)
from ramseygadgets.scaleout.fanout import SolveTask, solve_task
from ramseygadgets.verification.selection import (
    Optimum,
    ProblemSetError,
    load_selection,
    select_problems,
)
from ramseygadgets.verification.verifier import verify

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


def test_a_spec_set_writes_three_color_rows_with_colors_and_the_schema_version(spec_set):
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


# -- what a problem-set file proves (issue 32, item 4) -------------------------------------------
PAPER = "p3_k3_red_determiner"  # the paper's: 5 vertices, 7 edges, none on 4


def _write_rows(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _padded(candidate: Candidate, extra: int) -> dict:
    """The solution with ``extra`` isolated vertices (still a solution, on more vertices)."""
    return {**candidate.to_json(get_problem(PAPER).kind), "n": candidate.graph.n + extra}


def _replayed(tmp_path: Path, dataset: Path, problem_id: str, answer: Candidate) -> dict:
    """The sample ``eval --dataset`` records for one reply giving ``answer``."""
    replies = tmp_path / "replies.jsonl"
    text = "```json\n" + json.dumps(answer.to_json(get_problem(PAPER).kind)) + "\n```"
    row = {"problem_id": problem_id, "setting": "zero-shot", "run": 0, "response": text}
    replies.write_text(json.dumps(row) + "\n")
    out = tmp_path / "run"
    options = EvalOptions(
        model=f"replay:{replies}", out=out, runs=1, dataset=str(dataset), progress=False
    )
    run_eval(options)
    (sample,) = _lines(out / "samples.jsonl")
    return sample


def test_a_paper_problem_in_a_file_keeps_its_shipped_proof(tmp_path):
    """The true 5-vertex minimum, given without a claim, is no new-best-known discovery: the
    problem keeps the optimum the paper ships (today's file loader forgot it)."""
    shipped = get_solution(PAPER)
    problem = get_problem(PAPER)
    row = {**problem.to_json(), "solution": _padded(shipped.candidate, 2)}
    dataset = _write_rows(tmp_path / "set.jsonl", [row])
    loaded = load_selection(dataset)
    assert loaded.optimum(problem) == Optimum(5, 7)
    assert loaded.solution(problem).graph.n == 5  # the shipped one: smaller than the file's
    sample = _replayed(tmp_path, dataset, PAPER, shipped.candidate)
    assert sample["correct"] and sample["minimal"] is True and sample["excess_vertices"] == 0
    assert sample["discovery"] is None


def test_a_file_that_contradicts_a_shipped_proof_is_refused_naming_the_record(tmp_path):
    """A forged claim of 7 (a correct 7-vertex solution "proven minimal"): refused in one line
    naming file:line, never a run that grades the true 5-vertex answer contradicts-proof."""
    shipped = get_solution(PAPER)
    problem = get_problem(PAPER)
    other = get_problem("k13_k4_red_determiner").to_json()
    forged = {
        **problem.to_json(),
        "solution": _padded(shipped.candidate, 2),
        "proven_minimal": True,
        "lower_bound": 7,
    }
    dataset = _write_rows(tmp_path / "set.jsonl", [other, forged])
    with pytest.raises(ProblemSetError, match="set.jsonl:2: p3_k3_red_determiner contradicts"):
        load_selection(dataset)
    result = runner.invoke(
        app, ["eval", "--dataset", str(dataset), "--runs", "1", "--out", str(tmp_path / "run")]
    )
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and f"{dataset}:2" in errors[0]
    assert "none has fewer vertices" in result.output and not (tmp_path / "run").exists()
    # a lower bound above the shipped minimum is the same lie
    bound = {**problem.to_json(), "lower_bound": 6}
    with pytest.raises(ProblemSetError, match="claims no solution has fewer than 6 vertices"):
        load_selection(_write_rows(tmp_path / "bound.jsonl", [bound]))


def test_a_shipped_proof_is_found_up_to_renaming_the_colors_and_relabelling(tmp_path):
    """(K3, P3)-blue-determiner is the (P3, K3)-red-determiner with the colours exchanged; K3
    given as an edge list is K3: the file's problem gets the paper's optimum and solution."""
    swapped = Problem.make("K3", "P3", "blue-determiner")
    row = {**swapped.to_json(), "F": "0-1 1-2 2-0"}
    loaded = load_selection(_write_rows(tmp_path / "set.jsonl", [row]))
    (problem,) = loaded.problems
    assert problem.id != PAPER and loaded.optimum(problem) == Optimum(5, 7)
    assert verify(problem, loaded.solution(problem)).correct
    # an atlas entry proven only up to a lower bound is matched the same way
    from ramseygadgets.verification.proofs import shipped_proof

    atlas = shipped_proof(Problem.make("K4", "K3", "negative-sender"))
    assert atlas is not None and atlas.source == "the atlas"
    assert (atlas.problem.id, atlas.bound, atlas.candidate) == ("k3_k4_negative_sender", 14, None)
    found = shipped_proof(Problem.make("K4", "K3", "blue-determiner"))  # found on 15 since
    assert found is not None and (found.problem.id, found.bound) == ("k3_k4_red_determiner", 15)
    assert found.candidate is not None and found.candidate.graph.n == 15


def test_a_claim_without_a_checked_proof_record_proves_nothing(tmp_path):
    """In a generate folder the claim of a row counts only with its checked results.jsonl
    record (as train-data --from reads it): a row whose record is gone, or whose record's levels
    skip a vertex count, has no optimum; the honest rows keep theirs."""
    out = tmp_path / "set"
    args = ["generate", "--F", "P3", "--H", "P6", "--max-vertices", "7", "--jobs", "1"]
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = _lines(out / "problems.jsonl")
    assert len(rows) >= 3 and all(r["proven_minimal"] for r in rows)
    honest = load_selection(out / "problems.jsonl")
    assert honest.proven == set(honest.ids)
    results = [r for r in _lines(out / "results.jsonl") if r["id"] != rows[0]["id"]]
    second = next(r for r in results if r["id"] == rows[1]["id"])
    second["levels"] = [level for level in second["levels"] if level["n"] != second["n"] - 1]
    _write_rows(out / "results.jsonl", results)
    loaded = load_selection(out / "problems.jsonl")
    assert loaded.proven == set(loaded.ids) - {rows[0]["id"], rows[1]["id"]}
    for row in rows[:2]:
        problem = loaded.get(row["id"])
        assert loaded.optimum(problem) is None and loaded.solution(problem) is not None
