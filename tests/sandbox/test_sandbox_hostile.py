"""Hostile programs: each one is contained by the sandbox (nothing of the host read or changed,
no process left, what stopped it recorded), and each harmless one does its harm with the
sandbox switched off (``Sandbox(isolation=False)``), so that its test can fail."""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from sandbox_helpers import LIMITS, need_sandbox, processes_with

import ramseygadgets
from ramseygadgets.sandbox import Sandbox, SandboxResult

PROJECT_FILE = Path(ramseygadgets.__file__).resolve().parents[2] / "pyproject.toml"


@dataclass
class Host:
    """What a hostile program goes after: secrets, a server, the harness, a marker."""

    tmp: Path
    secret: str
    api_key: str
    marker: str
    port: int
    connections: list[bytes] = field(default_factory=list)
    signals: list[int] = field(default_factory=list)

    @property
    def home(self) -> Path:
        return self.tmp / "home"

    @property
    def escape(self) -> Path:
        return self.tmp / "escaped.txt"

    def leaked(self, result: SandboxResult) -> bool:
        text = result.stdout + result.stderr
        return self.secret in text or self.api_key in text


def _serve(server: socket.socket, host: Host) -> None:
    while True:
        try:
            conn, _ = server.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(1)
            try:
                host.connections.append(conn.recv(100) or b"(connected)")
            except OSError:
                host.connections.append(b"(connected)")


@pytest.fixture
def host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Host]:
    secret = "SECRET-" + secrets.token_hex(8)
    api_key = "sk-test-" + secrets.token_hex(12)
    monkeypatch.setenv("OPENAI_API_KEY", api_key)
    for name in (".ssh/id_ed25519", ".cache/token"):
        (tmp_path / "home" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "home" / name).write_text(secret)
    server = socket.create_server(("127.0.0.1", 0))
    made = Host(
        tmp_path, secret, api_key, "rg-marker-" + secrets.token_hex(6), server.getsockname()[1]
    )
    threading.Thread(target=_serve, args=(server, made), daemon=True).start()
    previous = signal.signal(signal.SIGUSR1, lambda signum, frame: made.signals.append(signum))
    try:
        yield made
    finally:
        signal.signal(signal.SIGUSR1, previous)
        server.close()
        for pid in processes_with(made.marker):
            os.kill(pid, signal.SIGKILL)


def _read_all(paths: list[str]) -> str:
    return f"""
import os
for p in {paths!r}:
    try:
        print("READ-OK", p, open(p, "rb").read(4096).decode("utf-8", "replace"))
    except Exception as e:
        print("READ-FAIL", p, type(e).__name__)
    try:
        print("LIST-OK", p, os.listdir(p))
    except Exception:
        pass
"""


def _marked(code: str, host: Host) -> str:
    """Python that replaces the process by ``code`` with the marker on its command line."""
    return f"os.execv(sys.executable, [sys.executable, '-c', {code!r}, {host.marker!r}])"


# -- the hostile programs ------------------------------------------------------------------------
def read_project(host: Host) -> str:
    return _read_all([str(PROJECT_FILE), str(PROJECT_FILE.parent)]) + (
        "try:\n    import ramseygadgets\n    print('IMPORT-OK', ramseygadgets.__file__)\n"
        "except ImportError:\n    print('IMPORT-FAIL')\n"
    )


def read_home(host: Host) -> str:
    real = Path.home()
    paths = [host.home / ".ssh/id_ed25519", host.home / ".cache/token", real / ".ssh", real]
    return _read_all([str(p) for p in [*paths, real / ".cache", real / ".bash_history"]])


def read_environment(host: Host) -> str:
    return f"""
import os
print(dict(os.environ))
for pid in ["self", str(os.getppid()), "1", str({os.getpid()})] + os.listdir("/proc"):
    try:
        print(pid, open(f"/proc/{{pid}}/environ", "rb").read().decode("utf-8", "replace"))
    except Exception:
        pass
"""


def proc_escape(host: Host) -> str:
    secret_file = host.home / ".ssh/id_ed25519"
    pid = os.getpid()
    paths = [f"/proc/1/root{secret_file}", f"/proc/{pid}/root{secret_file}"]
    paths += [f"/proc/{pid}/environ", f"/proc/{pid}/cwd", f"/proc/{pid}/root/", "/proc/1/root/"]
    return _read_all(paths)


def loopback_socket(host: Host) -> str:
    return f"""
import socket
for address in ["127.0.0.1", "localhost", "::1"]:
    try:
        with socket.create_connection((address, {host.port}), timeout=1) as s:
            s.sendall(b"HELLO")
            print("CONNECTED", address)
    except Exception as e:
        print("NO", address, type(e).__name__)
"""


