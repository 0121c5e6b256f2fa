"""The python setting's prompts and its text protocol (no sandbox needed)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.problems.catalog import get_problem
from ramseygadgets.problems.problem import Problem
from ramseygadgets.prompts import (
    ALL_SETTINGS,
    SETTINGS,
    PromptError,
    build_prompt,
    python_followup_message,
    settings_for,
)
from ramseygadgets.sandbox import SandboxError, SandboxLimits
from ramseygadgets.tools.python import (
    PythonLimits,
    extract_program,
    program_from_arguments,
)

PROBLEM = get_problem("p3_k3_red_determiner")


def test_python_is_a_setting_run_only_when_asked_for():
    assert "python" not in SETTINGS and ALL_SETTINGS == (*SETTINGS, "python")
    assert "python" not in settings_for(PROBLEM)
    assert settings_for(PROBLEM, extra=True) == [*settings_for(PROBLEM), "python"]


def test_the_prompt_states_the_tool_the_limits_and_the_libraries():
    limits = PythonLimits(
        rounds=4, total_seconds=90, stdout_chars=1500, program=SandboxLimits(wall_s=20, cpu_s=15)
    )
    prompt = build_prompt(PROBLEM, "python", python=limits)
    system, task = (m["content"] for m in prompt.messages)
    assert prompt.rounds == 4 and prompt.tool_mode == "text" and prompt.tools is None
    for text in ("```python run", "20 s wall clock", "15 s CPU time", "2048 MB memory"):
        assert text in system
    for text in (
        "90 s of program time",
        "first 1500 characters of its stdout",
        "networkx and python-sat",
    ):
        assert text in system
    assert "coloring tool" not in system.lower() and "In round 4 programs no longer run" in system
    assert "In rounds 1 to 3 you may either run one Python program" in task


def test_native_prompt_declares_run_python():
    prompt = build_prompt(PROBLEM, "python", tool_mode="native")
    (tool,) = prompt.tools
    assert tool["function"]["name"] == "run_python" and prompt.rounds == 6
    assert tool["function"]["parameters"]["required"] == ["code"]
    assert "60 s wall clock" in tool["function"]["description"]
    assert "`run_python`" in prompt.messages[0]["content"]
    assert "```python run" not in prompt.messages[0]["content"]


def test_three_colors():
    green = Problem.of_colors("P3 | P3 | C4", "green-determiner")
    system = build_prompt(green, "python").messages[0]["content"]
    assert "green" in system and "# Running Python" in system


def test_followup_messages():
    text = python_followup_message(2, 3, "Exit status: 0")["content"]
    assert "Output of the program you ran in round 1" in text and "round 2 of 3" in text
    last = python_followup_message(3, 3, None, tool_mode="native")["content"]
    assert "Output" not in last and "programs no longer run" in last
    with pytest.raises(PromptError):
        python_followup_message(4, 3, "x")


@pytest.mark.parametrize(
    "reply, code",
    [
        ("Try:\n```python run\nprint(1)\n```\n", "print(1)\n"),
        ("```Python Run\nprint(2)\n```", "print(2)\n"),
        ("```run_python\nprint(3)\n```", "print(3)\n"),
        ("```python run\nprint(1)\n```\n```python run\nprint(4)\n```", "print(4)\n"),
        ("cut off:\n```python run\nprint(5)\n", "print(5)\n"),
        ("<think>```python run\nprint(6)\n```</think>\nanswer", None),
        ("```python\nprint(7)\n```", None),
        ("<think>still thinking ```python run\nprint(8)\n```", None),
    ],
)
def test_extract_program(reply, code):
    request = extract_program(reply)
    assert (request.code if request is not None else None) == code


def test_empty_and_bad_requests():
    assert extract_program("```python run\n\n```").error == "the program is empty"
    assert program_from_arguments('{"code": "print(1)"}').code == "print(1)"
    assert program_from_arguments("[1]").error.startswith("expected the arguments")


def test_limits_are_checked():
    with pytest.raises(SandboxError, match="at least 2 rounds"):
        PythonLimits(rounds=1)
    with pytest.raises(SandboxError, match="total_seconds"):
        PythonLimits(total_seconds=0)
    assert json.dumps(PythonLimits().to_json())


def test_cli_prompt_setting_python():
    result = CliRunner().invoke(app, ["prompt", PROBLEM.id, "--setting", "python"])
    assert result.exit_code == 0, result.output
    assert "# Running Python" in result.output and "This is round 1 of 6." in result.output
