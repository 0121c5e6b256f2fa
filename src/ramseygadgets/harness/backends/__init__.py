"""Model backends, chosen by the ``--model`` spec:

* ``openai/<model>``: an OpenAI-compatible server (:mod:`.openai_backend`);
* ``vllm/<model>``: vLLM's offline engine (:mod:`.vllm_backend`, imported lazily);
* ``solver``: the reference solver answering from the minimal solutions (:mod:`.solver`);
* ``random``: random graphs of a plausible size (:mod:`.random_backend`);
* ``replay:<file>``: recorded responses re-scored (:mod:`.replay`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ramseygadgets.harness.backends.base import (
    AsyncBackend,
    Backend,
    BackendError,
    BatchBackend,
    RetryCallback,
)
from ramseygadgets.harness.backends.openai_backend import OpenAIBackend
from ramseygadgets.harness.backends.random_backend import RandomBackend
from ramseygadgets.harness.backends.replay import ReplayBackend, load_replay
from ramseygadgets.harness.backends.solver import SolverBackend
from ramseygadgets.harness.backends.vllm_backend import VLLMBackend

if TYPE_CHECKING:
    from ramseygadgets.harness.backends.replay import ReplayData
    from ramseygadgets.harness.retry import RetryPolicy
    from ramseygadgets.verification.selection import Selection

SPEC_HELP = "openai/<model>, vllm/<model>, solver, random or replay:<file>"


def make_backend(
    spec: str,
    *,
    problem_set: Selection,
    base_url: str | None = None,
    retry: RetryPolicy | None = None,
    on_retry: RetryCallback | None = None,
    tool_mode: str = "text",
    seed: int | None = None,
    engine_args: dict[str, Any] | None = None,
    replay: ReplayData | None = None,
    max_connections: int = 256,
) -> Backend:
    """The backend a ``--model`` spec names (a :class:`BackendError` for anything else)."""
    spec = spec.strip()
    if spec.startswith("openai/"):
        return OpenAIBackend(
            spec[len("openai/") :],
            base_url=base_url,
            retry=retry,
            on_retry=on_retry,
            max_connections=max_connections,
        )
    if spec.startswith("vllm/"):
        if tool_mode != "text":
            raise BackendError(
                "vllm/ (offline engine) supports --tool-mode text only; serve the model with "
                "'vllm serve' and use openai/<model> for native tool calls"
            )
        return VLLMBackend(spec[len("vllm/") :], engine_args=engine_args or {})
    if spec == "solver":
        return SolverBackend(problem_set)
    if spec == "random":
        return RandomBackend(problem_set, seed=seed)
    if spec.startswith("replay:"):
        return ReplayBackend(replay if replay is not None else load_replay(spec[len("replay:") :]))
    raise BackendError(f"unknown model {spec!r}; use {SPEC_HELP}")


__all__ = ["AsyncBackend", "Backend", "BackendError", "BatchBackend", "SPEC_HELP", "make_backend"]
