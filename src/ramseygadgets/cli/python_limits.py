"""The python setting's limits as options of ``eval`` and ``prompt`` (``--python-rounds``,
``--python-total-seconds``, ``--python-wall-seconds``, ``--python-cpu-seconds``,
``--python-memory-mb``), named as the Inspect task's ``python_*`` options, checked with the
option's name in one line; ``eval``'s ``--python-no-cgroup`` opts out of the cgroup budget
where none can be made (docs/sandbox.md)."""

from __future__ import annotations

import math

import typer

from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.tools.python import PythonLimits, python_limits

__all__ = [
    "PYTHON_SETTING_HELP",
    "ROUNDS_OPTION",
    "TOTAL_SECONDS_OPTION",
    "WALL_SECONDS_OPTION",
    "CPU_SECONDS_OPTION",
    "MEMORY_MB_OPTION",
    "NO_CGROUP_OPTION",
    "limits_from_options",
]

_DEFAULT = PythonLimits()
PYTHON_SETTING_HELP = (
    "python: the model may run Python programs (standard library, networkx, python-sat) in a "
    "bubblewrap sandbox, refused in one line where bubblewrap cannot run; docs/sandbox.md"
)
ROUNDS_OPTION = typer.Option(
    None,
    "--python-rounds",
    help=f"python: rounds per problem, the last one answers (default {_DEFAULT.rounds}).",
)
TOTAL_SECONDS_OPTION = typer.Option(
    None,
    "--python-total-seconds",
    help=f"python: seconds of program wall time per problem (default {_DEFAULT.total_seconds:g}).",
)
WALL_SECONDS_OPTION = typer.Option(
    None,
    "--python-wall-seconds",
    help=f"python: wall-clock seconds per program (default {_DEFAULT.program.wall_s:g}).",
)
CPU_SECONDS_OPTION = typer.Option(
    None,
    "--python-cpu-seconds",
    help=f"python: CPU seconds per program process (default {_DEFAULT.program.cpu_s}).",
)
MEMORY_MB_OPTION = typer.Option(
    None,
    "--python-memory-mb",
    help=f"python: memory per program (all its processes and files, and each process's address space), MB (default {_DEFAULT.program.memory_mb}).",
)
NO_CGROUP_OPTION = typer.Option(
    False,
    "--python-no-cgroup",
    help="python: run programs where no cgroup can be made (no memory and process budget for a program's whole tree: per-process limits only); without it such a machine is refused. docs/sandbox.md",
)


def limits_from_options(
    rounds: int | None = None,
    total_seconds: float | None = None,
    wall_seconds: float | None = None,
    cpu_seconds: int | None = None,
    memory_mb: int | None = None,
    no_cgroup: bool = False,
) -> PythonLimits | None:
    """The limits the options ask for (the defaults for those not given); ``None`` when none
    is given.  A bad value is refused in one line that names its option."""
    given = {
        "--python-rounds": rounds,
        "--python-total-seconds": total_seconds,
        "--python-wall-seconds": wall_seconds,
        "--python-cpu-seconds": cpu_seconds,
        "--python-memory-mb": memory_mb,
    }
    if all(value is None for value in given.values()) and not no_cgroup:
        return None
    if rounds is not None and rounds < 2:
        raise RamseyGadgetsError(
            f"--python-rounds must be at least 2 (the last round answers), got {rounds}"
        )
    for option, value in given.items():
        if value is not None and not (math.isfinite(value) and value > 0):
            raise RamseyGadgetsError(f"{option} must be a positive number, got {value}")
    return python_limits(
        rounds,
        total_seconds,
        wall_seconds,
        cpu_seconds,
        memory_mb,
        require_cgroup=False if no_cgroup else None,
    )
