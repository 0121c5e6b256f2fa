"""``eval --setting python`` through the CLI on every backend: the scripted loopback model whose
programs search for gadgets with networkx and PySAT in the sandbox (native and text protocol,
two and three colours), replay (nothing runs), vLLM's batch path (a fake ``vllm``), the
``--python-*`` limits (stated in the prompt, recorded in config.json, a resume with others
refused, old run folders), the refusal where the sandbox cannot run, and ``prompt``."""

from __future__ import annotations

import json
import sys
import threading
import types
from pathlib import Path
from typing import Any

import pytest
from gadget_search import found_answer, search_program
from openai_mock import searching_model
from sandbox_helpers import need_sandbox
from typer.testing import CliRunner

from ramseygadgets import sandbox as sandbox_module
from ramseygadgets.cli import app
from ramseygadgets.problems.catalog import get_problem
from ramseygadgets.problems.problem import Problem
from ramseygadgets.sandbox import SandboxUnavailableError
from ramseygadgets.tools.python import PythonLimits

GREEN = Problem.of_colors("P3 | P3 | C4", "green-determiner")
GREEN_SOLUTION = {
    "edges": [[0, 1], [0, 2], [0, 3], [0, 4], [0, 5], [1, 2], [1, 3], [1, 4], [1, 5]],
    "e": [0, 1],
}
PROBLEMS = {p.id: p for p in (get_problem("p3_k3_red_determiner"), GREEN)}
#: Limits the runs ask for: stated in the prompt, recorded in config.json.
LIMIT_OPTIONS = ("--python-rounds", "3", "--python-wall-seconds", "30")


def run(*args: str):
    return CliRunner().invoke(app, ["eval", "--no-progress", *args])


def records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]


def write_dataset(path: Path) -> Path:
    """The (P3, K3)-red-determiner and a three-colour problem."""
    rows = [{"id": "p3_k3_red_determiner"}, {**GREEN.to_json(), "solution": GREEN_SOLUTION}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def scripted_model(tool_mode: str):
    """Round 1: run the search program; round 2: answer with the graph it printed."""
    return searching_model(PROBLEMS, tool_mode)


@pytest.fixture
def no_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        sandbox_module, "_PROBE", [SandboxUnavailableError("bubblewrap cannot run here (test)")]
    )


