"""The Typer application shared by every command module, and its error handling.

Every user error (:class:`~ramseygadgets.core.errors.RamseyGadgetsError`, bad option values)
becomes one line on stderr and exit code 2; any other exception is a bug: its traceback and a
line asking to report it, exit code 70 (``BUG_EXIT_CODE``); Ctrl-C exits with 130 without a
traceback.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import signal
import sys
import threading
import traceback
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import typer
from rich.console import Console

from ramseygadgets.core.errors import RamseyGadgetsError
from ramseygadgets.infra.numbers import NumberWarning
from ramseygadgets.infra.terminal import terminal_text

__all__ = [
    "BUG_EXIT_CODE",
    "HELP_MARKUP",
    "app",
    "console",
    "err_console",
    "MAX_INPUT_BYTES",
    "F",
    "fail",
    "guarded",
    "report_bug",
    "solver_interrupts",
    "interrupts_survive_finalizers",
    "read_text_input",
    "sigterm_raises",
    "signals_stop_solvers",
    "Terminated",
    "print_json",
]


#: Help as plain text: flags shown as flags on every Typer version (Typer 0.29's Rich panels
#: print a boolean flag as if it took a value, ``--json <bool>``, ``--help <bool>``).
HELP_MARKUP: Any = None

app = typer.Typer(
    name="ramseygadgets",
    help="RamseyGadgets: verify, search and benchmark graph gadgets for (F,H)-good colorings.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=HELP_MARKUP,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"ramseygadgets {package_version()}")
        raise typer.Exit()


def package_version() -> str:
    """The installed distribution's version (importlib.metadata); ``__version__`` when the
    package runs from a source tree that is not installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ramseygadgets")
    except PackageNotFoundError:  # pragma: no cover - a bare source tree on sys.path
        from ramseygadgets import __version__

        return __version__


@app.callback()
def _global_options(
    version: bool = typer.Option(
        False, "--version", callback=_print_version, is_eager=True, help="Print the version."
    ),
) -> None:
    pass


console = Console(soft_wrap=True)
#: Standard error: one line per message at any terminal width (soft wrap): logs are grepped.
err_console = Console(stderr=True, soft_wrap=True)

#: Largest input file the CLI reads (bytes); larger inputs are refused with a clear message.
MAX_INPUT_BYTES = 32 * 1024 * 1024

F = TypeVar("F", bound=Callable[..., Any])


