"""A scripted OpenAI-compatible chat server on 127.0.0.1, speaking the protocol the way vLLM does.

Used by the harness tests and ``bench/harness.py``.  A *script* maps each request to an action:

* :class:`Reply`: a chat completion with ``content``, the separate reasoning field vLLM's
  reasoning parsers add (``reasoning_content`` and/or ``reasoning``), tool calls, a
  ``finish_reason`` (``stop``, ``length``, ``tool_calls``) and ``usage`` with
  ``completion_tokens_details.reasoning_tokens``;
* :class:`Fail`: an HTTP error in vLLM's error shape (optionally with ``Retry-After``);
* :class:`Drop`: the connection is closed without a response;
* :class:`Garbage`: a 200 response whose JSON body is cut short;
* ``delay`` on any action: the server waits first (longer than the client's timeout = "slow").

Requests carry the harness's ``X-RamseyGadgets-Sample`` header (``problem/setting/run/round``);
:class:`RequestInfo` exposes it with the attempt number, so scripts can say "the first attempt
of this sample gets a 429".  Run it standalone with ``python openai_mock.py --latency 0.2``.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from gadget_search import found_answer, search_program  # tests/helpers (tests/conftest.py)

SAMPLE_HEADER = "X-RamseyGadgets-Sample"


@dataclass
class Reply:
    content: str | None = "OK"
    reasoning: str | None = None
    reasoning_keys: tuple[str, ...] = ("reasoning_content", "reasoning")
    tool_calls: list[dict[str, Any]] | None = None
    finish_reason: str | None = None
    prompt_tokens: int = 100
    completion_tokens: int | None = None
    reasoning_tokens: int | None = None
    usage: bool = True  # False: no "usage" in the response (servers that do not count)
    delay: float = 0.0


@dataclass
class Fail:
    status: int = 500
    message: str = "Internal Server Error"
    retry_after: float | None = None
    delay: float = 0.0


@dataclass
class Drop:
    delay: float = 0.0


@dataclass
class Garbage:
    delay: float = 0.0


Action = Reply | Fail | Drop | Garbage


@dataclass
class RequestInfo:
    path: str
    body: dict[str, Any]
    label: str | None  # problem/setting/run/round, or None
    attempt: int  # 0 for the first request with this label
    index: int  # 0-based over all chat requests

    @property
    def sample(self) -> str | None:
        """``problem/setting/run`` without the round."""
        return self.label.rsplit("/", 1)[0] if self.label else None

    @property
    def round_no(self) -> int:
        return int(self.label.rsplit("/", 1)[1]) if self.label else 1


Script = Callable[[RequestInfo], Action]


def tool_call(
    name: str, arguments: dict[str, Any] | str, call_id: str = "call_0"
) -> dict[str, Any]:
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}


def completion_body(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    for key in reply.reasoning_keys:
        message[key] = reply.reasoning
    finish = reply.finish_reason
    if reply.tool_calls:
        message["tool_calls"] = reply.tool_calls
        finish = finish or "tool_calls"
    completion = reply.completion_tokens
    if completion is None:
        completion = max(1, len((reply.content or "") + (reply.reasoning or "")) // 4)
    usage: dict[str, Any] = {
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": completion,
        "total_tokens": reply.prompt_tokens + completion,
    }
    if reply.reasoning_tokens is not None:
        usage["completion_tokens_details"] = {"reasoning_tokens": reply.reasoning_tokens}
    if not reply.usage:
        usage = None  # type: ignore[assignment]
    return {
        "id": "chatcmpl-mock",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "mock"),
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": finish or "stop",
                "stop_reason": None,
            }
        ],
        "usage": usage,
    }


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _send(self, status: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(payload)
        self.wfile.flush()

    def do_GET(self) -> None:  # noqa: N802
        mock = self.server.mock
        if self.path.rstrip("/").endswith("/models") and mock.serve_models:
            data = [{"id": m, "object": "model", "owned_by": "vllm"} for m in mock.models]
            self._send(200, json.dumps({"object": "list", "data": data}).encode())
        else:
            self._send(
                404, json.dumps({"object": "error", "message": "Not Found", "code": 404}).encode()
            )

    def do_POST(self) -> None:  # noqa: N802
        mock = self.server.mock
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
        except ValueError:
            self._send(400, b'{"object":"error","message":"invalid JSON","code":400}')
            return
        info = mock._register(self.path, body, self.headers.get(SAMPLE_HEADER))
        if not self.path.endswith("/chat/completions"):
            self._send(404, b'{"object":"error","message":"Not Found","code":404}')
            return
        if mock.models and body.get("model") not in mock.models:
            message = f"The model `{body.get('model')}` does not exist."
            self._send(
                404,
                json.dumps(
                    {
                        "object": "error",
                        "message": message,
                        "type": "NotFoundError",
                        "param": None,
                        "code": 404,
                    }
                ).encode(),
            )
            return
        action = mock.script(info)
        delay = getattr(action, "delay", 0.0) + mock.latency
        if delay:
            time.sleep(delay)
        try:
            if isinstance(action, Reply):
                self._send(200, json.dumps(completion_body(body, action)).encode())
            elif isinstance(action, Fail):
                headers = (
                    {"Retry-After": str(action.retry_after)}
                    if action.retry_after is not None
                    else None
                )
                payload = {
                    "object": "error",
                    "message": action.message,
                    "type": "Error",
                    "param": None,
                    "code": action.status,
                }
                self._send(action.status, json.dumps(payload).encode(), headers)
            elif isinstance(action, Garbage):
                payload = json.dumps(completion_body(body, Reply("x" * 50))).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload) // 2))
                # Announce the close: a client must not send its next request on a connection
                # this server is about to drop (that race is not what this fault tests).
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(payload[: len(payload) // 2])
                self.close_connection = True
            else:  # Drop
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
        except (BrokenPipeError, ConnectionResetError, OSError):
            self.close_connection = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256
    mock: MockOpenAIServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up mid-request (a cancelled or timed-out call): note it, quietly."""
        import sys

        self.mock.errors.append(repr(sys.exc_info()[1]))


