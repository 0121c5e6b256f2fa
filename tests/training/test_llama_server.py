"""The llama.cpp server wrapper notices a server that dies and says why at once.

A loopback stand-in plays the server (``/v1/models`` answers; a chat request kills the process
with the signal a faulting llama.cpp gets), so the checks run without llama.cpp and fail fast;
the real server is exercised by tests/integrations/test_real_model.py and scripts/setup.sh.
"""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path

import pytest

from ramseygadgets.training import llama_server
from ramseygadgets.training.llama_server import LlamaServer, LlamaServerError, death_reason

STAND_IN = r"""
import json, os, signal, sys
from http.server import BaseHTTPRequestHandler, HTTPServer

config = json.load(open(sys.argv[sys.argv.index("--config_file") + 1]))
mode = os.environ["STAND_IN_MODE"]
print("stand-in server starting", flush=True)
if mode == "die-at-start":
    os.kill(os.getpid(), signal.SIGILL)

class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        body = json.dumps({"data": [{"id": m["model_alias"]} for m in config["models"]]}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        if mode == "fault-on-chat":
            print("ggml: general protection fault in libggml-cpu.so", flush=True)
            os.kill(os.getpid(), signal.SIGSEGV)
        body = json.dumps({"choices": [{"message": {"content": "Hello!"}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

HTTPServer(("127.0.0.1", config["port"]), Handler).serve_forever()
"""


@pytest.fixture
def stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # -> Callable[[str], LlamaServer]
    script = tmp_path / "stand_in.py"
    script.write_text(STAND_IN)
    monkeypatch.setattr(LlamaServer, "PROGRAM", (sys.executable, str(script)))
    servers: list[LlamaServer] = []

    def make(mode: str) -> LlamaServer:
        monkeypatch.setenv("STAND_IN_MODE", mode)
        server = LlamaServer([{"model": "m.gguf", "model_alias": "m"}], tmp_path / mode)
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.stop()


def test_a_server_that_faults_on_a_chat_request_is_reported_at_once(stand_in) -> None:
    server = stand_in("fault-on-chat").start(ready_timeout=30)
    started = time.monotonic()
    with pytest.raises(LlamaServerError, match="killed by SIGSEGV .*AMX") as caught:
        server.chat("m", "hello", timeout=120)
    assert time.monotonic() - started < 10  # not the 120 s timeout
    assert "general protection fault" in caught.value.log


def test_a_server_that_dies_while_starting_is_reported_with_its_log(stand_in) -> None:
    with pytest.raises(LlamaServerError, match="killed by SIGILL .* while starting") as caught:
        stand_in("die-at-start").start(ready_timeout=60)
    assert "stand-in server starting" in caught.value.log


def test_a_live_server_answers(stand_in) -> None:
    with stand_in("answer") as server:
        assert server.chat("m", "hello") == "Hello!"
        assert server.died() is None
    assert server.died() == "killed by SIGTERM"


def test_the_setup_check_prints_one_line_why(
    stand_in, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    stand_in("fault-on-chat")  # sets PROGRAM and the mode for the server main() starts
    monkeypatch.setattr(llama_server, "smollm2_gguf", lambda: tmp_path / "m.gguf")
    assert llama_server.main() == 1
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith("llama.cpp check failed: llama.cpp server killed by SIGSEGV")


@pytest.mark.parametrize(
    ("returncode", "reason"),
    [
        (0, "exited with status 0"),
        (1, "exited with status 1"),
        (-signal.SIGTERM, "killed by SIGTERM"),
        (-signal.SIGILL, "killed by SIGILL (a crash inside llama.cpp"),
        (-200, "killed by signal 200"),
    ],
)
def test_death_reason(returncode: int, reason: str) -> None:
    assert death_reason(returncode).startswith(reason)
