"""``train-data`` under hostile use: it replaces only a folder it wrote, and checks every option
before any work (one ``error:`` line, exit code 2, nothing touched)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ramseygadgets.cli import app

runner = CliRunner()
pytest.importorskip("datasets")


def _digest(path: Path) -> str:
    """A hash of every file name and content under ``path`` (or of the file itself)."""
    if path.is_file():
        return hashlib.sha256(path.read_bytes()).hexdigest()
    h = hashlib.sha256()
    for item in sorted(path.rglob("*")):
        h.update(str(item.relative_to(path)).encode())
        if item.is_file():
            h.update(item.read_bytes())
    return h.hexdigest()


def _stream(out: Path, *extra: str):
    args = ["train-data", "--out", str(out), "--stream", "1", "--max-size", "5", *extra]
    return runner.invoke(app, args)


def _one_line_error(result, *words: str) -> None:
    lines = result.output.strip().splitlines()
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert "Traceback" not in result.output
    for word in words:
        assert word in lines[0], (word, lines[0])


@pytest.mark.parametrize(
    "name, manifest",
    [
        ("generate folder", {"options": {}, "counts": {"problems": 3}}),  # generate's manifest
        ("atlas folder", None),
        ("eval run", None),
        ("unrelated folder", None),
    ],
)
def test_a_folder_train_data_did_not_write_is_refused_and_left_intact(tmp_path, name, manifest):
    out = tmp_path / name.replace(" ", "_")
    out.mkdir()
    (out / "results.jsonl").write_text('{"id": "x"}\n')
    if manifest is not None:
        (out / "manifest.json").write_text(json.dumps(manifest))
    if name == "eval run":
        (out / "samples.jsonl").write_text("{}\n")
        (out / "config.json").write_text("{}")
    before = _digest(out)
    _one_line_error(_stream(out), "not a dataset written by train-data", "refusing to replace")
    assert _digest(out) == before


def test_a_file_as_out_is_refused_and_left_intact(tmp_path):
    target = tmp_path / "notes.txt"
    target.write_text("keep me")
    _one_line_error(_stream(target), "is a file")
    assert target.read_text() == "keep me"


def test_a_train_data_folder_is_replaced_and_says_what_it_is(tmp_path):
    out = tmp_path / "data"
    first = _stream(out)
    assert first.exit_code == 0, first.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["kind"] == "ramseygadgets train-data"
    again = _stream(out, "--seed", "1")
    assert again.exit_code == 0, again.output
    assert json.loads((out / "manifest.json").read_text())["stream"]["seed"] == 1


@pytest.mark.parametrize(
    "extra, words",
    [
        (("--solve-timeout", "inf"), ("--solve-timeout", "finite", "inf")),
        (("--solve-timeout", "nan"), ("--solve-timeout", "nan")),
        (("--solve-timeout", "-1"), ("--solve-timeout", "-1")),
        (("--pool", ","), ("--pool names no pattern",)),
        (("--settings", "few-shot"), ("unknown setting 'few-shot'", "zero-shot")),
        (("--model-profile", "nope"), ("nope",)),
        (("--colors", "5"), ("2 or 3 colours",)),
    ],
)
def test_bad_options_are_one_line_before_any_work(tmp_path, extra, words):
    out = tmp_path / "data"
    _one_line_error(_stream(out, *extra), *words)
    assert not out.exists()


def test_a_huge_stream_needs_force(tmp_path):
    out = tmp_path / "data"
    result = runner.invoke(app, ["train-data", "--out", str(out), "--stream", "2000000"])
    _one_line_error(result, "--stream 2,000,000", "--force")
    assert not out.exists()


def test_pool_names_with_commas_stay_whole(tmp_path):
    """``--pool "P3,K1,4"`` is P3 and K1,4 (not K1 and 4)."""
    from ramseygadgets.cli.training import _pool

    assert _pool(["P3,K1,4"]) == ("P3", "K1,4")
    assert _pool(["K2,3", "C4"]) == ("K2,3", "C4")
    out = tmp_path / "data"
    result = _stream(out, "--pool", "P3,K1,4", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads((out / "manifest.json").read_text())["stream"]["pool"] == ["P3", "K1,4"]
