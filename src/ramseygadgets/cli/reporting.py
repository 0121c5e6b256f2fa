"""CLI commands: report, show (issue 6)."""

from __future__ import annotations

from ramseygadgets.cli.app import app  # noqa: F401
