"""A budget the host enforces for a program's whole tree: one cgroup per program.

Memory (anonymous memory, tmpfs files, memfd and SysV/POSIX shared memory are all charged
to the cgroup of the process that touches them, so filling ``/tmp``, a memfd or a shared
segment counts like ``malloc``), processes and threads (``pids``) and CPU time (read by the
sandbox's own timer) are limited for everything the program starts.  cgroup v2 is used where
this process may make a child cgroup with the ``memory`` and ``pids`` controllers (delegated);
else the v1 ``memory`` and ``pids`` hierarchies (``cpuacct`` where mounted), as mounted
read-write for root on our machines.  Each program gets ``run-<harness pid>-<token>`` under a
``ramseygadgets`` cgroup below this process's own cgroup (so the harness's own limits still
hold), entered by a two-line shell wrapper before bubblewrap starts: nothing of the program
runs outside it.  After the program everything in it is killed and the cgroup removed;
cgroups left by a harness that was killed are removed by the next one.
"""

from __future__ import annotations

import os
import secrets
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ramseygadgets.sandbox.limits import SandboxLimits, SandboxUnavailableError

__all__ = [
    "CgroupBudget",
    "CgroupSupport",
    "cgroup_support",
    "enter_command",
    "HELPER_TASKS",
    "kill_until_gone",
]


def kill_until_gone(
    members: Callable[[], list[int]], *, pause: float, seconds: float = 2.0
) -> None:
    """SIGKILL every pid ``members()`` lists, again and again, until it lists none or
    ``seconds`` pass (a process may fork between one listing and the kill)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        left = members()
        if not left:
            return
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(pause)


_PARENT = "ramseygadgets"
#: Tasks of the sandbox's own in the cgroup besides the program's (bubblewrap twice with its
#: init each, the staging chain).
HELPER_TASKS = 6
_V1_REQUIRED = ("memory", "pids")
_V1_OPTIONAL = ("cpuacct",)
#: The wrapper: the shell writes its pid into each ``cgroup.procs`` named before ``--``,
#: then becomes the command (exit 125: it could not enter them, nothing ran).
_ENTER = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'


@dataclass(frozen=True)
class CgroupSupport:
    """What this process can make: ``kind`` is ``v2``, ``v1`` or ``none`` (then ``reason``
    says why); ``parents`` maps each controller (``""`` for v2) to the parent cgroup."""

    kind: str
    parents: tuple[tuple[str, Path], ...] = ()
    reason: str = ""


def _mounts() -> list[tuple[str, Path, set[str]]]:
    """The cgroup mounts: (file-system type, mount point, super options)."""
    found = []
    with open("/proc/self/mountinfo") as mountinfo:
        for line in mountinfo:
            left, _, right = line.partition(" - ")
            words, fs = left.split(), right.split()
            if len(fs) >= 3 and fs[0] in ("cgroup", "cgroup2"):
                found.append((fs[0], Path(words[4]), set(fs[2].split(","))))
    return found


def _own_paths() -> dict[str, str]:
    """This process's cgroup per controller (``""``: the v2 one)."""
    paths = {}
    with open("/proc/self/cgroup") as cgroups:
        for line in cgroups:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for controller in controllers.split(",") if controllers else [""]:
                paths[controller] = path
    return paths


def _parent(mount: Path, own: str) -> Path:
    parent = mount / own.lstrip("/") / _PARENT
    parent.mkdir(exist_ok=True)
    _remove_stale(parent)
    return parent


def _v2() -> CgroupSupport:
    mount = next((m for fs, m, _ in _mounts() if fs == "cgroup2"), None)
    own = _own_paths().get("")
    if mount is None or own is None:
        return CgroupSupport("none", reason="no cgroup2 hierarchy")
    base = mount / own.lstrip("/")
    if not {"memory", "pids"} <= set((base / "cgroup.controllers").read_text().split()):
        return CgroupSupport("none", reason="cgroup v2 without memory and pids delegated")
    enabled = set((base / "cgroup.subtree_control").read_text().split())
    if not {"memory", "pids"} <= enabled:
        (base / "cgroup.subtree_control").write_text("+memory +pids")
    parent = _parent(mount, own)
    (parent / "cgroup.subtree_control").write_text("+memory +pids")
    return CgroupSupport("v2", (("", parent),))


