"""The verifiers environment: the project's prompts, the exact reward as rubric, and the
multiround coloring-tool protocol of ``eval``, run in-process against a loopback server."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("verifiers", reason="the train extra is not installed")

from ramseygadgets.answers import format_answer  # noqa: E402
from ramseygadgets.harness.multiround import multiround_step
from ramseygadgets.problems.catalog import get_problem  # noqa: E402
from ramseygadgets.problems.solutions import get_solution  # noqa: E402
from ramseygadgets.prompts import build_prompt

HARNESS_TESTS = Path(__file__).resolve().parents[1] / "harness"
SOLVED, UNSOLVED = get_problem("p3_k3_red_determiner"), get_problem("k13_k4_red_determiner")


def openai_mock() -> Any:
    """The loopback OpenAI-compatible server of the harness tests."""
    sys.path.insert(0, str(HARNESS_TESTS))
    try:
        import openai_mock as module
    finally:
        sys.path.remove(str(HARNESS_TESTS))
    return module


def mock_server(script: Any) -> Any:
    return openai_mock().MockOpenAIServer(script, models=("mock-model",))


def evaluate(env: Any, base_url: str, monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    import verifiers as vf

    monkeypatch.setenv("MOCK_API_KEY", "none")
    config = vf.ClientConfig(api_key_var="MOCK_API_KEY", api_base_url=base_url, max_retries=0)
    result = env.evaluate_sync(config, "mock-model", sampling_args={"max_tokens": 64})
    return list(result["outputs"])


def answer_of(problem: Any) -> str:
    return format_answer(get_solution(problem.id).candidate, problem.kind)


def test_rows_are_the_projects_prompts_and_info() -> None:
    from ramseygadgets.integrations.verifiers_env import load_environment

    env = load_environment("size-hint", problems=f"{SOLVED.id},{UNSOLVED.id}")
    rows = list(env.eval_dataset)
    assert [r["prompt"] for r in rows] == [
        build_prompt(p, "size-hint").messages for p in (SOLVED, UNSOLVED)
    ]
    assert rows[0]["info"] == {
        "problem_id": SOLVED.id,
        "colors": ["P3", "K3"],
        "F": "P3",
        "H": "K3",
        "gadget": "red-determiner",
        "optimum_vertices": get_solution(SOLVED.id).n,  # the proven minimum, for shaped=True
    }
    with pytest.raises(ValueError, match="unknown setting"):
        load_environment("few-shot")


def test_single_turn_rewards_are_the_verifiers_verdicts(monkeypatch: pytest.MonkeyPatch) -> None:
    from ramseygadgets.integrations.verifiers_env import load_environment
    from ramseygadgets.runs.grading import judge

    Reply = openai_mock().Reply
    replies = {
        SOLVED.title: "<think>hmm</think>\n" + answer_of(SOLVED),
        UNSOLVED.title: answer_of(SOLVED),
    }

    def script(info: Any) -> Any:
        user = info.body["messages"][-1]["content"]
        return Reply(next(text for title, text in replies.items() if title in user))

    env = load_environment("zero-shot", problems=f"{SOLVED.id},{UNSOLVED.id}")
    with mock_server(script) as server:
        outputs = evaluate(env, server.base_url, monkeypatch)
    by_problem = {o["info"]["problem_id"]: o for o in outputs}
    assert by_problem[SOLVED.id]["reward"] == 1.0 and by_problem[UNSOLVED.id]["reward"] == 0.0
    for problem in (SOLVED, UNSOLVED):
        verdict = judge(problem, replies[problem.title], None)["correct"]
        assert by_problem[problem.id]["reward"] == float(verdict)


def test_multiround_text_protocol_matches_eval(monkeypatch: pytest.MonkeyPatch) -> None:
    from ramseygadgets.integrations.verifiers_env import load_environment

    request = (
        "Let me test it.\n```coloring_tool\n"
        + json.dumps({"edges": [list(e) for e in get_solution(SOLVED.id).candidate.graph.edges]})
        + "\n```"
    )
    seen: list[list[dict[str, Any]]] = []

    Reply = openai_mock().Reply

    def script(info: Any) -> Any:
        messages = info.body["messages"]
        seen.append(messages)
        if sum(m["role"] == "assistant" for m in messages) == 0:
            return Reply(request)
        return Reply(answer_of(SOLVED))

    env = load_environment("multiround", problems=SOLVED.id)
    with mock_server(script) as server:
        [output] = evaluate(env, server.base_url, monkeypatch)
    assert output["reward"] == 1.0
    assert len(seen) == 2
    expected = multiround_step(SOLVED, 1, request).followup
    assert seen[1][-1] == expected  # the tool output eval sends, in the same message
    assert seen[1][:-2] == build_prompt(SOLVED, "multiround").messages


def test_a_training_split_with_published_problems_is_refused(tmp_path: Path) -> None:
    """``train_data`` holding an extended problem (a dataset written with
    ``--include-extended``, or before train-data left the extended set out) is refused unless
    ``include_extended=True``; one holding one of the 70 is refused always."""
    from datasets import Dataset, load_from_disk
    from typer.testing import CliRunner

    from ramseygadgets.cli import app
    from ramseygadgets.integrations.verifiers_env import load_environment, training_split
    from ramseygadgets.problems.leakage import is_published
    from ramseygadgets.problems.problem import Problem

    def train_data(out: Path, *args: str) -> None:
        command = ["train-data", "--out", str(out), "--seed", "2", "--max-size", "6", *args]
        result = CliRunner().invoke(app, command)
        assert result.exit_code == 0, result.output

    small = tmp_path / "small"
    train_data(small, "--stream", "6", "--pool", "P3,K1,3,K3,P4", "--include-extended")
    with pytest.raises(ValueError, match=r"equivalent to a published problem .*extended set"):
        load_environment("zero-shot", problems=SOLVED.id, train_data=str(small))
    env = load_environment(
        "zero-shot", problems=SOLVED.id, train_data=str(small), include_extended=True
    )
    assert len(env.dataset) == 6
    # one row turned into one of the 70 (the (P3, K3)-red-determiner, colours exchanged)
    rows = load_from_disk(str(small)).to_list()
    rows[0].update(colors=["K3", "P3"], F="K3", H="P3", gadget="blue-determiner")
    leaky = tmp_path / "leaky"
    Dataset.from_list(rows).save_to_disk(str(leaky))
    with pytest.raises(ValueError, match=r"of the paper set\); write it again"):
        training_split(str(leaky), include_extended=True)
    # what train-data writes by default passes
    clean = tmp_path / "clean"
    train_data(clean, "--stream", "2", "--pool", "P4,P5")
    split = training_split(str(clean))
    assert len(split) == 2
    assert not any(is_published(Problem.from_json(row["info"])) for row in split)
