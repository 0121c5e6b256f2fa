"""llama.cpp's OpenAI-compatible server (llama-cpp-python's) on a free loopback port, watched.

A crash inside llama.cpp (a general protection fault, an illegal instruction: a build whose
instructions or extra buffer types this CPU cannot run) kills the server process while a client
waits for its reply. :class:`LlamaServer` notices that at once — every wait polls the process —
and says why in one line (:func:`death_reason`) with the server's log, instead of letting a client
time out minutes later. ``python -m ramseygadgets.training.llama_server`` sends one chat request
to a fresh server of the SmolLM2 GGUF and prints one line: what ``scripts/setup.sh`` checks.
"""

from __future__ import annotations

import contextlib
import json
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.training.models import smollm2_gguf

__all__ = ["LlamaServer", "LlamaServerError", "death_reason", "smoke_check"]

#: Why a build may crash where it was not built: the one-line hint after a fatal signal.
CRASH_HINT = (
    "a crash inside llama.cpp: a build with -march=native or the AMX/repack extra buffer types "
    "faults on some CPUs (AMX ones, also in VMs); rebuild it portable with scripts/setup.sh"
)


class LlamaServerError(RamseyGadgetsError):
    """The llama.cpp server did not start, died, or did not answer; ``log`` is its log's end."""

    def __init__(self, message: str, log: str = "") -> None:
        super().__init__(message)
        self.log = log


def death_reason(returncode: int) -> str:
    """One line for a process's exit: ``killed by SIGSEGV (...)`` or ``exited with status 1``."""
    if returncode >= 0:
        return f"exited with status {returncode}"
    try:
        name = signal.Signals(-returncode).name
    except ValueError:
        name = f"signal {-returncode}"
    fatal = {"SIGSEGV", "SIGILL", "SIGBUS", "SIGFPE", "SIGABRT"}
    return f"killed by {name}" + (f" ({CRASH_HINT})" if name in fatal else "")


def free_loopback_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class LlamaServer:
    """``python -m llama_cpp.server`` with one entry per model alias (llama-cpp-python's
    ``--config_file``), its output in ``workdir/llama-server.log``."""

    #: The server program; ``--config_file FILE`` is appended.
    PROGRAM: tuple[str, ...] = (sys.executable, "-m", "llama_cpp.server")

    def __init__(self, models: list[dict[str, Any]], workdir: Path) -> None:
        self.port = free_loopback_port()
        config = {"host": "127.0.0.1", "port": self.port, "models": models}
        workdir.mkdir(parents=True, exist_ok=True)
        self.config_file = workdir / "llama-server.json"
        self.config_file.write_text(json.dumps(config))
        self.log = workdir / "llama-server.log"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, ready_timeout: float = 180.0) -> LlamaServer:
        """Start the server and wait until ``/v1/models`` answers; raise at once if it dies."""
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [*self.PROGRAM, "--config_file", str(self.config_file)],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + ready_timeout
        while time.monotonic() < deadline:
            self.check_alive("while starting")
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as reply:
                    if reply.status == 200:
                        return self
            except OSError:
                time.sleep(0.3)
        self.stop()
        raise LlamaServerError(
            f"llama.cpp server not ready in {ready_timeout:g} s", self.log_tail()
        )

    def died(self) -> str | None:
        """Why the server is gone (one line), or None while it runs."""
        if self.process is None or self.process.poll() is None:
            return None
        return death_reason(self.process.returncode)

    def check_alive(self, doing: str) -> None:
        reason = self.died()
        if reason is not None:
            raise LlamaServerError(f"llama.cpp server {reason} {doing}", self.log_tail())

    def log_tail(self, chars: int = 3000) -> str:
        return self.log.read_text(errors="replace")[-chars:] if self.log.exists() else ""

    def chat(self, model: str, content: str, max_tokens: int = 4, timeout: float = 120) -> str:
        """One chat completion's text; a server that dies meanwhile raises at once."""
        body = {
            "model": model,
            "messages": [{"role": "user", "content": content}],
            "max_tokens": max_tokens,
            "temperature": 0,
        }
        request = urllib.request.Request(
            f"{self.base_url}/chat/completions",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        with ThreadPoolExecutor(max_workers=1) as pool:
            reply = pool.submit(lambda: json.load(urllib.request.urlopen(request, timeout=timeout)))
            self.wait_for(reply.done, "on a chat request", timeout)
            try:
                answer: dict[str, Any] = reply.result()
            except urllib.error.HTTPError as exc:
                detail = exc.read().decode(errors="replace")[:300]
                raise LlamaServerError(
                    f"llama.cpp server answered HTTP {exc.code}: {detail}"
                ) from exc
            except OSError as exc:
                # a crashing server closes the connection a moment before it can be reaped
                if self.process is not None:
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        self.process.wait(timeout=1.0)
                self.check_alive("on a chat request")
                raise LlamaServerError(f"chat request to llama.cpp failed: {exc}") from exc
        return str(answer["choices"][0]["message"]["content"] or "")

    def wait_for(self, done: Callable[[], bool], doing: str, timeout: float) -> None:
        """Wait until ``done()``; raise at once if the server dies, or after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while not done():
            self.check_alive(doing)
            if time.monotonic() > deadline:
                raise LlamaServerError(f"llama.cpp server gave no answer in {timeout:g} s {doing}")
            time.sleep(0.1)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def smoke_check(gguf: Path, workdir: Path) -> str:
    """Start a server of ``gguf``, send one chat request, stop it; the reply's text."""
    models = [{"model": str(gguf), "model_alias": "smoke", "n_ctx": 512, "verbose": False}]
    with LlamaServer(models, workdir) as server:
        return server.chat("smoke", "Say hello.")


def main() -> int:
    try:
        with tempfile.TemporaryDirectory(prefix="llama-smoke-") as folder:
            started = time.monotonic()
            text = smoke_check(smollm2_gguf(), Path(folder))
    except RamseyGadgetsError as exc:
        log = getattr(exc, "log", "")
        if log:
            print(f"--- the end of the llama.cpp server's log ---\n{log}", file=sys.stderr)
        print(f"llama.cpp check failed: {exc}", file=sys.stderr)
        return 1
    print(f"llama.cpp answers ({time.monotonic() - started:.1f} s): {text.strip()[:60]!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