def _v1() -> CgroupSupport:
    mounts = {c: m for fs, m, opts in _mounts() if fs == "cgroup" for c in opts}
    own = _own_paths()
    missing = [c for c in _V1_REQUIRED if c not in mounts or c not in own]
    if missing:
        return CgroupSupport("none", reason=f"no cgroup v1 {' or '.join(missing)} hierarchy")
    parents = [(c, _parent(mounts[c], own[c])) for c in _V1_REQUIRED]
    for controller in _V1_OPTIONAL:
        if controller in mounts and controller in own:
            try:
                parents.append((controller, _parent(mounts[controller], own[controller])))
            except OSError:
                pass
    return CgroupSupport("v1", tuple(parents))


@cache
def cgroup_support() -> CgroupSupport:
    """v2 where delegated, else v1, else ``none`` with the reason (found once per process)."""
    reasons = []
    for find in (_v2, _v1):
        try:
            support = find()
        except OSError as exc:
            reasons.append(f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": "))
            continue
        if support.kind != "none":
            return support
        reasons.append(support.reason)
    return CgroupSupport("none", reason="; ".join(reasons))


def _remove_stale(parent: Path) -> None:
    """Remove the empty cgroups of harnesses that are gone (``run-<pid>-…``)."""
    for child in parent.glob("run-*"):
        pid = child.name.split("-")[1]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            try:
                child.rmdir()
            except OSError:
                pass


def enter_command(procs_files: list[str]) -> list[str]:
    """The wrapper that puts itself into the cgroups, then execs what follows it."""
    return ["/bin/sh", "-c", _ENTER, "sh", *procs_files, "--"]


class CgroupBudget:
    """One program's cgroup(s) with its limits written; :meth:`close` kills what is left in
    them and removes them."""

    def __init__(self, support: CgroupSupport, limits: SandboxLimits):
        self.kind = support.kind
        name = f"run-{os.getpid()}-{secrets.token_hex(6)}"
        self.dirs = {controller: parent / name for controller, parent in support.parents}
        try:
            for folder in self.dirs.values():
                folder.mkdir()
            self._write_limits(limits)
        except OSError as exc:
            self.close()
            raise SandboxUnavailableError(
                f"the sandbox cannot set up its cgroup ({exc.strerror or exc}: {exc.filename})"
            ) from None

    def _file(self, controller: str, name: str) -> Path:
        return self.dirs["" if self.kind == "v2" else controller] / name

    def _write_limits(self, limits: SandboxLimits) -> None:
        memory = str(limits.memory_mb * 1024 * 1024)
        tasks = str(limits.processes + HELPER_TASKS)
        if self.kind == "v2":
            settings = [("memory", "memory.max", memory), ("memory", "memory.swap.max", "0")]
            settings.append(("pids", "pids.max", tasks))
        else:
            settings = [("memory", "memory.limit_in_bytes", memory)]
            settings += [("memory", "memory.memsw.limit_in_bytes", memory)]
            settings.append(("pids", "pids.max", tasks))
        for controller, name, value in settings:
            path = self._file(controller, name)
            if path.exists() or not name.startswith(("memory.swap", "memory.memsw")):
                path.write_text(value)

    @property
    def procs_files(self) -> list[str]:
        """Every ``cgroup.procs`` the program's first process must enter."""
        return [str(folder / "cgroup.procs") for folder in self.dirs.values()]

    def cpu_seconds(self) -> float | None:
        """The CPU time of the whole tree so far (``None``: not measured here)."""
        try:
            if self.kind == "v2":
                for line in self._file("", "cpu.stat").read_text().splitlines():
                    if line.startswith("usage_usec "):
                        return int(line.split()[1]) / 1e6
                return None
            if "cpuacct" in self.dirs:
                return int(self._file("cpuacct", "cpuacct.usage").read_text()) / 1e9
        except (OSError, ValueError):
            return None
        return None

    def oom_killed(self) -> bool:
        """Whether the kernel's OOM killer ended a process of the cgroup (its memory budget)."""
        name = "memory.events" if self.kind == "v2" else "memory.oom_control"
        try:
            for line in self._file("memory", name).read_text().splitlines():
                if line.startswith("oom_kill "):
                    return int(line.split()[1]) > 0
        except (OSError, ValueError, KeyError):
            return False
        return False

    def _members(self) -> list[int]:
        pids: set[int] = set()
        for procs in self.procs_files:
            try:
                pids.update(int(p) for p in Path(procs).read_text().split())
            except (OSError, ValueError):
                continue
        return sorted(pids)

    def kill(self) -> None:
        """SIGKILL everything in the cgroup, until it is empty (at most 2 s)."""
        kill_until_gone(self._members, pause=0.005)

    def close(self) -> None:
        """Kill what is left and remove the cgroups (an empty cgroup may stay busy a moment)."""
        self.kill()
        for folder in self.dirs.values():
            for _ in range(50):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)
