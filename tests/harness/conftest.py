"""Fixtures for the harness tests: the loopback OpenAI-compatible server."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from openai_mock import MockOpenAIServer  # noqa: E402


@pytest.fixture
def mock_server():
    """Start a server with ``mock_server(script, **kw)``; all are stopped at the end of the test."""
    servers: list[MockOpenAIServer] = []

    def start(script=None, **kwargs) -> MockOpenAIServer:
        server = (
            MockOpenAIServer(script, **kwargs) if script is not None else MockOpenAIServer(**kwargs)
        )
        servers.append(server.start())
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture(autouse=True)
def _no_real_endpoint(monkeypatch):
    """Tests never reach a real endpoint or read a real key."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
