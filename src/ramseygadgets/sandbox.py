"""Run an untrusted Python program under bubblewrap, with limits, and read what it printed.

The program sees a read-only view of the Python runtime (the interpreter, its standard library
and the shared libraries they load) and of the allowed libraries only (:data:`ALLOWED_MODULES`,
bound into :data:`LIBRARY_DIR` on ``sys.path``): nothing of ramseygadgets, of the rest of
site-packages, of the host's files, home or environment.  It runs in new user, PID, network,
IPC and UTS namespaces (no network at all), with a fresh size-capped tmpfs as home and working
folder, a cleared environment, no capabilities, resource limits (:class:`SandboxLimits`) and a
wall-clock limit that kills the whole tree.  Run by root, the sandbox runs as a fresh
unprivileged host uid per program (root is exempt from the process limit); a staging bwrap
makes the runtime readable to it without changing the host.  The threat model is in
``docs/sandbox.md``.

Where bubblewrap is missing or cannot create its namespaces, :func:`require_sandbox` (and every
:meth:`Sandbox.run`) raises :class:`SandboxUnavailableError` before anything runs.
"""

from __future__ import annotations

import importlib.util
import os
import secrets
import selectors
import shutil
import signal
import subprocess
import sys
import sysconfig
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

from ramseygadgets.errors import RamseyGadgetsError

__all__ = [
    "ALLOWED_MODULES",
    "HOME",
    "LIBRARY_DIR",
    "SandboxError",
    "SandboxUnavailableError",
    "SandboxLimits",
    "SandboxResult",
    "Sandbox",
    "require_sandbox",
    "sandbox_available",
]

#: Top-level modules importable inside besides the standard library (python-sat's extension
#: modules and its one dependency included).
ALLOWED_MODULES = ("networkx", "pysat", "pycard", "pysolvers", "six")
#: The program's home and working folder (a fresh tmpfs).
HOME = "/home/sandbox"
#: Where the allowed libraries are bound (the only entry of ``PYTHONPATH``).
LIBRARY_DIR = "/sandbox/lib"
#: Exit codes above this are bwrap's report of a signal (128 + signal number).
_SIGNAL_BASE = 128
#: How long the pipes may stay open after the program exited.
_EXIT_GRACE_S = 1.0
#: Host uids picked per run when the harness runs as root.
_UID_RANGE = (1_800_000_000, 2_100_000_000)


class SandboxError(RamseyGadgetsError, ValueError):
    """A program cannot be run as asked (too long, not text)."""


class SandboxUnavailableError(SandboxError):
    """bubblewrap is missing or cannot create its namespaces: nothing runs."""


@dataclass(frozen=True)
class SandboxLimits:
    """Limits on one program; every field has a default a person can change.

    ``cpu_s``, ``memory_mb``, ``file_mb`` and ``open_files`` are per process (setrlimit);
    ``processes`` counts the program's processes and threads together; ``disk_mb`` caps each
    of the two tmpfs (home and ``/tmp``); ``output_bytes`` is kept of stdout and of stderr each
    (the rest is read and dropped); ``wall_s`` ends the whole tree.
    """

    wall_s: float = 60.0
    cpu_s: int = 60
    memory_mb: int = 2048
    output_bytes: int = 64 * 1024
    file_mb: int = 64
    disk_mb: int = 256
    processes: int = 32
    open_files: int = 256
    program_bytes: int = 200_000

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
                raise SandboxError(f"sandbox limit {name} must be a positive number, got {value!r}")

    def updated(self, **changes: Any) -> SandboxLimits:
        """A copy with the given fields replaced (``None`` leaves a field unchanged)."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class SandboxResult:
    """What one program did: its exit status (negative: the signal that ended it), what it
    printed (each stream cut at ``SandboxLimits.output_bytes``) and what stopped it."""

    exit_status: int
    stdout: str
    stderr: str
    timed_out: bool = False
    memory_exceeded: bool = False
    cpu_exceeded: bool = False
    killed_by_signal: bool = False
    output_truncated: bool = False
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.exit_status == 0 and not self.timed_out

    def flags(self) -> list[str]:
        """The names of the flags that are set (``timed_out``, ``memory_exceeded``, …)."""
        names = ("timed_out", "memory_exceeded", "cpu_exceeded", "killed_by_signal")
        return [n for n in (*names, "output_truncated") if getattr(self, n)]

    def to_json(self) -> dict[str, Any]:
        """The record of the run without the output (stored with each sample)."""
        out = {k: v for k, v in asdict(self).items() if k not in ("stdout", "stderr")}
        out["seconds"] = round(self.seconds, 4)
        return out


# ---------------------------------------------------------------------------------------------
# The runtime's read-only view
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Runtime:
    """The interpreter and the read-only binds (host path, sandbox path) it needs."""

    python: str
    binds: tuple[tuple[str, str], ...]
    hidden: tuple[str, ...]


def _allowed_sources() -> list[tuple[str, str]]:
    """The allowed modules' folders or files, each bound under :data:`LIBRARY_DIR`."""
    found = []
    for name in ALLOWED_MODULES:
        spec = importlib.util.find_spec(name)
        if spec is None:
            continue
        locations = list(spec.submodule_search_locations or [])
        source = locations[0] if locations else spec.origin
        if source and os.path.exists(source):
            found.append((source, f"{LIBRARY_DIR}/{os.path.basename(source)}"))
    return found


