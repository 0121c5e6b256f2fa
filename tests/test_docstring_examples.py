"""Every ``>>>`` example in the package's docstrings runs and passes (none is skipped).

A module is collected when its source has ``>>>``, so a new example runs without touching this file.
"""

from __future__ import annotations

import doctest
import importlib
import io
from pathlib import Path

import pytest

import ramseygadgets

PACKAGE = Path(ramseygadgets.__file__).resolve().parent
SOURCES = sorted(PACKAGE.rglob("*.py"))


def module_name(path: Path) -> str:
    """``ramseygadgets/search/__init__.py`` → ``ramseygadgets.search``."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


EXAMPLE_MODULES = [module_name(path) for path in SOURCES if ">>>" in path.read_text()]


def test_examples_are_found() -> None:
    assert "ramseygadgets.problems.problem" in EXAMPLE_MODULES


def test_no_example_is_skipped() -> None:
    skipped = [str(path.relative_to(PACKAGE)) for path in SOURCES if "+SKIP" in path.read_text()]
    assert not skipped, f"doctest +SKIP in {skipped}: make the example run, or make it prose"


@pytest.mark.parametrize("name", EXAMPLE_MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    tests = doctest.DocTestFinder().find(module)
    report = io.StringIO()
    runner = doctest.DocTestRunner()
    for test in tests:
        runner.run(test, out=report.write)
    assert runner.tries, f"{name} has '>>>' outside any docstring that doctest finds"
    if runner.failures:
        pytest.fail(f"{runner.failures} of {runner.tries} examples failed:\n{report.getvalue()}")
