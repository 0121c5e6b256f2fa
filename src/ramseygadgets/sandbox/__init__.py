"""Run an untrusted Python program under bubblewrap, with limits, and read what it printed.

The program sees a read-only root holding the Python runtime at neutral paths (the
interpreter, its standard library and the shared libraries they load:
:mod:`ramseygadgets.sandbox.image`) and the allowed libraries only (:data:`ALLOWED_MODULES`,
in :data:`LIBRARY_DIR` on ``sys.path``): nothing of ramseygadgets, of site-packages, of the
host's files, home or environment.  It runs in new user, PID, network, IPC and UTS
namespaces (no network at all), under a seccomp filter (:mod:`ramseygadgets.sandbox.seccomp`:
no keyring, io_uring, perf, bpf, ptrace, mounts, namespaces, sockets but ``AF_UNIX``), in a
cgroup of its own that holds the whole tree to the memory, process and CPU budget
(:mod:`ramseygadgets.sandbox.cgroup`), with size-capped tmpfs as home, ``/tmp`` and
``/dev/shm``, a cleared environment, no capabilities, resource limits (:class:`SandboxLimits`)
and a wall-clock limit that kills the whole tree.  bubblewrap itself starts with a fixed
environment.  Run by root, the sandbox runs as a fresh unprivileged host uid per program; a
staging bwrap makes the runtime readable to it without changing the host.  The threat model
is in ``docs/sandbox.md``.

Where bubblewrap is missing or cannot create its namespaces, or the filter cannot be built,
or no cgroup can be made (unless the caller opted out: ``require_cgroup=False``),
:func:`require_sandbox` and :meth:`Sandbox.run` raise :class:`SandboxUnavailableError` before
anything runs.
"""

from __future__ import annotations

import os
import secrets
import selectors
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ramseygadgets.sandbox.cgroup import (
    CgroupBudget,
    cgroup_support,
    enter_command,
    kill_until_gone,
)
from ramseygadgets.sandbox.image import ALLOWED_MODULES, LIBRARY_DIR, Runtime, runtime
from ramseygadgets.sandbox.limits import (
    SandboxError,
    SandboxLimits,
    SandboxResult,
    SandboxUnavailableError,
)
from ramseygadgets.sandbox.seccomp import bpf_program, seccomp_fd

__all__ = [
    "ALLOWED_MODULES",
    "HOME",
    "LIBRARY_DIR",
    "PROTECTIONS",
    "SandboxError",
    "SandboxUnavailableError",
    "SandboxLimits",
    "SandboxResult",
    "Sandbox",
    "require_sandbox",
    "sandbox_available",
    "sandbox_protections",
]

#: The program's home and working folder (a fresh tmpfs).
HOME = "/home/sandbox"
#: The protections a test may switch off one at a time (``Sandbox(without=...)``) to show
#: that its hostile program does harm without it; the python setting refuses such a sandbox.
PROTECTIONS = (
    "seccomp", "cgroup", "read_only_root", "fixed_environment", "neutral_paths", "runtime_mount"
)  # fmt: skip
#: The environment bubblewrap and its helpers start with (``/proc/1/environ`` inside).
FIXED_ENVIRONMENT = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"}
#: Exit codes above this are bwrap's report of a signal (128 + signal number).
_SIGNAL_BASE = 128
#: How long the pipes may stay open after the program exited.
_EXIT_GRACE_S = 1.0
#: How often the sandbox reads the tree's CPU time.
_CPU_POLL_S = 0.05
#: Host uids picked per run when the harness runs as root.
_UID_RANGE = (1_800_000_000, 2_100_000_000)
_TOOLS = ("bwrap", "prlimit", "ldd")


def _tool(name: str) -> str:
    return shutil.which(name) or name


# ---------------------------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------------------------
def _prlimit(limits: SandboxLimits, nproc: int, *, cpu_backstop: bool) -> list[str]:
    """Per-process limits; with the cgroup's CPU timer the CPU rlimit is a second above it."""
    mib = 1024 * 1024
    cpu = limits.cpu_s + (1 if cpu_backstop else 0)
    return [
        _tool("prlimit"),
        f"--cpu={cpu}:{cpu + 1}",
        f"--as={limits.memory_mb * mib}",
        f"--fsize={limits.file_mb * mib}",
        f"--nproc={nproc}",
        f"--nofile={limits.open_files}",
        "--core=0",
        "--",
    ]