def _shared_libraries(files: list[str]) -> list[str]:
    """Every shared library ``ldd`` names for ``files`` (absolute paths, the loader included)."""
    ldd = shutil.which("ldd")
    if ldd is None:
        raise SandboxUnavailableError(
            "the sandbox needs ldd (Debian's libc-bin) to find the interpreter's libraries"
        )
    out = subprocess.run([ldd, *files], capture_output=True, text=True, check=False).stdout
    libraries = set()
    for line in out.splitlines():
        words = line.split()
        path = words[2] if len(words) > 2 and words[1] == "=>" else (words[0] if words else "")
        if path.startswith("/") and os.path.exists(path):
            libraries.add(path)
    return sorted(libraries)


@cache
def _runtime() -> _Runtime:
    """The interpreter's real prefix (``sys.base_prefix``), its standard library with every
    site-packages hidden, the allowed libraries and the shared libraries all of them load."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    python = os.path.join(sys.base_prefix, "bin", version)
    if not os.path.exists(python):
        python = os.path.realpath(sys.executable)
    stdlib = sysconfig.get_paths()["stdlib"]
    dynload = os.path.join(stdlib, "lib-dynload")
    allowed = _allowed_sources()
    extensions = [str(p) for p in Path(dynload).glob("*.so")]
    for source, _ in allowed:
        tree = Path(source)
        extensions += [
            str(p) for p in (tree.rglob("*.so") if tree.is_dir() else [tree]) if p.suffix == ".so"
        ]
    libraries = _shared_libraries([python, *extensions])
    binds = [(python, python), (stdlib, stdlib)]
    binds += [(lib, lib) for lib in libraries if not lib.startswith(stdlib + "/")]
    if os.path.exists("/etc/ld.so.cache"):
        binds.append(("/etc/ld.so.cache", "/etc/ld.so.cache"))
    binds += allowed
    hidden = tuple(str(p) for p in Path(stdlib).glob("*-packages") if p.is_dir())
    return _Runtime(python, tuple(sorted(set(binds), key=lambda b: b[1])), hidden)


# ---------------------------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------------------------
def _prlimit(limits: SandboxLimits, nproc: int) -> list[str]:
    mib = 1024 * 1024
    return [
        "prlimit",
        f"--cpu={limits.cpu_s}:{limits.cpu_s + 1}",
        f"--as={limits.memory_mb * mib}",
        f"--fsize={limits.file_mb * mib}",
        f"--nproc={nproc}",
        f"--nofile={limits.open_files}",
        "--core=0",
        "--",
    ]


def _inner_bwrap(
    runtime: _Runtime, limits: SandboxLimits, sources: list[str], program_fd: int
) -> list[str]:
    """The sandbox itself: namespaces, the read-only runtime (bound from ``sources``), tmpfs
    home and ``/tmp``, a minimal ``/dev``, the cleared environment, the program."""
    disk = str(limits.disk_mb * 1024 * 1024)
    args = ["bwrap", "--unshare-all", "--unshare-user", "--disable-userns", "--uid", "1000"]
    args += ["--gid", "1000", "--hostname", "sandbox", "--die-with-parent", "--new-session"]
    args += ["--cap-drop", "ALL", "--clearenv"]
    environment = {
        "PATH": os.path.dirname(runtime.python),
        "HOME": HOME,
        "LANG": "C.UTF-8",
        "PYTHONPATH": LIBRARY_DIR,
        "PYTHONDONTWRITEBYTECODE": "1",
        "TMPDIR": "/tmp",
    }
    for name, value in environment.items():
        args += ["--setenv", name, value]
    for source, (_, dest) in zip(sources, runtime.binds):
        args += ["--ro-bind", source, dest]
    for folder in runtime.hidden:
        args += ["--tmpfs", folder, "--remount-ro", folder]
    # /proc of its own PID namespace; /dev minimal and read-only but for a small /dev/shm
    args += f"--proc /proc --dev /dev --size {4 * 2**20} --tmpfs /dev/shm --remount-ro /dev".split()
    args += f"--size {disk} --tmpfs {HOME} --size {disk} --tmpfs /tmp".split()
    args += ["--file", str(program_fd), f"{HOME}/main.py", "--chdir", HOME]
    return [*args, "--", runtime.python, "main.py"]


def _command(limits: SandboxLimits, program_fd: int, uid: int | None) -> list[str]:
    """The whole command: as root, a staging bwrap binds the runtime where the fresh ``uid``
    can read it and ``setpriv`` drops to that uid; otherwise the sandbox directly."""
    runtime = _runtime()
    nproc = _tasks_of(os.getuid() if uid is None else uid) + limits.processes + 2
    if uid is None:
        sources = [source for source, _ in runtime.binds]
        return _prlimit(limits, nproc) + _inner_bwrap(runtime, limits, sources, program_fd)
    # its own PID namespace: everything below dies with it (a credential change clears the
    # parent-death signal, so --die-with-parent alone does not reach past setpriv)
    stage = "bwrap --dev-bind / / --tmpfs /tmp --die-with-parent --unshare-pid".split()
    stage += ["--perms", "0755", "--dir", "/tmp/runtime"]
    sources = []
    for index, (source, _) in enumerate(runtime.binds):
        sources.append(f"/tmp/runtime/{index}")
        stage += ["--ro-bind", source, sources[-1]]
    drop = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
    drop += ["--inh-caps=-all", "--bounding-set=-all", "--"]
    inner = _inner_bwrap(runtime, limits, sources, program_fd)
    return [*stage, "--", *drop, *_prlimit(limits, nproc), *inner]


# ---------------------------------------------------------------------------------------------
# Processes
# ---------------------------------------------------------------------------------------------
def _uids_of(pid: str, *, live: bool = False) -> int | None:
    """The real uid of a process (``None`` when it is gone, or with ``live`` a zombie: dead,
    waiting for its parent)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as status:
            for line in status:
                if live and line.startswith(b"State:") and line.split()[1] == b"Z":
                    return None
                if line.startswith(b"Uid:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def _tasks_of(uid: int) -> int:
    """The tasks (processes and threads) whose real uid is ``uid`` (the process limit counts
    them all)."""
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit() and _uids_of(entry) == uid:
            try:
                count += len(os.listdir(f"/proc/{entry}/task"))
            except OSError:
                pass
    return count


def _sweep(uid: int) -> None:
    """Kill every live process of the run's own host uid until none is left (at most 2 s)."""
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        left = [
            int(p) for p in os.listdir("/proc") if p.isdigit() and _uids_of(p, live=True) == uid
        ]
        if not left:
            return
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.01)


