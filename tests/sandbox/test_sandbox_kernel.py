"""Hostile programs against what lies beneath the file system (issue 44): the memory budget
(tmpfs, memfd, SysV shared memory), the keyring, system calls (seccomp), the read-only root,
host facts in ``/proc``, honest reports.  Each one is contained by the sandbox, and each does
its harm with exactly its protection switched off (``Sandbox(without=...)``), so that its
test can fail."""

from __future__ import annotations

import ctypes
import errno
import os
import secrets
import signal
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sandbox_helpers import LIMITS, need_sandbox

import ramseygadgets
from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.sandbox import Sandbox, SandboxLimits, SandboxResult
from ramseygadgets.sandbox.cgroup import cgroup_support
from ramseygadgets.sandbox.image import image_root, runtime
from ramseygadgets.sandbox.seccomp import DENIED, KEY_CALLS
from ramseygadgets.tools.python import PythonTool

#: A small budget: a failure cannot hurt the host (each program tries 4x this).
BUDGET_MB = 96
FILL_MB = 4 * BUDGET_MB
SMALL = LIMITS.updated(memory_mb=BUDGET_MB, file_mb=64, disk_mb=2 * FILL_MB, wall_s=10)
_LIBC = ctypes.CDLL(None, use_errno=True)
_ADD_KEY, _KEYCTL = 248, 250  # x86_64
_KEY_SPEC_SESSION_KEYRING, _KEYCTL_JOIN_SESSION_KEYRING, _KEYCTL_SEARCH = -3, 1, 10


def _held(result: SandboxResult) -> int:
    """The megabytes the program said it held (its last ``held N`` line)."""
    held = [int(line.split()[1]) for line in result.stdout.splitlines() if line.startswith("held")]
    return held[-1] if held else 0


# -- the memory budget ---------------------------------------------------------------------------
FILLS = {
    "tmpfs": f"""
for i in range({FILL_MB // 16}):
    with open(f"/tmp/fill{{i}}", "wb") as f:
        for _ in range(16):
            f.write(b"x" * 2**20)
    print("held", 16 * (i + 1), flush=True)
""",
    "memfd": f"""
import os
fds = []
for i in range({FILL_MB // 16}):
    fds.append(os.memfd_create("fill"))
    for _ in range(16):
        os.write(fds[-1], b"x" * 2**20)
    print("held", 16 * (i + 1), flush=True)
""",
    "sysv shared memory": f"""
import ctypes
libc = ctypes.CDLL(None)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
for i in range({FILL_MB // 16}):
    segment = libc.shmget(0, 16 * 2**20, 0o600)
    address = libc.shmat(segment, None, 0)
    ctypes.memset(address, 1, 16 * 2**20)
    libc.shmdt(ctypes.c_void_p(address))  # the segment stays, in the IPC namespace
    print("held", 16 * (i + 1), flush=True)
""",
}


@pytest.fixture
def budget() -> None:
    need_sandbox()
    if cgroup_support().kind == "none":
        pytest.skip(f"no cgroup here: {cgroup_support().reason}")


def _runs_left() -> list[Path]:
    return [
        p for _, parent in cgroup_support().parents for p in parent.glob(f"run-{os.getpid()}-*")
    ]


@pytest.mark.parametrize("fill", list(FILLS))
def test_memory_budget_holds_tmpfs_memfd_and_shared_memory(budget: None, fill: str) -> None:
    """Files in a tmpfs, memfds and SysV segments are charged to the program's cgroup: it is
    stopped at the budget, reported so, and its cgroup is gone afterwards."""
    result = Sandbox(SMALL).run(FILLS[fill])
    assert _held(result) < BUDGET_MB, result.stdout[-500:]
    assert result.memory_exceeded and result.killed_by_signal and not result.timed_out
    assert not _runs_left()


@pytest.mark.parametrize("fill", list(FILLS))
def test_without_the_cgroup_the_fill_goes_past_the_budget(budget: None, fill: str) -> None:
    result = Sandbox(SMALL, without=["cgroup"]).run(FILLS[fill])
    assert _held(result) == FILL_MB, (result.stdout[-500:], result.stderr[-500:])


