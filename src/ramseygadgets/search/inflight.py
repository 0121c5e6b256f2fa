"""The cubes a running cube search has in flight, ``DIR/in-flight.json``, for ``solve --status``.

The cube log (:mod:`.cubelog`) holds finished cubes only, so a cube that runs for an hour
before it ends or splits is invisible in it for that hour.  While it runs, the driver
(:mod:`.parallel`) rewrites this file (atomically) whenever a cube starts or ends, and at each
snapshot of what the cubes learned (:data:`.parallel.SNAPSHOT_SECONDS`): its pid, the problem's
id, when it wrote the file and, per cube in flight, the level, layout, bits, the wall-clock time
it started and how many lemmas it has sent the driver so far (where it shares lemmas and has
sent any); it removes the file when the level run ends.  The file says what runs *now*, so
:func:`read_in_flight` shows it only while its writer still holds the directory: the pid it
names is alive and is the one in ``DIR/.lock`` (a search killed with SIGKILL leaves the file
behind, and it is ignored then).
Nothing is decided from it: it is a view, never a record.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ramseygadgets.infra.files import LOCK_FILE, atomic_path

__all__ = [
    "IN_FLIGHT_FILE",
    "FlyingCube",
    "InFlight",
    "clear_in_flight",
    "read_in_flight",
    "write_in_flight",
]

#: The file's name inside the ``--out`` directory.
IN_FLIGHT_FILE = "in-flight.json"


@dataclass(frozen=True)
class FlyingCube:
    """A cube in flight: level ``n``, ``layout`` name, ``bits``, started at ``since`` (epoch s),
    and the ``lemmas`` it has sent the driver so far (``None``: none counted yet, or not shared)."""

    n: int
    layout: str
    bits: str
    since: float
    lemmas: int | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def running_for(self, now: float | None = None) -> float:
        """Seconds since it started (never negative: another machine's clock may run ahead)."""
        return max(0.0, (time.time() if now is None else now) - self.since)


@dataclass(frozen=True)
class InFlight:
    """What a running search has in flight: its ``pid``, ``problem_id`` and ``cubes``, oldest
    first, as of ``written`` (epoch s; ``None`` in a file from before it was recorded)."""

    pid: int
    problem_id: str
    cubes: tuple[FlyingCube, ...]
    written: float | None = None


def write_in_flight(directory: Path, problem_id: str, cubes: Iterable[FlyingCube]) -> None:
    """Replace ``directory``'s in-flight file with this process's pid, the problem and
    ``cubes``."""
    document = {
        "pid": os.getpid(),
        "problem_id": problem_id,
        "written": time.time(),
        "cubes": [c.to_json() for c in cubes],
    }
    with atomic_path(Path(directory) / IN_FLIGHT_FILE) as tmp:
        tmp.write_text(json.dumps(document), encoding="utf-8")


def clear_in_flight(directory: Path) -> None:
    """Remove ``directory``'s in-flight file (the level run ended)."""
    (Path(directory) / IN_FLIGHT_FILE).unlink(missing_ok=True)


def read_in_flight(directory: Path) -> InFlight | None:
    """What the search running in ``directory`` has in flight; ``None`` when no search runs
    there now (no file, a malformed one, or a writer that is gone or no longer holds the
    directory)."""
    directory = Path(directory)
    try:
        document = json.loads((directory / IN_FLIGHT_FILE).read_text(encoding="utf-8"))
        pid, problem_id = document["pid"], str(document["problem_id"])
        cubes = [_flying_cube(c) for c in document["cubes"]]
        written = _written(document.get("written"))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if not isinstance(pid, int) or not _holds(directory, pid):
        return None
    return InFlight(pid, problem_id, tuple(sorted(cubes, key=lambda c: c.since)), written)


def _written(value: Any) -> float | None:
    """The file's ``written`` time: a JSON number or absent (``ValueError`` otherwise)."""
    if value is None:
        return None
    if type(value) not in (int, float):
        raise ValueError(f"written: {value!r}")
    return float(value)


def _flying_cube(entry: dict[str, Any]) -> FlyingCube:
    """One cube of the file (``ValueError``, ``KeyError`` or ``TypeError`` where malformed)."""
    lemmas = entry.get("lemmas")
    if lemmas is not None and (type(lemmas) is not int or lemmas < 0):
        raise ValueError(f"lemmas: {lemmas!r}")
    n, layout, bits = int(entry["n"]), str(entry["layout"]), str(entry["bits"])
    return FlyingCube(n, layout, bits, float(entry["since"]), lemmas)


def _holds(directory: Path, pid: int) -> bool:
    """Whether process ``pid`` is alive and is the one ``directory``'s lock names."""
    try:
        holder = (directory / LOCK_FILE).read_text(encoding="utf-8").strip()
    except OSError:
        return False
    if holder != str(pid):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True
