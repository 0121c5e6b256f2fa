"""Run tasks in parallel: in this process, in local worker processes, or on Ray.

Every executor gives a task pool (:meth:`Executor.pool`): at most ``slots`` tasks of one
module-level function in flight, ``submit(key, item)``, ``wait(timeout=None)`` — the ``(key,
result)`` pairs of the tasks that ended, at least one unless ``timeout`` seconds pass first
(then none; a pool that runs tasks in this process runs the next one to its end), ``result``
:data:`LOST` (``None``) for a task whose worker died — ``cancel_all()`` and ``close()``.  :meth:`Executor.run` applies a function
to each item on a pool and yields ``(index, result)`` as tasks finish (completion order), each
lost task run again (at most ``retries`` more times).  The caller records each result as it
arrives (a checkpoint), so a crash or Ctrl-C keeps everything finished.

* :class:`LocalExecutor` (``jobs`` processes, default): :class:`ProcessPool`, forked workers
  kept between tasks, each fed one task at a time through its own pipe; a worker that dies
  (killed, out of memory) costs only its task (a new worker is forked for the next one), which
  a ``ProcessPoolExecutor`` cannot give (one dead worker breaks the whole pool).  Workers may
  send messages while a task runs (:func:`worker_channel`), which the parent relays to the
  other workers (the cube search's lemma exchange) and passes to its ``observe`` function (a
  task run in this process sends to it too: :class:`TaskPool`).  Workers ignore SIGINT; on
  Ctrl-C or an error the parent kills them; a killed parent takes its workers with it
  (:mod:`ramseygadgets.infra.workers`).  A pool never has more processes than tasks.
* :class:`RayExecutor` (``--ray ADDRESS``): each item is a Ray task; Ray re-runs a task whose
  worker died (``max_retries``), cancelled tasks are force-killed.  ``ADDRESS`` is ``auto``
  (the cluster this machine belongs to), ``local`` (start a single-node cluster here, even
  where another one runs), or a cluster address (``ray://head:10001`` or ``head:6379``).
  Every node needs ``ramseygadgets`` (and nauty for enumerations) installed (a cube search's
  tasks carry all they need and no paths: :mod:`ramseygadgets.search.runners`).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import pickle
import select
import socket
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.connection import wait as wait_any
from typing import Any

from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.infra.workers import init_worker, usable_cores

__all__ = [
    "LOST",
    "Task",
    "ScaleoutError",
    "TaskFailed",
    "TaskPool",
    "ProcessPool",
    "RayPool",
    "Channel",
    "worker_channel",
    "Executor",
    "LocalExecutor",
    "RayExecutor",
    "make_executor",
]


Task = Callable[[Any], Any]
#: ``observe(key, message)``: a message the task ``key`` sent while it ran (:class:`TaskPool`).
Observer = Callable[[Any, Any], None]
#: What :meth:`TaskPool.wait` reports for a task whose worker died.
LOST = None


class ScaleoutError(RamseyGadgetsError):
    """A task failed for good, or the cluster cannot be reached."""


class TaskFailed(ScaleoutError):
    """A Ray task raised: ``key`` names it, ``cause`` is what it raised."""

    def __init__(self, key: Any, cause: BaseException) -> None:
        super().__init__(f"task {key} failed: {cause!r}")
        self.key, self.cause = key, cause


class TaskPool:
    """Tasks of ``fn`` in this process, one at a time (run when :meth:`wait` is called);
    ``observe(key, message)`` gets each message a task sends on its :func:`worker_channel`."""

    slots = 1

    def __init__(self, fn: Task, observe: Observer | None = None) -> None:
        self.fn, self.observe = fn, observe
        self.queue: list[tuple[Any, Any]] = []

    def submit(self, key: Any, item: Any) -> None:
        self.queue.append((key, item))

    def wait(self, timeout: float | None = None) -> list[tuple[Any, Any]]:
        """Run the next task to its end (``timeout`` cannot cut a task in this process short)."""
        global _channel
        key, item = self.queue.pop(0)
        if self.observe is None:
            return [(key, self.fn(item))]
        observe = self.observe
        _channel = _ObservedChannel(lambda message: observe(key, message))
        try:
            return [(key, self.fn(item))]
        finally:
            _channel = None

    def drain(self) -> None:
        """Pass on what running tasks sent and nobody read yet (here: nothing is left unread)."""

    def cancel_all(self) -> None:
        self.queue.clear()

    def close(self) -> None:
        self.cancel_all()


class Channel:
    """A worker's pipe to its parent, for messages while a task runs."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def send(self, message: Any) -> None:
        self.conn.send(message)

    def pending(self) -> list[Any]:
        """The messages waiting now (none: an empty list, at once)."""
        out = []
        while self.conn.poll():
            out.append(self.conn.recv())
        return out


