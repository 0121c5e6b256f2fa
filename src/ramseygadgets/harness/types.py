"""Plain data passed between the runner, the conversation loop and the model backends."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

from ramseygadgets.problems.catalog import Problem
from ramseygadgets.runs.records import SampleKey
from ramseygadgets.runs.samples import Usage  # one usage type, written and read back

__all__ = [
    "SampleKey",
    "Sampling",
    "ChatRequest",
    "Usage",
    "Completion",
]

__all__ = [
    "Sampling",
    "SampleKey",
    "ChatRequest",
    "Usage",
    "Completion",
]


@dataclass(frozen=True)
class Sampling:
    """Sampling settings sent with every request (``None``: leave the server's default).

    ``seed`` is a base seed: run ``r`` is sent ``seed + r`` so that runs differ but repeat.
    ``extra_body`` holds server-specific fields (vLLM: ``chat_template_kwargs``, ``min_p``...).
    """

    temperature: float | None = None
    top_p: float | None = None
    top_k: int | None = None
    min_p: float | None = None
    repetition_penalty: float | None = None
    max_tokens: int | None = 32768
    seed: int | None = None
    reasoning_effort: str | None = None
    extra_body: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Sampling:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def updated(self, **changes: Any) -> Sampling:
        """A copy with the given fields replaced; ``None`` values leave a field unchanged."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    def seed_for(self, run: int) -> int | None:
        return None if self.seed is None else self.seed + run


@dataclass
class ChatRequest:
    """One model call of one sample's conversation.

    ``messages`` are OpenAI chat messages as sent; ``problem``/``setting``/``round_no`` let
    non-model backends (solver, random, replay) answer without reading the prompt.
    """

    key: SampleKey
    problem: Problem
    messages: list[dict[str, Any]]
    sampling: Sampling
    round_no: int = 1
    last_round: bool = True
    tools: list[dict[str, Any]] | None = None
    tool_mode: str = "text"
    assistant_prefix: str | None = None
    n: int = 1


@dataclass
class Completion:
    """What a backend returns for one call.

    ``error`` is set (and the text fields empty) when no response could be obtained after
    retries; ``error_kind`` classifies it (``http-404``, ``connection``, ``timeout``...) so the
    runner can notice that every request fails the same way.
    """

    content: str | None = None
    reasoning: str | None = None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    finish_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    latency_s: float = 0.0
    retries: int = 0
    error: str | None = None
    error_kind: str | None = None
