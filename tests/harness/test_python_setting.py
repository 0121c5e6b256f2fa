"""The python setting end to end: a scripted model on the loopback server whose programs search
for gadgets with networkx and PySAT in the sandbox, then answer from what they printed; the
conversation loop with hostile programs, the limits, replay and the refusal."""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import pytest
from openai_mock import searching_model, tool_call

from ramseygadgets import sandbox as sandbox_module
from ramseygadgets.harness.backends.openai_backend import OpenAIBackend
from ramseygadgets.harness.backends.replay import ReplayBackend, ReplayData
from ramseygadgets.harness.conversation import Conversation
from ramseygadgets.harness.scoring import sample_record
from ramseygadgets.harness.types import Completion, SampleKey, Sampling
from ramseygadgets.problems.catalog import get_problem
from ramseygadgets.problems.problem import Problem
from ramseygadgets.prompts import build_prompt
from ramseygadgets.sandbox import (
    Sandbox,
    SandboxLimits,
    SandboxUnavailableError,
    require_sandbox,
)
from ramseygadgets.tools.python import PythonLimits, PythonTool

GREEN = Problem.of_colors("P3 | P3 | C4", "green-determiner")
PROBLEMS = {
    "p3_k3_red_determiner": get_problem("p3_k3_red_determiner"),
    "p3_k3_blue_determiner": get_problem("p3_k3_blue_determiner"),
    GREEN.id: GREEN,
}
SMALL = PythonLimits(rounds=3, total_seconds=20, program=SandboxLimits(wall_s=2, cpu_s=2))


@pytest.fixture(autouse=True)
def need_sandbox(request: pytest.FixtureRequest) -> None:
    """Skip where bubblewrap cannot run; fail in CI (scripts/setup.sh installs it there)."""
    if "no_sandbox" in request.fixturenames:
        return
    try:
        require_sandbox()
    except SandboxUnavailableError as exc:
        if os.environ.get("CI") or os.environ.get("RAMSEYGADGETS_REQUIRE_SANDBOX"):
            pytest.fail(str(exc))
        pytest.skip(str(exc))


def scripted_model(tool_mode: str):
    """Round 1: run the search program; round 2: answer with the graph it printed."""
    return searching_model(PROBLEMS, tool_mode)


def converse(conversation: Conversation, backend: Any) -> None:
    async def loop() -> None:
        await backend.start()
        while (request := conversation.request()) is not None:
            completion = await backend.complete(request)
            await asyncio.to_thread(conversation.feed, completion)
        await backend.close()

    asyncio.run(loop())


def make(
    problem: Problem, tool_mode: str = "text", limits: PythonLimits | None = None, **kw: Any
) -> Conversation:
    prompt = build_prompt(problem, "python", tool_mode=tool_mode, python=limits)
    return Conversation(
        SampleKey(problem.id, "python", 0),
        problem,
        prompt,
        Sampling(),
        tool_mode=tool_mode,
        python=limits,
        **kw,
    )


@pytest.mark.parametrize("tool_mode", ["text", "native"])
@pytest.mark.parametrize("problem_id", list(PROBLEMS))
def test_scripted_model_solves_through_the_sandbox(mock_server, problem_id, tool_mode):
    server = mock_server(scripted_model(tool_mode))
    problem = PROBLEMS[problem_id]
    conversation = make(problem, tool_mode)
    converse(conversation, OpenAIBackend("mock-model", base_url=server.base_url))
    record = sample_record(conversation, model="openai/mock-model", min_vertices=None)
    assert record["correct"] is True, (record["reason"], conversation.messages[-2]["content"])
    assert record["rounds"] == 2 and record["tool_calls"] == 1 and record["setting"] == "python"
    assert record["programs"][0]["exit_status"] == 0 and not record["programs"][0]["timed_out"]
    assert 0 < record["tool_seconds"] < 30
    first, second = (r.body for r in server.chat_requests())
    if tool_mode == "native":
        assert first["tools"][0]["function"]["name"] == "run_python"
        assert first["tool_choice"] == "auto" and second["messages"][-2]["role"] == "tool"
    else:
        assert "tools" not in first and "Output of the program" in second["messages"][-1]["content"]
    json.dumps(record)  # a sample record as written


