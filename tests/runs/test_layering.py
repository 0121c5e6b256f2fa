"""The data layer sits below the harness and the reports: neither imports the other."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    ("package", "forbidden"),
    [
        ("ramseygadgets.runs", ("ramseygadgets.harness", "ramseygadgets.report")),
        ("ramseygadgets.harness", ("ramseygadgets.report",)),
        ("ramseygadgets.report", ("ramseygadgets.harness",)),
    ],
)
def test_imports_follow_the_layers(package, forbidden):
    code = (
        f"import sys, {package}\n"
        f"print(' '.join(m for m in sys.modules if m.startswith({forbidden!r})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    assert out.strip() == ""
