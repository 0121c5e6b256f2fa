"""Where cubes run: in this process, one forked process per cube, or Ray tasks.

Every runner has ``slots`` (cubes to keep in flight), ``submit(key, task)``, ``wait()`` — the
``(key, record)`` pairs of the cubes that ended, at least one, where ``record`` is ``None`` for a
cube whose worker died (killed, out of memory) — ``cancel_all()`` and ``close()``.

* :class:`SerialRunner`: in this process, one cube at a time (``--jobs 1``).
* :class:`LocalRunner`: ``--jobs K`` forked worker processes, each fed one cube at a time
  through its own pipe (and keeping its finders between cubes).  While cubes run, the workers
  swap lemmas through the parent (:class:`.cubes.LemmaExchange`; a message to a worker whose
  pipe is full is dropped, never waited for).  A worker killed mid-cube
  costs that cube only (the others run on; the scheduler re-runs it, a new worker is forked),
  which a ``ProcessPoolExecutor`` cannot give (one dead worker breaks the whole pool).  Workers ignore
  SIGINT and die with their parent (:func:`ramseygadgets.workers.init_worker`); on Ctrl-C or
  an error the parent kills every live worker (no orphans).
* :class:`RayRunner`: Ray tasks (``--ray auto|local|ADDRESS``, connection handling of
  :class:`ramseygadgets.executors.RayExecutor`); Ray re-runs a task whose worker died,
  cancelled tasks are force-killed.

A worker needs nothing but its task: the problem, the cube and the lemmas it starts with travel
in the :class:`.cubes.CubeTask` (pickled by Ray or the pipe), the record comes back the same way,
and the driver alone writes the log and keeps the lemma pools (:mod:`.parallel`).  No path is
passed and no file is read beyond the installed package, so a node of a cluster needs only
``ramseygadgets`` installed, not the driver's files (tested on a two-node cluster whose workers
may not open anything in the driver's directory, ``tests/scaleout/test_ray_cluster.py``).  Each
record says where it was decided (:func:`placement`).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import select
import socket
import sys
from multiprocessing.connection import Connection
from multiprocessing.connection import wait as wait_any
from typing import Any

from ramseygadgets.executors import RayExecutor
from ramseygadgets.search.cubes import (
    CubeTask,
    LemmaExchange,
    clear_finders,
    is_lemmas,
    run_cube,
    take_lemmas,
)
from ramseygadgets.workers import init_worker

__all__ = [
    "Outcome",
    "SerialRunner",
    "LocalRunner",
    "RayRunner",
    "Runner",
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


def _guarded_run(task: CubeTask, exchange: LemmaExchange | None = None) -> dict[str, Any]:
    """:func:`run_cube`, with an exception turned into an ``error`` record (never lost
    silently); either names where it ran (:func:`placement`)."""
    try:
        record = run_cube(task, exchange)
    except Exception as exc:  # reported by the scheduler as one error line
        record = {"kind": "error", "error": f"{type(exc).__name__}: {exc}"}
    record.update(placement())
    return record


class SerialRunner:
    """Cubes in this process, one at a time."""

    slots = 1
    name = "this process"

    def __init__(self) -> None:
        self.queue: list[tuple[str, CubeTask]] = []

    def submit(self, key: str, task: CubeTask) -> None:
        self.queue.append((key, task))

    def wait(self) -> list[Outcome]:
        key, task = self.queue.pop(0)
        return [(key, _guarded_run(task))]

    def cancel_all(self) -> None:
        self.queue.clear()

    def close(self) -> None:
        self.cancel_all()
        clear_finders()


def _worker(parent: int, conn: Connection) -> None:
    """A worker's loop: cubes in, records out, until the pipe closes or ``None`` comes; lemma
    messages (in and out) while a cube runs, and in between."""
    init_worker(parent)
    exchange = LemmaExchange(conn.send, lambda: _pending(conn))
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        if is_lemmas(message):
            take_lemmas(message)
            continue
        conn.send(_guarded_run(message, exchange))


def _pending(conn: Connection) -> list[Any]:
    """The messages waiting in ``conn`` now (none: an empty list, at once)."""
    out = []
    while conn.poll():
        out.append(conn.recv())
    return out


def _send_if_room(conn: Connection, message: Any) -> None:
    """Send a lemma message unless the pipe is full (then it is dropped: it only saves time)."""
    try:
        if select.select([], [conn.fileno()], [], 0)[1]:
            conn.send(message)
    except (OSError, ValueError):  # the worker is gone: the scheduler sees it
        pass


class LocalRunner:
    """At most ``jobs`` worker processes, each running one cube at a time and keeping its
    finders from cube to cube (:func:`.cubes.run_cube`)."""

    def __init__(self, jobs: int) -> None:
        self.slots = jobs
        self.name = f"{jobs} local processes"
        methods = mp.get_all_start_methods()
        self.ctx = mp.get_context("fork") if "fork" in methods else mp.get_context()
        self.idle: list[tuple[Any, Connection]] = []
        self.busy: dict[str, tuple[Any, Connection]] = {}

    def submit(self, key: str, task: CubeTask) -> None:
        while self.idle:
            proc, conn = self.idle.pop()
            if proc.is_alive():
                break
            conn.close()
        else:
            conn, child = self.ctx.Pipe(duplex=True)
            proc = self.ctx.Process(target=_worker, args=(os.getpid(), child), daemon=True)
            proc.start()
            child.close()
        try:
            conn.send(task)
        except OSError:  # the worker died while idle: the scheduler re-runs the cube
            pass
        self.busy[key] = (proc, conn)

    def wait(self) -> list[Outcome]:
        out: list[Outcome] = []
        while not out:
            waitables: list[Any] = []
            for proc, conn in self.busy.values():
                waitables += [conn, proc.sentinel]
            ready = set(wait_any(waitables))
            for key, (proc, conn) in list(self.busy.items()):
                if conn not in ready and proc.sentinel not in ready:
                    continue
                record = self._record(conn)
                if record is None and proc.is_alive():
                    continue  # lemmas only, or a spurious wake-up: nothing yet
                del self.busy[key]
                if record is None:
                    proc.join()
                    conn.close()
                else:
                    self.idle.append((proc, conn))
                out.append((key, record))
        return out

    def _record(self, conn: Connection) -> dict[str, Any] | None:
        """The cube record waiting in ``conn``, if any, after relaying the lemma messages
        before it to the other workers; ``None`` also when the worker died before sending."""
        try:
            while conn.poll():
                message = conn.recv()
                if not is_lemmas(message):
                    return message
                for _proc, other in [*self.busy.values(), *self.idle]:
                    if other is not conn:
                        _send_if_room(other, message)
        except (EOFError, OSError):
            pass
        return None

    def cancel_all(self) -> None:
        """Kill the busy workers (a cube cannot be stopped otherwise); idle ones stay."""
        _kill(list(self.busy.values()))
        self.busy.clear()

    def close(self) -> None:
        _kill(list(self.busy.values()) + self.idle)
        self.busy.clear()
        self.idle.clear()


def _kill(workers: list[tuple[Any, Connection]]) -> None:
    for proc, _conn in workers:
        if proc.is_alive():
            proc.kill()
    for proc, conn in workers:
        proc.join(timeout=10)
        conn.close()


class RayRunner:
    """Cubes as Ray tasks; ``slots`` is the cluster's CPU count."""

    def __init__(self, address: str, jobs: int | None = None, retries: int = 2) -> None:

        self.executor = RayExecutor(address, num_cpus=jobs if address == "local" else None)
        self.ray = self.executor.ray
        self.remote = self.ray.remote(max_retries=retries, retry_exceptions=False)(_guarded_run)
        self.slots = max(1, jobs or self.executor.workers)
        self.name = self.executor.describe()
        self.refs: dict[Any, str] = {}

    def submit(self, key: str, task: CubeTask) -> None:
        self.refs[self.remote.remote(task)] = key

    def wait(self) -> list[Outcome]:
        ray = self.ray
        done, _ = ray.wait(list(self.refs), num_returns=1)
        out: list[Outcome] = []
        for ref in done:
            key = self.refs.pop(ref)
            try:
                out.append((key, ray.get(ref)))
            except ray.exceptions.RayTaskError as exc:
                out.append((key, {"kind": "error", "error": repr(exc.cause)}))
            except ray.exceptions.RayError:  # worker or node lost beyond Ray's retries
                out.append((key, None))
        return out

    def cancel_all(self) -> None:
        for ref in self.refs:
            self.ray.cancel(ref, force=True)
        self.refs.clear()

    def close(self) -> None:
        self.cancel_all()
        self.executor.close()


Runner = SerialRunner | LocalRunner | RayRunner


def make_runner(jobs: int = 1, ray: str | None = None) -> Runner:
    """Ray with an address; else ``jobs`` local processes (1: this process)."""
    if ray:
        return RayRunner(ray, jobs if jobs > 1 else None)
    return LocalRunner(jobs) if jobs > 1 else SerialRunner()
