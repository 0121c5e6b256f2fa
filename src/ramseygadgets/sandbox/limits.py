"""The sandbox's vocabulary: its errors, the limits on one program and what a program did
(:mod:`ramseygadgets.sandbox` runs programs; these types are re-exported there)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from ramseygadgets.core.errors import RamseyGadgetsError

__all__ = ["SandboxError", "SandboxUnavailableError", "SandboxLimits", "SandboxResult"]


class SandboxError(RamseyGadgetsError, ValueError):
    """A program cannot be run as asked (too long, not text)."""


class SandboxUnavailableError(SandboxError):
    """bubblewrap, the seccomp filter or the cgroup cannot be set up: nothing runs."""


@dataclass(frozen=True)
class SandboxLimits:
    """Limits on one program; every field has a default a person can change.

    ``memory_mb`` is the budget of the whole tree (a cgroup: anonymous memory, tmpfs files,
    memfd and shared memory together) and the address space of each process (setrlimit);
    ``cpu_s`` is the CPU time of the whole tree (the cgroup, checked every 50 ms) and of each
    process (setrlimit, the backstop); ``processes`` counts the program's processes and threads
    together; ``file_mb`` and ``open_files`` are per process; ``disk_mb`` caps each of the two
    tmpfs (home and ``/tmp``); ``output_bytes`` is kept of stdout and of stderr each (the rest
    is read and dropped); ``wall_s`` ends the whole tree.
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
    printed (each stream cut at ``SandboxLimits.output_bytes``) and what stopped it.

    ``timed_out`` and ``cpu_exceeded`` are set only when the sandbox itself killed the program
    for that limit (or the kernel sent ``SIGXCPU``); ``memory_exceeded`` when the cgroup's OOM
    killer ended it, or when the program reported an allocation failure (its own word, about
    itself only).  A program that kills itself with ``SIGKILL`` is reported as just that.
    """

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
