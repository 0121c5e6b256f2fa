"""Usage errors from the CLI framework become one 'error:' line and exit code 2."""

from __future__ import annotations

import subprocess
import sys

import pytest


def run(*args: str) -> subprocess.CompletedProcess[str]:
    code = "from ramseygadgets.cli import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("nosuch",), "No such command 'nosuch'"),
        (("verify",), "Missing argument"),
        (("problems", "--bogus"), "No such option: --bogus"),
        (("colorings", "P3", "K3", "--limit", "abc"), "Invalid value for '--limit'"),
    ],
)
def test_usage_errors_are_one_line_with_exit_2(args: tuple[str, ...], expected: str) -> None:
    result = run(*args)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and expected in lines[0]
    assert "Traceback" not in result.stderr


def test_no_arguments_prints_help_and_exits_0() -> None:
    result = run()
    assert result.returncode == 0
    assert "Usage" in result.stdout and "verify" in result.stdout


def test_output_paths_blocked_by_a_file_name_the_file(tmp_path) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("keep me")
    for args in (
        ("eval", "--problems", "p3_k3_red_determiner", "--runs", "1", "--out", str(blocker)),
        ("export", "--out", str(blocker / "sub")),
        ("generate", "--F", "P3", "--H", "K3", "--out", str(blocker)),
        ("show", "p3_k3_red_determiner", "--out", str(blocker / "g.png")),
    ):
        result = run(*args)
        lines = result.stderr.strip().splitlines()
        assert result.returncode == 2 and len(lines) == 1, (args, result.stderr)
        assert "is a file, not a directory" in lines[0] and "Traceback" not in result.stderr, lines[
            0
        ]
    assert blocker.read_text() == "keep me"
