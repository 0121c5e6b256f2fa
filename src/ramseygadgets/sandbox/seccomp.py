"""The seccomp filter every sandboxed program runs under, built with libseccomp (the system's
``libseccomp2`` through ``pyseccomp``) and handed to bubblewrap as compiled BPF
(``bwrap --seccomp FD``), loaded right before the program starts.

Modelled on Docker's default profile, tightened for a program that only computes: everything
is allowed but the calls below, which fail with ``EPERM`` (a program sees an ordinary error,
not a crash): the kernel keyring (so no key of the harness's session keyring is readable and
no key can be left behind: every key call is denied, hence no new session keyring is
needed), io_uring, perf, bpf, userfaultfd, ptrace and cross-process memory, mount and
namespace calls (``clone`` with any ``CLONE_NEW*`` flag, ``unshare``, ``setns``), kexec,
reboot, modules, swap, clock and host-name changes, accounting, quotas, raw I/O ports, file
handles.  ``socket`` and ``socketpair`` work for ``AF_UNIX`` only (``EAFNOSUPPORT`` else:
``AF_VSOCK``, which a network namespace does not isolate, included).  ``clone3`` answers
``ENOSYS`` (its flags sit in memory a filter cannot read; the C library falls back to
``clone``).  System calls of another architecture (32-bit ``int 0x80``, x32) kill the process.
"""

from __future__ import annotations

import errno
import os
import socket
from functools import cache
from typing import Any

from ramseygadgets.sandbox.limits import SandboxUnavailableError

try:  # the binding loads libseccomp.so.2 when imported
    import pyseccomp
except (ImportError, OSError, RuntimeError) as exc:  # refused when a program is to run
    _MISSING: str | None = str(exc)
else:
    _MISSING = None

__all__ = ["DENIED", "KEY_CALLS", "bpf_program", "seccomp_fd"]

#: The kernel keyring's calls: all denied.
KEY_CALLS = ("add_key", "keyctl", "request_key")
#: Calls that fail with ``EPERM``.
DENIED = (
    *KEY_CALLS,
    *("io_uring_setup", "io_uring_enter", "io_uring_register"),
    *("perf_event_open", "bpf", "userfaultfd", "fanotify_init", "lookup_dcookie"),
    *("ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd"),
    *("mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "mount_setattr"),
    *("fsopen", "fsconfig", "fsmount", "fspick", "unshare", "setns"),
    *("kexec_load", "kexec_file_load", "reboot", "init_module", "finit_module"),
    *("delete_module", "acct", "swapon", "swapoff", "syslog", "quotactl", "nfsservctl"),
    *("settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "sethostname"),
    *("setdomainname", "iopl", "ioperm", "vhangup", "uselib", "personality"),
    *("open_by_handle_at", "name_to_handle_at"),
)
#: ``clone`` flags that make a namespace (``CLONE_NEWTIME`` … ``CLONE_NEWNET``).
_NAMESPACE_FLAGS: tuple[int, ...] = (0x80, 0x20000, 0x02000000, 0x04000000, 0x08000000)
_NAMESPACE_FLAGS += (0x10000000, 0x20000000, 0x40000000)


def _add_rules(flt: Any) -> None:
    for name in dict.fromkeys(DENIED):
        flt.add_rule(pyseccomp.ERRNO(errno.EPERM), name)
    for flag in _NAMESPACE_FLAGS:
        flt.add_rule(
            pyseccomp.ERRNO(errno.EPERM), "clone", pyseccomp.Arg(0, pyseccomp.MASKED_EQ, flag, flag)
        )
    flt.add_rule(pyseccomp.ERRNO(errno.ENOSYS), "clone3")
    for call in ("socket", "socketpair"):
        not_unix = pyseccomp.Arg(0, pyseccomp.NE, socket.AF_UNIX)
        flt.add_rule(pyseccomp.ERRNO(errno.EAFNOSUPPORT), call, not_unix)


@cache
def bpf_program() -> bytes:
    """The compiled filter (once per process); :class:`SandboxUnavailableError` in one line
    where libseccomp cannot build it."""
    if _MISSING is not None:
        raise SandboxUnavailableError(
            f"the sandbox's seccomp filter needs pyseccomp and libseccomp2 ({_MISSING}; "
            f"pip install pyseccomp, Debian: apt-get install libseccomp2); nothing runs unfiltered"
        )
    try:
        flt = pyseccomp.SyscallFilter(pyseccomp.ALLOW)
        _add_rules(flt)
        fd = os.memfd_create("seccomp-build")
        with os.fdopen(fd, "w+b") as file:
            flt.export_bpf(file)
            file.seek(0)
            program = file.read()
    except (OSError, RuntimeError, ValueError, AttributeError) as exc:
        raise SandboxUnavailableError(
            f"the sandbox's seccomp filter cannot be built ({exc}); the python setting needs "
            f"libseccomp2 (Debian: apt-get install libseccomp2); nothing runs unfiltered"
        ) from None
    if not program or len(program) % 8:
        raise SandboxUnavailableError("libseccomp built an empty seccomp filter; nothing runs")
    return program


def seccomp_fd() -> int:
    """A fresh file descriptor (a memfd at offset 0) holding :func:`bpf_program`, for
    ``bwrap --seccomp``, which reads it to its end; the caller closes it."""
    program = bpf_program()
    fd = os.memfd_create("seccomp")
    os.write(fd, program)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
