"""``openai/<model>``: any OpenAI-compatible chat server (vLLM, SGLang, llama.cpp, OpenAI...).

Uses the official ``openai`` SDK (``AsyncOpenAI``) with its own retries switched off
(``max_retries=0``): the retry loop lives here so that every retry is counted and shown.
The API key is read from ``OPENAI_API_KEY`` only (``EMPTY`` when unset, as local servers
expect) and is never written anywhere.
"""

from __future__ import annotations

import os
import random
import time
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import openai

from ramseygadgets.harness.backends.base import (
    BackendError,
    RetryCallback,
    outgoing_messages,
    redact,
)
from ramseygadgets.harness.retry import RetryPolicy, is_retryable_status, parse_retry_after
from ramseygadgets.harness.types import ChatRequest, Completion, Usage

__all__ = [
    "DEFAULT_BASE_URL",
    "SAMPLE_HEADER",
    "public_url",
    "resolve_base_url",
    "error_message",
    "completion_from_response",
    "OpenAIBackend",
]


DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: Header naming the sample a request belongs to (``problem/setting/run/round``): lets server
#: logs (and the test servers) tie requests to samples.  Carries no secret.
SAMPLE_HEADER = "X-RamseyGadgets-Sample"


def public_url(url: str) -> str:
    """``url`` without any ``user:password@`` part (safe to record)."""
    parts = urlsplit(url)
    if parts.username or parts.password:
        host = parts.hostname or ""
        if parts.port:
            host = f"{host}:{parts.port}"
        parts = parts._replace(netloc=host)
    return urlunsplit(parts)


