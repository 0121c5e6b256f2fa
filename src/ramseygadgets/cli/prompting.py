"""CLI commands: prompt, check, export (issue 4)."""

from __future__ import annotations

from ramseygadgets.cli.app import app  # noqa: F401
