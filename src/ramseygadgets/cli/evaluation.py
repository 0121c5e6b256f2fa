"""CLI commands: eval (issue 5: evaluation harness)."""

from __future__ import annotations

from ramseygadgets.cli.app import app  # noqa: F401
