"""Group commit for the async runner: finished samples are handed to one writer task that
appends them (``write`` + ``fsync``) in a thread, so the event loop never waits for the disk,
and samples that finish while a flush is under way share the next one."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from ramseygadgets.runs.folder import RunLogError

__all__ = ["GroupCommitWriter"]

Records = list[dict[str, Any]]


class GroupCommitWriter:
    """Writes queued records with ``append_many`` (one call per flush, off the event loop).

    ``on_written(records)`` runs after each flush; a :class:`RunLogError` (disk full) is kept in
    :attr:`error`, passed to ``on_error`` and stops the writer: the queued samples stay unwritten.
    """

    def __init__(
        self,
        append_many: Callable[[Records], None],
        on_written: Callable[[Records], None],
        on_error: Callable[[RunLogError], None],
    ):
        self._append_many = append_many
        self._on_written = on_written
        self._on_error = on_error
        self._queued: Records = []
        self._task: asyncio.Future[None] | None = None
        self.error: RunLogError | None = None

    def put(self, record: dict[str, Any]) -> None:
        """Queue a finished sample; starts a flush unless one is under way."""
        self._queued.append(record)
        if self._task is None or self._task.done():
            self._task = asyncio.ensure_future(self._flush())

    async def _flush(self) -> None:
        while self._queued:
            records, self._queued = self._queued, []
            try:
                await asyncio.to_thread(self._append_many, records)
            except RunLogError as exc:  # the disk failed: stop, the samples stay unrecorded
                self.error = exc
                self._on_error(exc)
                return
            self._on_written(records)

    async def drain(self) -> None:
        """Finish writing every record already queued, whatever stopped the run (a cancelled
        caller still waits for the flush in progress, then writes the rest directly)."""
        if self._task is not None:
            try:
                await asyncio.shield(self._task)
            except asyncio.CancelledError:
                await asyncio.wait([self._task])
        if self._queued and self.error is None:
            records, self._queued = self._queued, []
            self._append_many(records)
            self._on_written(records)
