"""Worker processes that leave Ctrl-C to their parent and never outlive it; Ctrl-C held off
while a durable write finishes.

A worker pool's parent catches SIGINT and stops the pool itself, so workers never see SIGINT:
they ignore it and block it.  Ignoring alone is not enough, because a PySAT ``solve`` installs
its own SIGINT handler for the length of the call, so a Ctrl-C sent to the whole process group
(what a terminal does) would raise inside the worker and print its traceback; a blocked signal
reaches no handler, whoever installs one.  If
the parent is killed outright (SIGKILL, out of memory), nothing can stop the pool, so each
worker arranges to die with it: on Linux ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` has the kernel
kill the worker when its parent exits; elsewhere a watchdog thread polls ``getppid()`` once a
second.  Either way a worker whose parent is already gone when it starts exits at once.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator

__all__ = [
    "PR_SET_PDEATHSIG",
    "WATCHDOG_SECONDS",
    "init_worker",
    "die_with_parent",
    "usable_cores",
    "SigintGate",
    "sigint_gate",
]


PR_SET_PDEATHSIG = 1
WATCHDOG_SECONDS = 1.0


def init_worker(parent: int) -> None:
    """Pool initializer (``initializer=init_worker, initargs=(os.getpid(),)``).  Runs before
    the worker starts any thread, so every thread inherits the blocked SIGINT.  SIGTERM (how a
    pool stops its workers) ends the worker at once, whatever handler the parent had."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    die_with_parent(parent)


def die_with_parent(parent: int) -> None:
    """End this process (SIGKILL) as soon as the process ``parent`` is no longer its parent."""
    if not _parent_death_signal():
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)


def _parent_death_signal() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    return False


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCHDOG_SECONDS)
    os.kill(os.getpid(), signal.SIGKILL)


def usable_cores() -> int:
    """The CPU cores this process may run on (its affinity mask where the OS has one)."""
    with contextlib.suppress(AttributeError, OSError):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


class SigintGate:
    """A SIGINT handler that raises ``KeyboardInterrupt`` for the first Ctrl-C only, and only
    while open; every Ctrl-C is counted.  Close it before a write that must finish."""

    def __init__(self) -> None:
        self.caught = 0
        self.open = True

    def __call__(self, signum: int, frame: object) -> None:
        self.caught += 1
        if self.open:
            self.open = False
            raise KeyboardInterrupt

    def close(self) -> None:
        self.open = False


@contextlib.contextmanager
def sigint_gate() -> Iterator[SigintGate]:
    """Install a :class:`SigintGate` for the block: the first Ctrl-C interrupts the work, later
    ones (and any after ``close()``) are held off so that the durable write of what is done
    finishes.  Outside the main thread (where no handler can be set) the default stays."""
    gate = SigintGate()
    if threading.current_thread() is not threading.main_thread():
        yield gate
        return
    previous = signal.signal(signal.SIGINT, gate)
    try:
        yield gate
    finally:
        signal.signal(signal.SIGINT, previous)
