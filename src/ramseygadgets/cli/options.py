"""Options that several commands take, each declared once: one type, one set of flags, one help.

A command declares such an option as ``set_name: SetOption = None`` (the default stays with the
command).  Declaring them loads nothing heavier than Typer (``ramseygadgets --help`` stays
fast); ``tests/cli/test_cli_options.py`` checks that every flag two commands share agrees.
"""

from __future__ import annotations

import copy
from typing import Annotated, Any, get_args, get_origin

import typer
from typer.core import TyperCommand
from typer.models import OptionInfo

__all__ = [
    "EXTRA_SETTING_NAMES",
    "SEARCH_ENGINE",
    "SEARCH_MAX_VERTICES",
    "SETTING_NAMES",
    "DatasetOption",
    "EdgeEOption",
    "EdgeFOption",
    "JsonOption",
    "ModelProfileOption",
    "ProfilesFileOption",
    "RayOption",
    "RecheckTimeoutOption",
    "SetOption",
    "ToolModeOption",
    "VerticesOption",
    "PanelCommand",
    "in_panel",
]

#: The settings' names for help texts, without loading the prompt builder: those beyond the
#: paper's five (``prompts.EXTRA_SETTINGS``), and all (``prompts.ALL_SETTINGS``; a test keeps
#: both equal to the prompt builder's).
EXTRA_SETTING_NAMES = ("python",)
SETTING_NAMES = (
    "zero-shot",
    "structural-hint",
    "size-hint",
    "example-hint",
    "multiround",
    *EXTRA_SETTING_NAMES,
)

#: ``solve``'s defaults, without loading the search engine (a test keeps them equal to
#: ``search.options.DEFAULT_MAX_VERTICES`` and ``search.cegar.DEFAULT_ENGINE``).
SEARCH_MAX_VERTICES = 12
SEARCH_ENGINE = "auto"

SetOption = Annotated[
    str | None,
    typer.Option(
        "--set",
        help="Problem set: paper (the 70 problems, the default) or extended (docs/extended.md).",
    ),
]
DatasetOption = Annotated[
    str | None,
    typer.Option(
        "--dataset", help="Problem-set file (JSONL, e.g. from 'generate') instead of --set."
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
ModelProfileOption = Annotated[
    str | None,
    typer.Option(
        "--model-profile",
        "-p",
        help="Model profile name or model id: prompt quirks and sampling (default: the neutral "
        "profile 'default').",
    ),
]
ProfilesFileOption = Annotated[
    str | None, typer.Option("--profiles-file", help="TOML/YAML file with extra profiles.")
]
ToolModeOption = Annotated[
    str,
    typer.Option(
        "--tool-mode",
        help="The tool of multiround (color_graph) and python (run_python): text protocol or "
        "native tool calls.",
    ),
]
RayOption = Annotated[
    str | None, typer.Option("--ray", help="Run on Ray: auto, local, or a cluster address.")
]
RecheckTimeoutOption = Annotated[
    float | None,
    typer.Option(
        "--recheck-timeout",
        min=0.001,
        help="Seconds a re-run cube may take; one that does not finish is an error (default: "
        "no limit).",
    ),
]
EdgeEOption = Annotated[
    str | None,
    typer.Option("--e", help="Designated edge e, e.g. 0-1 (determiners and senders)."),
]
EdgeFOption = Annotated[
    str | None, typer.Option("--f", help="Designated edge f, e.g. 2-3 (senders).")
]
VerticesOption = Annotated[
    str | None,
    typer.Option(
        "--vertices",
        help="Designated vertices i1,i2,i3 (clause gadget) or u1,u2,n1 (variable gadget), "
        "e.g. 0,1,2.",
    ),
]


def in_panel(option: Any, panel: str) -> Any:
    """A copy of a declared option (an ``Annotated`` alias above: its ``typer.Option``; or a
    ``typer.Option(...)``) shown under the help panel ``panel`` (Typer's ``rich_help_panel``),
    for ``Annotated[T, in_panel(SetOption, "Problems")]`` or as a default: a command groups its
    options without a second declaration of their flags and help."""
    if get_origin(option) is Annotated:
        option = next(m for m in get_args(option)[1:] if isinstance(m, OptionInfo))
    if not isinstance(option, OptionInfo):
        raise TypeError(
            f"in_panel takes a typer.Option or an Annotated alias of one, not {option!r}"
        )
    grouped = copy.copy(option)
    grouped.rich_help_panel = panel
    return grouped


class PanelCommand(TyperCommand):
    """A command whose help lists its options under their panels (``rich_help_panel``, see
    :func:`in_panel`), in the order the panels first appear in its signature, arguments first
    and the options of no panel (``--help``) last.  The project prints help as plain text
    (``app.HELP_MARKUP``), where Typer itself ignores panels."""

    def format_options(self, ctx: Any, formatter: Any) -> None:  # click's, as Typer vendors it
        panels: dict[str, list[tuple[str, str]]] = {}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if param.param_type_name == "argument":
                name = "Arguments"
            else:
                name = getattr(param, "rich_help_panel", None) or "Options"
            panels.setdefault(name, []).append(record)
        rank = {"Arguments": 0, "Options": 2}
        for name in sorted(panels, key=lambda n: rank.get(n, 1)):
            with formatter.section(name):
                formatter.write_dl(panels[name])
