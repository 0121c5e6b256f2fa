"""Run independent tasks in parallel: in this process, in local worker processes, or on Ray.

Every executor has one method, :meth:`Executor.run`, that applies a module-level function to
each item and yields ``(index, result)`` as tasks finish (completion order).  The caller records
each result as it arrives (a checkpoint), so a crash or Ctrl-C keeps everything finished.

* :class:`LocalExecutor` (``jobs`` processes, default): a worker that dies (killed, out of
  memory) breaks the pool; the pool is rebuilt and only the unfinished tasks run again (each at
  most ``retries`` more times).  Workers ignore SIGINT; on Ctrl-C the parent stops them; a
  killed parent takes its workers with it (:mod:`ramseygadgets.workers`).  The pool never has
  more processes than tasks.
* :class:`RayExecutor` (``--ray ADDRESS``): each item is a Ray task; Ray re-runs a task whose
  worker died (``max_retries``).  ``ADDRESS`` is ``auto`` (the cluster this machine belongs to),
  ``local`` (start a single-node cluster here, even where another one runs), or a cluster
  address (``ray://head:10001`` or ``head:6379``).  Every node needs ``ramseygadgets`` (and
  nauty for enumerations) installed (a cube search's tasks carry all they need and no
  paths: :mod:`ramseygadgets.search.runners`).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import socket
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from ramseygadgets.errors import RamseyGadgetsError
from ramseygadgets.workers import init_worker, usable_cores

__all__ = [
    "Task",
    "ScaleoutError",
    "Executor",
    "LocalExecutor",
    "RayExecutor",
    "make_executor",
]


Task = Callable[[Any], Any]


class ScaleoutError(RamseyGadgetsError):
    """A task failed for good, or the cluster cannot be reached."""


class Executor:
    """Base class: ``run(fn, items)`` yields ``(index, fn(items[index]))`` in completion order."""

    name = "serial"
    workers = 1

    def run(
        self, fn: Task, items: Sequence[Any], *, describe: Callable[[Any], str] = str
    ) -> Iterator[tuple[int, Any]]:
        for index, item in enumerate(items):
            yield index, fn(item)

    def close(self) -> None:
        pass

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def describe(self, tasks: int | None = None) -> str:
        """Where ``tasks`` tasks (None: any number) will run."""
        return "this process"


class LocalExecutor(Executor):
    """``jobs`` worker processes (``jobs = 1``: run in this process, no pickling)."""

    name = "local"

    def __init__(self, jobs: int | None = None, retries: int = 2) -> None:
        self.workers = max(1, jobs if jobs is not None else usable_cores())
        self.retries = retries

    def describe(self, tasks: int | None = None) -> str:
        workers = self.workers if tasks is None else min(self.workers, tasks)
        return f"{workers} local processes" if workers > 1 else "this process"

    def _pool(self, tasks: int) -> ProcessPoolExecutor:
        ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
        return ProcessPoolExecutor(
            max_workers=min(self.workers, tasks),
            mp_context=ctx,
            initializer=init_worker,
            initargs=(os.getpid(),),
        )

    def run(
        self, fn: Task, items: Sequence[Any], *, describe: Callable[[Any], str] = str
    ) -> Iterator[tuple[int, Any]]:
        if self.workers <= 1 or len(items) <= 1:
            yield from Executor.run(self, fn, items)
            return
        attempts = [0] * len(items)
        todo = list(range(len(items)))
        while todo:
            pool = self._pool(len(todo))
            futures: dict[Future, int] = {pool.submit(fn, items[i]): i for i in todo}
            todo = []
            broken = False
            try:
                pending = set(futures)
                while pending:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for future in done:
                        index = futures[future]
                        try:
                            result = future.result()
                        except BrokenProcessPool:
                            broken = True
                            attempts[index] += 1
                            if attempts[index] > self.retries:
                                raise ScaleoutError(
                                    f"task {describe(items[index])} lost its worker "
                                    f"{attempts[index]} times; giving up"
                                ) from None
                            todo.append(index)
                            continue
                        yield index, result
            finally:
                if broken or todo:
                    pool.shutdown(wait=True, cancel_futures=True)
                else:
                    _stop(pool)


def _stop(pool: ProcessPoolExecutor) -> None:
    """Shut a pool down now, ending workers that are still busy (after Ctrl-C or an error)."""
    processes = list(getattr(pool, "_processes", {}).values())  # no public handle on the workers
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=5)


#: Ray starts its workers at nice 15, so beside any other work they get only what is left
#: (measured: a cube search ten times slower next to a niced search).  A cluster we start
#: (``local``) runs them at the caller's priority, like ``--jobs``; set the variable to keep
#: Ray's choice.
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
                env_vars = {RAY_WORKER_NICENESS: str(os.nice(0)), **runtime_env.get("env_vars", {})}
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

    def run(
        self, fn: Task, items: Sequence[Any], *, describe: Callable[[Any], str] = str
    ) -> Iterator[tuple[int, Any]]:
        ray = self.ray
        remote = ray.remote(max_retries=self.retries, retry_exceptions=False)(fn)
        refs = {remote.remote(item): i for i, item in enumerate(items)}
        pending = list(refs)
        try:
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                for ref in done:
                    index = refs[ref]
                    try:
                        result = ray.get(ref)
                    except ray.exceptions.RayTaskError as exc:  # the task itself raised
                        raise ScaleoutError(
                            f"task {describe(items[index])} failed: {exc.cause!r}"
                        ) from None
                    except ray.exceptions.RayError as exc:  # worker or node lost beyond the retries
                        raise ScaleoutError(
                            f"task {describe(items[index])} was lost: {type(exc).__name__}"
                        ) from None
                    yield index, result
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)

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