def test_process_budget_counts_the_whole_tree(budget: None) -> None:
    """Threads and processes together: the pids cgroup stops the tree at ``processes``."""
    program = """
import threading, time
made = 0
try:
    for _ in range(200):
        threading.Thread(target=time.sleep, args=(5,), daemon=True).start()
        made += 1
except RuntimeError:
    pass
print("made", made)
"""
    limits = SMALL.updated(processes=8)
    result = Sandbox(limits).run(program)
    assert result.ok and int(result.stdout.split()[1]) < 8, result.stdout


# -- the keyring ---------------------------------------------------------------------------------
def _keyctl(*args: int | bytes | None) -> int:
    return int(_LIBC.syscall(_KEYCTL, *args))


@pytest.fixture
def keyring_secret() -> Iterator[str]:
    """A session keyring of this test process holding a secret key (as a harness under
    systemd or a PAM login has one)."""
    if _keyctl(_KEYCTL_JOIN_SESSION_KEYRING, None) < 0:
        pytest.skip(f"no keyring here: {os.strerror(ctypes.get_errno())}")
    secret = "KEY-" + secrets.token_hex(8)
    key = _LIBC.syscall(
        _ADD_KEY, b"user", b"rg-secret", secret.encode(), len(secret), _KEY_SPEC_SESSION_KEYRING
    )
    assert key > 0, os.strerror(ctypes.get_errno())
    yield secret


def _left_behind() -> bool:
    found = _keyctl(_KEYCTL_SEARCH, _KEY_SPEC_SESSION_KEYRING, b"user", b"rg-left", 0)
    return found > 0


KEYRING_PROGRAM = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
key = libc.syscall(250, 10, -3, b"user", b"rg-secret", 0)  # KEYCTL_SEARCH the session keyring
buffer = ctypes.create_string_buffer(256)
size = libc.syscall(250, 11, key, buffer, 256)  # KEYCTL_READ
print("read", key, buffer.raw[:max(size, 0)].decode(), ctypes.get_errno())
left = libc.syscall(248, b"user", b"rg-left", b"for the next one", 16, -3)  # add_key
print("added", left, ctypes.get_errno())
"""


@pytest.mark.parametrize("seccomp", [True, False])
def test_keyring_secret_and_leftover_keys(sandbox: Sandbox, keyring_secret: str, seccomp: bool):
    """The harness's session keyring is out of reach (every key call is ``EPERM``) and no key
    outlives a program; without the filter the program reads the secret and leaves a key."""
    without = [] if seccomp else ["seccomp"]
    result = Sandbox(sandbox.limits, without=without).run(KEYRING_PROGRAM)
    assert result.ok, result.stderr
    assert (keyring_secret in result.stdout) is not seccomp
    assert _left_behind() is not seccomp
    if seccomp:
        assert f"read -1  {errno.EPERM}" in result.stdout


def test_every_key_call_is_denied() -> None:
    """No key call is left to the program, so it needs no session keyring of its own."""
    assert set(KEY_CALLS) <= set(DENIED) and set(KEY_CALLS) == {"add_key", "keyctl", "request_key"}


# -- system calls --------------------------------------------------------------------------------
SYSCALLS = {
    "AF_VSOCK": """
import socket
try:
    socket.socket(40, socket.SOCK_STREAM).bind((0xFFFFFFFF, 40444))  # VMADDR_CID_ANY
    print("DONE")
except OSError as e:
    print("FAILED", e.errno)
""",
    "io_uring": """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
params = ctypes.create_string_buffer(120)
fd = libc.syscall(425, 4, params)  # io_uring_setup
print("DONE" if fd >= 0 else "FAILED", ctypes.get_errno())
""",
    "perf": """
import ctypes, struct
libc = ctypes.CDLL(None, use_errno=True)
attr = bytearray(128)
struct.pack_into("IIQ", attr, 0, 1, 128, 0)  # PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK
struct.pack_into("Q", attr, 40, (1 << 5) | (1 << 6))  # exclude_kernel, exclude_hv
buf = ctypes.create_string_buffer(bytes(attr))
fd = libc.syscall(298, buf, 0, -1, -1, 0)  # perf_event_open, this process
print("DONE" if fd >= 0 else "FAILED", ctypes.get_errno())
""",
    "a user namespace": """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
