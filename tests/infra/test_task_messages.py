"""Messages a task sends while it runs reach the pool's ``observe`` function, whether the task
runs in a worker process or in this one (:mod:`ramseygadgets.infra.executors`)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from ramseygadgets.infra.executors import LocalExecutor, TaskPool, worker_channel


def _chatty(item: int) -> str:
    channel = worker_channel()
    if channel is None:
        return "no channel"
    for i in range(item):
        channel.send(("note", item, i))
    return f"sent {item}"


@pytest.mark.parametrize("jobs", [1, 2])
def test_each_message_reaches_the_observer_with_its_tasks_key(jobs):
    seen: list[tuple[Any, Any]] = []
    pool = LocalExecutor(jobs).pool(_chatty, jobs, observe=lambda key, m: seen.append((key, m)))
    try:
        for key, item in (("a", 3), ("b", 2)):
            pool.submit(key, item)
        results: dict[Any, Any] = {}
        while len(results) < 2:
            results.update(pool.wait())
    finally:
        pool.close()
    assert results == {"a": "sent 3", "b": "sent 2"}
    for key, item in (("a", 3), ("b", 2)):
        assert [m for k, m in seen if k == key] == [("note", item, i) for i in range(item)]


def test_a_task_in_this_process_has_no_channel_without_an_observer():
    pool = TaskPool(_chatty)
    pool.submit("a", 3)
    assert pool.wait() == [("a", "no channel")]
    assert worker_channel() is None


def _chatty_then_slow(item: float) -> str:
    channel = worker_channel()
    assert channel is not None
    channel.send(("note", item))
    time.sleep(item)
    return f"slept {item}"


def test_drain_reads_what_running_tasks_sent_and_keeps_a_result_for_wait():
    seen: list[tuple[Any, Any]] = []
    pool = LocalExecutor(2).pool(_chatty_then_slow, 2, observe=lambda key, m: seen.append((key, m)))
    try:
        pool.submit("slow", 3.0)
        pool.submit("quick", 0.0)
        time.sleep(1.0)  # both sent their note, "quick" its result too; nobody read them
        assert seen == []
        pool.drain()
        assert sorted(seen) == [("quick", ("note", 0.0)), ("slow", ("note", 3.0))]
        assert pool.wait() == [("quick", "slept 0.0")]
        assert pool.wait() == [("slow", "slept 3.0")]
    finally:
        pool.close()


def test_wait_with_a_timeout_returns_nothing_when_no_task_ends_in_time():
    """A worker's messages wake the pool but end no task: ``wait(timeout)`` returns ``[]`` once
    the time is up, and the task's result comes with a later wait."""
    seen: list[tuple[Any, Any]] = []
    pool = LocalExecutor(2).pool(_chatty_then_slow, 2, observe=lambda key, m: seen.append((key, m)))
    try:
        pool.submit("slow", 2.0)
        pool.submit("slower", 3.0)
        started = time.monotonic()
        assert pool.wait(timeout=0.5) == []
        assert 0.5 <= time.monotonic() - started < 1.5
        assert sorted(seen) == [("slow", ("note", 2.0)), ("slower", ("note", 3.0))]
        assert pool.wait(timeout=10) == [("slow", "slept 2.0")]
        assert pool.wait() == [("slower", "slept 3.0")]
    finally:
        pool.close()
