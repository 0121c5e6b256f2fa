"""The backend interface: an async call per request, or a synchronous batch (vLLM offline)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.harness.types import ChatRequest, Completion, SampleKey

__all__ = [
    "RetryCallback",
    "SECRET_VARIABLES",
    "REDACTED",
    "redact",
    "BackendError",
    "AsyncBackend",
    "BatchBackend",
    "Backend",
    "outgoing_messages",
]


#: ``on_retry(key, attempt, reason, delay_s)``: called before each retry sleep.
RetryCallback = Callable[[SampleKey, int, str, float], None]


#: ``scheme://user:password@`` in a URL: the credentials part is never shown.
_URL_CREDENTIALS = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)[^/@\s]+@")
#: Environment variables whose values are secrets (the API key).
SECRET_VARIABLES = ("OPENAI_API_KEY",)
#: What a secret is replaced by.
REDACTED = "***"


def redact(text: str) -> str:
    """``text`` with the API key's value (when it has at least 4 characters) and any URL
    credentials (``user:pass@``) replaced by ``***``: applied to every error text that is stored
    or printed."""
    for name in SECRET_VARIABLES:
        secret = (os.environ.get(name) or "").strip()
        if len(secret) >= 4:
            text = text.replace(secret, REDACTED)
    return _URL_CREDENTIALS.sub(rf"\g<scheme>{REDACTED}@", text)


class BackendError(RamseyGadgetsError):
    """The backend cannot be used at all (not installed, server unreachable, unknown model)."""


@runtime_checkable
class AsyncBackend(Protocol):
    """Answers one request at a time; many requests run concurrently."""

    name: str

    async def start(self) -> None:
        """Check the backend can serve (raise :class:`BackendError` with a one-line reason)."""

    async def complete(self, request: ChatRequest) -> Completion: ...

    async def close(self) -> None: ...


@runtime_checkable
class BatchBackend(Protocol):
    """Answers a list of requests in one call; request ``i`` gets ``requests[i].n`` completions."""

    name: str

    def start_sync(self) -> None: ...

    def complete_batch(self, requests: list[ChatRequest]) -> list[list[Completion]]: ...


#: Any backend: :func:`~ramseygadgets.harness.backends.make_backend` returns one of these.
Backend = AsyncBackend | BatchBackend


def outgoing_messages(request: ChatRequest) -> list[dict]:
    """Messages as sent to a chat server: harness-only keys (``reasoning``) removed and the
    assistant prefix (a forced reply start such as ``<think>``) appended as a partial turn."""
    sent = [{k: v for k, v in m.items() if k != "reasoning"} for m in request.messages]
    if request.assistant_prefix:
        sent.append({"role": "assistant", "content": request.assistant_prefix})
    return sent
