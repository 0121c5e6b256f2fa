"""Scripted models for the Inspect tests: Inspect's built-in ``mockllm/model`` with a callable
``custom_outputs`` that answers per problem, per attempt (epoch) and per round.

Imported only after ``pytest.importorskip("inspect_ai")``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessageAssistant,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.tool import ToolCall

from ramseygadgets.answers import format_answer
from ramseygadgets.problems.catalog import get_problem
from ramseygadgets.problems.solutions import get_solution
from ramseygadgets.prompts import build_prompt
from ramseygadgets.tools.coloring import TOOL_NAME

MOCK = "mockllm/model"


def usage(prompt: int, completion: int) -> ModelUsage:
    """Scripted outputs carry usage (mockllm would otherwise count tokens with tiktoken, which
    downloads its vocabulary)."""
    return ModelUsage(
        input_tokens=prompt, output_tokens=completion, total_tokens=prompt + completion
    )


@dataclass(frozen=True)
class Text:
    text: str
    stop_reason: str = "stop"


@dataclass(frozen=True)
class Calls:
    """An assistant turn with native tool calls (each an arguments dict for ``function``: the
    coloring tool unless named)."""

    arguments: tuple[dict[str, Any], ...]
    function: str = TOOL_NAME


@dataclass(frozen=True)
class Reads:
    """A reply computed from what the model was sent (the round's input messages): a model that
    reads its program's output and answers from it."""

    reply: Callable[[list[Any]], Text]


def solution_answer(problem_id: str) -> Text:
    """The shipped minimal solution in the documented answer format (a correct reply)."""
    problem = get_problem(problem_id)
    return Text(
        "Here is my construction.\n"
        + format_answer(get_solution(problem_id).candidate, problem.kind)
    )


def solution_edges(problem_id: str) -> list[list[int]]:
    return [list(e) for e in get_solution(problem_id).candidate.graph.edges]


@dataclass
class Observed:
    problem_id: str
    attempt: int
    round_no: int
    input: list[Any]
    tools: list[Any]
    tool_choice: Any


@dataclass
class ScriptedModel:
    """``script[problem_id][attempt][round − 1]`` is the reply; attempts are counted per problem
    in the order first-round calls arrive (so epochs may get them in any order)."""

    script: dict[str, list[list[Text | Calls | Reads]]]
    setting: str = "zero-shot"
    problems: dict[str, Any] = field(default_factory=dict)  # problems outside the catalog, by id
    tool_mode: str = "text"
    python: Any = None  # the python setting's limits (PythonLimits), as the task states them
    calls: list[Observed] = field(default_factory=list)
    _attempts: dict[str, int] = field(default_factory=dict)
    _by_user_text: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for problem_id in self.script:
            prompt = build_prompt(
                self.problems.get(problem_id, problem_id),
                self.setting,
                tool_mode=self.tool_mode,
                python=self.python,
            )
            user = [m["content"] for m in prompt.messages if m["role"] == "user"][0]
            self._by_user_text[user] = problem_id

    def __call__(
        self, input: list[Any], tools: list[Any], tool_choice: Any, config: Any
    ) -> ModelOutput:
        user = next(m.text for m in input if m.role == "user")
        problem_id = self._by_user_text[user]
        round_no = 1 + sum(1 for m in input if m.role == "assistant")
        if round_no == 1:
            self._attempts[problem_id] = self._attempts.get(problem_id, -1) + 1
        attempt = self._attempts[problem_id]
        self.calls.append(
            Observed(problem_id, attempt, round_no, list(input), list(tools), tool_choice)
        )
        reply = self.script[problem_id][attempt][round_no - 1]
        if isinstance(reply, Reads):
            reply = reply.reply(list(input))
        if isinstance(reply, Text):
            output = ModelOutput.from_content(MOCK, reply.text, stop_reason=reply.stop_reason)  # type: ignore[arg-type]
        else:
            calls = [
                ToolCall(
                    id=f"call_{problem_id}_{attempt}_{round_no}_{i}",
                    function=reply.function,
                    arguments=args,
                )
                for i, args in enumerate(reply.arguments)
            ]
            message = ChatMessageAssistant(
                content="Let me check a graph."
                if reply.function == TOOL_NAME
                else "Let me run it.",
                model=MOCK,
                source="generate",
                tool_calls=calls,
            )
            output = ModelOutput(
                model=MOCK,
                choices=[ChatCompletionChoice(message=message, stop_reason="tool_calls")],
            )
        output.usage = usage(100 + round_no, 10 * round_no)
        return output

    def model(self) -> Any:
        return get_model(MOCK, custom_outputs=self)

    def for_problem(self, problem_id: str) -> list[Observed]:
        return [c for c in self.calls if c.problem_id == problem_id]


def run_task(script: ScriptedModel, log_dir: Path, *, epochs: int = 1, **task_args: Any) -> Any:
    """Run the registered task ``ramseygadgets/ramsey_gadgets`` (found through the entry point)
    with Inspect's real ``eval`` on the scripted model; returns the log."""
    from inspect_ai import eval as inspect_eval

    task_args.setdefault("problems", ",".join(script.script))
    logs = inspect_eval(
        "ramseygadgets/ramsey_gadgets",
        model=script.model(),
        task_args=task_args,
        epochs=epochs,
        log_dir=str(log_dir),
        display="none",
    )
    assert len(logs) == 1
    log = logs[0]
    assert log.status == "success", log.error
    return log


# -- the zero-shot run shared by the task tests and the log-reader tests -----------------------
ZERO_SHOT_CORRECT = "p3_k3_red_determiner"  # correct in both epochs
ZERO_SHOT_MIXED = "k13_p4_negative_sender"  # correct once, wrong once
ZERO_SHOT_UNPARSABLE = "k13_k3_clause_gadget"  # no answer in either epoch
WRONG_SENDER = Text(
    'My answer:\n```json\n{"edges": [[0, 1], [1, 2]], "e": [0, 1], "f": [1, 2]}\n```'
)
