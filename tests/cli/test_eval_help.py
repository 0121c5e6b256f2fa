"""``eval --help`` groups its options in panels, what a first run needs on the first screen."""

from __future__ import annotations

import re
from typing import get_args

import typer
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.cli.options import PanelCommand, SetOption, in_panel

PANELS = [
    "Model and server",
    "Settings",
    "Runs and output",
    "Problems",
    "Fresh problems (--fresh N)",
    "Sampling",
    "The python setting (--setting python)",
    "Requests, retries, vLLM",
    "Options",
]


def _help(*args: str) -> str:
    result = CliRunner().invoke(app, [*args, "--help"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    return result.output


def test_eval_help_shows_its_panels_in_order() -> None:
    text = _help("eval")
    assert [p for p in re.findall(r"^(\S.*):$", text, re.M) if not p.startswith("Usage")] == PANELS


def test_the_first_screen_holds_a_first_run() -> None:
    first = "\n".join(_help("eval").splitlines()[:50])  # one screen of a 50-line terminal
    for flag in ("--model", "--base-url", "--setting", "--runs", "--out", "--problems", "--limit"):
        assert flag in first, flag


def test_only_help_is_left_outside_a_panel() -> None:
    text = _help("eval")
    assert text.split("\nOptions:\n", 1)[1].split() == [
        "-h,",
        "--help",
        "Show",
        "this",
        "message",
        "and",
        "exit.",
    ]


def test_panels_keep_arguments_first_and_the_shared_declaration() -> None:
    demo = typer.Typer(rich_markup_mode=None)

    @demo.command(cls=PanelCommand)
    def run(
        name: str = typer.Argument(..., help="A name."),
        later: int = typer.Option(0, "--later", help="Later.", rich_help_panel="B"),
        set_name: SetOption = None,
        first: int = in_panel(typer.Option(0, "--first", help="First."), "A"),
    ) -> None:
        """Demo."""

    text = CliRunner().invoke(demo, ["--help"], env={"COLUMNS": "80"}).output
    assert re.findall(r"^(\S.*):$", text, re.M) == ["Arguments", "B", "A", "Options"]
    assert "--set" in text.split("\nOptions:\n")[1]  # no panel: with --help
    shared = in_panel(SetOption, "Problems")
    original = get_args(SetOption)[1]
    assert shared.rich_help_panel == "Problems" and original.rich_help_panel is None
    assert shared.help == original.help  # one declaration: the same flag and help
