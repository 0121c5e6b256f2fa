"""Fixtures of the sandbox tests: the sandbox (skipped where bubblewrap cannot run, failed in
CI) and the test-only unsandboxed runner, both with small limits."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from sandbox_helpers import LIMITS, need_sandbox  # noqa: E402

from ramseygadgets.sandbox import Sandbox  # noqa: E402


@pytest.fixture
def sandbox() -> Sandbox:
    need_sandbox()
    return Sandbox(LIMITS)


@pytest.fixture
def unsandboxed() -> Sandbox:
    """The test-only switch: the same programs in a plain subprocess."""
    return Sandbox(LIMITS, isolation=False)