def _inner_bwrap(
    rt: Runtime,
    binds: tuple[tuple[str, str], ...],
    limits: SandboxLimits,
    sources: list[str],
    fds: dict[str, int],
    ro_root: bool,
) -> list[str]:
    """The sandbox itself: namespaces, the read-only runtime (bound from ``sources``), tmpfs
    home, ``/tmp`` and ``/dev/shm``, the cleared environment, the seccomp filter, the program."""
    disk = str(limits.disk_mb * 1024 * 1024)
    args = [_tool("bwrap"), "--unshare-all", "--unshare-user", "--disable-userns"]
    args += ["--uid", "1000", "--gid", "1000", "--hostname", "sandbox", "--die-with-parent"]
    args += ["--new-session", "--cap-drop", "ALL", "--clearenv"]
    environment = {
        "PATH": os.path.dirname(rt.python),
        "HOME": HOME,
        "LANG": "C.UTF-8",
        "PYTHONPATH": LIBRARY_DIR,
        "PYTHONDONTWRITEBYTECODE": "1",
        "TMPDIR": "/tmp",
    }
    for name, value in environment.items():
        args += ["--setenv", name, value]
    for source, (_, dest) in zip(sources, binds):
        args += ["--ro-bind", source, dest]
    # /proc of its own PID namespace; /dev minimal and read-only but for a small /dev/shm
    args += f"--proc /proc --dev /dev --size {4 * 2**20} --tmpfs /dev/shm --remount-ro /dev".split()
    args += f"--size {disk} --tmpfs {HOME} --size {disk} --tmpfs /tmp".split()
    args += ["--file", str(fds["program"]), f"{HOME}/main.py", "--chdir", HOME]
    if ro_root:
        args += ["--remount-ro", "/"]
    if "seccomp" in fds:
        args += ["--seccomp", str(fds["seccomp"])]
    return [*args, "--", rt.python, "main.py"]


