"""Scale-out of generated sets: many problems at once, on the executors of
:mod:`ramseygadgets.infra.executors` (local worker processes, or a Ray cluster with ``--ray ADDRESS``).

* :mod:`.fanout`: problems of a generated set as tasks (``generate``), one checkpointed record each;
* :mod:`.census`: the exhaustive enumeration in geng ``res/mod`` slices, one atomic JSON file per
  slice, merged counts independent of the slicing;
* :mod:`.crosscheck`: search results against the census;

The package re-exports the executors (``from ramseygadgets.scaleout import make_executor``); import
the census, the fan-out and the cross-check from their modules.
"""

from __future__ import annotations

from ramseygadgets.infra.executors import (
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
