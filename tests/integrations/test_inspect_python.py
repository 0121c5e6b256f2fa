"""The python setting in the Inspect task (``-T setting=python``), run with Inspect's real
``eval`` on the scripted ``mockllm/model``: a model whose program searches for a gadget with
networkx and PySAT in the sandbox (the same ``PythonTool`` as ``eval``'s), then answers from what
it printed; native ``run_python`` calls, the limits as task options, a hostile program recorded
and the run going on, and the refusal where the sandbox cannot run."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai", reason="the inspect extra is not installed")
pytestmark = pytest.mark.filterwarnings(
    "ignore:The .initial. parameter is deprecated:DeprecationWarning"
)

from gadget_search import found_answer, search_program  # noqa: E402
from inspect_ai.tool import ToolError  # noqa: E402
from inspect_scripted import Calls, Reads, ScriptedModel, Text, run_task  # noqa: E402
from sandbox_helpers import need_sandbox  # noqa: E402

from ramseygadgets import sandbox as sandbox_module  # noqa: E402
from ramseygadgets.integrations.inspect_log import sample_record  # noqa: E402
from ramseygadgets.integrations.inspect_python import python_limits, run_python  # noqa: E402
from ramseygadgets.integrations.inspect_task import build_samples, ramsey_gadgets  # noqa: E402
from ramseygadgets.problems.catalog import get_problem  # noqa: E402
from ramseygadgets.problems.problem import Problem  # noqa: E402
from ramseygadgets.prompts import build_prompt  # noqa: E402
from ramseygadgets.sandbox import SandboxError, SandboxLimits, SandboxUnavailableError  # noqa: E402
from ramseygadgets.tools.python import TOOL_NAME, PythonLimits  # noqa: E402

GREEN = Problem.of_colors("P3 | P3 | C4", "green-determiner")  # three colours, extended set
#: The task options of the runs below, and the limits they make.
OPTIONS = {"python_rounds": 3, "python_total_seconds": 60, "python_wall_s": 20, "python_cpu_s": 20}
LIMITS = PythonLimits(rounds=3, total_seconds=60, program=SandboxLimits(wall_s=20, cpu_s=20))


@pytest.fixture
def sandbox() -> None:
    need_sandbox()  # skipped where bubblewrap cannot run; failed in CI


def program_block(code: str) -> Text:
    return Text(f"Let me search.\n\n```python run\n{code}```\n")


def answer_from_output(role: str) -> Reads:
    """Answer with the graph the program printed (the last ``role`` message that shows one)."""

    def read(messages: list[Any]) -> Text:
        shown = [m.text for m in messages if m.role == role and "FOUND " in m.text]
        return Text(found_answer(shown[-1]))

    return Reads(read)


def score(log: Any, problem_id: str) -> Any:
    return next(s for s in log.samples if s.id == problem_id).scores["ramsey_scorer"]


# -- dataset and options ----------------------------------------------------------------------
def test_samples_carry_the_python_prompt_and_its_limits() -> None:
    samples = build_samples("python")
    assert len(samples) == 70  # every problem has the setting
    first = samples[0]
    expected = build_prompt(first.id, "python").messages
    assert [(m.role, m.text) for m in first.input] == [(m["role"], m["content"]) for m in expected]
    assert first.metadata["python_limits"] == PythonLimits().to_json()
    assert "```python run" in first.input[0].text  # the text protocol states the tool


def test_limits_are_task_options_stated_in_the_prompt(sandbox: None) -> None:
    assert python_limits(**{k.removeprefix("python_"): v for k, v in OPTIONS.items()}) == LIMITS
    task = ramsey_gadgets(setting="python", problems="p3_k3_red_determiner", **OPTIONS)
    [sample] = task.dataset
    assert sample.metadata["python_limits"] == task.metadata["python_limits"] == LIMITS.to_json()
    expected = build_prompt("p3_k3_red_determiner", "python", python=LIMITS).messages
    assert [m.text for m in sample.input] == [m["content"] for m in expected]
    assert "20 s wall clock" in sample.input[0].text and "at most 3 rounds" in sample.input[0].text
    with pytest.raises(SandboxError, match="at least 2 rounds"):
        ramsey_gadgets(setting="python", python_rounds=1)
    with pytest.raises(SandboxError, match="wall_s must be a positive number"):
        ramsey_gadgets(setting="python", python_wall_s=0)


# -- the scripted model solves through the sandbox -------------------------------------------
def test_text_protocol_search_then_answer(sandbox: None, tmp_path: Path) -> None:
    solved = ["p3_k3_red_determiner", "p3_k3_blue_determiner"]
    endless = "k13_k4_red_determiner"  # a program that runs into the wall-clock limit, twice
    loop = program_block("while True:\n    pass\n")
    script = ScriptedModel(
        {
            **{
                p: [[program_block(search_program(get_problem(p))), answer_from_output("user")]]
                for p in solved
            },
            endless: [[loop, loop, loop]],
        },
        setting="python",
        python=LIMITS,
    )
    # 5 s: a search program takes about a second alone; 2 s cut one short on a loaded machine
    log = run_task(script, tmp_path, setting="python", **{**OPTIONS, "python_wall_s": 5})
    for problem_id in solved:
        meta = score(log, problem_id).metadata
        assert score(log, problem_id).value == "C", meta["reason"]
        assert meta["rounds"] == 2 and meta["tool_uses"] == 1
        [program] = meta["programs"]
        assert program["exit_status"] == 0 and not program["timed_out"]
        assert 0 < meta["tool_seconds"] < 20 and meta["setting"] == "python"
        second = script.for_problem(problem_id)[1].input[-1]
        assert second.role == "user" and "Output of the program" in second.text
        assert "FOUND " in second.text and "round 2 of 3" in second.text
    assert all(c.tools == [] for c in script.calls)  # the text protocol declares no tools

    # the endless program is stopped at the limit and recorded; the third round must answer
    meta = score(log, endless).metadata
    calls = script.for_problem(endless)
    assert [c.round_no for c in calls] == [1, 2, 3]
    assert "stopped at the wall-clock limit (5 s)" in calls[1].input[-1].text
    assert "the last round" in calls[2].input[-1].text
    assert [p["timed_out"] for p in meta["programs"]] == [True, True]
    assert score(log, endless).value == "I" and meta["parse_error"] is not None
    assert meta["rounds"] == 3 and meta["tool_uses"] == 2
    json.dumps(meta)  # the log holds it


def test_native_run_python_on_a_paper_and_a_three_color_problem(
    sandbox: None, tmp_path: Path
) -> None:
    paper = "p3_k3_red_determiner"

    def search(problem: Problem) -> Calls:
        code = search_program(problem)
        return Calls(({"code": code}, {"code": "print('second')"}), function=TOOL_NAME)

    script = ScriptedModel(
        {
            paper: [[search(get_problem(paper)), answer_from_output("tool")]],
            GREEN.id: [[search(GREEN), answer_from_output("tool")]],
        },
        setting="python",
        tool_mode="native",
        problems={GREEN.id: GREEN},
        python=LIMITS,
    )
    log = run_task(
        script,
        tmp_path,
        setting="python",
        tool_mode="native",
        problem_set="extended",
        problems=f"{GREEN.id}",
        **OPTIONS,
    )
    paper_log = run_task(
        script, tmp_path / "paper", setting="python", tool_mode="native", problems=paper, **OPTIONS
    )
    for problem_id, run in ((GREEN.id, log), (paper, paper_log)):
        sample = next(s for s in run.samples if s.id == problem_id)
        meta = sample.scores["ramsey_scorer"].metadata
        assert sample.scores["ramsey_scorer"].value == "C", meta["reason"]
        assert meta["rounds"] == 2 and meta["tool_uses"] == 1 and len(meta["programs"]) == 1
        first, ignored = [m for m in sample.messages if m.role == "tool"]
        assert first.error is None and first.text.startswith("Exit status: 0")
        assert ignored.error is not None and "only one program is run" in ignored.error.message
        calls = script.for_problem(problem_id)
        assert [t.name for t in calls[0].tools] == [TOOL_NAME]
        assert "20 s wall clock" in calls[0].tools[0].description
        assert [c.tool_choice for c in calls] == ["auto", "auto"]
        assert calls[1].input[-1].role == "user" and "round 2 of 3" in calls[1].input[-1].text
        # ``report`` reads the log's sample as eval's: tool calls, tool seconds, programs
        record = sample_record(sample, "mock")
        assert record["setting"] == "python" and record["tool_calls"] == 1
        assert record["programs"] == meta["programs"] and record["tool_seconds"] > 0


def test_native_last_round_must_answer(sandbox: None, tmp_path: Path) -> None:
    problem_id = "p3_k3_red_determiner"
    again = Calls(({"code": "print(1)"},), function=TOOL_NAME)
    script = ScriptedModel(
        {problem_id: [[again, Calls(({"code": "  "},), function=TOOL_NAME), again]]},
        setting="python",
        tool_mode="native",
        python=LIMITS,
    )
    log = run_task(script, tmp_path, setting="python", tool_mode="native", **OPTIONS)
    calls = script.for_problem(problem_id)
    assert [c.tool_choice for c in calls] == ["auto", "auto", "none"]
    meta = score(log, problem_id).metadata
    assert score(log, problem_id).value == "I" and meta["rounds"] == 3
    assert len(meta["programs"]) == 1  # the empty program ran nothing: a one-line tool error
    [sample] = log.samples
    errors = [m.error.message for m in sample.messages if m.role == "tool" and m.error]
    assert errors == ["the program is empty."]


def test_run_python_standalone(sandbox: None) -> None:
    tool = run_python(LIMITS.to_json())
    assert "stdout:\n| 42" in asyncio.run(tool(code="print(6 * 7)"))
    with pytest.raises(ToolError, match="the program is empty"):
        asyncio.run(tool(code=" "))


# -- no sandbox: refused in one line, nothing asked --------------------------------------------
def test_refused_where_the_sandbox_cannot_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(
        sandbox_module, "_PROBE", [SandboxUnavailableError("bubblewrap cannot run here (test)")]
    )
    with pytest.raises(SandboxUnavailableError, match="bubblewrap cannot run here") as refused:
        ramsey_gadgets(setting="python", problems="p3_k3_red_determiner")
    assert "\n" not in str(refused.value)
    script = ScriptedModel({"p3_k3_red_determiner": [[Text("never asked")]]}, setting="python")
    with pytest.raises(SandboxUnavailableError):
        run_task(script, tmp_path, setting="python")
    assert not script.calls
    with pytest.raises(SandboxUnavailableError):
        run_python()
    assert build_samples("python", "p3_k3_red_determiner")  # the prompts need no sandbox


@pytest.mark.integration
def test_inspect_cli_refuses_in_one_line(tmp_path: Path) -> None:
    """``inspect eval ... -T setting=python`` where bubblewrap is not on the PATH: Inspect's CLI
    prints the one line (no traceback) and fails before any sample."""
    venv_bin = Path(sys.executable).parent
    env = {"HOME": str(tmp_path), "PATH": str(venv_bin), "COLUMNS": "400"}
    env.update({k: v for k, v in os.environ.items() if k in ("LANG", "LC_ALL")})
    done = subprocess.run(
        [
            str(venv_bin / "inspect"),
            "eval",
            "ramseygadgets/ramsey_gadgets",
            "-T",
            "setting=python",
            "-T",
            "problems=p3_k3_red_determiner",
            "--model",
            "mockllm/model",
            "--log-dir",
            str(tmp_path / "logs"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
    )
    output = (done.stdout + done.stderr).strip()
    assert done.returncode != 0 and "Traceback" not in output, output[-3000:]
    [line] = output.splitlines()
    assert line.startswith("the python setting needs bubblewrap and util-linux (bwrap, ")
    assert line.endswith("model code never runs outside the sandbox")
    assert not list((tmp_path / "logs").glob("*.eval"))
