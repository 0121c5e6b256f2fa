"""Options that several commands take are declared once (``cli/options.py``): the same flags,
type and help in every command; the flags two commands share with a different meaning are
listed here with the reason."""

from __future__ import annotations

import typing
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import typer.main
from typer.models import OptionInfo

from ramseygadgets.cli import app, options, python_limits
from ramseygadgets.prompts import ALL_SETTINGS, EXTRA_SETTINGS
from ramseygadgets.search.cegar import DEFAULT_ENGINE
from ramseygadgets.search.options import DEFAULT_MAX_VERTICES

#: Flags that two commands declare each in their own way, and why.
PER_COMMAND = {
    "--out": "a directory, a file or an atlas, by command",
    "--seed": "seeds a search, a sample, a stream or a bootstrap, by command",
    "--timeout": "each command's own default",
    "--limit": "colourings listed (colorings) or problems run (eval)",
    "--max-vertices": "graphs refused (verify, show), answers unparsed (check), levels searched",
    "--jobs": "each command's own default and meaning of a worker",
    "--recheck": "solve re-runs none by default, atlas adopt a tenth",
    "--force": "a different limit lifted per command",
    "--base": "the atlas improved (atlas run) or added to (atlas adopt)",
    "--engine": "the search engine (solve) or the atlas's fan-out engine (atlas run)",
    "--cross-check": "each command's own default",
    "--retry-unsolved": "problems (generate) or atlas entries (atlas run)",
    "--F": "one pattern (solve) or a repeatable comma list (generate)",
    "--H": "one pattern (solve) or a repeatable comma list (generate)",
    "--setting": "one setting (prompt) or a comma list (eval, export)",
    "--pool": "eval's stream options apply with --fresh only",
    "--gadgets": "eval's stream options apply with --fresh only; generate lists every type",
    "--colors": "eval's stream options apply with --fresh only",
    "--min-size": "eval's stream options apply with --fresh only",
    "--max-size": "eval's stream options apply with --fresh only",
    "--solve-timeout": "eval's stream options apply with --fresh only",
}

#: Commands that declare a shared flag their own way, and why.
OWN_DECLARATION = {
    ("--model-profile", "eval"): "eval's -p is --problems",
    ("--set", "report"): "report's set is by default the one its runs recorded",
    ("--dataset", "report"): "report's file is by default the one its runs recorded",
}


def _commands(command: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    if hasattr(command, "commands"):
        for name, sub in command.commands.items():
            yield from _commands(sub, f"{path} {name}".strip())
    else:
        yield path, command


def _declarations() -> dict[str, dict[str, Any]]:
    """Per flag (its longest name), per command: the option's parameter."""
    found: dict[str, dict[str, Any]] = defaultdict(dict)
    for path, command in _commands(typer.main.get_command(app)):
        for param in command.params:
            if param.param_type_name == "option" and param.name != "help":
                found[max(param.opts, key=len)][path] = param
    return found


def _shared() -> dict[str, Any]:
    """Per flag, its one declaration (``OptionInfo``): in :mod:`ramseygadgets.cli.options`, and
    the python setting's limits in :mod:`ramseygadgets.cli.python_limits`."""
    shared = {}
    for module in (options, python_limits):
        for name in module.__all__:
            value = getattr(module, name)
            if typing.get_origin(value) is typing.Annotated:
                value = typing.get_args(value)[1]
            if isinstance(value, OptionInfo):
                shared[max(_flags(value), key=len)] = value
    return shared


def _flags(info: OptionInfo) -> list[str]:
    """An option's flags (in ``Annotated``, Typer takes the first argument as the first flag)."""
    first = (info.default,) if isinstance(info.default, str) and info.default[:1] == "-" else ()
    return sorted((*first, *info.param_decls))


def _kind(param: Any) -> tuple[Any, ...]:
    """The option's type (a string and a path differ), ``multiple`` and the flags.  Typer 0.29
    describes the type by its annotation (``type_descriptor``); 0.28, the floor, by Click's
    parameter type."""
    descriptor = getattr(param, "type_descriptor", None)
    kind = descriptor.annotation if descriptor is not None else type(param.type).__name__
    return (kind, param.multiple, tuple(sorted(param.opts)))


def test_shared_options_are_declared_alike_everywhere() -> None:
    declared = _declarations()
    for flag, info in _shared().items():
        assert declared[flag], f"{flag} is declared in cli/options.py but no command takes it"
        for path, param in declared[flag].items():
            if (flag, path) not in OWN_DECLARATION:
                assert sorted(param.opts) == _flags(info), (flag, path)
                assert param.help == info.help, (flag, path)


def test_every_flag_of_several_commands_is_shared_or_listed() -> None:
    shared = _shared()
    for flag, params in _declarations().items():
        if len(params) < 2:
            continue
        assert flag in shared or flag in PER_COMMAND, (
            f"{flag} is declared by {', '.join(params)}: declare it once in cli/options.py"
        )
        if flag in PER_COMMAND:
            continue
        kinds = {
            path: _kind(param)
            for path, param in params.items()
            if (flag, path) not in OWN_DECLARATION
        }
        assert len(set(kinds.values())) == 1, f"{flag} differs between commands: {kinds}"


def test_listed_flags_are_still_declared_by_several_commands() -> None:
    declared = _declarations()
    assert not [flag for flag in PER_COMMAND if len(declared.get(flag, {})) < 2]
    assert not [key for key in OWN_DECLARATION if key[1] not in declared.get(key[0], {})]


def test_help_constants_equal_the_modules_they_stand_for() -> None:
    """cli/options.py names the settings and solve's defaults without loading those modules."""
    assert options.SETTING_NAMES == ALL_SETTINGS
    assert options.EXTRA_SETTING_NAMES == EXTRA_SETTINGS
    assert options.SEARCH_MAX_VERTICES == DEFAULT_MAX_VERTICES
    assert options.SEARCH_ENGINE == DEFAULT_ENGINE
