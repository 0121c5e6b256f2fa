"""Command-line interface: ``ramseygadgets COMMAND --help``.

Each concern registers its commands on the shared :data:`app` in its own module.
"""

from __future__ import annotations

import signal
import sys

try:  # typer >= 0.2x vendors click as typer._click
    from typer._click import exceptions as click_exceptions
except ImportError:  # pragma: no cover - older typer on top of click
    from click import exceptions as click_exceptions  # type: ignore[no-redef]

import typer

# Importing a module registers its commands.
from ramseygadgets.cli import (  # noqa: F401,E402
    atlas,
    core,
    evaluation,
    generate,
    prompting,
    reporting,
    search,
    training,
)
from ramseygadgets.cli.app import app
from ramseygadgets.colorings import keyboard_interrupts


def main() -> None:
    """Console-script entry point: usage errors become one ``error:`` line and exit code 2."""
    try:
        with keyboard_interrupts():  # Ctrl-C inside a PySAT call arrives as pysolvers.error
            code = app(standalone_mode=False)
    except (KeyboardInterrupt, typer.Abort):
        sys.stderr.write("interrupted\n")
        _exit(130)
    except typer.Exit as exc:
        _exit(exc.exit_code)
    except click_exceptions.UsageError as exc:
        if type(exc).__name__ == "NoArgsIsHelpError" and exc.ctx is not None:
            sys.stdout.write(exc.ctx.get_help() + "\n")
            sys.exit(0)
        command = exc.ctx.command_path if exc.ctx is not None else "ramseygadgets"
        message = " ".join(exc.format_message().split())
        sys.stderr.write(f"error: {message} (see '{command} --help')\n")
        sys.exit(2)
    except click_exceptions.ClickException as exc:
        sys.stderr.write(f"error: {' '.join(exc.format_message().split())}\n")
        sys.exit(exc.exit_code)
    _exit(code if isinstance(code, int) else 0)


def _exit(code: int) -> None:
    """Exit with ``code``; after a Ctrl-C (130) one more Ctrl-C during the interpreter's
    shutdown (joining worker-pool threads) must not turn it into death by SIGINT (-2)."""
    if code == 130:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.exit(code)


__all__ = ["app", "main"]
