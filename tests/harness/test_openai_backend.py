"""The openai/ backend against a real HTTP server on 127.0.0.1 (tests/harness/openai_mock.py)."""

from __future__ import annotations

import asyncio

import httpx
import openai
import pytest
from openai_mock import Drop, Fail, Garbage, Reply, tool_call

from ramseygadgets.harness.backends.base import BackendError
from ramseygadgets.harness.backends.openai_backend import (
    OpenAIBackend,
    error_message,
    public_url,
)
from ramseygadgets.harness.retry import RetryPolicy
from ramseygadgets.harness.types import ChatRequest, SampleKey, Sampling
from ramseygadgets.problems.catalog import get_problem

PROBLEM = get_problem("p3_k3_red_determiner")
#: quick retries; a request timeout far above any reply's time on a loaded machine (a 0.5 s
#: timeout once cost a CI run an extra retry of a 429)
FAST = RetryPolicy(max_retries=4, base_delay=0.01, max_delay=0.05, request_timeout=10.0)
#: for the reply that comes too late: timed out at 1.5 s, 3 s before it comes
SHORT_TIMEOUT = RetryPolicy(max_retries=4, base_delay=0.01, max_delay=0.05, request_timeout=1.5)


def request(run: int = 0, content: str = "hi", **kwargs) -> ChatRequest:
    kwargs.setdefault("sampling", Sampling())
    return ChatRequest(
        key=SampleKey(PROBLEM.id, "zero-shot", run),
        problem=PROBLEM,
        messages=[{"role": "user", "content": content}],
        **kwargs,
    )


def call(backend: OpenAIBackend, *requests: ChatRequest):
    async def go():
        try:
            return await asyncio.gather(*(backend.complete(r) for r in requests))
        finally:
            await backend.close()

    return asyncio.run(go())


def test_reads_vllm_reasoning_usage_finish_reason_and_tool_calls(mock_server):
    def script(info):
        kind = info.body["messages"][0]["content"]
        if kind == "reasoning_content":
            return Reply(
                "answer",
                reasoning="because",
                reasoning_keys=("reasoning_content",),
                reasoning_tokens=7,
                completion_tokens=20,
                prompt_tokens=11,
            )
        if kind == "reasoning":
            return Reply("answer2", reasoning="since", reasoning_keys=("reasoning",))
        if kind == "length":
            return Reply("cut sho", finish_reason="length")
        return Reply(None, tool_calls=[tool_call("coloring_tool", {"edges": [[0, 1]]})])

    server = mock_server(script)
    backend = OpenAIBackend("mock-model", base_url=server.base_url, retry=FAST)
    a, b, c, d = call(
        backend,
        *(
            request(i, k)
            for i, k in enumerate(["reasoning_content", "reasoning", "length", "tool"])
        ),
    )
    assert (a.content, a.reasoning, a.finish_reason) == ("answer", "because", "stop")
    assert a.usage.to_json() == {
        "prompt_tokens": 11,
        "completion_tokens": 20,
        "reasoning_tokens": 7,
        "total_tokens": 31,
    }
    assert (b.content, b.reasoning, b.usage.reasoning_tokens) == ("answer2", "since", None)
    assert (c.finish_reason, c.content) == ("length", "cut sho")
    assert d.finish_reason == "tool_calls" and d.content is None
    assert d.tool_calls == [
        {
            "id": "call_0",
            "type": "function",
            "function": {"name": "coloring_tool", "arguments": '{"edges": [[0, 1]]}'},
        }
    ]


def test_sampling_extras_go_through_extra_body_and_seed_varies_by_run(mock_server, monkeypatch):
    server = mock_server()
    sampling = Sampling(
        temperature=0.7,
        top_p=0.8,
        top_k=20,
        repetition_penalty=1.05,
        max_tokens=321,
        seed=10,
        extra_body={"chat_template_kwargs": {"enable_thinking": True}},
    )
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret")
    call(
        OpenAIBackend("mock-model", base_url=server.base_url, retry=FAST),
        request(3, sampling=sampling),
    )
    body = server.chat_requests()[0].body
    assert body["temperature"] == 0.7 and body["top_p"] == 0.8 and body["max_tokens"] == 321
    assert body["top_k"] == 20 and body["repetition_penalty"] == 1.05 and body["seed"] == 13
    assert body["chat_template_kwargs"] == {"enable_thinking": True}
    assert "tools" not in body and "n" not in body
    assert server.chat_requests()[0].label == f"{PROBLEM.id}/zero-shot/3/1"


def test_api_key_from_environment_only(mock_server, monkeypatch):
    seen = []

    def script(info):
        return Reply("x")

    server = mock_server(script)
    import openai_mock

    original = openai_mock._Handler.do_POST

    def spy(self):
        seen.append(self.headers.get("Authorization"))
        return original(self)

    monkeypatch.setattr(openai_mock._Handler, "do_POST", spy)
    call(OpenAIBackend("mock-model", base_url=server.base_url, retry=FAST), request())
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    call(OpenAIBackend("mock-model", base_url=server.base_url, retry=FAST), request(1))
    assert seen == ["Bearer EMPTY", "Bearer sk-from-env"]