class _ObservedChannel(Channel):
    """The channel of a task run in this process: what it sends goes to ``observe``, nothing
    comes in."""

    def __init__(self, observe: Callable[[Any], None]) -> None:
        self.observe = observe

    def send(self, message: Any) -> None:
        self.observe(message)

    def pending(self) -> list[Any]:
        return []


_channel: Channel | None = None


def worker_channel() -> Channel | None:
    """This process's channel to its parent when it is a :class:`ProcessPool` worker, or to the
    pool's observer while a :class:`TaskPool` with one runs a task here; else None."""
    return _channel


@dataclass(frozen=True)
class _Job:
    item: Any


@dataclass(frozen=True)
class _Done:
    result: Any = None
    error: BaseException | None = None


def _worker(
    parent: int, conn: Connection, fn: Task, on_message: Callable[[Any], None] | None
) -> None:
    """A worker's loop: jobs in, results out, until the pipe closes or ``None`` comes; other
    messages between jobs go to ``on_message``."""
    global _channel
    init_worker(parent)
    _channel = Channel(conn)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        if not isinstance(message, _Job):
            if on_message is not None:
                on_message(message)
            continue
        try:
            done = _Done(fn(message.item))
        except Exception as exc:  # raised again in the parent
            done = _Done(error=exc)
        try:
            conn.send(done)
        except (pickle.PicklingError, TypeError, AttributeError) as exc:  # cannot travel
            conn.send(_Done(error=ScaleoutError(f"a task's outcome cannot be sent back: {exc}")))


def _send_if_room(conn: Connection, message: Any) -> None:
    """Send a relayed message unless the pipe is full (then it is dropped: a message between
    workers only saves time) or the worker is gone."""
    try:
        if select.select([], [conn.fileno()], [], 0)[1]:
            conn.send(message)
    except (OSError, ValueError):  # the worker is gone: wait() sees it
        pass


