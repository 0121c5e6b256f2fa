"""Command-line interface: ``ramseygadgets COMMAND --help``.

Each concern registers its commands on the shared :data:`app` in its own module.
"""

from __future__ import annotations

import signal
import sys

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
from ramseygadgets.cli.app import (
    Terminated,
    app,
    interrupts_survive_finalizers,
    solver_interrupts,
)


def main() -> None:
    """Console-script entry point: usage errors become one ``error:`` line and exit code 2."""
    try:
        # Ctrl-C inside a PySAT call arrives as pysolvers.error; one a __del__ swallowed, again
        with solver_interrupts(), interrupts_survive_finalizers():
            code = app(standalone_mode=False)
    except (KeyboardInterrupt, typer.Abort) as exc:
        sys.stderr.write("interrupted\n")
        _exit(143 if isinstance(exc, Terminated) else 130)
    except typer.Exit as exc:
        _exit(exc.exit_code)
    except typer.TyperException as exc:
        _error(exc)
    _exit(code if isinstance(code, int) else 0)


def _error(exc: typer.TyperException) -> None:
    """Report a Typer error and exit.

    Only Typer's public API: since 0.26 Typer carries its own copy of Click (its errors are not
    the ``click`` package's), and since 0.28 all of them derive from the public
    :class:`typer.TyperException`. A usage error (Click's ``UsageError`` and subclasses) has exit
    code 2 and the ``ctx`` it happened in: one ``error:`` line pointing at ``--help``, except for
    a group called without a command, which prints its help.
    """
    message = " ".join(exc.format_message().split())
    ctx = getattr(exc, "ctx", None)
    if exc.exit_code == 2 and hasattr(exc, "ctx"):
        if type(exc).__name__ == "NoArgsIsHelpError" and ctx is not None:
            sys.stdout.write(ctx.get_help() + "\n")
            sys.exit(0)
        command = ctx.command_path if ctx is not None else "ramseygadgets"
        sys.stderr.write(f"error: {message} (see '{command} --help')\n")
        sys.exit(2)
    sys.stderr.write(f"error: {message}\n")
    sys.exit(exc.exit_code)


def _exit(code: int) -> None:
    """Exit with ``code``; after a Ctrl-C (130) one more Ctrl-C during the interpreter's
    shutdown (joining worker-pool threads) must not turn it into death by SIGINT (-2)."""
    if code == 130:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.exit(code)


__all__ = ["app", "main"]
