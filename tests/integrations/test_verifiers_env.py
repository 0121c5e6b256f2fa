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
from ramseygadgets.catalog import get_problem  # noqa: E402
from ramseygadgets.prompts import build_prompt, multiround_step  # noqa: E402
from ramseygadgets.solutions import get_solution  # noqa: E402

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
    from ramseygadgets.harness.scoring import judge
    from ramseygadgets.integrations.verifiers_env import load_environment

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