class ProcessPool(TaskPool):
    """At most ``slots`` forked worker processes, each running one task at a time and kept from
    task to task (module docstring); ``relay``: pass each message a worker sends on to the
    others; ``on_message``: what a worker does with a message that comes between tasks;
    ``observe(key, message)``: called here with each message the task ``key`` sends."""

    def __init__(
        self,
        fn: Task,
        slots: int,
        *,
        relay: bool = False,
        on_message: Callable[[Any], None] | None = None,
        observe: Observer | None = None,
    ) -> None:
        self.fn, self.slots, self.relay, self.on_message = fn, slots, relay, on_message
        self.observe = observe
        methods = mp.get_all_start_methods()
        self.ctx = mp.get_context("fork") if "fork" in methods else mp.get_context()
        self.idle: list[tuple[Any, Connection]] = []
        self.busy: dict[Any, tuple[Any, Connection]] = {}
        #: results :meth:`drain` read before :meth:`wait` asked
        self.early: dict[Any, _Done] = {}

    def submit(self, key: Any, item: Any) -> None:
        while self.idle:
            proc, conn = self.idle.pop()
            if proc.is_alive():
                break
            conn.close()
        else:
            conn, child = self.ctx.Pipe(duplex=True)
            args = (os.getpid(), child, self.fn, self.on_message)
            proc = self.ctx.Process(target=_worker, args=args, daemon=True)
            proc.start()
            child.close()
        try:
            conn.send(_Job(item))
        except OSError:  # the worker died while idle: wait() reports the task lost
            pass
        self.busy[key] = (proc, conn)

    def wait(self, timeout: float | None = None) -> list[tuple[Any, Any]]:
        out: list[tuple[Any, Any]] = []
        failed: BaseException | None = None
        for key, early in self.early.items():
            self.idle.append(self.busy.pop(key))
            failed = failed or early.error
            out.append((key, early.result))
        self.early.clear()
        deadline = None if timeout is None else time.monotonic() + timeout
        while not out:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                break
            waitables: list[Any] = []
            for proc, conn in self.busy.values():
                waitables += [conn, proc.sentinel]
            ready = set(wait_any(waitables, timeout=left))
            for key, (proc, conn) in list(self.busy.items()):
                if conn not in ready and proc.sentinel not in ready:
                    continue
                done = self._done(key, conn)
                if done is None and proc.is_alive():
                    continue  # messages only, or a spurious wake-up: nothing yet
                del self.busy[key]
                if done is None:
                    proc.join()
                    conn.close()
                    out.append((key, LOST))
                    continue
                self.idle.append((proc, conn))
                failed = failed or done.error
                out.append((key, done.result))
        if failed is not None:
            raise failed
        return out

    def _done(self, key: Any, conn: Connection) -> _Done | None:
        """The result waiting in ``conn`` (the task ``key``'s), if any, after relaying the
        messages before it to the other workers (and to :attr:`observe`); ``None`` also when
        the worker died before sending."""
        try:
            while conn.poll():
                message = conn.recv()
                if isinstance(message, _Done):
                    return message
                if self.observe is not None:
                    self.observe(key, message)
                if self.relay:
                    for _proc, other in [*self.busy.values(), *self.idle]:
                        if other is not conn:
                            _send_if_room(other, message)
        except (EOFError, OSError):
            pass
        return None

    def drain(self) -> None:
        """Relay and observe every message the busy workers sent so far, at once (before a
        stop reads what they sent); a result that came meanwhile waits for :meth:`wait`."""
        for key, (_proc, conn) in self.busy.items():
            if key not in self.early and (done := self._done(key, conn)) is not None:
                self.early[key] = done

    def cancel_all(self) -> None:
        """Kill the busy workers (a task cannot be stopped otherwise); idle ones stay."""
        _kill(list(self.busy.values()))
        self.busy.clear()
        self.early.clear()

    def close(self) -> None:
        _kill(list(self.busy.values()) + self.idle)
        self.busy.clear()
        self.idle.clear()
        self.early.clear()


def _kill(workers: list[tuple[Any, Connection]]) -> None:
    for proc, _conn in workers:
        if proc.is_alive():
            proc.kill()
    for proc, conn in workers:
        proc.join(timeout=10)
        conn.close()


class Executor:
    """Base class: this process.  ``run(fn, items)`` yields ``(index, fn(items[index]))`` in
    completion order; :meth:`pool` gives the task pool it runs on."""

    name = "serial"
    workers = 1
    retries = 0

    def pool(
        self,
        fn: Task,
        slots: int | None = None,
        *,
        relay: bool = False,
        on_message: Callable[[Any], None] | None = None,
        observe: Observer | None = None,
    ) -> TaskPool:
        """A pool of at most ``slots`` (default :attr:`workers`) tasks of ``fn`` in flight;
        ``relay`` and ``on_message``: messages between local workers (:class:`ProcessPool`);
        ``observe``: the messages tasks send, here (:class:`TaskPool`, :class:`ProcessPool`)."""
        return TaskPool(fn, observe)

    def run(
        self, fn: Task, items: Sequence[Any], *, describe: Callable[[Any], str] = str
    ) -> Iterator[tuple[int, Any]]:
        pool = self.pool(fn, min(self.workers, len(items)))
        try:
            yield from _run_on(pool, items, self.retries, describe)
        except TaskFailed as exc:
            item = items[int(exc.key)]
            raise ScaleoutError(f"task {describe(item)} failed: {exc.cause!r}") from None
        finally:
            pool.close()

    def close(self) -> None:
        pass

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def describe(self, tasks: int | None = None) -> str:
        """Where ``tasks`` tasks (None: any number) will run."""
        return "this process"


