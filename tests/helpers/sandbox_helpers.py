"""Helpers of the sandbox tests (and of the tests of the python setting): small limits, the
skip-or-fail rule, a scan of the host's processes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ramseygadgets.sandbox import SandboxLimits, SandboxUnavailableError, require_sandbox

#: Small limits: every hostile program ends within a few seconds.
LIMITS = SandboxLimits(
    wall_s=3.0,
    cpu_s=3,
    memory_mb=512,
    output_bytes=4096,
    file_mb=8,
    disk_mb=32,
    processes=16,
    open_files=64,
)


def need_sandbox() -> None:
    """Skip where bubblewrap cannot run or no cgroup can be made (the python setting refuses
    there); in CI (``CI`` or ``RAMSEYGADGETS_REQUIRE_SANDBOX`` set) fail instead:
    scripts/setup.sh --test installs bubblewrap there and the tests run as root."""
    try:
        require_sandbox(require_cgroup=True)
    except SandboxUnavailableError as exc:
        if os.environ.get("CI") or os.environ.get("RAMSEYGADGETS_REQUIRE_SANDBOX"):
            pytest.fail(str(exc))
        pytest.skip(str(exc))


def processes_with(marker: str) -> list[int]:
    """Live processes whose command line holds ``marker`` (zombies have none)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if marker.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found
