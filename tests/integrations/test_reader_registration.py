"""The Inspect log reader is registered with the report loader whether or not Inspect is installed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ramseygadgets.integrations.inspect_log import READER_NAME
from ramseygadgets.report import RunFormatError, load_runs, registered_readers


def test_reader_is_registered_with_the_report_loader() -> None:
    assert READER_NAME in registered_readers()


def test_without_inspect_the_reader_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "run.eval"
    log.write_bytes(b"PK\x05\x06" + bytes(18))
    monkeypatch.setitem(
        sys.modules, "inspect_ai.log", None
    )  # import inspect_ai.log now raises ImportError
    with pytest.raises(
        RunFormatError, match=r"run.eval: reading Inspect logs needs inspect-ai; .*\[inspect\]"
    ):
        load_runs([log])