def _run_on(
    pool: TaskPool, items: Sequence[Any], retries: int, describe: Callable[[Any], str]
) -> Iterator[tuple[int, Any]]:
    """Every item's result on ``pool``, in completion order; a lost task is run again, at most
    ``retries`` more times."""
    attempts = [0] * len(items)
    todo = list(range(len(items)))
    in_flight = 0
    while todo or in_flight:
        while todo and in_flight < pool.slots:
            index = todo.pop(0)
            pool.submit(index, items[index])
            in_flight += 1
        for key, result in pool.wait():
            index = int(key)
            in_flight -= 1
            if result is LOST:
                attempts[index] += 1
                if attempts[index] > retries:
                    raise ScaleoutError(
                        f"task {describe(items[index])} lost its worker "
                        f"{attempts[index]} times; giving up"
                    )
                todo.insert(0, index)
                continue
            yield index, result


class LocalExecutor(Executor):
    """``jobs`` worker processes (``jobs = 1``: run in this process, no pickling)."""

    name = "local"

    def __init__(self, jobs: int | None = None, retries: int = 2) -> None:
        self.workers = max(1, jobs if jobs is not None else usable_cores())
        self.retries = retries

    def describe(self, tasks: int | None = None) -> str:
        workers = self.workers if tasks is None else min(self.workers, tasks)
        return f"{workers} local processes" if workers > 1 else "this process"

    def pool(
        self,
        fn: Task,
        slots: int | None = None,
        *,
        relay: bool = False,
        on_message: Callable[[Any], None] | None = None,
        observe: Observer | None = None,
    ) -> TaskPool:
        size = self.workers if slots is None else min(self.workers, slots)
        if size <= 1:
            return TaskPool(fn, observe)
        return ProcessPool(fn, size, relay=relay, on_message=on_message, observe=observe)


class RayPool(TaskPool):
    """Tasks of ``fn`` on a Ray cluster (:class:`RayExecutor`); a task that raised is
    :class:`TaskFailed`, one lost beyond Ray's retries :data:`LOST`."""

    def __init__(self, executor: RayExecutor, fn: Task, slots: int) -> None:
        self.ray, self.slots = executor.ray, slots
        self.remote = self.ray.remote(max_retries=executor.retries, retry_exceptions=False)(fn)
        self.refs: dict[Any, Any] = {}

    def submit(self, key: Any, item: Any) -> None:
        self.refs[self.remote.remote(item)] = key

    def wait(self, timeout: float | None = None) -> list[tuple[Any, Any]]:
        ray = self.ray
        done, _ = ray.wait(list(self.refs), num_returns=1, timeout=timeout)
        out: list[tuple[Any, Any]] = []
        for ref in done:
            key = self.refs.pop(ref)
            try:
                out.append((key, ray.get(ref)))
            except ray.exceptions.RayTaskError as exc:  # the task itself raised
                raise TaskFailed(key, exc.cause) from None
            except ray.exceptions.RayError:  # worker or node lost beyond Ray's retries
                out.append((key, LOST))
        return out

    def cancel_all(self) -> None:
        for ref in self.refs:
            self.ray.cancel(ref, force=True)
        self.refs.clear()

    def close(self) -> None:
        self.cancel_all()


#: Ray starts its workers at nice 15, so beside any other work they get only what is left
#: (measured: a cube search ten times slower next to a niced search).  A cluster we start
#: (``local``) runs them at the caller's priority, like ``--jobs``: the value is an increment
#: on the niceness the workers inherit (the caller's), so 0 (the caller's niceness itself gave
#: a caller at nice 5 workers at nice 10); set the variable to keep Ray's choice.
RAY_WORKER_NICENESS = "RAY_worker_niceness"


