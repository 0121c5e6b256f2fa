"""Scale-out: local worker processes by default, a Ray cluster with ``--ray ADDRESS``.

* :mod:`.executors`: ``LocalExecutor`` / ``RayExecutor`` / ``make_executor`` — run tasks, yield
  results as they finish, re-run the tasks of a lost worker;
* :mod:`.fanout`: problems of a generated set as tasks (``generate``), one checkpointed record each;
* :mod:`.census`: the exhaustive enumeration in geng ``res/mod`` slices, one atomic JSON file per
  slice, merged counts independent of the slicing;
* :mod:`.crosscheck`: search results against the census;
* :mod:`.evals`: several evaluations (models × settings) as tasks.

The package exports the executors only (the search runs cubes on them); the census, the fan-out
and the evaluations sit above the search and the harness: import them from their modules.
"""

from __future__ import annotations

from ramseygadgets.scaleout.executors import (
    Executor,
    LocalExecutor,
    RayExecutor,
    ScaleoutError,
    make_executor,
)

__all__ = [
    "Executor",
    "LocalExecutor",
    "RayExecutor",
    "ScaleoutError",
    "make_executor",
]
