"""Fixtures for the integration tests: scripted Inspect runs shared by several test files."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


# -- the zero-shot run shared by the task tests and the log-reader tests -----------------------
@pytest.fixture(scope="session")
def zero_shot_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any]:
    pytest.importorskip("inspect_ai", reason="the inspect extra is not installed")
    from inspect_scripted import (
        WRONG_SENDER,
        ZERO_SHOT_CORRECT,
        ZERO_SHOT_MIXED,
        ZERO_SHOT_UNPARSABLE,
        ScriptedModel,
        Text,
        run_task,
        solution_answer,
    )

    script = ScriptedModel(
        {
            ZERO_SHOT_CORRECT: [[solution_answer(ZERO_SHOT_CORRECT)]] * 2,
            ZERO_SHOT_MIXED: [[solution_answer(ZERO_SHOT_MIXED)], [WRONG_SENDER]],
            ZERO_SHOT_UNPARSABLE: [[Text("I am not sure such a gadget exists.")]] * 2,
        }
    )
    log = run_task(script, tmp_path_factory.mktemp("inspect-zero-shot"), epochs=2, pass_k=1)
    return script, log


@pytest.fixture(scope="session")
def score_of() -> Callable[[Any, str, int], Any]:
    def find(log: Any, problem_id: str, epoch: int) -> Any:
        for sample in log.samples:
            if sample.id == problem_id and sample.epoch == epoch:
                return sample
        raise KeyError((problem_id, epoch))

    return find


# -- a real OpenAI-compatible server: llama.cpp (llama-cpp-python) serving SmolLM2 --------------
class LlamaServer:
    """llama-cpp-python's server on a free loopback port, two aliases of the same GGUF:
    ``smollm2`` (the GGUF's own chat template) and ``smollm2-tools`` (chat format
    ``chatml-function-calling``, which accepts OpenAI ``tools``)."""

    MODEL = "smollm2"
    TOOLS_MODEL = "smollm2-tools"
    READY_TIMEOUT_S = 180.0

    def __init__(self, gguf: Path, workdir: Path) -> None:
        import socket

        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        common = {
            "model": str(gguf),
            "n_ctx": 8192,
            "n_threads": 1,  # generation: one thread never waits on a descheduled sibling
            "n_threads_batch": 2,
            "verbose": False,
        }
        config = {
            "host": "127.0.0.1",
            "port": self.port,
            "models": [
                {**common, "model_alias": self.MODEL},
                {
                    **common,
                    "model_alias": self.TOOLS_MODEL,
                    "chat_format": "chatml-function-calling",
                },
            ],
        }
        self.config_file = workdir / "llama-server.json"
        self.config_file.write_text(json.dumps(config))
        self.log = workdir / "llama-server.log"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> LlamaServer:
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "llama_cpp.server", "--config_file", str(self.config_file)],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + self.READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"llama.cpp server exited early:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as reply:
                    if reply.status == 200:
                        return self
            except OSError:
                time.sleep(0.5)
        self.stop()
        raise RuntimeError(
            f"llama.cpp server not ready in {self.READY_TIMEOUT_S:g} s:\n{self.log_tail()}"
        )

    def log_tail(self) -> str:
        return self.log.read_text(errors="replace")[-3000:] if self.log.exists() else ""

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)


@pytest.fixture(scope="session")
def llama_server(
    smollm2_gguf: Path, require_real_model: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LlamaServer]:
    """One llama.cpp server per test session (started on first use, stopped at the end)."""
    require_real_model(
        importlib.util.find_spec("llama_cpp") is not None, "llama-cpp-python[server]"
    )
    require_real_model(importlib.util.find_spec("uvicorn") is not None, "llama-cpp-python[server]")
    server = LlamaServer(smollm2_gguf, tmp_path_factory.mktemp("llama-server"))
    try:
        yield server.start()
    finally:
        server.stop()
