"""CLI commands: generate (issue 8)."""

from __future__ import annotations

from ramseygadgets.cli.app import app  # noqa: F401