def _command(
    limits: SandboxLimits, fds: dict[str, int], uid: int | None, off: frozenset[str], cpu: bool
) -> list[str]:
    """The whole command: as root, a staging bwrap binds the runtime where the fresh ``uid``
    can read it and ``setpriv`` drops to that uid; otherwise the sandbox directly (``off``:
    the protections switched off, ``cpu``: the cgroup measures CPU time)."""
    rt = runtime().current()
    binds = rt.binds_without(off)
    ro_root = "read_only_root" not in off
    nproc = limits.processes + 2 + (0 if uid is None else _tasks_of(uid))
    prlimit = _prlimit(limits, nproc, cpu_backstop=cpu)
    if uid is None:
        sources = [source for source, _ in binds]
        return prlimit + _inner_bwrap(rt, binds, limits, sources, fds, ro_root)
    # its own PID namespace: everything below dies with it (a credential change clears the
    # parent-death signal, so --die-with-parent alone does not reach past setpriv)
    stage = [_tool("bwrap"), *"--dev-bind / / --tmpfs /tmp --die-with-parent".split()]
    stage += ["--unshare-pid", "--perms", "0755", "--dir", "/tmp/runtime"]
    sources = []
    for index, (source, _) in enumerate(binds):
        sources.append(f"/tmp/runtime/{index}")
        stage += ["--ro-bind", source, sources[-1]]
    drop = [_tool("setpriv"), f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
    drop += ["--inh-caps=-all", "--bounding-set=-all", "--"]
    inner = _inner_bwrap(rt, binds, limits, sources, fds, ro_root)
    return [*stage, "--", *drop, *prlimit, *inner]


# ---------------------------------------------------------------------------------------------
# Processes
# ---------------------------------------------------------------------------------------------
def _uids_of(pid: str, *, live: bool = False) -> int | None:
    """The real uid of a process (``None`` when it is gone, or with ``live`` a zombie)."""
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
    """The tasks (processes and threads) whose real uid is ``uid`` (RLIMIT_NPROC counts
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
    kill_until_gone(
        lambda: [
            int(p) for p in os.listdir("/proc") if p.isdigit() and _uids_of(p, live=True) == uid
        ],
        pause=0.01,
    )


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
    """How the watch ended: the status, and whether the sandbox killed for a limit."""

    status: int
    timed_out: bool
    seconds: float
    cpu_killed: bool = False
    oom_killed: bool = False


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass


def _kill_all(proc: subprocess.Popen[bytes], budget: CgroupBudget | None) -> None:
    _kill_group(proc)
    if budget is not None:
        budget.kill()


def _over_cpu(budget: CgroupBudget | None, cpu_s: float) -> bool:
    used = budget.cpu_seconds() if budget is not None else None
    return used is not None and used >= cpu_s


def _watch(
    proc: subprocess.Popen[bytes],
    limits: SandboxLimits,
    budget: CgroupBudget | None,
    streams: dict[int, _Output],
) -> _Ended:
    """Read the pipes (capped) until the program ends, the wall-clock limit passes or (with
    a CPU-measuring cgroup) the tree's CPU time reaches the limit; kill what is left, reap."""
    started = time.monotonic()
    deadline, exited_at, timed_out, cpu_killed = started + limits.wall_s, None, False, False
    poll = _CPU_POLL_S if budget is not None and budget.cpu_seconds() is not None else None
    pidfd = os.pidfd_open(proc.pid)
    with selectors.DefaultSelector() as selector:
        selector.register(pidfd, selectors.EVENT_READ)
        for fd in streams:
            selector.register(fd, selectors.EVENT_READ)
        while streams:
            now = time.monotonic()
            stop = deadline if exited_at is None else min(deadline, exited_at + _EXIT_GRACE_S)
            if now >= stop:
                timed_out = exited_at is None
                _kill_all(proc, budget)
                break
            if exited_at is None and poll is not None and _over_cpu(budget, limits.cpu_s):
                cpu_killed = True
                _kill_all(proc, budget)
            wait = stop - now if poll is None else min(stop - now, poll)
            for key, _ in selector.select(wait):
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
    oom = budget is not None and budget.oom_killed()
    return _Ended(proc.returncode, timed_out, time.monotonic() - started, cpu_killed, oom)


_MEMORY_WORDS = (b"MemoryError", b"Cannot allocate memory", b"std::bad_alloc", b"out of memory")


def _result(ended: _Ended, out: _Output, err: _Output) -> SandboxResult:
    """Decode bwrap's exit status (``128 + n``: signal ``n``) and set the flags: a limit
    stopped the program only where the sandbox or the kernel enforced it (its wall-clock and
    CPU timers, the cgroup's OOM killer, ``SIGXCPU``); an allocation failure in stderr is the
    program's own report of the address-space limit."""
    status = ended.status
    if status > _SIGNAL_BASE and status - _SIGNAL_BASE < signal.NSIG:
        status = -(status - _SIGNAL_BASE)
    if ended.timed_out or ended.cpu_killed:
        status = -signal.SIGKILL
    words = status != 0 and any(word in err.data for word in _MEMORY_WORDS)
    cpu = (ended.cpu_killed or status == -signal.SIGXCPU) and not ended.timed_out
    return SandboxResult(
        exit_status=status,
        stdout=out.text(),
        stderr=err.text(),
        timed_out=ended.timed_out,
        memory_exceeded=(ended.oom_killed or words) and not ended.timed_out,
        cpu_exceeded=cpu,
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
    missing = [t for t in _TOOLS if shutil.which(t) is None]
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        missing.append("setpriv")
    if missing:
        return SandboxUnavailableError(
            f"the python setting needs bubblewrap and util-linux ({', '.join(missing)} not found; "
            f"on Debian: apt-get install bubblewrap); model code never runs outside the sandbox"
        )
    try:
        bpf_program()
        result = Sandbox(SandboxLimits(wall_s=30), require_cgroup=False, _probing=True).run(
            "print('ok')"
        )
    except SandboxUnavailableError as exc:
        return exc
    except (OSError, SandboxError) as exc:
        return SandboxUnavailableError(f"the sandbox cannot start: {exc}")
    if result.exit_status != 0 or result.stdout.strip() != "ok":
        reason = (result.stderr.strip().splitlines() or [f"exit status {result.exit_status}"])[0]
        return SandboxUnavailableError(
            f"bubblewrap cannot create its namespaces here ({reason[:200]}); "
            f"model code never runs outside the sandbox"
        )
    return None


def require_sandbox(*, require_cgroup: bool = False) -> None:
    """Raise :class:`SandboxUnavailableError` (one line) unless the sandbox works here (the
    probe runs once per process) and, with ``require_cgroup``, a cgroup can be made."""
    with _PROBE_LOCK:
        if not _PROBE:
            _PROBE.append(_probe())
    if _PROBE[0] is not None:
        raise _PROBE[0]
    support = cgroup_support()
    if require_cgroup and support.kind == "none":
        raise SandboxUnavailableError(
            f"the sandbox cannot make a cgroup for the program's memory and process budget "
            f"({support.reason}); run as root with cgroup v1 memory and pids mounted, or "
            f"delegated cgroup v2, or opt out with --python-no-cgroup (docs/sandbox.md)"
        )


def sandbox_available() -> bool:
    """Whether :func:`require_sandbox` passes."""
    try:
        require_sandbox()
    except SandboxUnavailableError:
        return False
    return True


def sandbox_protections(without: Iterable[str] = ()) -> dict[str, Any]:
    """Which protections hold for a program here (recorded in a run's config)."""
    off = set(without)
    kind = "none" if "cgroup" in off else cgroup_support().kind
    return {
        "seccomp": "seccomp" not in off,
        "cgroup": kind,
        "read_only_root": "read_only_root" not in off,
        "fixed_environment": "fixed_environment" not in off,
        "neutral_paths": "neutral_paths" not in off,
        "runtime_mounted": not off & {"neutral_paths", "runtime_mount"} and _runtime_mounted(),
        "fresh_uid": os.geteuid() == 0,
    }


def _runtime_mounted() -> bool:
    """Whether the runtime image is bound from a file system of its own."""
    try:
        return runtime().current().mounted
    except SandboxUnavailableError:
        return False


class Sandbox:
    """Runs programs under the limits given (:class:`SandboxLimits`).

    ``require_cgroup=False`` opts out of the cgroup where none can be made (the program then
    has per-process limits only; ``--python-no-cgroup``).  ``isolation=False`` and
    ``without`` (names from :data:`PROTECTIONS`) exist for the tests only: they prove a
    hostile-program test can fail (no isolation: a plain ``subprocess.run`` with the
    wall-clock limit and nothing else).  The python setting refuses such a sandbox
    (:attr:`isolated`).
    """

    def __init__(
        self,
        limits: SandboxLimits | None = None,
        *,
        require_cgroup: bool = True,
        isolation: bool = True,
        without: Iterable[str] = (),
        _probing: bool = False,
    ):
        self.limits = limits or SandboxLimits()
        self.require_cgroup = require_cgroup
        self.without = frozenset(without)
        unknown = sorted(self.without - set(PROTECTIONS))
        if unknown:
            raise SandboxError(f"unknown protection {unknown[0]!r}; choose from {PROTECTIONS}")
        self.isolated = isolation and not self.without
        self._plain = not isolation
        self._probing = _probing

    def protections(self) -> dict[str, Any]:
        """Which protections hold for this sandbox's programs here."""
        return sandbox_protections(self.without)

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
        if self._plain:
            return self._run_plain(source)
        if not self._probing:
            require_sandbox(require_cgroup=self.require_cgroup and "cgroup" not in self.without)
        uid = (
            secrets.randbelow(_UID_RANGE[1] - _UID_RANGE[0]) + _UID_RANGE[0]
            if os.geteuid() == 0
            else None
        )
        fds = {"program": os.memfd_create("main.py")}
        try:
            os.write(fds["program"], source)
            os.lseek(fds["program"], 0, os.SEEK_SET)
            if "seccomp" not in self.without:
                fds["seccomp"] = seccomp_fd()
            return self._execute(fds, uid, on_start)
        finally:
            for fd in fds.values():
                os.close(fd)

    def _budget(self) -> CgroupBudget | None:
        support = cgroup_support()
        if "cgroup" in self.without or support.kind == "none":
            return None
        return CgroupBudget(support, self.limits)

    def _execute(
        self,
        fds: dict[str, int],
        uid: int | None,
        on_start: Callable[[Callable[[], None]], None] | None = None,
    ) -> SandboxResult:
        budget = self._budget()
        try:
            cpu_timer = budget is not None and budget.cpu_seconds() is not None
            argv = _command(self.limits, fds, uid, self.without, cpu_timer)
            if budget is not None:
                argv = enter_command(budget.procs_files) + argv
            return self._watched(argv, fds, budget, on_start)
        finally:
            if uid is not None:
                _sweep(uid)
            if budget is not None:
                budget.close()

    def _watched(
        self,
        argv: list[str],
        fds: dict[str, int],
        budget: CgroupBudget | None,
        on_start: Callable[[Callable[[], None]], None] | None,
    ) -> SandboxResult:
        out, err = (
            _Output(self.limits.output_bytes, bytearray()),
            _Output(self.limits.output_bytes, bytearray()),
        )
        env = dict(os.environ) if "fixed_environment" in self.without else FIXED_ENVIRONMENT
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=list(fds.values()),
            start_new_session=True,
            env=env,
            cwd="/",
        )
        try:
            if on_start is not None:  # a killed tree ends the watch like the wall-clock limit
                on_start(lambda: None if proc.returncode is not None else _kill_all(proc, budget))
            streams = {proc.stdout.fileno(): out, proc.stderr.fileno(): err}  # type: ignore[union-attr]
            ended = _watch(proc, self.limits, budget, streams)
        finally:
            if proc.returncode is None:
                _kill_all(proc, budget)
                proc.wait()
            proc.stdout.close()  # type: ignore[union-attr]
            proc.stderr.close()  # type: ignore[union-attr]
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