def fail(message: str, code: int = 2) -> NoReturn:
    """Print ``error: message`` on one line to stderr (control characters removed) and exit."""
    text = terminal_text(message, markup=False)
    err_console.print(f"error: {text}", markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def guarded(func: F) -> F:
    """Run a command: a user error (:class:`~ramseygadgets.core.errors.RamseyGadgetsError`) becomes one
    ``error:`` line and exit code 2; any other exception is a bug: its traceback, then one line
    asking to report it, and exit code :data:`BUG_EXIT_CODE`."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            with solver_interrupts(), one_line_warnings():
                return func(*args, **kwargs)
        except RamseyGadgetsError as exc:
            fail(str(exc))
        except (typer.Exit, typer.Abort, typer.TyperException):
            raise
        except Exception:
            report_bug()

    return wrapper  # type: ignore[return-value]


@contextlib.contextmanager
def one_line_warnings() -> Iterator[None]:
    """Show a :class:`~ramseygadgets.infra.numbers.NumberWarning` (a number read back out of range,
    read as missing) as one ``warning:`` line on stderr, without the Python source line."""
    shown = warnings.showwarning

    def show(message: Any, category: type[Warning], *args: Any, **kwargs: Any) -> None:
        if issubclass(category, NumberWarning):
            text = terminal_text(str(message), markup=False)
            err_console.print(f"warning: {text}", markup=False, highlight=False, soft_wrap=True)
        else:
            shown(message, category, *args, **kwargs)

    warnings.showwarning = show
    try:
        yield
    finally:
        warnings.showwarning = shown


#: Exit code of a bug (sysexits' ``EX_SOFTWARE``, "internal software error"): not 1, which
#: ``verify``, ``check`` and ``solve`` use for an outcome (incorrect, not found).
BUG_EXIT_CODE = 70


def report_bug() -> NoReturn:
    """Print the exception being handled with its traceback, then one line asking to report it,
    to stderr, and exit with :data:`BUG_EXIT_CODE`."""
    traceback.print_exc(file=sys.stderr)
    sys.stderr.write(
        f"ramseygadgets {package_version()}: this is a bug; "
        "please report it with the traceback above\n"
    )
    raise typer.Exit(BUG_EXIT_CODE)


@contextlib.contextmanager
def solver_interrupts() -> Iterator[None]:
    """A Ctrl-C that PySAT caught inside a solver call arrives as ``KeyboardInterrupt``
    (:func:`~ramseygadgets.colorings.red_blue.keyboard_interrupts`, loaded only where PySAT
    was: only PySAT raises that error)."""
    try:
        yield
    except Exception:
        if "pysat" not in sys.modules:
            raise
        from ramseygadgets.colorings.red_blue import keyboard_interrupts

        with keyboard_interrupts():
            raise


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C raises :class:`KeyboardInterrupt` (exit code 143)."""


@contextlib.contextmanager
def interrupts_survive_finalizers() -> Iterator[None]:
    """Within the block, a Ctrl-C or SIGTERM whose exception a finalizer swallowed is sent again.

    Python runs a signal's handler at the next bytecode of the main thread; when that is inside
    a ``__del__`` (PySAT's ``Solver.__del__`` runs often during a search) the raised
    :class:`KeyboardInterrupt` is dropped ("Exception ignored in …") and the command would go
    on.  Such exceptions reach :data:`sys.unraisablehook`; this one has a thread trip the signal
    again (``_thread.interrupt_main``) a moment later, once the finalizer has returned (tripped
    inside the hook, the handler would run there and be dropped too)."""
    import _thread

    previous = sys.unraisablehook

    def redeliver(unraisable: Any) -> None:
        if not isinstance(unraisable.exc_value, KeyboardInterrupt):
            previous(unraisable)
            return
        signum = signal.SIGTERM if isinstance(unraisable.exc_value, Terminated) else signal.SIGINT
        timer = threading.Timer(0.01, _thread.interrupt_main, args=(signum,))
        timer.daemon = True
        timer.start()

    sys.unraisablehook = redeliver
    try:
        yield
    finally:
        sys.unraisablehook = previous


@contextlib.contextmanager
def sigterm_raises() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Terminated`, so that a command stops and cleans
    up as on Ctrl-C (work in the same process stops with it)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminate(signum: int, frame: object) -> None:
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def signals_stop_solvers() -> Iterator[None]:
    """Within the block, Ctrl-C and SIGTERM also interrupt the SAT solvers of a search with a
    deadline (PySAT's ``solve_limited`` does not stop on a signal by itself): the signal's byte
    arrives on a wake-up pipe even while the main thread is inside the solver, and a watcher
    thread interrupts them, so the signal's handler runs within moments."""
    from ramseygadgets.search.oracle import interrupt_running

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    previous = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)

    def watch() -> None:
        while os.read(read_end, 64):
            interrupt_running()

    watcher = threading.Thread(target=watch, name="signals-stop-solvers", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        signal.set_wakeup_fd(previous)
        os.close(write_end)  # the watcher reads end-of-file and ends
        watcher.join(timeout=1)
        os.close(read_end)


def read_text_input(source: str | None) -> str:
    """Read a file path or ``-``/``None`` (stdin) as UTF-8 text, with a size limit."""
    try:
        if source in (None, "-"):
            data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
            where = "standard input"
        else:
            path = Path(source)
            if path.is_dir():
                raise RamseyGadgetsError(f"cannot read {source}: it is a directory, not a file")
            if not path.is_file():
                raise RamseyGadgetsError(f"cannot read {source}: no such file")
            with path.open("rb") as fh:
                data = fh.read(MAX_INPUT_BYTES + 1)
            where = source
    except OSError as exc:
        raise RamseyGadgetsError(f"cannot read {source}: {exc.strerror}") from None
    if len(data) > MAX_INPUT_BYTES:
        raise RamseyGadgetsError(
            f"{where} is larger than {MAX_INPUT_BYTES // (1024 * 1024)} MiB; refusing to read it"
        )
    if b"\x00" in data:
        raise RamseyGadgetsError(f"{where} contains binary data (NUL bytes), not text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise RamseyGadgetsError(f"{where} is not UTF-8 text") from None


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2) + "\n")
