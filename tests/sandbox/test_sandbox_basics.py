"""The sandbox's contract: the refusal where bubblewrap cannot run, limits, results."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from sandbox_helpers import LIMITS

from ramseygadgets import sandbox as sandbox_module
from ramseygadgets.sandbox import (
    Sandbox,
    SandboxError,
    SandboxLimits,
    SandboxResult,
    SandboxUnavailableError,
    require_sandbox,
    sandbox_available,
)
from ramseygadgets.sandbox import seccomp as sandbox_seccomp


@pytest.fixture
def no_bwrap(monkeypatch: pytest.MonkeyPatch) -> None:
    """bwrap missing: the probe runs again and nothing may be started."""
    which = shutil.which
    monkeypatch.setattr(sandbox_module, "_PROBE", [])
    monkeypatch.setattr(shutil, "which", lambda name: None if name == "bwrap" else which(name))

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"started a process: {args}")

    monkeypatch.setattr(subprocess, "Popen", refuse)


def test_refuses_in_one_line_before_anything_runs(no_bwrap: None) -> None:
    with pytest.raises(SandboxUnavailableError) as caught:
        Sandbox(LIMITS).run("print('hello')")
    message = str(caught.value)
    assert "\n" not in message and "bubblewrap" in message and "bwrap" in message
    assert not sandbox_available()
    with pytest.raises(SandboxUnavailableError):
        require_sandbox()


def test_limits_are_checked_and_settable() -> None:
    assert SandboxLimits().wall_s == 60.0
    assert SandboxLimits().updated(wall_s=5, cpu_s=None).wall_s == 5
    for bad in ({"wall_s": 0}, {"processes": -1}, {"memory_mb": True}, {"cpu_s": "1"}):
        with pytest.raises(SandboxError, match="must be a positive number"):
            SandboxLimits(**bad)  # type: ignore[arg-type]


def test_programs_too_long_or_not_text_are_refused() -> None:
    small = Sandbox(SandboxLimits(program_bytes=10))
    with pytest.raises(SandboxError, match="at most 10"):
        small.run("print('a long program')")
    with pytest.raises(SandboxError, match="source text"):
        small.run(b"print(1)")  # type: ignore[arg-type]


def test_result_record() -> None:
    result = SandboxResult(-9, "out", "err", timed_out=True, killed_by_signal=True, seconds=1.23456)
    assert result.flags() == ["timed_out", "killed_by_signal"] and not result.ok
    assert result.to_json() == {
        "exit_status": -9,
        "timed_out": True,
        "memory_exceeded": False,
        "cpu_exceeded": False,
        "killed_by_signal": True,
        "output_truncated": False,
        "seconds": 1.2346,
    }


def test_exit_status_and_output(sandbox: Sandbox) -> None:
    result = sandbox.run("import sys\nprint('out')\nprint('err', file=sys.stderr)\nsys.exit(3)")
    assert (result.exit_status, result.stdout, result.stderr) == (3, "out\n", "err\n")
    assert not result.flags()
    error = sandbox.run("raise ValueError('boom')")
    assert error.exit_status == 1 and "ValueError: boom" in error.stderr


def test_cpu_limit(sandbox: Sandbox) -> None:
    limits = LIMITS.updated(cpu_s=1, wall_s=8)
    result = Sandbox(limits).run("while True:\n    pass\n")
    assert result.cpu_exceeded and result.killed_by_signal and not result.timed_out
    assert result.seconds < 5


def test_networkx_and_pysat_work(sandbox: Sandbox) -> None:
    program = """
import networkx as nx
from pysat.solvers import Solver
g = nx.petersen_graph()
with Solver(name="cadical153", bootstrap_with=[[1, 2], [-1]]) as s:
    print(g.number_of_edges(), s.solve(), s.get_model())
"""
    result = sandbox.run(program)
    assert result.ok, result.stderr
    assert result.stdout == "15 True [-1, 2]\n"


def test_no_seccomp_binding_refuses_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without pyseccomp or libseccomp2 nothing runs unfiltered: refused before any process."""
    monkeypatch.setattr(sandbox_seccomp, "_MISSING", "Unable to find libseccomp")
    monkeypatch.setattr(sandbox_module, "_PROBE", [])
    sandbox_seccomp.bpf_program.cache_clear()
    try:
        with pytest.raises(SandboxUnavailableError) as caught:
            Sandbox(LIMITS).run("print('hello')")
    finally:
        sandbox_seccomp.bpf_program.cache_clear()
    message = str(caught.value)
    assert "\n" not in message and "libseccomp" in message and "nothing runs unfiltered" in message