def test_a_hostile_program_is_recorded_and_the_run_goes_on():
    conversation = make(PROBLEMS["p3_k3_red_determiner"], limits=SMALL)
    conversation.feed(Completion(content="```python run\nwhile True:\n    pass\n```"))
    conversation.feed(Completion(content="```python run\nprint('x' * 10**6)\n```"))
    assert conversation.request().last_round and not conversation.finished
    assert "stopped at the wall-clock limit (2 s)" in conversation.messages[3]["content"]
    cut = conversation.messages[5]["content"]
    assert "[... cut: only the first 4000 characters are shown]" in cut
    assert "The output was cut at 65536 bytes per stream." in cut
    conversation.feed(Completion(content="```python run\nprint(1)\n```"))  # the last round: final
    record = sample_record(conversation, model="m", min_vertices=None)
    assert [p["timed_out"] for p in record["programs"]] == [True, False]
    assert record["programs"][1]["exit_status"] == 0 and record["rounds"] == 3
    assert record["tool_calls"] == 2 and record["parse_error"]


def test_program_time_per_problem_runs_out():
    limits = PythonLimits(rounds=4, total_seconds=1, program=SandboxLimits(wall_s=5))
    conversation = make(PROBLEMS["p3_k3_red_determiner"], limits=limits)
    conversation.feed(Completion(content="```python run\nimport time\ntime.sleep(3)\n```"))
    assert "wall-clock limit (1 s)" in conversation.messages[-1]["content"]
    conversation.feed(Completion(content="```python run\nprint(1)\n```"))
    assert "program time this problem has are used up" in conversation.messages[-1]["content"]
    assert len(conversation.program_runs) == 1 and conversation.tool_seconds < 3


def test_native_calls_one_program_per_round():
    conversation = make(PROBLEMS["p3_k3_red_determiner"], "native", SMALL)
    calls = [
        tool_call("run_python", {"code": "print(6 * 7)"}, "a"),
        tool_call("run_python", {"code": "print(1)"}, "b"),
    ]
    conversation.feed(Completion(content="", tool_calls=calls))
    first, second, follow = conversation.messages[-3:]
    assert first["tool_call_id"] == "a" and "stdout:\n| 42" in first["content"]
    assert "only one program is run per round" in second["content"] and follow["role"] == "user"
    bad = [tool_call("color_graph", {"edges": []}, "c")]
    conversation.feed(Completion(content="", tool_calls=bad))
    assert "unknown tool 'color_graph'" in conversation.messages[-2]["content"]
    assert conversation.request().last_round and conversation.request().tools


def test_bad_native_arguments_get_one_line():
    tool = PythonTool(SMALL)
    from ramseygadgets.tools.python import program_from_arguments

    assert tool.run(program_from_arguments("{not json")).startswith("Tool error: the arguments")
    assert 'only "code"' in tool.run(program_from_arguments({"code": "1", "x": 2}))
    assert tool.run(program_from_arguments({"code": "  "})) == "Tool error: the program is empty."
    assert not tool.runs


def test_the_setting_never_runs_without_the_sandbox():
    with pytest.raises(Exception, match="only in the sandbox"):
        PythonTool(SMALL, sandbox=Sandbox(isolation=False))


@pytest.fixture
def no_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        sandbox_module, "_PROBE", [SandboxUnavailableError("bubblewrap cannot run here (test)")]
    )


def test_refuses_before_the_first_request(no_sandbox, mock_server):
    server = mock_server(scripted_model("text"))
    with pytest.raises(SandboxUnavailableError, match="bubblewrap cannot run here"):
        make(PROBLEMS["p3_k3_red_determiner"])
    assert not server.chat_requests()


def test_replay_rescores_without_running_anything(no_sandbox, tmp_path):
    problem = PROBLEMS["p3_k3_red_determiner"]
    answer = '```json\n{"edges": [[0, 1], [0, 2], [1, 2], [1, 3], [2, 3], [2, 4], [3, 4]], "e": [0, 1]}\n```'
    key = SampleKey(problem.id, "python", 0)
    data = ReplayData(tmp_path / "samples.jsonl", {key: {"response": answer, "tool_calls": 2}})
    conversation = make(problem, max_rounds=1)  # as the runner makes a replay conversation
    assert conversation.python is None
    converse(conversation, ReplayBackend(data))
    record = sample_record(conversation, model="replay", min_vertices=None)
    assert record["setting"] == "python" and "programs" not in record
    assert record["rounds"] == 1 and record["correct"] in (True, False)
