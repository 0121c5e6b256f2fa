"""The python setting in the verifiers environment (``load_environment(setting="python")``): a
scripted model, served by the harness tests' loopback server, whose program searches for a
gadget with networkx and PySAT in the sandbox (the same ``PythonTool`` as ``eval``'s), then
answers from what it printed; a paper problem and a three-colour one solved, an endless program
stopped at the limit while the rollout goes on, the limits as keyword arguments, and the
one-line refusal where the sandbox cannot run."""

from __future__ import annotations

import secrets
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("verifiers", reason="the train extra is not installed")

from gadget_search import found_answer, search_program  # noqa: E402
from sandbox_helpers import need_sandbox, processes_with  # noqa: E402

from ramseygadgets import sandbox as sandbox_module  # noqa: E402
from ramseygadgets.problems.catalog import get_problem  # noqa: E402
from ramseygadgets.problems.problem import Problem  # noqa: E402
from ramseygadgets.prompts import build_prompt  # noqa: E402
from ramseygadgets.sandbox import SandboxError, SandboxLimits, SandboxUnavailableError  # noqa: E402
from ramseygadgets.tools.python import PythonLimits  # noqa: E402

HARNESS_TESTS = Path(__file__).resolve().parents[1] / "harness"
PAPER = get_problem("p3_k3_red_determiner")
ENDLESS = get_problem("p3_k3_blue_determiner")  # first an endless program, then the search
GREEN = Problem.of_colors("P3 | P3 | C4", "green-determiner")  # three colours, extended set
#: The keyword arguments of the runs below, and the limits they make.
OPTIONS = {"python_rounds": 3, "python_total_seconds": 60, "python_wall_s": 20, "python_cpu_s": 20}
LIMITS = PythonLimits(rounds=3, total_seconds=60, program=SandboxLimits(wall_s=20, cpu_s=20))
LOOP = "Let me try.\n\n```python run\nwhile True:\n    pass\n```\n"


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


def evaluate(
    env: Any, base_url: str, monkeypatch: pytest.MonkeyPatch, state_columns: list[str]
) -> list[dict[str, Any]]:
    import verifiers as vf

    monkeypatch.setenv("MOCK_API_KEY", "none")
    config = vf.ClientConfig(api_key_var="MOCK_API_KEY", api_base_url=base_url, max_retries=0)
    result = env.evaluate_sync(
        config, "mock-model", sampling_args={"max_tokens": 64}, state_columns=state_columns
    )
    return list(result["outputs"])


@pytest.fixture
def sandbox() -> None:
    need_sandbox()  # skipped where bubblewrap cannot run; failed in CI


def program_block(code: str) -> str:
    return f"Let me search.\n\n```python run\n{code}```\n"


def test_rows_state_the_limits_given_as_keyword_arguments(sandbox: None) -> None:
    from ramseygadgets.integrations.verifiers_env import load_environment

    env = load_environment("python", problems=f"{PAPER.id},{GREEN.id}", **OPTIONS)
    rows = list(env.eval_dataset)
    assert [r["prompt"] for r in rows] == [
        build_prompt(p, "python", python=LIMITS).messages for p in (PAPER, GREEN)
    ]
    assert rows[1]["info"]["colors"] == ["P3", "P3", "C4"]
    assert "20 s wall clock" in rows[0]["prompt"][0]["content"]
    assert env.max_turns == 3 and env.limits == LIMITS
    with pytest.raises(SandboxError, match="at least 2 rounds"):
        load_environment("python", problems=PAPER.id, python_rounds=1)
    with pytest.raises(ValueError, match="single-turn rows"):
        load_environment("python", problems=PAPER.id, train_data="unused")