@dataclass
class _Output:
    """One stream's kept bytes, cut at ``limit``; what is beyond is read and dropped."""

    limit: int
    data: bytearray
    truncated: bool = False

    def add(self, chunk: bytes) -> None:
        room = self.limit - len(self.data)
        self.data += chunk[: max(room, 0)]
        self.truncated = self.truncated or len(chunk) > room

    def text(self) -> str:
        return self.data.decode("utf-8", "replace")


@dataclass
class _Ended:
    status: int
    timed_out: bool
    seconds: float


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass


def _watch(proc: subprocess.Popen[bytes], wall_s: float, out: _Output, err: _Output) -> _Ended:
    """Read both pipes (capped) until the program ends or the wall-clock limit passes (the
    pipes may stay open a moment after it exited), kill what is left of the group, reap it."""
    started = time.monotonic()
    deadline, exited_at, timed_out = started + wall_s, None, False
    pidfd = os.pidfd_open(proc.pid)
    streams = {proc.stdout.fileno(): out, proc.stderr.fileno(): err}  # type: ignore[union-attr]
    with selectors.DefaultSelector() as selector:
        selector.register(pidfd, selectors.EVENT_READ)
        for fd in streams:
            selector.register(fd, selectors.EVENT_READ)
        while streams:
            now = time.monotonic()
            stop = deadline if exited_at is None else min(deadline, exited_at + _EXIT_GRACE_S)
            if now >= stop:
                timed_out = exited_at is None
                _kill_group(proc)
                break
            for key, _ in selector.select(stop - now):
                if key.fd == pidfd:
                    exited_at = time.monotonic()
                    selector.unregister(pidfd)
                    continue
                chunk = os.read(key.fd, 65536)
                if chunk:
                    streams[key.fd].add(chunk)
                else:
                    selector.unregister(key.fd)
                    del streams[key.fd]
    os.close(pidfd)
    _kill_group(proc)  # what is left of the group; the leader is not reaped yet
    proc.wait()
    return _Ended(proc.returncode, timed_out, time.monotonic() - started)


