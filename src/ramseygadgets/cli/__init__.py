"""Command-line interface: ``ramseygadgets COMMAND --help``.

Each concern registers its commands on the shared :data:`app` in its own module.
"""

from __future__ import annotations

import sys

from ramseygadgets.cli.app import app

# Importing a module registers its commands.
from ramseygadgets.cli import core, evaluation, generate, prompting, reporting, search  # noqa: F401,E402


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        sys.exit(130)


__all__ = ["app", "main"]
