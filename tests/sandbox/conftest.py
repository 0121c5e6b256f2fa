"""Fixtures of the sandbox tests: the sandbox (skipped where bubblewrap cannot run, failed in
CI) and the test-only unsandboxed runner, both with small limits."""

from __future__ import annotations

import pytest
from sandbox_helpers import LIMITS, need_sandbox  # tests/helpers, on sys.path (tests/conftest.py)

from ramseygadgets.sandbox import Sandbox


@pytest.fixture
def sandbox() -> Sandbox:
    need_sandbox()
    return Sandbox(LIMITS)


@pytest.fixture
def unsandboxed() -> Sandbox:
    """The test-only switch: the same programs in a plain subprocess."""
    return Sandbox(LIMITS, isolation=False)