def test_search_then_answer_and_an_endless_program(
    sandbox: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Text protocol: the program's output opens the next round; the answer built from it
    earns the reward 1 on a paper problem and a three-colour one.  An endless program is
    stopped at the wall-clock limit, the model sees so, and its rollout goes on to solve."""
    from ramseygadgets.integrations.verifiers_env import load_environment

    Reply = openai_mock().Reply
    # 5 s: the search programs take about a second alone, and under a loaded machine's test
    # run 2 s once cut one short (three rounds instead of two)
    limits = PythonLimits(rounds=3, total_seconds=60, program=SandboxLimits(wall_s=5, cpu_s=20))
    firsts = {
        build_prompt(p, "python", python=limits).messages[-1]["content"]: p
        for p in (PAPER, GREEN, ENDLESS)
    }
    seen: dict[str, list[list[dict[str, Any]]]] = {p.id: [] for p in firsts.values()}

    def script(info: Any) -> Any:
        messages = info.body["messages"]
        problem = next(
            p for text, p in firsts.items() if any(m["content"] == text for m in messages)
        )
        seen[problem.id].append(messages)
        round_no = 1 + sum(m["role"] == "assistant" for m in messages)
        if problem is ENDLESS and round_no == 1:
            return Reply(LOOP)
        if "FOUND " in messages[-1]["content"]:
            return Reply(found_answer(messages[-1]["content"]))
        return Reply(program_block(search_program(problem)))

    env = load_environment(
        "python", problems=f"{PAPER.id},{GREEN.id},{ENDLESS.id}", **{**OPTIONS, "python_wall_s": 5}
    )
    with mock_server(script) as server:
        outputs = evaluate(env, server.base_url, monkeypatch, ["programs", "tool_seconds"])
    by_problem = {o["info"]["problem_id"]: o for o in outputs}
    for problem in (PAPER, GREEN):
        output = by_problem[problem.id]
        assert output["reward"] == 1.0, output["completion"]
        calls = seen[problem.id]
        assert len(calls) == 2
        second = calls[1][-1]
        assert second["role"] == "user" and "Output of the program" in second["content"]
        assert "FOUND " in second["content"] and "round 2 of 3" in second["content"]
        [program] = output["programs"]
        assert program["exit_status"] == 0 and not program["timed_out"]
        assert 0 < output["tool_seconds"] < 20
    output = by_problem[ENDLESS.id]
    calls = seen[ENDLESS.id]
    assert len(calls) == 3
    assert "stopped at the wall-clock limit (5 s)" in calls[1][-1]["content"]
    assert "the last round" in calls[2][-1]["content"]
    assert [p["timed_out"] for p in output["programs"]] == [True, False]
    assert output["reward"] == 1.0, output["completion"]


def test_the_last_round_is_final(sandbox: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """A program in the last round is not run: the reply is the final answer (scored 0)."""
    from ramseygadgets.integrations.verifiers_env import load_environment

    Reply = openai_mock().Reply
    asked: list[int] = []

    def script(info: Any) -> Any:
        asked.append(len(info.body["messages"]))
        return Reply(program_block("print(1)\n"))

    env = load_environment("python", problems=PAPER.id, python_rounds=2)
    with mock_server(script) as server:
        [output] = evaluate(env, server.base_url, monkeypatch, ["programs"])
    assert len(asked) == 2 and len(output["programs"]) == 1
    assert output["reward"] == 0.0


def test_a_rollout_that_times_out_kills_its_program(
    sandbox: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The environment's ``timeout_seconds`` ends a rollout whose program would run for minutes:
    the rollout's cleanup kills the program (no process is left, evaluate returns at once)."""
    from ramseygadgets.integrations.verifiers_env import load_environment

    Reply = openai_mock().Reply
    marker = "rg-verifiers-marker-" + secrets.token_hex(6)
    sleeper = "import time; time.sleep(600)"
    program = (
        "import os, sys\n"
        f"os.execv(sys.executable, [sys.executable, '-c', {sleeper!r}, {marker!r}])\n"
    )

    def script(info: Any) -> Any:
        return Reply(program_block(program))

    env = load_environment("python", problems=PAPER.id, python_wall_s=300, timeout_seconds=3)
    started = time.monotonic()
    with mock_server(script) as server:
        [output] = evaluate(env, server.base_url, monkeypatch, ["programs"])
    assert time.monotonic() - started < 60
    assert output["stop_condition"] == "timeout_reached"
    deadline = time.monotonic() + 5
    while processes_with(marker):
        assert time.monotonic() < deadline, "the program outlived its rollout"
        time.sleep(0.05)


def test_refused_in_one_line_where_the_sandbox_cannot_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ramseygadgets.integrations.verifiers_env import load_environment

    monkeypatch.setattr(
        sandbox_module, "_PROBE", [SandboxUnavailableError("bubblewrap cannot run here (test)")]
    )
    with pytest.raises(SandboxUnavailableError, match="bubblewrap cannot run here") as refused:
        load_environment("python", problems=PAPER.id)
    assert "\n" not in str(refused.value)
    assert load_environment("zero-shot", problems=PAPER.id)  # the other settings need none
