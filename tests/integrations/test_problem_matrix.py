"""Every integration serves every kind of problem: a three-colour problem and a problem whose
pattern has a generated (graph6-derived) name, from one problem-set file, through ``verify``,
``eval``'s judge, ``train-data`` with the TRL reward, the verifiers environment, reasoning-gym,
Inspect and lm-eval.  On each path a correct answer scores 1 and a wrong one 0, in agreement
with ``ramseygadgets verify``; a row a reward cannot read is a clear error, never a 0.  The
size grade too: the solution padded with an edge on two new vertices is correct (reward 1 by
default) but scores ``minimal`` 0 with two excess vertices, and 1/3 under the opt-in shaped
reward of every RL path (TRL, verifiers, reasoning-gym)."""

from __future__ import annotations

import asyncio
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ramseygadgets.answers import format_answer
from ramseygadgets.cli import app
from ramseygadgets.colorings.spec import SpecError
from ramseygadgets.core.gadgets import Candidate, Designated
from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.problem import Problem
from ramseygadgets.runs.grading import judge
from ramseygadgets.verification.verifier import verify

runner = CliRunner()
TADPOLE = "0-1 1-2 2-3 3-4 4-0 0-5"  # C5 with a pendant edge: no table or family name
PROBLEMS = {
    "three colours": Problem.of_colors("P3 | P3 | C4", "green-determiner"),
    "generated name": Problem.make("K1,3", TADPOLE, "blue-determiner"),
}


#: Per problem id: the fixture's answers (for the reference verdict of a reply).
ANSWERS: dict[str, Any] = {}
#: The size-shaped reward of the padded answer: 1 / (1 + 2 excess vertices).
PADDED_REWARD = 1 / 3


def _padded(solution: Candidate) -> Candidate:
    """The solution plus one edge on two new vertices: still correct, two vertices too many."""
    n = solution.graph.n
    return Candidate(Graph(n + 2, (*solution.graph.edges, (n, n + 1))), solution.designated)


def _wrong(problem: Problem, solution: Candidate) -> Candidate:
    """The solution with its designated edge moved to an edge that is not forced."""
    for edge in solution.graph.edges:
        moved = Candidate(solution.graph, Designated((edge,)))
        if not verify(problem, moved).correct:
            return moved
    raise AssertionError(f"every edge of the solution of {problem.id} is forced")