@dataclass
class MockOpenAIServer:
    """``with MockOpenAIServer(script) as server: ... server.base_url ...``"""

    script: Script = field(default=lambda info: Reply())
    models: tuple[str, ...] = ("mock-model",)
    latency: float = 0.0
    serve_models: bool = True
    requests: list[RequestInfo] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._attempts: dict[str, int] = {}
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def _register(self, path: str, body: dict[str, Any], label: str | None) -> RequestInfo:
        with self._lock:
            attempt = self._attempts.get(label or "", 0)
            self._attempts[label or ""] = attempt + 1
            info = RequestInfo(path, body, label, attempt, len(self.requests))
            self.requests.append(info)
            return info

    @property
    def port(self) -> int:
        assert self._server is not None
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, port: int = 0) -> MockOpenAIServer:
        self._server = _Server(("127.0.0.1", port), _Handler)
        self._server.mock = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> MockOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def chat_requests(self) -> list[RequestInfo]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]


# ---------------------------------------------------------------------------------------------
# A deterministic scripted "model" for end-to-end runs
# ---------------------------------------------------------------------------------------------
def _crc(text: str) -> int:
    import zlib

    return zlib.crc32(text.encode())


def expected_kind(sample: str) -> str:
    """What :func:`answer_script` does for a sample ``problem/setting/run``: ``correct``,
    ``wrong``, ``unparsed``, ``truncated`` or ``reasoning`` (correct, with a reasoning field)."""
    return ("correct", "correct", "correct", "wrong", "unparsed", "truncated", "reasoning")[
        _crc(sample) % 7
    ]


def _solution(problem_id: str):
    from ramseygadgets.problems.catalog import get_problem
    from ramseygadgets.problems.solutions import get_solution

    problem = get_problem(problem_id)
    return problem, get_solution(problem.id).candidate


def _wrong(problem, candidate):
    """The minimal solution with one edge removed (minimal, so no longer a solution) that keeps
    the designated items valid."""
    from ramseygadgets.core.gadgets import Candidate
    from ramseygadgets.core.graphs import Graph

    keep = set(candidate.designated.edges)
    drop = next(e for e in reversed(candidate.graph.edges) if e not in keep)
    return Candidate(
        Graph(candidate.graph.n, tuple(e for e in candidate.graph.edges if e != drop)),
        candidate.designated,
    )


def answer_script(native_tools: bool = False, tool_name: str = "color_graph") -> Script:
    """Replies by sample (see :func:`expected_kind`); in multiround round 1 it first asks the
    coloring tool (text block, or a native tool call) about its graph."""
    from ramseygadgets.answers import format_answer

    def script(info: RequestInfo) -> Action:
        if info.sample is None:
            return Reply("no sample header")
        problem_id, setting, _run = info.sample.split("/")
        problem, candidate = _solution(problem_id)
        kind = expected_kind(info.sample)
        if setting == "multiround" and info.round_no == 1:
            args = {"edges": [list(e) for e in candidate.graph.edges]}
            if native_tools:
                return Reply(
                    None,
                    tool_calls=[tool_call(tool_name, args, "call_1")],
                    prompt_tokens=50,
                    completion_tokens=30,
                )
            return Reply(
                "Let me test my graph.\n```coloring_tool\n" + json.dumps(args) + "\n```",
                prompt_tokens=50,
                completion_tokens=30,
            )
        if kind == "wrong":
            candidate = _wrong(problem, candidate)
        text = "Here is my construction.\n" + format_answer(candidate, problem.kind)
        if kind == "unparsed":
            return Reply("I am not able to construct such a graph.", completion_tokens=12)
        if kind == "truncated":
            return Reply(text[: len(text) // 2], finish_reason="length", completion_tokens=4000)
        if kind == "reasoning":
            return Reply(
                text,
                reasoning="Let me think about the forced edges...",
                reasoning_tokens=300,
                completion_tokens=400,
            )
        return Reply(text, completion_tokens=80)

    return script


def main() -> None:  # pragma: no cover - used by bench/harness.py
    import argparse
    import sys

    parser = argparse.ArgumentParser(description="Scripted OpenAI-compatible server on 127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before every reply")
    parser.add_argument("--model", default="mock-model")
    args = parser.parse_args()
    server = MockOpenAIServer(answer_script(), models=(args.model,), latency=args.latency).start(
        args.port
    )
    print(f"PORT {server.port}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.stop()
        sys.exit(0)


if __name__ == "__main__":  # pragma: no cover
    main()


def searching_model(problems: dict[str, Any], tool_mode: str) -> Callable[[RequestInfo], Reply]:
    """A scripted model of the python setting: round 1 runs a search program for its problem
    (``gadget_search.search_program``: networkx and PySAT), as a ``python run`` block or a
    ``run_python`` call; round 2 answers with the graph the program printed."""

    def script(info: RequestInfo) -> Reply:
        problem = problems[info.label.split("/")[0]]
        if info.round_no == 1:
            code = search_program(problem)
            if tool_mode == "native":
                return Reply("Let me search.", tool_calls=[tool_call("run_python", {"code": code})])
            return Reply(f"Let me search.\n\n```python run\n{code}```\n")
        output = info.body["messages"][-2 if tool_mode == "native" else -1]["content"]
        return Reply(found_answer(output))

    return script
