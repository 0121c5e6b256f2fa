"""CLI commands: solve (issue 3: search engine)."""

from __future__ import annotations

from ramseygadgets.cli.app import app  # noqa: F401
