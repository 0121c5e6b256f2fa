"""Ctrl-C while PySAT solves: PySAT's C extension raises ``pysolvers.error`` ("Caught keyboard
interrupt"), which the console script must treat as an interrupt (exit 130, no traceback)."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SCRIPT = textwrap.dedent(
    """
    from pysat.examples.genhard import PHP
    from pysat.solvers import Minisat22

    import ramseygadgets.cli as cli

    def hard_sat_call(**_options):
        with Minisat22(bootstrap_with=PHP(12).clauses) as solver:  # minutes of search
            print("solving", flush=True)
            solver.solve()

    cli.app = hard_sat_call
    cli.main()
    """
)


def test_ctrl_c_inside_a_pysat_call_exits_130_without_a_traceback(tmp_path: Path) -> None:
    script = tmp_path / "interrupted.py"
    script.write_text(SCRIPT)
    process = subprocess.Popen(
        [sys.executable, str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "solving"
    err = _interrupt_until_it_exits(process)
    assert process.returncode == 130, err
    assert "Traceback" not in err and err.strip() == "interrupted"


def _interrupt_until_it_exits(process: subprocess.Popen[str], tries: int = 6) -> str:
    """Send SIGINT, and again if the process is still running 10 s later.

    "solving" is printed just before ``solve()`` installs PySAT's own SIGINT handler; a signal
    that lands in between only sets Python's flag, which is checked when the (minutes-long) call
    returns. A person presses Ctrl-C again; so does this test, instead of hanging on the race.
    """
    for _ in range(tries):
        process.send_signal(signal.SIGINT)
        try:
            return process.communicate(timeout=10)[1]
        except subprocess.TimeoutExpired:
            continue
    process.kill()
    raise AssertionError(f"still running after {tries} SIGINTs")


FINALIZER_SCRIPT = textwrap.dedent(
    """
    import os
    import signal
    import sys
    import time

    import ramseygadgets.cli as cli
    from ramseygadgets.cli.app import sigterm_raises

    class SwallowsTheSignal:
        # like PySAT's Solver.__del__: the signal's handler runs inside it, Python drops the
        # exception ("Exception ignored in ...")
        def __del__(self):
            os.kill(os.getpid(), signal.SIG{name})
            time.sleep(0.05)  # the handler runs (and raises) here, inside __del__

    def long_search(**_options):
        with sigterm_raises():
            SwallowsTheSignal()  # dropped at once
            print("went on", flush=True)
            for _ in range(300):  # 30 s of work between bytecodes: without the fix it goes on
                time.sleep(0.1)
            print("finished", flush=True)

    cli.app = long_search
    cli.main()
    """
)


@pytest.mark.parametrize("name, code", [("INT", 130), ("TERM", 143)])
def test_a_signal_a_finalizer_swallowed_still_stops_the_command(
    tmp_path: Path, name: str, code: int
) -> None:
    """Reproduces a flaky train-data test: SIGINT landed in ``Solver.__del__``, was dropped, and
    the command ran on; now the signal is sent again once the finalizer returns."""
    script = tmp_path / "finalizer.py"
    script.write_text(FINALIZER_SCRIPT.format(name=name))
    process = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=25,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert process.returncode == code, process.stderr
    assert "finished" not in process.stdout
    assert "Exception ignored" not in process.stderr and "Traceback" not in process.stderr


def test_other_exceptions_a_finalizer_drops_still_reach_the_previous_hook(monkeypatch) -> None:
    """Only interrupts are sent again; anything else goes to the hook that was there before."""
    from ramseygadgets.cli.app import interrupts_survive_finalizers

    seen: list[type[BaseException]] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: seen.append(type(u.exc_value)))

    class Fails:
        def __del__(self) -> None:
            raise ValueError("in a finalizer")

    with interrupts_survive_finalizers():
        Fails()  # dropped at once: __del__ raises, Python hands it to the hook
    assert seen == [ValueError]
    Fails()
    assert seen == [ValueError, ValueError]  # the previous hook is back after the block
