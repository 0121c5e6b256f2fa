"""Where cubes run: in this process, in local worker processes, or as Ray tasks — on the task
pools of :mod:`ramseygadgets.infra.executors` (:class:`CubeRunner`).

A runner has ``slots`` (cubes to keep in flight), ``submit(key, task)``, ``wait()`` — the
``(key, record)`` pairs of the cubes that ended, at least one, where ``record`` is ``None`` for a
cube whose worker died (killed, out of memory) — ``cancel_all()`` and ``close()``.

* ``--jobs 1``: in this process, one cube at a time (its lemmas stream to the runner as a
  worker's do, :attr:`CubeRunner.streamed`).
* ``--jobs K``: K local worker processes (:class:`ramseygadgets.infra.executors.ProcessPool`), each
  keeping its finders from cube to cube.  While cubes run, the workers swap lemmas through the
  parent (:class:`.cubes.LemmaExchange` on the worker's
  :func:`~ramseygadgets.infra.executors.worker_channel`; the pool relays them, dropping a message to
  a worker whose pipe is full).  A worker killed mid-cube costs that cube only: the scheduler
  re-runs it (:mod:`.parallel`).
* ``--ray auto|local|ADDRESS``: Ray tasks (:class:`ramseygadgets.infra.executors.RayExecutor`); Ray
  re-runs a task whose worker died, cancelled tasks are force-killed.

A worker needs nothing but its task: the problem, the cube and the lemmas it starts with travel
in the :class:`.cubes.CubeTask` (pickled by Ray or the pipe), the record comes back the same way,
and the driver alone writes the log and keeps the lemma pools (:mod:`.parallel`).  No path is
passed and no file is read beyond the installed package, so a node of a cluster needs only
``ramseygadgets`` installed, not the driver's files (tested on a two-node cluster whose workers
may not open anything in the driver's directory, ``tests/scaleout/test_ray_cluster.py``).  Each
record says where it was decided (:func:`placement`).
"""

from __future__ import annotations

import os
import socket
import sys
from typing import Any

from ramseygadgets.infra.executors import Executor, LocalExecutor, RayExecutor, worker_channel
from ramseygadgets.search.cubes import (
    MAX_INHERITED_LEMMAS,
    CubeTask,
    LemmaExchange,
    clear_finders,
    run_cube,
    take_lemmas,
)

__all__ = [
    "Outcome",
    "CubeRunner",
    "make_runner",
    "placement",
]

Outcome = tuple[str, dict[str, Any] | None]


def placement() -> dict[str, Any]:
    """Where this process runs, for its cube records: ``node`` — the Ray node id (hex, as
    ``ray status`` and ``ray list nodes`` show it) in a Ray worker, else the host name —
    ``host`` (the host name), ``ip`` (the Ray node's address; Ray only) and ``pid``.  Ray is
    consulted only when this process already imported and initialised it (a Ray worker)."""
    host = socket.gethostname()
    where: dict[str, Any] = {"node": host, "host": host}
    ray = sys.modules.get("ray")
    if ray is not None and ray.is_initialized():
        from ray.util import get_node_ip_address

        where["node"] = ray.get_runtime_context().get_node_id()
        where["ip"] = get_node_ip_address()
    where["pid"] = os.getpid()
    return where


def _guarded_run(task: CubeTask) -> dict[str, Any]:
    """:func:`run_cube`, swapping lemmas on the worker's channel when it has one, with an
    exception turned into an ``error`` record (never lost silently); either names where it ran
    (:func:`placement`)."""
    channel = worker_channel()
    exchange = LemmaExchange(channel.send, channel.pending) if channel is not None else None
    try:
        record = run_cube(task, exchange)
    except Exception as exc:  # reported by the scheduler as one error line
        record = {"kind": "error", "error": f"{type(exc).__name__}: {exc}"}
    record.update(placement())
    return record


class CubeRunner:
    """Cubes on ``executor``'s task pool, at most ``slots`` in flight, local workers swapping
    lemmas (module docstring)."""

    def __init__(self, executor: Executor, slots: int) -> None:
        self.executor = executor
        self.pool = executor.pool(
            _guarded_run, slots, relay=True, on_message=take_lemmas, observe=self._streamed
        )
        self.slots = self.pool.slots
        self.name = executor.describe(self.slots)
        #: per cube in flight, the lemmas it has sent so far (its :class:`.cubes.LemmaExchange`;
        #: none on Ray), so that a stopped search keeps them (:mod:`.stopped`)
        self.streamed: dict[str, list[tuple[str, object]]] = {}
        #: per cube in flight that has sent any, how many lemmas it has sent in all
        self.learned: dict[str, int] = {}

    def _streamed(self, key: str, message: Any) -> None:
        """Keep a lemma message of cube ``key`` (only the newest :data:`.cubes.
        MAX_INHERITED_LEMMAS` are ever kept at a stop: an hour-long cube learns millions)."""
        if isinstance(message, tuple) and message[:1] == ("lemmas",):
            lemmas = self.streamed.setdefault(key, [])
            lemmas.extend(message[2])
            self.learned[key] = self.learned.get(key, 0) + len(message[2])
            if len(lemmas) > 2 * MAX_INHERITED_LEMMAS:
                del lemmas[:-MAX_INHERITED_LEMMAS]

    def submit(self, key: str, task: CubeTask) -> None:
        self.streamed[key] = []
        self.learned.pop(key, None)
        self.pool.submit(key, task)

    def wait(self, timeout: float | None = None) -> list[Outcome]:
        """The cubes that ended (none when ``timeout`` seconds pass first, on worker pools)."""
        ended = self.pool.wait(timeout)
        for key, _ in ended:
            self.streamed.pop(key, None)
            self.learned.pop(key, None)
        return ended

    def drain(self) -> None:
        """Take in every lemma message the cubes in flight sent so far (:attr:`streamed`)."""
        self.pool.drain()

    def cancel_all(self) -> None:
        self.pool.cancel_all()
        self.streamed.clear()
        self.learned.clear()

    def close(self) -> None:
        self.pool.close()
        self.executor.close()
        clear_finders()


#: The runner type :mod:`.parallel` takes.
Runner = CubeRunner


def make_runner(jobs: int = 1, ray: str | None = None) -> CubeRunner:
    """Ray with an address (``jobs`` > 1: that many CPUs, else the cluster's); else ``jobs``
    local processes (1: this process)."""
    if ray:
        executor = RayExecutor(ray, num_cpus=jobs if jobs > 1 and ray == "local" else None)
        return CubeRunner(executor, jobs if jobs > 1 else executor.workers)
    return CubeRunner(LocalExecutor(jobs), jobs)
