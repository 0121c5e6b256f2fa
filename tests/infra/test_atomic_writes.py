"""Every data file is written whole or not at all (a temporary file in the same folder, fsync,
rename), never through a symlink planted at the destination, with the modes a plain ``open`` and
``mkdir`` give under the user's umask."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest
from optional_deps import HAS_DATASETS
from typer.testing import CliRunner

from ramseygadgets.cli import app
from ramseygadgets.infra.files import (
    OutputError,
    atomic_write,
    check_writable,
    make_temp_dir,
    staged_directory,
)

runner = CliRunner()


SAMPLE_RUN = ["--model", "solver", "--limit", "2", "--runs", "1", "--setting", "zero-shot"]


@pytest.fixture
def umask_022():
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def victim(tmp_path: Path) -> Path:
    """A file outside every output folder that a planted link points at."""
    path = tmp_path / "elsewhere" / "victim.txt"
    path.parent.mkdir(exist_ok=True)
    path.write_text("do not touch")
    return path


def plant(link: Path, target: Path) -> None:
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)


def untouched(target: Path, link: Path) -> None:
    assert target.read_text() == "do not touch"
    assert not link.is_symlink()


# -- the helpers -------------------------------------------------------------------------------
def test_atomic_write_replaces_a_planted_symlink(tmp_path):
    target = victim(tmp_path)
    link = tmp_path / "out" / "data.json"
    plant(link, target)
    atomic_write(link, "{}\n")
    untouched(target, link)
    assert link.read_text() == "{}\n"
    assert [p.name for p in link.parent.iterdir()] == ["data.json"]  # no temporary file left


def test_staged_files_replace_planted_links_to_files_and_folders(tmp_path):
    target = victim(tmp_path)
    out = tmp_path / "report"
    plant(out / "report.md", target)
    plant(out / "figures", target.parent)  # a linked folder: its files are not written
    with staged_directory(out) as stage:
        (stage / "report.md").write_text("new")
        (stage / "figures").mkdir()
        (stage / "figures" / "victim.txt").write_text("new")
    untouched(target, out / "report.md")
    assert (
        not (out / "figures").is_symlink() and (out / "figures" / "victim.txt").read_text() == "new"
    )
    assert sorted(p.name for p in target.parent.iterdir()) == ["victim.txt"]


def test_files_and_folders_get_the_users_umask(tmp_path, umask_022):
    path = atomic_write(tmp_path / "a.json", "{}")
    assert path.stat().st_mode & 0o777 == 0o644
    assert make_temp_dir(tmp_path, ".x.").stat().st_mode & 0o777 == 0o755
    (tmp_path / "set").mkdir()
    with staged_directory(tmp_path / "set") as stage:
        (stage / "sub").mkdir()
        (stage / "sub" / "b.txt").write_text("b")
    assert (tmp_path / "set" / "sub").stat().st_mode & 0o777 == 0o755
    assert (tmp_path / "set" / "sub" / "b.txt").stat().st_mode & 0o777 == 0o644


def test_a_refused_write_is_an_output_error_naming_the_destination(tmp_path, monkeypatch):
    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    (tmp_path / "a.json").write_text("old")
    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OutputError) as caught:
        atomic_write(tmp_path / "a.json", "new")
    monkeypatch.undo()
    assert str(caught.value) == f"cannot write {tmp_path / 'a.json'}: No space left on device"
    assert isinstance(caught.value, OSError) and caught.value.errno == errno.ENOSPC
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"]
    assert (tmp_path / "a.json").read_text() == "old"
    check_writable(tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"]


# -- the commands ------------------------------------------------------------------------------
#: command (arguments before --out), and a file it writes in its output folder.
COMMANDS = {
    "export": (["export"], "problems.jsonl"),
    "generate": (
        ["generate", "--F", "P3", "--H", "K3", "--gadgets", "red-determiner"]
        + ["--max-vertices", "6", "-j", "1"],
        "manifest.json",
    ),
    "atlas run": (
        ["atlas", "run", "--problem", "p3_p3_positive_sender", "--cross-check", "0", "-j", "1"],
        "atlas.json",
    ),
    "eval": (["eval", *SAMPLE_RUN], "results.json"),  # (config.json is read first: refused)
    "report": (None, "report.md"),
}


def command_args(name: str, tmp_path: Path) -> list[str]:
    args, _ = COMMANDS[name]
    if args is not None:
        return args
    run = tmp_path / "run"
    assert runner.invoke(app, ["eval", *SAMPLE_RUN, "--out", str(run)]).exit_code == 0
    return ["report", str(run)]


@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_symlink_planted_in_the_output_folder_is_replaced_not_followed(tmp_path, name):
    args = command_args(name, tmp_path)
    target = victim(tmp_path)
    out = tmp_path / "out"
    link = out / COMMANDS[name][1]
    plant(link, target)
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    untouched(target, link)
    assert link.stat().st_size > 0


@pytest.mark.parametrize("name", list(COMMANDS))
def test_output_folders_and_files_get_the_users_umask(tmp_path, umask_022, name):
    args = command_args(name, tmp_path)
    out = tmp_path / "out" / "nested"
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    for path in [out.parent, *out.rglob("*")]:
        if path.name == ".lock":
            continue
        mode = path.stat().st_mode & 0o777
        assert mode == (0o755 if path.is_dir() else 0o644), (path, oct(mode))


@pytest.mark.skipif(not HAS_DATASETS, reason="train-data needs datasets")
def test_train_data_replaces_a_planted_link_to_its_folder_only_when_it_wrote_it(tmp_path):
    """``--out`` itself a link is refused (checked in test_train_data_hostile); a link planted
    inside the dataset folder is dropped with the old folder, its target untouched."""
    out = tmp_path / "data"
    args = ["train-data", "--stream", "1", "--max-size", "5", "--out", str(out)]
    args += ["--pool", "K1,4,K4"]  # an unpublished problem of minimal size 4, found at once
    assert runner.invoke(app, args).exit_code == 0
    target = victim(tmp_path)
    (out / "rows.jsonl").unlink()
    plant(out / "rows.jsonl", target)
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    untouched(target, out / "rows.jsonl")
    assert json.loads((out / "rows.jsonl").read_text().splitlines()[0])["problem_id"]
