"""``eval --setting python`` stopped in the middle of a program: SIGKILL leaves no sandbox
behind and the resumed run asks the sample again and completes; Ctrl-C stops the program at
once (exit 130) instead of waiting for it."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from gadget_search import found_answer, search_program
from openai_mock import Reply, RequestInfo
from sandbox_helpers import need_sandbox, processes_with
from test_resume import by_key, start_subprocess
from typer.testing import CliRunner

from ramseygadgets.answers import format_answer
from ramseygadgets.cli import app
from ramseygadgets.problems.catalog import get_problem
from ramseygadgets.problems.solutions import get_solution

pytestmark = pytest.mark.timeout(300)

#: The sample whose program sleeps; the other answers at once.
SLEEPER = "p3_k3_red_determiner"
QUICK = "p3_k3_blue_determiner"


@pytest.fixture(autouse=True)
def sandbox_needed() -> None:
    need_sandbox()


def sleeping_program(marker: str) -> str:
    """A program that replaces itself by a sleeper with ``marker`` on its command line."""
    sleeper = "import time; time.sleep(600)"
    return (
        "import os, sys\nprint('started', flush=True)\n"
        f"os.execv(sys.executable, [sys.executable, '-c', {sleeper!r}, {marker!r}])\n"
    )


def script(marker: str):
    """QUICK answers in round 1.  SLEEPER's first round-1 request gets the sleeping program; a
    later one (the resumed run) the search program, then the answer it printed."""

    def reply(info: RequestInfo) -> Reply:
        problem_id = info.label.split("/")[0]
        if problem_id == QUICK:
            answer = format_answer(get_solution(QUICK).candidate, get_problem(QUICK).kind)
            return Reply(f"Here it is.\n{answer}")
        if info.round_no == 1 and info.attempt == 0:
            return Reply(f"```python run\n{sleeping_program(marker)}```")
        if info.round_no == 1:
            return Reply(f"```python run\n{search_program(get_problem(SLEEPER))}```")
        return Reply(found_answer(info.body["messages"][-1]["content"]))

    return reply


def eval_args(server, out: Path) -> list[str]:
    return [
        "eval", "--no-progress", "--model", "openai/mock-model", "--base-url", server.base_url,
        "--problems", f"{SLEEPER},{QUICK}", "--setting", "python", "--runs", "1",
        "--max-concurrency", "2", "--python-wall-seconds", "120", "--out", str(out),
    ]  # fmt: skip


def wait_until(condition, proc: subprocess.Popen, what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if proc.poll() is not None:
            raise AssertionError(f"eval ended before {what}: {proc.communicate()}")
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.05)


def gone(marker: str, timeout: float = 5.0) -> bool:
    """Whether no process with ``marker`` is left (within ``timeout``)."""
    deadline = time.monotonic() + timeout
    while processes_with(marker):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def test_sigkill_in_the_middle_of_a_program_then_resume(mock_server, tmp_path):
    marker = "rg-eval-marker-" + secrets.token_hex(6)
    server = mock_server(script(marker))
    out = tmp_path / "run"
    proc = start_subprocess(eval_args(server, out))
    try:
        wait_until(lambda: processes_with(marker), proc, "the program started")
        wait_until(lambda: lines(out / "samples.jsonl") >= 1, proc, "the quick sample")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert gone(marker), f"a sandbox outlived the killed eval: {processes_with(marker)}"
    survived = by_key(out)
    assert list(survived) == [(QUICK, "python", 0)]

    result = CliRunner().invoke(app, eval_args(server, out))
    assert result.exit_code == 0, result.output
    assert "resumed: 1 samples were already recorded, ran 1" in result.output
    asked = [r for r in server.chat_requests() if r.label == f"{SLEEPER}/python/0/1"]
    assert len(asked) == 2  # the killed sample was asked again
    final = by_key(out)
    assert final[(QUICK, "python", 0)] == survived[(QUICK, "python", 0)]
    record = final[(SLEEPER, "python", 0)]
    assert record["correct"] is True and record["tool_calls"] == 1, record["reason"]
    [program] = record["programs"]
    assert program["exit_status"] == 0 and not program["timed_out"]
    assert not processes_with(marker)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupt_stops_the_program_at_once(mock_server, tmp_path, signum):
    marker = "rg-eval-marker-" + secrets.token_hex(6)
    server = mock_server(script(marker))
    out = tmp_path / "run"
    proc = start_subprocess(eval_args(server, out))
    try:
        wait_until(lambda: processes_with(marker), proc, "the program started")
        wait_until(lambda: lines(out / "samples.jsonl") >= 1, proc, "the quick sample")
        started = time.monotonic()
        proc.send_signal(signum)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert time.monotonic() - started < 20, "eval waited for the program"
    assert proc.returncode == 128 + signum, stderr
    assert "interrupted: 1/2 samples recorded" in stderr and "resume with:" in stderr
    assert gone(marker)
    assert list(by_key(out)) == [(QUICK, "python", 0)]  # the stopped sample is not recorded


FAKE_VLLM = '''
"""A fake vllm (the real one needs a GPU): every reply is the sleeping program."""
import os, types

__version__ = "fake"
PROGRAM = os.environ["RG_PROGRAM"]


class SamplingParams:
    def __init__(self, n=1, **kwargs):
        self.n = n


class LLM:
    def __init__(self, model, **kwargs):
        pass

    def chat(self, messages, sampling_params, use_tqdm=True, **kwargs):
        choice = types.SimpleNamespace(
            text="```python run\\n" + PROGRAM + "```", token_ids=[0], finish_reason="stop"
        )
        return [
            types.SimpleNamespace(prompt_token_ids=[0], outputs=[choice] * p.n)
            for p in sampling_params
        ]
'''


def test_an_interrupt_stops_the_programs_of_a_vllm_wave(tmp_path):
    """The batch path feeds a wave's programs side by side; Ctrl-C kills them all at once."""
    marker = "rg-eval-marker-" + secrets.token_hex(6)
    (tmp_path / "fake" / "vllm").mkdir(parents=True)
    (tmp_path / "fake" / "vllm" / "__init__.py").write_text(FAKE_VLLM)
    out = tmp_path / "run"
    env = {
        **os.environ,
        "PYTHONPATH": str(tmp_path / "fake"),
        "RG_PROGRAM": sleeping_program(marker),
    }
    args = [
        "eval", "--no-progress", "--model", "vllm/some/model", "--problems", f"{SLEEPER},{QUICK}",
        "--setting", "python", "--runs", "1", "--python-wall-seconds", "120", "--out", str(out),
    ]  # fmt: skip
    code = "import sys; from ramseygadgets.cli import main; sys.argv = ['ramseygadgets', *sys.argv[1:]]; main()"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        wait_until(lambda: len(processes_with(marker)) >= 2, proc, "both programs started")
        started = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert time.monotonic() - started < 20, "eval waited for the programs"
    assert proc.returncode == 130, stderr
    assert "interrupted: 0/2 samples recorded" in stderr
    assert gone(marker)
