"""The one progress bar of the command line: a description, the bar, done of total and, for
long work, the time elapsed; on stderr, gone when done.  rich's progress module loads only when
a command shows one (it costs ~35 ms of every command's start-up otherwise)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console

from ramseygadgets.cli.app import err_console

if TYPE_CHECKING:
    from rich.progress import Progress

__all__ = ["progress_bar"]


def progress_bar(
    description: str = "{task.description}",
    *,
    elapsed: bool = True,
    disable: bool = False,
    console: Console | None = None,
) -> Progress:
    """A transient bar on ``console`` (stderr by default); ``disable``: shows nothing."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = [TextColumn(description), BarColumn(), MofNCompleteColumn()]
    if elapsed:
        columns.append(TimeElapsedColumn())
    return Progress(*columns, console=console or err_console, transient=True, disable=disable)
