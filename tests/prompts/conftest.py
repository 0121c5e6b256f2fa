"""Fixtures for the prompt / answer / export tests."""

from __future__ import annotations

import pytest

from ramseygadgets.solutions import load_solutions


@pytest.fixture(scope="session")
def solutions():
    """The shipped minimal solutions; tests that need them skip when the data file is absent."""
    found = load_solutions()
    if not found:
        pytest.skip(
            "src/ramseygadgets/data/solutions.json is absent (written by the search engine, issue 3)"
        )
    return found
