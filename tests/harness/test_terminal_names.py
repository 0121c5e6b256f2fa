"""Names reach ``eval``'s terminal output as data (issue 12): a model label with Rich markup or
terminal escape sequences is printed as written, never parsed or sent to the terminal."""

from __future__ import annotations

import io

from rich.console import Console
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.harness.progress import EvalProgress, EvalStats
from ramseygadgets.infra.terminal import terminal_text

LABEL = "evil[/bold]\x1b[2J\x1b]0;owned\x07"


def test_terminal_text_removes_escapes_and_controls_and_escapes_markup():
    assert terminal_text(LABEL, markup=False) == "evil[/bold]"
    assert terminal_text("a\tb\nc\u202ed\x9b", markup=False) == "a b cd"
    assert terminal_text("x\x1b]8;;http://e\x1b\\link\x1b]8;;\x1b\\", markup=False) == "xlink"
    console = Console(file=io.StringIO(), width=80)
    console.print(terminal_text("[red]x[/red] [/bold]"))
    assert console.file.getvalue() == "[red]x[/red] [/bold]\n"


def test_eval_summary_prints_a_hostile_label_as_written(tmp_path):
    profiles = tmp_path / "profiles.yaml"
    profiles.write_text('"evil[/bold]\\e[2J\\e]0;owned\\a":\n  description: hostile\n')
    args = ["eval", "--no-progress", "--model", "solver", "--model-profile", LABEL]
    args += ["--profiles-file", str(profiles), "--problems", "p3_k3_red_determiner"]
    result = CliRunner().invoke(app, [*args, "--runs", "1", "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    assert "evil[/bold]: 4/4 samples" in result.output
    assert "\x1b" not in result.output and "owned" not in result.output


def test_progress_bar_shows_a_hostile_title_as_written():
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=100)
    with EvalProgress(EvalStats(total=1), console, title=LABEL):
        pass
    shown = out.getvalue()
    assert "evil[/bold]" in shown and "owned" not in shown and "\x1b[2J" not in shown