def write_host(host: Host) -> str:
    return f"""
try:
    open({str(host.escape)!r}, "w").write("escaped")
    print("WROTE")
except Exception as e:
    print("NO", type(e).__name__)
"""


def signal_harness(host: Host) -> str:
    return f"""
import os, signal
for pid in [{os.getpid()}, os.getppid()]:
    try:
        os.kill(pid, signal.SIGUSR1)
        print("SENT", pid)
    except Exception as e:
        print("NO", pid, type(e).__name__)
"""


def daemon(host: Host) -> str:
    sleeper = "import time\ntime.sleep(30)"
    return f"""
import os, sys
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        {_marked(sleeper, host)}
    os._exit(0)
print("parent leaves")
"""


def endless_loop(host: Host) -> str:
    return f"""
import os, sys
if os.fork() == 0:
    {_marked("while True: pass", host)}
while True:
    pass
"""


def bounded_flood(host: Host) -> str:
    return f"import sys\nsys.stdout.write('x' * {8 * LIMITS.output_bytes})\n"


@dataclass(frozen=True)
class Hostile:
    program: Callable[[Host], str]
    harm: Callable[[SandboxResult, Host], bool]


def _left(result: SandboxResult, host: Host) -> bool:
    time.sleep(0.2)
    return bool(processes_with(host.marker))


