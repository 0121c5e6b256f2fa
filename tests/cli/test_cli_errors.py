"""``guarded``: a user error (``RamseyGadgetsError``) is one ``error:`` line and exit code 2; any
other exception is a bug: its traceback, one line asking to report it, exit code 70."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from ramseygadgets.cli.app import BUG_EXIT_CODE, guarded, package_version
from ramseygadgets.core.errors import InputError, RamseyGadgetsError

REPORT_LINE = "this is a bug; please report it with the traceback above"


def _app(exc: BaseException) -> typer.Typer:
    """An app of one guarded command that raises ``exc``."""
    app = typer.Typer()

    @app.command()
    @guarded
    def boom() -> None:
        raise exc

    return app


def test_a_bug_shows_its_traceback_and_asks_for_a_report() -> None:
    result = CliRunner().invoke(_app(RuntimeError("an internal invariant broke")), [])
    assert result.exit_code == BUG_EXIT_CODE == 70
    assert "Traceback (most recent call last)" in result.stderr
    assert "RuntimeError: an internal invariant broke" in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last == f"ramseygadgets {package_version()}: {REPORT_LINE}"


def test_a_bare_value_error_is_a_bug_not_a_user_error() -> None:
    result = CliRunner().invoke(_app(ValueError("bad internal state")), [])
    assert result.exit_code == BUG_EXIT_CODE == 70
    assert "Traceback" in result.stderr and REPORT_LINE in result.stderr


@pytest.mark.parametrize("exc", [RamseyGadgetsError("no such thing"), InputError("no such thing")])
def test_a_user_error_is_one_line_with_exit_2(exc: Exception) -> None:
    result = CliRunner().invoke(_app(exc), [])
    assert result.exit_code == 2
    assert result.stderr.strip() == "error: no such thing"


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ramseygadgets", *args],
        capture_output=True,
        text=True,
        timeout=120,
        input=stdin,
    )


@pytest.mark.parametrize(
    ("args", "stdin", "expected"),
    [
        (("problems", "--set", "bogus"), "", "unknown problem set 'bogus'"),
        (("verify", "no_such_problem", "-"), "0-1", "no_such_problem"),
        (("verify", "k13_k4_red_determiner", "-"), "0-1 x", ""),
        (("verify", "k13_k4_red_determiner", "-", "--e", "0-"), "0-1", "--e"),
        (("colorings", "P3", "nosuchpattern", "-"), "0-1", "nosuchpattern"),
        (("solve", "--F", "K3", "--H", "K3", "--gadget", "clause"), "", "K1,k"),
        (("train-data", "--stream", "1", "--pool", ",", "--out", "OUT"), "", "--pool"),
        (("show", "k13_k4_red_determiner", "-", "--out", "x.txt"), "0-1", ".png or .svg"),
    ],
)
def test_bad_input_is_one_line_with_exit_2(
    tmp_path: Path, args: tuple[str, ...], stdin: str, expected: str
) -> None:
    args = tuple(str(tmp_path / "out") if a == "OUT" else a for a in args)
    result = run(*args, stdin=stdin)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and expected in lines[0], lines
    assert "Traceback" not in result.stderr