def test_assistant_prefix_is_continued(mock_server):
    server = mock_server(lambda info: Reply("I think... </think> done"))
    (c,) = call(
        OpenAIBackend("mock-model", base_url=server.base_url, retry=FAST),
        request(assistant_prefix="<think>\n"),
    )
    body = server.chat_requests()[0].body
    assert body["messages"][-1] == {"role": "assistant", "content": "<think>\n"}
    assert body["continue_final_message"] is True and body["add_generation_prompt"] is False
    assert c.content == "<think>\nI think... </think> done"


@pytest.mark.parametrize(
    "failure,expected_in_error",
    [
        (Fail(429, "rate limited", retry_after=0.01), "HTTP 429"),
        (Fail(500, "boom"), "HTTP 500"),
        (Fail(503, "overloaded"), "HTTP 503"),
        (Drop(), "connection"),
        (Garbage(), "unreadable"),
        (Reply("too late", delay=4.5), "timed out"),
    ],
)
def test_transient_failures_are_retried_and_counted(mock_server, failure, expected_in_error):
    retries = []

    def script(info):
        return failure if info.attempt < 2 else Reply("finally")

    server = mock_server(script)
    backend = OpenAIBackend(
        "mock-model",
        base_url=server.base_url,
        retry=SHORT_TIMEOUT if expected_in_error == "timed out" else FAST,
        on_retry=lambda key, attempt, reason, delay: retries.append((attempt, reason)),
    )
    (c,) = call(backend, request())
    assert c.error is None and c.content == "finally" and c.retries == 2
    assert [a for a, _ in retries] == [1, 2] and all(expected_in_error in r for _, r in retries)
    assert len(server.chat_requests()) == 3


def test_retries_give_up_with_an_error(mock_server):
    server = mock_server(lambda info: Fail(502, "bad gateway"))
    (c,) = call(OpenAIBackend("mock-model", base_url=server.base_url, retry=FAST), request())
    assert c.error == "HTTP 502: bad gateway (gave up after 4 retries)" and c.retries == 4
    assert c.error_kind == "http-502" and len(server.chat_requests()) == 5


def test_non_retryable_errors_fail_at_once(mock_server):
    server = mock_server(
        lambda info: Fail(400, "This model's maximum context length is 4096 tokens")
    )
    (c,) = call(OpenAIBackend("mock-model", base_url=server.base_url, retry=FAST), request())
    assert c.error.startswith("HTTP 400: This model's maximum context length") and c.retries == 0
    assert len(server.chat_requests()) == 1


def test_retry_after_header_is_honoured(mock_server):
    delays = []
    server = mock_server(
        lambda info: Fail(429, "slow down", retry_after=0.2) if info.attempt == 0 else Reply("ok")
    )
    backend = OpenAIBackend(
        "mock-model",
        base_url=server.base_url,
        retry=FAST,
        on_retry=lambda key, attempt, reason, delay: delays.append(delay),
    )
    call(backend, request())
    assert delays == [pytest.approx(0.05)]  # Retry-After 0.2 s capped by max_delay


def test_start_fails_fast_with_one_line_reasons(mock_server):
    server = mock_server(models=("served-a", "served-b"))

    def start(model, url):
        backend = OpenAIBackend(model, base_url=url, retry=FAST)

        async def go():
            try:
                await backend.start()
            finally:
                await backend.close()

        with pytest.raises(BackendError) as info:
            asyncio.run(go())
        return str(info.value)

    assert start("nope", server.base_url) == (
        f"model 'nope' is not served at {server.base_url}; it serves: served-a, served-b"
    )
    port = server.port
    server.stop()
    message = start("served-a", f"http://127.0.0.1:{port}/v1")
    assert message.startswith(f"cannot reach the model server at http://127.0.0.1:{port}/v1")
    assert "\n" not in message


def test_start_accepts_servers_without_a_models_route(mock_server):
    server = mock_server(serve_models=False)
    backend = OpenAIBackend("mock-model", base_url=server.base_url, retry=FAST)

    async def go():
        try:
            await backend.start()
        finally:
            await backend.close()

    asyncio.run(go())


def test_public_url_drops_credentials():
    assert public_url("https://user:pw@example.com:8443/v1") == "https://example.com:8443/v1"
    assert public_url("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"


def test_a_connection_error_without_text_is_named_by_its_type_alone():
    request = httpx.Request("POST", "http://127.0.0.1:1/v1/chat/completions")
    try:
        try:
            raise httpx.ReadError("")
        except httpx.ReadError as cause:
            raise openai.APIConnectionError(request=request) from cause
    except openai.APIConnectionError as exc:
        text, kind, retryable, _ = error_message(exc)
    assert (text, kind, retryable) == ("connection failed: ReadError", "connection", True)