done = libc.syscall(272, 0x10000000)  # unshare(CLONE_NEWUSER)
print("DONE" if done == 0 else "FAILED", ctypes.get_errno())
""",
}


def _reachable_here(name: str) -> bool:
    """Whether the call works for an unsandboxed process on this machine (else the
    protection-off half has nothing to show)."""
    if name == "AF_VSOCK":
        try:
            socket.socket(40, socket.SOCK_STREAM).close()
        except OSError:
            return False
    return True


@pytest.mark.parametrize("name", list(SYSCALLS))
def test_denied_system_calls(sandbox: Sandbox, name: str) -> None:
    result = sandbox.run(SYSCALLS[name])
    assert result.ok and result.stdout.startswith("FAILED"), (result.stdout, result.stderr)
    wanted = errno.EAFNOSUPPORT if name == "AF_VSOCK" else errno.EPERM
    assert result.stdout.split()[1] == str(wanted)


@pytest.mark.parametrize("name", ["AF_VSOCK", "io_uring", "perf"])
def test_the_calls_work_without_the_filter(sandbox: Sandbox, name: str) -> None:
    if not _reachable_here(name):
        pytest.skip(f"{name} is not available on this machine at all")
    result = Sandbox(sandbox.limits, without=["seccomp"]).run(SYSCALLS[name])
    if result.stdout.startswith("FAILED") and name != "AF_VSOCK":
        pytest.skip(f"{name} is switched off on this machine (errno {result.stdout.split()[1]})")
    assert result.stdout.startswith("DONE"), (result.stdout, result.stderr)


# -- the read-only root --------------------------------------------------------------------------
ROOT_WRITE = """
for path in ["/fill", "/usr/local/fill", "/sandbox/fill", "/dev/fill", "/etc/fill"]:
    try:
        open(path, "w").write("x")
        print("WROTE", path)
    except OSError as e:
        print("NO", path, e.errno)
"""


@pytest.mark.parametrize("read_only", [True, False])
def test_the_root_is_read_only(sandbox: Sandbox, read_only: bool) -> None:
    without = [] if read_only else ["read_only_root"]
    result = Sandbox(sandbox.limits, without=without).run(ROOT_WRITE)
    assert ("WROTE /fill" in result.stdout) is not read_only, result.stdout
    assert "WROTE /usr" not in result.stdout and "WROTE /sandbox" not in result.stdout


def test_home_tmp_and_dev_shm_stay_writable_and_capped(sandbox: Sandbox) -> None:
    program = """