@pytest.fixture(scope="module")
def problem_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """``generate --F ... --H ... --spec ...``: one problem-set file with both problems and their
    proven minimal solutions; per problem the correct and the wrong answer text."""
    out = tmp_path_factory.mktemp("matrix") / "set"
    args = ["generate", "--F", "K1,3", "--H", TADPOLE, "--spec", "P3 | P3 | C4"]
    args += ["--gadgets", "blue-determiner,green-determiner", "--out", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    path = out / "problems.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert {r["id"] for r in rows} == {p.id for p in PROBLEMS.values()}
    answers: dict[str, Any] = {}
    for row in rows:
        problem = Problem.from_json(row)
        assert row["proven_minimal"] and row["schema_version"] == 2
        solution = Candidate.from_json(row["solution"], problem.kind)
        wrong = _wrong(problem, solution)
        answers[problem.id] = {
            "json": json.dumps(solution.to_json(problem.kind)),
            "wrong json": json.dumps(wrong.to_json(problem.kind)),
            "correct": format_answer(solution, problem.kind),
            "wrong": format_answer(wrong, problem.kind),
            "padded": format_answer(_padded(solution), problem.kind),
            "n": solution.graph.n,
        }
    ANSWERS.update(answers)
    return path, answers


def _cli_verdict(path: Path, problem: Problem, reply: str) -> float:
    """``ramseygadgets verify --dataset FILE ID -`` on the answer of ``reply`` (a correct or
    wrong reply of the fixture): the reference (exit 0 correct, 1 wrong)."""
    answers = ANSWERS[problem.id]
    answer = {answers["correct"]: answers["json"], answers["wrong"]: answers["wrong json"]}[reply]
    result = runner.invoke(app, ["verify", problem.id, "-", "--dataset", str(path)], input=answer)
    assert result.exit_code in (0, 1), result.output
    return 1.0 if result.exit_code == 0 else 0.0


CASES = [(label, verdict) for label in PROBLEMS for verdict in ("correct", "wrong")]


@pytest.mark.parametrize("label, verdict", CASES)
def test_verify_and_the_eval_judge_agree(problem_file, label, verdict) -> None:
    path, answers = problem_file
    problem = PROBLEMS[label]
    answer = answers[problem.id][verdict]
    expected = 1.0 if verdict == "correct" else 0.0
    assert _cli_verdict(path, problem, answer) == expected
    assert judge(problem, answer, None)["correct"] is (expected == 1.0)


def test_train_data_rows_and_the_trl_reward(problem_file, tmp_path) -> None:
    pytest.importorskip("datasets")
    from ramseygadgets.training import ramsey_reward, reward_function

    path, answers = problem_file
    out = tmp_path / "train"
    # (P3 | P3 | C4) is in the extended set: let it in (train-data leaves it out by default)
    args = ["train-data", "--from", str(path), "--out", str(out), "--json", "--include-extended"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (out / "rows.jsonl").read_text().splitlines()]
    assert {r["problem_id"] for r in rows} == {p.id for p in PROBLEMS.values()}
    for row in rows:
        problem = PROBLEMS["three colours"] if row["F"] is None else PROBLEMS["generated name"]
        assert Problem.from_json(row) == problem and row["min_vertices"] == answers[problem.id]["n"]
        columns = {k: [row[k]] * 2 for k in ("colors", "F", "H", "gadget")}
        pair = [answers[problem.id]["correct"], answers[problem.id]["wrong"]]
        assert ramsey_reward(prompts=["p", "p"], completions=pair, **columns) == [1.0, 0.0]
        expected = [_cli_verdict(path, problem, text) for text in pair]
        assert expected == [1.0, 0.0]
        # the size grade: default exact 0/1, opt-in shaped against the row's min_vertices
        three = [*pair, answers[problem.id]["padded"]]
        cols = {k: [row[k]] * 3 for k in ("colors", "F", "H", "gadget", "min_vertices")}
        assert ramsey_reward(completions=three, **cols) == [1.0, 0.0, 1.0]
        shaped = reward_function(shaped=True)(completions=three, **cols)
        assert shaped == pytest.approx([1.0, 0.0, PADDED_REWARD])
    # the verifiers training split of the same folder carries the optimum to the shaped reward
    if importlib.util.find_spec("verifiers") is not None:
        from ramseygadgets.integrations.verifiers_env import ramsey_shaped_reward, training_split

        for row in training_split(str(out), include_extended=True):
            problem = Problem.from_json(row["info"])
            assert row["info"]["optimum_vertices"] == answers[problem.id]["n"]
            padded = answers[problem.id]["padded"]
            got = asyncio.run(ramsey_shaped_reward(completion=padded, info=row["info"]))
            assert got == pytest.approx(PADDED_REWARD)


def test_the_reward_refuses_rows_it_cannot_read() -> None:
    from ramseygadgets.training import ramsey_reward

    with pytest.raises(ValueError, match="colors"):
        ramsey_reward(completions=["x"], gadget=["green-determiner"])
    with pytest.raises(SpecError, match="unknown gadget type 'green-determiner' for 2 colours"):
        ramsey_reward(completions=["x"], colors=[["P3", "C4"]], gadget=["green-determiner"])


def _reward_funcs(env: Any) -> list[Any]:
    """The reward functions of an environment's rubric (verifiers wraps ours in a group)."""
    return [f for r in getattr(env.rubric, "rubrics", [env.rubric]) for f in r.funcs]


def test_verifiers_environment_over_the_file(problem_file) -> None:
    pytest.importorskip("verifiers", reason="the train extra is not installed")
    from ramseygadgets.integrations.verifiers_env import (
        load_environment,
        ramsey_exact_reward,
        ramsey_shaped_reward,
    )

    path, answers = problem_file
    env = load_environment("size-hint", dataset=str(path))
    shaped_env = load_environment("size-hint", dataset=str(path), shaped=True)
    assert ramsey_exact_reward in _reward_funcs(env) and ramsey_shaped_reward not in _reward_funcs(
        env
    )
    assert ramsey_shaped_reward in _reward_funcs(shaped_env)
    assert ramsey_exact_reward not in _reward_funcs(shaped_env)
    rows = list(env.eval_dataset)
    assert len(rows) == len(PROBLEMS)
    for row in rows:
        problem = Problem.from_json(row["info"])
        assert problem in PROBLEMS.values() and row["info"]["problem_id"] == problem.id
        assert row["info"]["optimum_vertices"] == answers[problem.id]["n"]  # proven in the file
        for verdict, expected in (("correct", 1.0), ("wrong", 0.0)):
            reply = [{"role": "assistant", "content": answers[problem.id][verdict]}]
            got = asyncio.run(ramsey_exact_reward(completion=reply, info=row["info"]))
            assert got == expected == _cli_verdict(path, problem, reply[0]["content"])
            shaped = asyncio.run(ramsey_shaped_reward(completion=reply, info=row["info"]))
            assert shaped == expected
        padded = [{"role": "assistant", "content": answers[problem.id]["padded"]}]
        assert asyncio.run(ramsey_exact_reward(completion=padded, info=row["info"])) == 1.0
        shaped = asyncio.run(ramsey_shaped_reward(completion=padded, info=row["info"]))
        assert shaped == pytest.approx(PADDED_REWARD)
    with pytest.raises(SpecError, match="gadget"):
        asyncio.run(ramsey_exact_reward(completion=[], info={"colors": ["P3", "K3"]}))


def test_lm_eval_rows_over_the_file(problem_file) -> None:
    from ramseygadgets.integrations.lm_eval import dataset_rows, process_results

    path, answers = problem_file
    rows = dataset_rows("zero-shot", None, dataset=str(path))
    assert len(rows) == len(PROBLEMS)
    for doc in rows:
        problem = Problem.from_json(doc)
        assert doc["min_vertices"] == answers[problem.id]["n"]
        for verdict, expected in (("correct", 1.0), ("wrong", 0.0)):
            answer = answers[problem.id][verdict]
            assert process_results(doc, [answer])["acc"] == expected
            assert _cli_verdict(path, problem, answer) == expected
        padded = process_results(doc, [answers[problem.id]["padded"]])
        assert (padded["acc"], padded["minimal"], padded["excess_vertices"]) == (1.0, 0.0, 2.0)
        assert process_results(doc, [answers[problem.id]["correct"]])["minimal"] == 1.0


def test_inspect_samples_by_dataset_and_by_id(problem_file) -> None:
    pytest.importorskip("inspect_ai", reason="the inspect extra is not installed")
    from ramseygadgets.answers import parse_answer
    from ramseygadgets.integrations.inspect_task import build_samples

    path, answers = problem_file
    samples = build_samples("size-hint", dataset=str(path))
    assert {s.id for s in samples} == {p.id for p in PROBLEMS.values()}
    for sample in samples:
        problem = Problem.from_json(sample.metadata)
        assert sample.metadata["min_vertices"] == answers[problem.id]["n"]
        target = parse_answer(str(sample.target), problem.kind).candidate
        assert target is not None and verify(problem, target).correct
    # a three-colour problem of the extended set, by id alone: its minimal size and reference
    [by_id] = build_samples("size-hint", problems="p3__p3__c4_green_determiner")
    assert by_id.metadata["min_vertices"] == 6 and by_id.target
    assert "exactly 6 vertices" in str(by_id.input[-1].content)


def test_inspect_scores_a_correct_and_a_wrong_answer_over_the_file(problem_file, tmp_path) -> None:
    pytest.importorskip("inspect_ai", reason="the inspect extra is not installed")
    from inspect_scripted import ScriptedModel, Text, run_task

    path, answers = problem_file
    script = ScriptedModel(
        {pid: [[Text(answers[pid]["correct"])], [Text(answers[pid]["wrong"])]] for pid in answers},
        problems={p.id: p for p in PROBLEMS.values()},
    )
    log = run_task(script, tmp_path / "logs", epochs=2, dataset=str(path))
    for problem in PROBLEMS.values():
        scores = [s.scores["ramsey_scorer"].value for s in log.samples if s.id == problem.id]
        assert sorted(scores) == ["C", "I"], (problem.id, scores)
        sizes = {
            s.scores["ramsey_scorer"].value: s.scores["ramsey_scorer"].metadata
            for s in log.samples
            if s.id == problem.id
        }
        assert (sizes["C"]["minimal"], sizes["C"]["excess_vertices"]) == (True, 0)
        assert sizes["C"]["optimum_vertices"] == answers[problem.id]["n"]
        assert (sizes["I"]["minimal"], sizes["I"]["excess_vertices"]) == (None, None)
        expected = [
            _cli_verdict(path, problem, answers[problem.id][v]) for v in ("correct", "wrong")
        ]
        assert expected == [1.0, 0.0]


@pytest.mark.parametrize("num_colors, pool", [(3, ("P3", "K3", "TK3")), (2, ("K1,3", TADPOLE))])
def test_reasoning_gym_scores_three_colors_and_generated_names(num_colors, pool) -> None:
    pytest.importorskip("reasoning_gym", reason="the train extra is not installed")
    import reasoning_gym

    import ramseygadgets.integrations.reasoning_gym  # noqa: F401

    options = {"seed": 3, "size": 3, "num_colors": num_colors, "pool": pool, "max_size": 7}
    data = reasoning_gym.create_dataset("ramsey_gadgets", **options)
    shaped = reasoning_gym.create_dataset("ramsey_gadgets", **options, shaped=True)
    titles = [Problem.from_json(entry["metadata"]).title for entry in data]
    if num_colors == 2:
        assert any("n6m6-" in t for t in titles), titles  # the tadpole's generated name
    for entry in data:
        problem = Problem.from_json(entry["metadata"])
        assert problem.c == num_colors and len(entry["metadata"]["colors"]) == num_colors
        assert data.score_answer(entry["answer"], entry) == 1.0
        parsed = Candidate.from_json(
            json.loads(entry["answer"].split("```json\n")[1].split("```")[0]), problem.kind
        )
        wrong = (
            format_answer(_wrong(problem, parsed), problem.kind)
            if problem.kind.edge_names == ("e",)
            else "no answer"
        )
        assert data.score_answer(wrong, entry) == 0.0
        assert data.score_answer(entry["answer"], entry) == float(verify(problem, parsed).correct)
        # the size grade against the entry's proven min_vertices: opt-in only
        padded = format_answer(_padded(parsed), problem.kind)
        assert parsed.graph.n == entry["metadata"]["min_vertices"]
        assert data.score_answer(padded, entry) == 1.0
        assert shaped.score_answer(padded, entry) == pytest.approx(PADDED_REWARD)
        assert shaped.score_answer(entry["answer"], entry) == 1.0
        assert shaped.score_answer(wrong, entry) == 0.0


def test_eval_backends_and_export_over_the_file(problem_file, tmp_path) -> None:
    """``eval --dataset`` with the solver (every answer right), random and replay (each verdict
    equal to ``verify`` on the recorded candidate), and ``export --dataset``."""
    path, _ = problem_file
    by_id = {p.id: p for p in PROBLEMS.values()}
    base = ["eval", "--dataset", str(path), "--setting", "zero-shot", "--runs", "2"]
    for model in ("solver", "random"):
        out = tmp_path / model
        result = runner.invoke(app, [*base, "--model", model, "--out", str(out)])
        assert result.exit_code == 0, result.output
        samples = [json.loads(x) for x in (out / "samples.jsonl").read_text().splitlines()]
        assert {s["problem_id"] for s in samples} == set(by_id)
        for s in samples:
            problem = by_id[s["problem_id"]]
            if model == "solver":
                assert s["correct"] is True
            elif s["candidate"] is not None:
                candidate = Candidate.from_json(s["candidate"], problem.kind)
                assert s["correct"] == verify(problem, candidate).correct
    replayed = tmp_path / "replay"
    replay = ["--model", f"replay:{tmp_path / 'random' / 'samples.jsonl'}", "--out", str(replayed)]
    result = runner.invoke(app, [*base, *replay])
    assert result.exit_code == 0, result.output
    again = {
        (s["problem_id"], s["run"]): s["correct"]
        for s in map(json.loads, (replayed / "samples.jsonl").read_text().splitlines())
    }
    first = {
        (s["problem_id"], s["run"]): s["correct"]
        for s in map(json.loads, (tmp_path / "random" / "samples.jsonl").read_text().splitlines())
    }
    assert again == first
    exported = tmp_path / "export"
    result = runner.invoke(app, ["export", "--dataset", str(path), "--out", str(exported)])
    assert result.exit_code == 0, result.output
    rows = [json.loads(x) for x in (exported / "problems.jsonl").read_text().splitlines()]
    for row in rows:
        problem = Problem.from_json(row)
        assert problem.id == row["id"] in by_id
        solution = Candidate.from_json(
            {"edges": row["solution_edges"], "e": row["solution_e"]}, problem.kind
        )
        assert verify(problem, solution).correct