HOSTILE = {
    "read the project": Hostile(
        read_project, lambda r, h: "READ-OK" in r.stdout or "IMPORT-OK" in r.stdout
    ),
    "read the home": Hostile(read_home, lambda r, h: h.leaked(r)),
    "read the environment": Hostile(read_environment, lambda r, h: h.leaked(r)),
    "escape through /proc": Hostile(proc_escape, lambda r, h: h.leaked(r)),
    "loopback socket": Hostile(loopback_socket, lambda r, h: bool(h.connections)),
    "write outside": Hostile(write_host, lambda r, h: h.escape.exists()),
    "signal the harness": Hostile(signal_harness, lambda r, h: bool(h.signals)),
    "outlive the parent": Hostile(daemon, _left),
    "endless loop": Hostile(endless_loop, _left),
    "output flood": Hostile(bounded_flood, lambda r, h: len(r.stdout) > LIMITS.output_bytes),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_contained(name: str, sandbox: Sandbox, host: Host) -> None:
    """Inside the sandbox the program does no harm, and no process of it is left."""
    hostile = HOSTILE[name]
    result = sandbox.run(hostile.program(host))
    time.sleep(0.1)  # a signal or a connection would have arrived
    assert not hostile.harm(result, host), (result.stdout[-2000:], result.stderr[-2000:])
    assert not processes_with(host.marker)
    assert result.seconds < LIMITS.wall_s + 2


@pytest.mark.parametrize("name", list(HOSTILE))
def test_harmful_without_the_sandbox(name: str, unsandboxed: Sandbox, host: Host) -> None:
    """Switched off, the same program does its harm (in the test's throwaway setup): the
    containment test above can fail."""
    hostile = HOSTILE[name]
    result = unsandboxed.run(hostile.program(host))
    time.sleep(0.2)
    assert hostile.harm(result, host), (result.stdout[-2000:], result.stderr[-2000:])


def test_what_stopped_it_is_recorded(sandbox: Sandbox, host: Host) -> None:
    # two spinning processes: the tree's CPU time (the cgroup's) would reach a 3 s CPU limit
    # before the 3 s wall clock on an idle 2-core machine, so the CPU limit is set out of reach
    # here; the CPU limit's own record is test_cpu_time_is_counted_for_the_whole_tree
    loop = Sandbox(sandbox.limits.updated(cpu_s=60)).run(endless_loop(host))
    assert loop.timed_out and not loop.cpu_exceeded
    assert loop.killed_by_signal and loop.exit_status < 0
    flood = sandbox.run(bounded_flood(host))
    assert flood.output_truncated and len(flood.stdout) == LIMITS.output_bytes
    assert flood.exit_status == 0 and not flood.timed_out


# -- destructive programs: run sandboxed only --------------------------------------------------
def test_fork_bomb(sandbox: Sandbox, host: Host) -> None:
    bomb = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass"
    result = sandbox.run(f"import os, sys\n{_marked(bomb, host)}\n")
    # up to 16 spinning processes: the tree's CPU limit may stop it before the wall clock
    assert (result.timed_out or result.cpu_exceeded) and result.seconds < LIMITS.wall_s + 3
    assert not processes_with(host.marker)


def test_memory_bomb(sandbox: Sandbox) -> None:
    result = sandbox.run("chunks = []\nwhile True:\n    chunks.append(bytearray(10**7))\n")
    assert result.memory_exceeded and result.exit_status != 0 and not result.timed_out
    assert "MemoryError" in result.stderr


def test_write_gigabytes(sandbox: Sandbox, host: Host) -> None:
    before = shutil.disk_usage("/").free, shutil.disk_usage(host.tmp).free
    stdlib = Path(os.__file__).parent / f"{host.marker}.txt"
    program = f"""
import os
for folder in [".", "/tmp", "/dev/shm", {str(stdlib.parent)!r}, "/"]:
    try:
        with open(os.path.join(folder, "big"), "wb") as f:
            for _ in range(1024):
                f.write(b"x" * 2**20)
    except OSError as e:
        print(folder, e.strerror)
for i in range(10**4):
    try:
        open(f"many{{i}}", "wb").write(b"x" * 2**20)
    except OSError as e:
        print("file", i, e.strerror)
        break
open({str(stdlib)!r}, "w").write("escaped")
"""
    try:
        result = sandbox.run(program)
    finally:
        escaped = stdlib.exists()
        stdlib.unlink(missing_ok=True)
    assert not escaped
    assert "File too large" in result.stdout and "No space left on device" in result.stdout
    assert "Read-only file system" in result.stdout + result.stderr
    after = shutil.disk_usage("/").free, shutil.disk_usage(host.tmp).free
    assert all(b - a < 200 * 2**20 for b, a in zip(before, after))


def test_endless_output_flood(sandbox: Sandbox) -> None:
    program = "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n    sys.stderr.write('y' * 65536)\n"
    result = sandbox.run(program)
    assert result.timed_out and result.output_truncated
    assert len(result.stdout) == len(result.stderr) == LIMITS.output_bytes


def test_kill_everything(sandbox: Sandbox, host: Host) -> None:
    """``kill(-1)`` and signals to every pid reach nothing outside."""
    sentinel = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", host.marker])
    try:
        program = """
import os, signal
for pid in [-1, 0, 1] + list(range(2, 4096)):
    try:
        os.kill(pid, signal.SIGKILL if pid != 0 else signal.SIGUSR1)
    except OSError:
        pass
"""
        result = sandbox.run(program)
        assert sentinel.poll() is None and not host.signals
        assert result.seconds < LIMITS.wall_s + 2
    finally:
        sentinel.kill()
        sentinel.wait()


def test_the_sandbox_sees_only_the_runtime(sandbox: Sandbox) -> None:
    program = """
import os, sys, networkx, pysat.solvers
print(os.getuid(), os.getpid(), sorted(os.environ), sorted(os.listdir("/")))
try:
    import numpy
except ImportError:
    print("no numpy")
"""
    result = sandbox.run(program)
    assert result.ok, result.stderr
    assert "no numpy" in result.stdout
    assert "'HOME', 'LANG', 'PATH'" in result.stdout and "OPENAI" not in result.stdout
    assert "1000 2 " in result.stdout  # its own user and PID namespaces


@pytest.mark.parametrize("isolation", [True, False])
def test_nothing_outlives_a_killed_harness(host: Host, isolation: bool) -> None:
    """The harness killed (SIGKILL) in the middle of a program: no sandbox is left behind
    (without the sandbox the program outlives it: the test can fail)."""
    # the program detaches as a daemon would (its own session, hang-ups and terminations
    # ignored, no pipe to the harness), so only a kill of the whole sandbox ends it: without
    # the sandbox nothing a killed harness leaves behind (a hang-up, a closed pipe) reaches it
    detach = (
        "import os, signal, sys\nos.setsid()\n"
        "for s in (signal.SIGHUP, signal.SIGTERM, signal.SIGINT, signal.SIGPIPE):\n"
        "    signal.signal(s, signal.SIG_IGN)\n"
        "null = os.open(os.devnull, os.O_RDWR)\n"
        "for fd in (0, 1, 2):\n    os.dup2(null, fd)\n"
    )
    sleeper = f"{detach}{_marked('import time; time.sleep(180)', host)}\n"
    harness = (
        "from ramseygadgets.sandbox import Sandbox, SandboxLimits\n"
        f"Sandbox(SandboxLimits(wall_s=180), isolation={isolation}).run({sleeper!r})\n"
    )
    if isolation:
        need_sandbox()
    script = host.tmp / "harness.py"  # a file: the harness's own command line has no marker
    script.write_text(harness)
    process = subprocess.Popen([sys.executable, str(script)])
    try:
        # a loaded 2-core CI machine once took over 20 s to start the harness and its program
        deadline = time.monotonic() + 120
        while not processes_with(host.marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert processes_with(host.marker), "the program never started"
    finally:
        process.kill()
        process.wait()
    deadline = time.monotonic() + 3
    while processes_with(host.marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert bool(processes_with(host.marker)) is not isolation