def resolve_base_url(base_url: str | None) -> str:
    """The server URL (option, then $OPENAI_BASE_URL, then OpenAI's); refuses one that is not http(s)://host[:port]."""
    url = (base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port outside 0..65535
    except ValueError as exc:
        raise BackendError(
            f"invalid server URL {redact(url)!r} ({exc}); fix --base-url / OPENAI_BASE_URL"
        ) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BackendError(
            f"invalid server URL {redact(url)!r}: expected http(s)://host[:port]/...; "
            f"fix --base-url / OPENAI_BASE_URL"
        )
    return url


def error_message(exc: BaseException) -> tuple[str, str, bool, float | None]:
    """(one-line text, kind, retryable, retry-after seconds) for an SDK exception; the text has
    the API key and URL credentials redacted (a server may echo the Authorization header)."""
    text, kind, retryable, retry_after = _classify(exc)
    return redact(text)[:300], kind, retryable, retry_after


def _classify(exc: BaseException) -> tuple[str, str, bool, float | None]:
    if isinstance(exc, openai.APITimeoutError):
        return "request timed out", "timeout", True, None
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        detail = "" if cause is None else f": {type(cause).__name__}"
        if cause is not None and str(cause).strip():
            detail += f": {cause}"
        return f"connection failed{detail}", "connection", True, None
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        body = exc.body
        text = None
        if isinstance(body, dict):
            inner = body.get("error")
            text = body.get("message") or (
                inner.get("message") if isinstance(inner, dict) else inner
            )
        text = " ".join(str(text or exc.message).split())
        retry_after = parse_retry_after(exc.response.headers.get("retry-after"))
        return f"HTTP {status}: {text}", f"http-{status}", is_retryable_status(status), retry_after
    if isinstance(exc, openai.APIResponseValidationError):
        return f"unreadable response: {exc.message}", "invalid-response", True, None
    if isinstance(exc, (ValueError, KeyError, TypeError, AttributeError)):
        return (
            f"unreadable response: {type(exc).__name__}: {exc}",
            "invalid-response",
            True,
            None,
        )
    return f"{type(exc).__name__}: {exc}", "error", False, None


def completion_from_response(response: Any, prefix: str | None) -> Completion:
    """Text, vLLM's separate reasoning field, tool calls, finish reason and usage of a reply."""
    choices = getattr(response, "choices", None)
    if not choices:
        raise ValueError("response has no choices")
    choice = choices[0]
    message = choice.message
    extra = message.model_extra or {}
    reasoning = (
        extra.get("reasoning_content")
        or extra.get("reasoning")
        or getattr(message, "reasoning", None)
    )
    content = message.content
    if prefix and not reasoning:
        content = prefix + (content or "")
    calls = [
        {
            "id": c.id,
            "type": "function",
            "function": {"name": c.function.name, "arguments": c.function.arguments},
        }
        for c in (message.tool_calls or [])
        if getattr(c, "function", None) is not None
    ]
    usage = Usage()
    if response.usage is not None:
        u = response.usage
        details = getattr(u, "completion_tokens_details", None)
        reasoning_tokens = (
            getattr(details, "reasoning_tokens", None) if details is not None else None
        )
        usage = Usage.from_json(
            {
                "prompt_tokens": u.prompt_tokens,
                "completion_tokens": u.completion_tokens,
                "reasoning_tokens": reasoning_tokens,
                "total_tokens": u.total_tokens or None,  # 0 beside counts: their sum
            }
        )
    return Completion(
        content=content,
        reasoning=reasoning if isinstance(reasoning, str) else None,
        tool_calls=calls,
        finish_reason=choice.finish_reason,
        usage=usage,
    )


class OpenAIBackend:
    """Async chat-completions client with bounded retries (see :mod:`..retry`)."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        retry: RetryPolicy | None = None,
        on_retry: RetryCallback | None = None,
        max_connections: int = 256,
        check_model: bool = True,
    ):
        if not model:
            raise BackendError("openai/ needs a model name, e.g. --model openai/Qwen/Qwen3-8B")
        self.model = model
        self.name = f"openai/{model}"
        self.base_url = resolve_base_url(base_url)
        self.retry = retry or RetryPolicy()
        self.on_retry = on_retry
        self.check_model = check_model
        self._rng = random.Random()
        self._max_connections = max_connections
        self._client: openai.AsyncOpenAI | None = None

    def describe(self) -> dict[str, Any]:
        """What config.json records about the backend (never the API key)."""
        return {
            "kind": "openai",
            "base_url": public_url(self.base_url),
            "openai_sdk": openai.__version__,
            "retry": self.retry.to_json(),
        }

    @property
    def client(self) -> openai.AsyncOpenAI:
        if self._client is None:
            import httpx2

            limits = httpx2.Limits(
                max_connections=self._max_connections,
                max_keepalive_connections=self._max_connections,
            )
            self._client = openai.AsyncOpenAI(
                api_key=os.environ.get("OPENAI_API_KEY") or "EMPTY",
                base_url=self.base_url,
                max_retries=0,
                timeout=self.retry.request_timeout,
                http_client=openai.DefaultAsyncHttpxClient(
                    limits=limits, timeout=httpx2.Timeout(self.retry.request_timeout, connect=10.0)
                ),
            )
        return self._client

    async def start(self) -> None:
        """Fail fast when the server is down, rejects the key, or does not serve the model."""
        where = public_url(self.base_url)
        try:
            listing = await self.client.models.list(timeout=min(30.0, self.retry.request_timeout))
        except openai.APIConnectionError as exc:
            text, *_ = error_message(exc)
            raise BackendError(
                f"cannot reach the model server at {where} ({text}); start it or fix "
                f"--base-url / OPENAI_BASE_URL"
            ) from None
        except openai.AuthenticationError:
            raise BackendError(
                f"the server at {where} rejected the API key (HTTP 401); set OPENAI_API_KEY"
            ) from None
        except openai.APIStatusError:
            return  # servers without /models: nothing to check
        if not self.check_model:
            return
        served = [m.id for m in getattr(listing, "data", []) or []]
        if served and self.model not in served:
            shown = ", ".join(served[:8]) + (", ..." if len(served) > 8 else "")
            raise BackendError(f"model {self.model!r} is not served at {where}; it serves: {shown}")

    def request_kwargs(self, request: ChatRequest) -> dict[str, Any]:
        s = request.sampling
        kwargs: dict[str, Any] = {"model": self.model, "messages": outgoing_messages(request)}
        for name in ("temperature", "top_p", "max_tokens", "reasoning_effort"):
            if getattr(s, name) is not None:
                kwargs[name] = getattr(s, name)
        seed = s.seed_for(request.key.run)
        if seed is not None:
            kwargs["seed"] = seed
        extra: dict[str, Any] = {}
        for name in ("top_k", "min_p", "repetition_penalty"):
            if getattr(s, name) is not None:
                extra[name] = getattr(s, name)
        extra.update(s.extra_body)
        if request.assistant_prefix:
            extra.update({"continue_final_message": True, "add_generation_prompt": False})
        if request.tools:
            kwargs["tools"] = request.tools
            kwargs["tool_choice"] = "none" if request.last_round else "auto"
        if request.n != 1:
            kwargs["n"] = request.n
        if extra:
            kwargs["extra_body"] = extra
        kwargs["extra_headers"] = {SAMPLE_HEADER: f"{request.key.label()}/{request.round_no}"}
        return kwargs

    async def complete(self, request: ChatRequest) -> Completion:
        import asyncio

        kwargs = self.request_kwargs(request)
        started = time.perf_counter()
        retries = 0
        while True:
            try:
                response = await self.client.chat.completions.create(**kwargs)
                completion = completion_from_response(response, request.assistant_prefix)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - classified below, never re-raised
                text, kind, retryable, retry_after = error_message(exc)
                if not retryable or retries >= self.retry.max_retries:
                    if retryable:
                        text = f"{text} (gave up after {retries} retries)"
                    return Completion(
                        error=text,
                        error_kind=kind,
                        retries=retries,
                        latency_s=time.perf_counter() - started,
                    )
                delay = self.retry.delay(retries, self._rng, retry_after)
                retries += 1
                if self.on_retry is not None:
                    self.on_retry(request.key, retries, text, delay)
                await asyncio.sleep(delay)
                continue
            completion.retries = retries
            completion.latency_s = time.perf_counter() - started
            return completion

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None
