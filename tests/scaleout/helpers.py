"""Module-level task functions for the scale-out tests (tasks must be importable by workers)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ramseygadgets.scaleout.census import SliceTask, census_slice

#: Set by the tests: the slice whose worker dies on its first attempt, and where the marker goes.
KILL_ENV = "RAMSEYGADGETS_TEST_KILL_SLICE"
MARKER_ENV = "RAMSEYGADGETS_TEST_KILL_MARKER"


def square(x: int) -> int:
    return x * x


def niceness(_: int) -> int:
    """The scheduling priority (nice value) of the process that runs the task."""
    return os.nice(0)


def die_once(x: int) -> int:
    """The worker computing x = 3 dies (os._exit) the first time; later attempts succeed."""
    marker = Path(os.environ[MARKER_ENV])
    if x == 3 and not marker.exists():
        marker.write_text("killed once")
        os._exit(1)
    return x * x


def always_die(x: int) -> int:
    if x == 1:
        os._exit(1)
    return x


def census_with_a_kill(task: SliceTask) -> dict[str, Any]:
    """The census slice, except that the worker of one chosen slice dies the first time."""
    marker = Path(os.environ[MARKER_ENV])
    if task.name == os.environ.get(KILL_ENV) and not marker.exists():
        marker.write_text(task.name)
        os._exit(1)
    return census_slice(task)


def die_once_marked(item: tuple[int, str]) -> int:
    """Like :func:`die_once`, with the marker path carried by the task (Ray workers do not see
    environment variables set after the cluster started)."""
    x, marker = item
    if x == 3 and not Path(marker).exists():
        Path(marker).write_text("killed once")
        os._exit(1)
    return x * x


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = _stat(int(entry.name))
            if stat is not None and int(stat[1]) == pid:
                out.append(int(entry.name))
    return out


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    stat = _stat(pid)
    return stat is not None and stat[0] != "Z"


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()  # state, ppid, ... (the name may hold spaces)


def siblings(_: Any) -> int:
    """How many processes share this worker's parent (the pool's size, seen from inside)."""
    return len(children(os.getppid()))
