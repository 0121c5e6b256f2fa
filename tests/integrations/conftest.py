"""Fixtures for the integration tests: scripted Inspect runs shared by several test files."""

from __future__ import annotations

import sys
from collections.abc import Callable
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
