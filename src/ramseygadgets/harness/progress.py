"""Live counters of an evaluation and their rich progress display."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from ramseygadgets.infra.terminal import terminal_text
from ramseygadgets.runs.samples import Usage

__all__ = [
    "EvalStats",
    "EvalProgress",
]


@dataclass
class EvalStats:
    """Counts over the samples finished in this process (``recorded`` counts earlier ones too)."""

    total: int = 0
    recorded: int = 0
    done: int = 0
    correct: int = 0
    parse_failures: int = 0
    truncated: int = 0
    errors: int = 0
    tokens: int | None = None  # the sum of the reported counts; None: none reported yet
    retries: int = 0
    in_flight: int = 0
    started: float = field(default_factory=time.monotonic)

    def add(self, record: dict[str, Any]) -> None:
        self.done += 1
        self.recorded += 1
        self.correct += bool(record.get("correct"))
        self.errors += record.get("error") is not None
        self.parse_failures += record.get("error") is None and record.get("parse_error") is not None
        self.truncated += record.get("finish_reason") == "length"
        total = Usage.from_json(record.get("usage"), zeros_unknown=False).total_tokens
        if total is not None:
            self.tokens = (self.tokens or 0) + total

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.done if self.done else None

    def line(self) -> str:
        acc = "-" if self.accuracy is None else f"{100 * self.accuracy:.1f}%"
        tokens = "—" if self.tokens is None else f"{self.tokens:,}"
        parts = [f"acc {acc}", f"tokens {tokens}", f"retries {self.retries}"]
        if self.parse_failures:
            parts.append(f"unparsed {self.parse_failures}")
        if self.truncated:
            parts.append(f"truncated {self.truncated}")
        if self.errors:
            parts.append(f"errors {self.errors}")
        if self.in_flight:
            parts.append(f"in flight {self.in_flight}")
        return " · ".join(parts)


class EvalProgress:
    """A rich progress bar: samples done/total, accuracy, tokens, retries, ETA.  Inert when off."""

    def __init__(
        self,
        stats: EvalStats,
        console: Console | None = None,
        enabled: bool = True,
        title: str = "eval",
    ):
        self.stats = stats
        self.enabled = enabled
        self._progress: Progress | None = None
        self._task: Any = None
        self._console = console
        self._title = terminal_text(title)
        self._last = 0.0

    def __enter__(self) -> EvalProgress:
        if self.enabled:
            self._progress = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[line]}"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=self._console,
                transient=False,
                refresh_per_second=4,
            )
            self._progress.__enter__()
            self._task = self._progress.add_task(
                self._title,
                total=self.stats.total,
                completed=self.stats.recorded,
                line=self.stats.line(),
            )
        return self

    def update(self, force: bool = False) -> None:
        if self._progress is None:
            return
        now = time.monotonic()
        if not force and now - self._last < 0.1:
            return
        self._last = now
        self._progress.update(self._task, completed=self.stats.recorded, line=self.stats.line())

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self.update(force=True)
            self._progress.__exit__(None, None, None)
            self._progress = None
