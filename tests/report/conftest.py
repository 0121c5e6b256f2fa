"""Hand-built run directories in the exact run-directory format of docs/eval.md (config.json + samples.jsonl).

Answers are real: a "correct" sample carries the shipped minimal solution, a "wrong" one K4 with a
designated edge/vertices, and both are scored by the verifier, so the fixtures cannot claim a
verdict the verifier would not give.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.problems.catalog import get_problem
from ramseygadgets.problems.solutions import get_solution
from ramseygadgets.runs.config import dataset_hash
from ramseygadgets.verification.selection import named_problem_set, with_extended_ids
from ramseygadgets.verification.verifier import verify

K4_EDGES = [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]


WRONG_GRAPHS = ([[0, 1], [1, 2], [2, 3]], K4_EDGES)


def answer(problem_id: str, kind: str) -> dict[str, Any]:
    """A candidate JSON answer: the shipped solution (kind 'correct') or the first of P4, K4 with
    designated items that the verifier rejects (kind 'wrong')."""
    problem = get_problem(problem_id)
    if kind == "correct":
        return get_solution(problem_id).candidate.to_json(problem.kind)
    for edges in WRONG_GRAPHS:
        data: dict[str, Any] = {"edges": edges}
        if problem.gadget.edge_names:
            data["e"] = [0, 1]
            if len(problem.gadget.edge_names) == 2:
                data["f"] = [2, 3]
        if problem.gadget.vertex_names:
            data["vertices"] = [0, 1, 2]
        if not verify(problem, Candidate.from_json(data, problem.kind)).correct:
            return data
    raise AssertionError(f"no wrong answer prepared for {problem_id}")


def make_sample(
    problem_id: str,
    setting: str,
    run: int,
    outcome: str = "correct",
    *,
    tokens: int = 1000,
    model: str = "test-model",
    min_vertices: int | None = -1,
    **overrides: Any,
) -> dict[str, Any]:
    """One samples.jsonl record with every schema field; outcome in correct / wrong / parse-failure /
    truncated / error."""
    problem = get_problem(problem_id)
    record: dict[str, Any] = {
        "problem_id": problem.id,
        "setting": setting,
        "run": run,
        "model": model,
        "tier": problem.tier,
        "gadget": problem.gadget.value,
        "min_vertices": get_solution(problem.id).n if min_vertices == -1 else min_vertices,
        "messages": [
            {"role": "user", "content": "task"},
            {"role": "assistant", "content": "answer"},
        ],
        "response": "answer",
        "reasoning": None,
        "rounds": 1,
        "usage": {
            "prompt_tokens": tokens // 4,
            "completion_tokens": tokens - tokens // 4,
            "reasoning_tokens": None,
            "total_tokens": tokens,
        },
        "finish_reason": "stop",
        "latency_s": 0.5,
        "retries": 0,
        "error": None,
        "parse_error": None,
        "candidate": None,
        "correct": False,
        "reason": "",
        "witness": None,
        "finished_at": "2026-12-01T00:00:00Z",
    }
    if outcome in ("correct", "wrong"):
        candidate = answer(problem.id, outcome)
        verdict = verify(problem, Candidate.from_json(candidate, problem.kind))
        assert verdict.correct == (outcome == "correct"), (problem.id, outcome, verdict.reason)
        reply = json.dumps(candidate)  # the report grades the reply again, as eval did
        record.update(
            messages=[{"role": "user", "content": "task"}, {"role": "assistant", "content": reply}],
            response=reply,
            candidate=candidate,
            correct=verdict.correct,
            reason=verdict.reason,
            witness=verdict.witness.to_json() if verdict.witness else None,
        )
    elif outcome == "parse-failure":
        record.update(
            parse_error="no answer found in the response",
            reason="no answer found in the response",
            response="I think the answer is a graph with some edges.",
        )
    elif outcome == "truncated":
        record.update(
            finish_reason="length",
            parse_error="response was cut off before an answer",
            reason="response was cut off before an answer",
            response="Let me think... " * 20,
        )
    elif outcome == "error":
        record.update(
            error="HTTP 500 from server after 5 retries",
            reason="HTTP 500 from server after 5 retries",
            usage={
                "prompt_tokens": 0,
                "completion_tokens": 0,
                "reasoning_tokens": None,
                "total_tokens": 0,
            },
            response="",
            finish_reason=None,
        )
    else:
        raise ValueError(outcome)
    record.update(overrides)
    return record


def genuine_hash(problems: list[str], settings: list[str]) -> str:
    """The ``dataset_hash`` ``eval`` records for these paper (or extended) problems and settings,
    which the report re-derives from the problems it grades against."""
    paper = with_extended_ids(named_problem_set("paper"), problems)
    chosen = [paper.by_id[p] for p in problems if p in paper.by_id]
    return dataset_hash(paper.subset(chosen), settings)


def write_run_dir(
    path: Path,
    *,
    problems: list[str],
    settings: list[str],
    runs: int,
    samples: list[dict[str, Any]],
    model_label: str = "test-model",
    model: str = "openai/test-model",
) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    config = {
        "format_version": 1,
        "model": model,
        "model_label": model_label,
        "profile": model_label,
        "settings": settings,
        "runs": runs,
        "problems": problems,
        "sampling": {
            "temperature": 0.7,
            "top_p": 0.8,
            "top_k": 20,
            "max_tokens": 32768,
            "seed": None,
        },
        "tool_mode": "text",
        "package_version": "0.1.0",
        "dataset_hash": genuine_hash(problems, settings),
        "created": "2026-12-01T00:00:00Z",
    }
    (path / "config.json").write_text(json.dumps(config, indent=2))
    with open(path / "samples.jsonl", "w") as fh:
        for s in samples:
            fh.write(json.dumps({**s, "model": model}) + "\n")
    return path


@pytest.fixture(scope="session")
def report_helpers() -> SimpleNamespace:
    """The builders above, for module-scoped fixtures."""
    return SimpleNamespace(make_sample=make_sample, write_run_dir=write_run_dir)


@pytest.fixture
def run_dir_factory(tmp_path: Path) -> Callable[..., Path]:
    counter = iter(range(10_000))

    def factory(**kwargs: Any) -> Path:
        return write_run_dir(tmp_path / f"run{next(counter)}", **kwargs)

    return factory


@pytest.fixture
def sample() -> Callable[..., dict[str, Any]]:
    return make_sample