import os
for folder in [".", "/tmp", "/dev/shm"]:
    try:
        with open(os.path.join(folder, "f"), "wb") as f:
            for _ in range(64):
                f.write(b"x" * 2**20)
        print("FULL", folder)
    except OSError as e:
        print("CAPPED", folder, os.path.getsize(os.path.join(folder, "f")) // 2**20, e.errno)
"""
    result = sandbox.run(program)
    assert "CAPPED /dev/shm 4" in result.stdout, result.stdout


# -- host facts in /proc -------------------------------------------------------------------------
PROC_FACTS = """
print(open("/proc/1/environ", "rb").read().decode("utf-8", "replace"))
print(open("/proc/self/mountinfo").read())
import sys
print(sys.prefix, sys.executable, sys.path)
"""


def _host_paths() -> list[str]:
    project = Path(ramseygadgets.__file__).resolve().parents[2]
    paths = [sys.base_prefix, sys.prefix, str(project), os.path.realpath(sys.executable)]
    return [p for p in paths if len(p) > 1] + [os.environ.get("PATH", "/nonexistent")]


#: Mount roots a program may see: its own tmpfs and /proc, /dev's nodes, the image's folders.
_NEUTRAL = ("/usr/local", "/sandbox", "/lib", "/usr/lib", "/etc", "/null", "/zero", "/full")
_NEUTRAL += ("/random", "/urandom", "/tty")


def _mount_roots(mountinfo: str) -> list[str]:
    """The root field of every line of ``/proc/self/mountinfo`` (the bound folder's path
    inside its own file system)."""
    return [line.split()[3] for line in mountinfo.splitlines() if " - " in line]


@pytest.mark.parametrize("protection", ["", "fixed_environment", "neutral_paths", "runtime_mount"])
def test_proc_names_no_host_path(sandbox: Sandbox, protection: str) -> None:
    """``/proc/1/environ`` (bubblewrap's own environment) and ``mountinfo`` name no host path,
    no project, no interpreter's home; with the runtime image mounted (root, a loop device:
    our machines), no mount root names the image's folder either; switched off, one of them
    does (``runtime_mount`` off: the image's folder)."""
    without = [protection] if protection else []
    limits = sandbox.limits.updated(output_bytes=256 * 1024)
    result = Sandbox(limits, without=without).run(PROC_FACTS)
    assert result.ok and not result.output_truncated, result.stderr
    named = [p for p in _host_paths() if p in result.stdout]
    assert bool(named) is (protection in ("fixed_environment", "neutral_paths")), named
    assert "PATH=/usr/sbin:/usr/bin:/sbin:/bin" in result.stdout or protection
    if os.geteuid() == 0 and Path("/dev/loop-control").exists():
        assert runtime().mounted  # our machines: root with loop devices
    if runtime().mounted:
        roots = _mount_roots(result.stdout)
        image_folder = [r for r in roots if r.startswith(str(image_root()))]
        assert bool(image_folder) is (protection == "runtime_mount"), image_folder
        if not protection:
            assert "/usr/local" in roots and "/sandbox" in roots, roots
            assert all(r in ("/", "/newroot") or r.startswith(_NEUTRAL) for r in roots), roots


# -- honest reports ------------------------------------------------------------------------------
def test_a_program_killing_itself_is_not_blamed_on_a_limit(sandbox: Sandbox) -> None:
    """Exit 137 (SIGKILL) the program caused itself: no limit named; the same signal from
    the sandbox's CPU timer is named (the flag follows who killed, not the status)."""
    own = sandbox.run("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    assert own.exit_status == -9 and own.killed_by_signal
    assert not (own.cpu_exceeded or own.memory_exceeded or own.timed_out)
    exit_137 = sandbox.run("import sys\nsys.exit(137)\n")
    assert not (exit_137.cpu_exceeded or exit_137.memory_exceeded or exit_137.timed_out)
    if cgroup_support().kind != "none":
        spun = Sandbox(sandbox.limits.updated(cpu_s=1, wall_s=20)).run("while True:\n    pass\n")
        assert spun.exit_status == -9 and spun.cpu_exceeded and not spun.timed_out


@pytest.mark.parametrize("cgroup", [True, False])
def test_cpu_time_is_counted_for_the_whole_tree(budget: None, cgroup: bool) -> None:
    """Four processes spinning reach the limit together: the sandbox's timer kills the tree
    (SIGKILL, named) while each process is far below the limit; without the cgroup only the
    per-process limit is left, and the first process dies of SIGXCPU at its own second."""
    program = "import os\nfor _ in range(3):\n    if os.fork() == 0:\n        break\nwhile True:\n    pass\n"
    without = [] if cgroup else ["cgroup"]
    result = Sandbox(SMALL.updated(cpu_s=1, wall_s=30), without=without).run(program)
    assert result.cpu_exceeded and not result.timed_out
    assert result.exit_status == (-signal.SIGKILL if cgroup else -signal.SIGXCPU)


def test_protection_names_are_checked() -> None:
    with pytest.raises(ValueError, match="unknown protection 'secomp'"):
        Sandbox(SandboxLimits(), without=["secomp"])
    weakened = Sandbox(SandboxLimits(), without=["cgroup"])
    assert not weakened.isolated
    with pytest.raises(RamseyGadgetsError, match="only in the sandbox"):
        PythonTool(sandbox=weakened)
