"""Fixtures for the integration tests: scripted Inspect runs shared by several test files."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ramseygadgets.training.llama_server import LlamaServer

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
class SmolLM2Server(LlamaServer):
    """llama.cpp on a free loopback port, two aliases of the same GGUF: ``smollm2`` (the GGUF's
    own chat template) and ``smollm2-tools`` (chat format ``chatml-function-calling``, which
    accepts OpenAI ``tools``). A server that dies fails the waiting test at once, with its log."""

    MODEL = "smollm2"
    TOOLS_MODEL = "smollm2-tools"

    def __init__(self, gguf: Path, workdir: Path) -> None:
        common = {
            "model": str(gguf),
            "n_ctx": 8192,
            "n_threads": 1,  # generation: one thread never waits on a descheduled sibling
            "n_threads_batch": 2,
            "verbose": False,
        }
        chat_tools = {"chat_format": "chatml-function-calling"}
        super().__init__(
            [
                {**common, "model_alias": self.MODEL},
                {**common, "model_alias": self.TOOLS_MODEL, **chat_tools},
            ],
            workdir,
        )


@pytest.fixture(scope="session")
def llama_server(
    smollm2_gguf: Path, require_real_model: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SmolLM2Server]:
    """One llama.cpp server per test session (started on first use, stopped at the end)."""
    require_real_model(
        importlib.util.find_spec("llama_cpp") is not None, "llama-cpp-python[server]"
    )
    require_real_model(importlib.util.find_spec("uvicorn") is not None, "llama-cpp-python[server]")
    server = SmolLM2Server(smollm2_gguf, tmp_path_factory.mktemp("llama-server"))
    try:
        yield server.start()
    finally:
        server.stop()