@pytest.fixture(scope="module")
def solved(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One python run per tool protocol on the scripted server (two problems, two runs)."""
    from openai_mock import MockOpenAIServer

    need_sandbox()
    base = tmp_path_factory.mktemp("python-eval")
    dataset = write_dataset(base / "set.jsonl")
    outs = {}
    for tool_mode in ("text", "native"):
        with MockOpenAIServer(scripted_model(tool_mode)) as server:
            out = base / tool_mode
            result = run(
                "--model", "openai/mock-model", "--base-url", server.base_url,
                "--dataset", str(dataset), "--setting", "python", "--runs", "2",
                "--tool-mode", tool_mode, *LIMIT_OPTIONS, "--out", str(out),
            )  # fmt: skip
            assert result.exit_code == 0, result.output
            (out / "requests.json").write_text(json.dumps([r.body for r in server.requests]))
        outs[tool_mode] = out
    return outs


@pytest.mark.parametrize("tool_mode", ["text", "native"])
def test_the_scripted_model_solves_two_and_three_colors(solved, tool_mode):
    out = solved[tool_mode]
    recs = records(out)
    assert sorted((r["problem_id"], r["run"]) for r in recs) == sorted(
        (p, run) for p in PROBLEMS for run in (0, 1)
    )
    for r in recs:
        assert r["setting"] == "python" and r["correct"] is True, r["reason"]
        assert r["rounds"] == 2 and r["tool_calls"] == 1 and r["error"] is None
        [program] = r["programs"]
        assert program["exit_status"] == 0 and not program["timed_out"]
        assert 0 < r["tool_seconds"] < 30
    assert {r["colors"] for r in recs} == {2, 3}
    config = json.loads((out / "config.json").read_text())
    expected = PythonLimits(rounds=3).to_json()
    expected["program"]["wall_s"] = 30.0
    assert config["settings"] == ["python"] and config["python_limits"] == expected
    assert config["tool_mode"] == tool_mode
    bodies = json.loads((out / "requests.json").read_text())
    first = bodies[0]
    system = first["messages"][0]["content"]
    assert "30 s wall clock" in system and "at most 3 rounds" in system
    if tool_mode == "native":
        assert first["tools"][0]["function"]["name"] == "run_python"
        assert "30 s wall clock" in first["tools"][0]["function"]["description"]
    else:
        assert "tools" not in first
    results = json.loads((out / "results.json").read_text())
    assert "python" in json.dumps(results)


def test_the_same_command_resumes_and_other_limits_are_refused(solved, tmp_path):
    out = solved["text"]
    dataset = write_dataset(tmp_path / "set.jsonl")
    common = ("--model", "openai/mock-model", "--base-url", "http://127.0.0.1:9/v1",
              "--dataset", str(dataset), "--setting", "python", "--runs", "2", "--out", str(out))  # fmt: skip
    again = run(*common, *LIMIT_OPTIONS)
    assert again.exit_code == 0 and "already recorded, ran 0" in again.output
    other = run(*common, "--python-rounds", "3", "--python-wall-seconds", "5")
    assert other.exit_code == 2
    assert "python_limits.program.wall_s: 30.0 -> 5.0" in other.output
    assert other.output.count("\n") == 1
    defaults = run(*common)  # the defaults are limits too: 6 rounds, not 3
    assert defaults.exit_code == 2 and "python_limits.rounds: 3 -> 6" in defaults.output


def test_replay_rescores_without_running_anything(solved, tmp_path, no_sandbox):
    file = solved["native"] / "samples.jsonl"
    out = tmp_path / "replay"
    result = run("--model", f"replay:{file}", "--out", str(out))
    assert result.exit_code == 0, result.output
    recs = records(out)
    assert len(recs) == 4 and {r["setting"] for r in recs} == {"python"}
    recorded = {(r["problem_id"], r["run"]): r for r in records(solved["native"])}
    for r in recs:  # graded again; the conversation and its programs as recorded
        old = recorded[(r["problem_id"], r["run"])]
        assert r["correct"] and r["messages"] == old["messages"]
        assert (r["rounds"], r["tool_calls"]) == (2, 1)
        assert r["programs"] == old["programs"] and r["tool_seconds"] == old["tool_seconds"]
    config = json.loads((out / "config.json").read_text())
    assert config["python_limits"] == PythonLimits().to_json()


@pytest.mark.parametrize("model", ["openai/mock-model", "solver"])
def test_refused_in_one_line_before_the_first_request(no_sandbox, mock_server, tmp_path, model):
    server = mock_server(scripted_model("text"))
    out = tmp_path / "run"
    result = run(
        "--model", model, "--base-url", server.base_url, "--problems", "p3_k3_red_determiner",
        "--setting", "zero-shot,python", "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 2
    assert result.output == "error: bubblewrap cannot run here (test)\n"
    assert not server.requests and not out.exists()


def test_other_settings_need_no_sandbox(no_sandbox, tmp_path):
    result = run("--problems", "p3_k3_red_determiner", "--runs", "1", "--out", str(tmp_path / "r"))
    assert result.exit_code == 0, result.output
    assert {r["setting"] for r in records(tmp_path / "r")} == {
        "zero-shot", "structural-hint", "size-hint", "multiround",
    }  # fmt: skip
    config = json.loads((tmp_path / "r" / "config.json").read_text())
    assert config["python_limits"] is None


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (("--setting", "zero-shot", "--python-rounds", "3"),
         "the --python-* limits go with --setting python only"),
        (("--setting", "python", "--python-rounds", "1"),
         "--python-rounds must be at least 2 (the last round answers), got 1"),
        (("--setting", "python", "--python-wall-seconds", "nan"),
         "--python-wall-seconds must be a positive number, got nan"),
        (("--setting", "python", "--python-memory-mb", "0"),
         "--python-memory-mb must be a positive number, got 0"),
        (("--setting", "pyhton",),
         "unknown setting 'pyhton'; choose from zero-shot, structural-hint, size-hint, "
         "example-hint, multiround, python"),
    ],
)  # fmt: skip
def test_bad_options_are_one_line(tmp_path, options, message):
    out = tmp_path / "run"
    result = run("--problems", "p3_k3_red_determiner", *options, "--out", str(out))
    assert result.exit_code == 2
    assert result.output == f"error: {message}\n" and not out.exists()


def test_old_run_folders_without_the_field(tmp_path, monkeypatch):
    """A config.json written before ``python_limits`` existed: a run without python resumes; one
    with python (its limits unknown) is refused."""
    need_sandbox()
    out = tmp_path / "old"
    args = ("--problems", "p3_k3_red_determiner", "--runs", "1", "--out", str(out))
    assert run("--setting", "zero-shot", *args).exit_code == 0
    config = json.loads((out / "config.json").read_text())
    del config["python_limits"]
    (out / "config.json").write_text(json.dumps(config))
    again = run("--setting", "zero-shot", *args)
    assert again.exit_code == 0 and "already recorded, ran 0" in again.output
    out = tmp_path / "old-python"
    args = ("--problems", "p3_k3_red_determiner", "--runs", "1", "--out", str(out))
    assert run("--setting", "python", *args).exit_code == 0
    config = json.loads((out / "config.json").read_text())
    del config["python_limits"]
    (out / "config.json").write_text(json.dumps(config))
    refused = run("--setting", "python", *args)
    assert refused.exit_code == 2 and "python_limits: null -> " in refused.output


# -- vLLM's batch path (vLLM needs a GPU: a fake module) ----------------------------------------
class PythonLLM:
    """Stands in for ``vllm.LLM``: round 1 runs the search program, round 2 answers with what it
    printed; records each ``chat`` call and the threads that fed the programs."""

    calls: list[dict[str, Any]] = []

    def __init__(self, model: str, **engine_args: Any):
        self.model = model

    def chat(self, messages, sampling_params, use_tqdm=True, **kwargs):
        PythonLLM.calls.append({"messages": messages, "params": sampling_params})
        outputs = []
        for conversation, params in zip(messages, sampling_params):
            task = conversation[1]["content"]
            problem = next(
                p for p in PROBLEMS.values() if task.startswith(f"Construct a {p.title}:")
            )
            if len(conversation) == 2:
                text = f"```python run\n{search_program(problem)}```"
            else:
                text = found_answer(conversation[-1]["content"])
            choice = types.SimpleNamespace(text=text, token_ids=[0] * 10, finish_reason="stop")
            outputs.append(
                types.SimpleNamespace(prompt_token_ids=[0] * 100, outputs=[choice] * params.n)
            )
        return outputs


class FakeSamplingParams:
    def __init__(self, n: int = 1, **kwargs: Any):
        self.n, self.kwargs = n, kwargs


def test_vllm_batches_and_runs_the_programs_side_by_side(tmp_path, monkeypatch):
    need_sandbox()
    fake = types.ModuleType("vllm")
    fake.LLM, fake.SamplingParams, fake.__version__ = PythonLLM, FakeSamplingParams, "fake"
    monkeypatch.setitem(sys.modules, "vllm", fake)
    PythonLLM.calls = []
    threads: set[int] = set()
    from ramseygadgets.harness.conversation import Conversation

    feed = Conversation.feed

    def counting_feed(self, completion):
        threads.add(threading.get_ident())
        return feed(self, completion)

    monkeypatch.setattr(Conversation, "feed", counting_feed)
    out = tmp_path / "run"
    dataset = write_dataset(tmp_path / "set.jsonl")
    result = run(
        "--model", "vllm/some/model", "--dataset", str(dataset), "--setting", "python",
        "--runs", "2", *LIMIT_OPTIONS, "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    first, second = PythonLLM.calls
    assert [p.n for p in first["params"]] == [2, 2]  # one request per problem, n = runs
    assert len(second["params"]) == 4 and all(p.n == 1 for p in second["params"])
    assert "Output of the program" in second["messages"][0][-1]["content"]
    recs = records(out)
    assert len(recs) == 4 and all(r["correct"] for r in recs), [r["reason"] for r in recs]
    assert all(r["rounds"] == 2 and r["programs"][0]["exit_status"] == 0 for r in recs)
    assert {r["colors"] for r in recs} == {2, 3}
    assert len(threads - {threading.get_ident()}) >= 1  # programs fed off the main thread
    config = json.loads((out / "config.json").read_text())
    assert config["python_limits"]["rounds"] == 3 and config["backend"]["kind"] == "vllm-offline"


# -- prompt ---------------------------------------------------------------------------------------
def test_prompt_states_the_limits_asked_for():
    result = CliRunner().invoke(
        app,
        ["prompt", "p3_k3_red_determiner", "--setting", "python", "--python-rounds", "4",
         "--python-wall-seconds", "7.5", "--python-cpu-seconds", "9", "--python-memory-mb", "512",
         "--python-total-seconds", "40"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    text = result.output
    assert "7.5 s wall clock, 9 s CPU time, 512 MB memory" in text
    assert "40 s of program time in all" in text and "at most 4 rounds" in text
    refused = CliRunner().invoke(app, ["prompt", "p3_k3_red_determiner", "--python-rounds", "4"])
    assert refused.exit_code == 2
    assert refused.output == "error: the --python-* limits go with --setting python only\n"


def test_help_lists_the_setting_and_its_options():
    for command in ("eval", "prompt"):
        result = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "200"})
        text = " ".join(result.output.split())
        assert "python" in text and "bubblewrap" in text, command
        for option in ("--python-rounds", "--python-total-seconds", "--python-wall-seconds",
                       "--python-cpu-seconds", "--python-memory-mb"):  # fmt: skip
            assert option in text, (command, option)