_MEMORY_WORDS = (b"MemoryError", b"Cannot allocate memory", b"std::bad_alloc", b"out of memory")


def _result(ended: _Ended, out: _Output, err: _Output) -> SandboxResult:
    """Decode bwrap's exit status (``128 + n``: signal ``n``) and set the flags: the memory
    limit shows as an allocation failure in stderr, the CPU limit as SIGXCPU (then SIGKILL)."""
    status = ended.status
    if status > _SIGNAL_BASE and status - _SIGNAL_BASE < signal.NSIG:
        status = -(status - _SIGNAL_BASE)
    if ended.timed_out:
        status = -signal.SIGKILL
    memory = status != 0 and any(word in err.data for word in _MEMORY_WORDS)
    cpu = status == -signal.SIGXCPU or (status == -signal.SIGKILL and not memory)
    return SandboxResult(
        exit_status=status,
        stdout=out.text(),
        stderr=err.text(),
        timed_out=ended.timed_out,
        memory_exceeded=memory,
        cpu_exceeded=cpu and not ended.timed_out,
        killed_by_signal=status < 0,
        output_truncated=out.truncated or err.truncated,
        seconds=ended.seconds,
    )


# ---------------------------------------------------------------------------------------------
# The sandbox
# ---------------------------------------------------------------------------------------------
_PROBE_LOCK = threading.Lock()
_PROBE: list[SandboxUnavailableError | None] = []


def _probe() -> SandboxUnavailableError | None:
    """Run one tiny program in the sandbox: ``None`` when it worked, else the reason."""
    missing = [t for t in ("bwrap", "prlimit", "ldd") if shutil.which(t) is None]
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        missing.append("setpriv")
    if missing:
        return SandboxUnavailableError(
            f"the python setting needs bubblewrap and util-linux ({', '.join(missing)} not found; "
            f"on Debian: apt-get install bubblewrap); model code never runs outside the sandbox"
        )
    try:
        result = Sandbox(SandboxLimits(wall_s=30), _probing=True).run("print('ok')")
    except (OSError, SandboxError) as exc:
        return SandboxUnavailableError(f"the sandbox cannot start: {exc}")
    if result.exit_status != 0 or result.stdout.strip() != "ok":
        reason = (result.stderr.strip().splitlines() or [f"exit status {result.exit_status}"])[0]
        return SandboxUnavailableError(
            f"bubblewrap cannot create its namespaces here ({reason[:200]}); "
            f"model code never runs outside the sandbox"
        )
    return None