class RayExecutor(Executor):
    """Tasks on a Ray cluster; ``address``: ``auto``, ``local`` or a cluster address."""

    name = "ray"

    def __init__(
        self,
        address: str = "local",
        *,
        num_cpus: int | None = None,
        retries: int = 2,
        runtime_env: dict[str, Any] | None = None,
    ) -> None:
        try:
            import ray
        except ImportError:
            raise ScaleoutError("--ray needs Ray: pip install 'ramseygadgets[ray]'") from None
        self.ray, self.retries, self.address = ray, retries, address
        self._started = False
        _cluster_errors_to_stderr()
        if not ray.is_initialized():
            options: dict[str, Any] = {
                "include_dashboard": False,
                "log_to_driver": False,
                "ignore_reinit_error": True,
            }
            if address == "local" and RAY_WORKER_NICENESS not in os.environ:
                runtime_env = dict(runtime_env or {})
                env_vars = {RAY_WORKER_NICENESS: "0", **runtime_env.get("env_vars", {})}
                runtime_env["env_vars"] = env_vars
            if runtime_env:
                options["runtime_env"] = runtime_env
            if address not in ("local", "auto"):
                _check_reachable(address)
            try:
                if address == "local":  # named: with no address Ray would join the last
                    # cluster started on this machine (/tmp/ray/ray_current_cluster) or RAY_ADDRESS
                    ray.init(address="local", num_cpus=num_cpus, **options)
                else:
                    ray.init(address=address, **options)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise ScaleoutError(
                    f"cannot connect to the Ray cluster at {address!r}: {exc}"
                ) from None
            self._started = True
        self.workers = int(ray.cluster_resources().get("CPU", 1))

    def describe(self, tasks: int | None = None) -> str:
        return f"Ray cluster {self.address!r} ({self.workers} CPUs)"

    def pool(
        self,
        fn: Task,
        slots: int | None = None,
        *,
        relay: bool = False,
        on_message: Callable[[Any], None] | None = None,
        observe: Observer | None = None,
    ) -> TaskPool:
        """Ray tasks, at most ``slots`` (default: the cluster's CPUs) in flight; no messages
        between them or to here (``relay``, ``on_message`` and ``observe`` are for local
        workers)."""
        return RayPool(self, fn, max(1, slots or self.workers))

    def close(self) -> None:
        if self._started and self.ray.is_initialized():
            self.ray.shutdown()
            self._started = False


def _cluster_errors_to_stderr() -> None:
    """Send the cluster's error events that Ray prints in a driver (a node marked dead, a worker
    killed) to stderr: Ray prints them to stdout, in the middle of ``--json`` output (seen when
    a node of the two-node test died, tests/scaleout/test_ray_cluster.py).  Ray has no option
    for it, so its printing function is wrapped (once per process; skipped if it moved)."""
    global _errors_guarded
    try:
        from ray._private import worker as ray_worker
    except ImportError:
        return
    original = getattr(ray_worker, "print_to_stdstream", None)
    if _errors_guarded or not callable(original):
        return

    def to_stderr(data: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        return original({**data, "is_err": True}, *args, **kwargs)

    ray_worker.print_to_stdstream = to_stderr
    _errors_guarded = True


_errors_guarded = False


def _check_reachable(address: str, timeout: float = 5.0) -> None:
    """Fail fast on a cluster address nothing listens on (Ray itself retries for minutes)."""
    hostport = address.split("://", 1)[-1].rstrip("/")
    host, sep, port = hostport.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise ScaleoutError(
            f"Ray address {address!r} must be auto, local, host:port or ray://host:port"
        )
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        raise ScaleoutError(
            f"cannot reach the Ray cluster at {address!r}: {exc.strerror or exc}"
        ) from None


def make_executor(jobs: int | None = None, ray_address: str | None = None) -> Executor:
    """Local worker processes by default (``jobs``, default all cores); Ray with an address."""
    if ray_address:
        return RayExecutor(ray_address, num_cpus=jobs)
    return LocalExecutor(jobs)