def require_sandbox() -> None:
    """Raise :class:`SandboxUnavailableError` (one line) unless the sandbox works here; the
    probe runs once per process."""
    with _PROBE_LOCK:
        if not _PROBE:
            _PROBE.append(_probe())
    if _PROBE[0] is not None:
        raise _PROBE[0]


def sandbox_available() -> bool:
    """Whether :func:`require_sandbox` passes."""
    try:
        require_sandbox()
    except SandboxUnavailableError:
        return False
    return True


class Sandbox:
    """Runs programs under the limits given (:class:`SandboxLimits`).

    ``isolation=False`` exists for the tests only (it proves a hostile-program test can fail):
    the same program in a plain ``subprocess.run`` with the wall-clock limit and nothing else.
    The python setting refuses such a sandbox (:attr:`isolated`).
    """

    def __init__(
        self, limits: SandboxLimits | None = None, *, isolation: bool = True, _probing: bool = False
    ):
        self.limits = limits or SandboxLimits()
        self.isolated = isolation
        self._probing = _probing

    def run(
        self, program: str, *, on_start: Callable[[Callable[[], None]], None] | None = None
    ) -> SandboxResult:
        """Run ``program`` (Python source) and return what it did; raises
        :class:`SandboxUnavailableError` before anything runs when the sandbox cannot work.

        ``on_start`` is called once the program started, with a function that kills its whole
        tree at once (an interrupted run stops its programs; the result then reads as killed).
        """
        if not isinstance(program, str):
            raise SandboxError(f"a program is Python source text, not {type(program).__name__}")
        source = program.encode("utf-8", "surrogatepass")
        if len(source) > self.limits.program_bytes:
            raise SandboxError(
                f"the program has {len(source)} bytes; at most {self.limits.program_bytes} are run"
            )
        if not self.isolated:
            return self._run_plain(source)
        if not self._probing:
            require_sandbox()
        uid = (
            secrets.randbelow(_UID_RANGE[1] - _UID_RANGE[0]) + _UID_RANGE[0]
            if os.geteuid() == 0
            else None
        )
        fd = os.memfd_create("main.py")
        try:
            os.write(fd, source)
            os.lseek(fd, 0, os.SEEK_SET)
            return self._execute(_command(self.limits, fd, uid), [fd], uid, on_start)
        finally:
            os.close(fd)

    def _execute(
        self,
        argv: list[str],
        fds: list[int],
        uid: int | None,
        on_start: Callable[[Callable[[], None]], None] | None = None,
    ) -> SandboxResult:
        out, err = (
            _Output(self.limits.output_bytes, bytearray()),
            _Output(self.limits.output_bytes, bytearray()),
        )
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=fds,
            start_new_session=True,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},  # bwrap clears it again
        )
        try:
            if on_start is not None:  # a killed group ends the watch like the wall-clock limit
                on_start(lambda: None if proc.returncode is not None else _kill_group(proc))
            ended = _watch(proc, self.limits.wall_s, out, err)
        finally:
            if proc.returncode is None:
                _kill_group(proc)
                proc.wait()
            proc.stdout.close()  # type: ignore[union-attr]
            proc.stderr.close()  # type: ignore[union-attr]
            if uid is not None:
                _sweep(uid)
        return _result(ended, out, err)

    def _run_plain(self, source: bytes) -> SandboxResult:
        """The test-only unisolated run: a plain ``subprocess.run`` with the host's interpreter,
        environment and folder, output kept whole, only the direct child killed at the
        wall-clock limit."""
        argv = [sys.executable, "-c", source.decode("utf-8", "surrogatepass")]
        started = time.monotonic()
        try:
            done = subprocess.run(argv, capture_output=True, timeout=self.limits.wall_s)
        except subprocess.TimeoutExpired as exc:
            out, err, status, timed_out = exc.stdout or b"", exc.stderr or b"", -9, True
        else:
            out, err, status, timed_out = done.stdout, done.stderr, done.returncode, False
        return SandboxResult(
            exit_status=status,
            stdout=out.decode("utf-8", "replace"),
            stderr=err.decode("utf-8", "replace"),
            timed_out=timed_out,
            killed_by_signal=status < 0,
            seconds=time.monotonic() - started,
        )
