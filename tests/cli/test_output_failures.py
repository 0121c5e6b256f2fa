"""Commands that write a folder (``train-data``, ``generate``, ``atlas run``, ``export``) on a
read-only file system, with an output path that is a file, and on a disk that fills up in the
middle of the writes: one ``error:`` line naming the path, exit code 2, no traceback, and what
was there before (or written before the failure) intact and readable.

Root ignores file modes, so a read-only file system is simulated in-process: every call that
would create, change or remove something below the folder fails with ``EROFS``, as the kernel
answers on a read-only mount.  A full disk is an ``fsync`` that fails with ``ENOSPC`` after a
number of successful ones (every file the project writes is fsynced before it counts as written).
"""

from __future__ import annotations

import builtins
import errno
import hashlib
import io
import json
import os
import shutil
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from optional_deps import HAS_DATASETS
from typer.testing import CliRunner

from ramseygadgets.cli import app

runner = CliRunner()


#: Each command with the arguments before ``--out DIR`` (small, a few seconds at most).
COMMANDS: dict[str, list[str]] = {
    "train-data": ["train-data", "--stream", "1", "--max-size", "5", "--pool", "K1,4,K4"],
    "generate": [
        "generate",
        *("--F", "P3", "--H", "K3", "--gadgets", "red-determiner"),
        *("--max-vertices", "6", "--timeout", "30", "-j", "1"),
    ],
    "atlas run": [
        "atlas",
        "run",
        *("--problem", "p3_p3_positive_sender", "--cross-check", "0"),
        *("--timeout", "30", "-j", "1"),
    ],
    "export": ["export"],
}
NAMES = [
    pytest.param(
        name,
        marks=pytest.mark.skipif(
            name == "train-data" and not HAS_DATASETS, reason="train-data needs datasets"
        ),
    )
    for name in COMMANDS
]


def invoke(name: str, out: Path):
    return runner.invoke(app, [*COMMANDS[name], "--out", str(out)])


def digest(path: Path) -> str:
    """A hash of every name and file below ``path`` (the lock file's pid left out)."""
    h = hashlib.sha256()
    for item in sorted(path.rglob("*")):
        h.update(str(item.relative_to(path)).encode())
        if item.is_file() and item.name != ".lock":
            h.update(item.read_bytes())
    return h.hexdigest()


def one_line_error(result, *words: str) -> str:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, result.output
    line = " ".join(result.output.split("error: ", 1)[1].split())  # rich may wrap the line
    for word in words:
        assert word in line, (word, line)
    return line


def readable(folder: Path) -> None:
    """Every JSON and JSON Lines file below ``folder`` parses, line by line."""
    for path in folder.rglob("*"):
        if path.suffix == ".json":
            json.loads(path.read_text("utf-8"))
        elif path.suffix == ".jsonl":
            for line in path.read_text("utf-8").splitlines():
                json.loads(line)


def leftovers(parent: Path) -> list[str]:
    """Temporary files and folders of an atomic write left below ``parent``."""
    return sorted(
        str(p.relative_to(parent))
        for p in parent.rglob(".*")
        if p.name != ".lock" and not p.name.startswith(".cache")
    )


# -- a read-only file system, in-process -----------------------------------------------------
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def read_only(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Make every change below ``folder`` fail with ``EROFS`` (reading still works)."""
    top = Path(os.path.abspath(folder))

    def below(path: object, dir_fd: int | None = None) -> bool:
        if isinstance(path, int):
            return False
        text = os.fsdecode(path)  # type: ignore[arg-type]
        if dir_fd is not None and not os.path.isabs(text):
            text = os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), text)
        where = Path(os.path.abspath(text))
        return where == top or top in where.parents

    def refuse(path: object) -> None:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), os.fsdecode(path))  # type: ignore[arg-type]

    def guard(real: Callable[..., object], *, paths: int = 1) -> Callable[..., object]:
        def wrapper(*args: object, **kwargs: object) -> object:
            dir_fd = kwargs.get("dir_fd") or kwargs.get("src_dir_fd")
            for path in args[:paths]:
                if below(path, dir_fd if isinstance(dir_fd, int) else None):
                    refuse(path)
            return real(*args, **kwargs)

        return wrapper

    real_os_open, real_open = os.open, io.open

    def os_open(path: object, flags: int, *args: object, **kwargs: object) -> int:
        dir_fd = kwargs.get("dir_fd")
        if flags & _WRITE_FLAGS and below(path, dir_fd if isinstance(dir_fd, int) else None):
            refuse(path)
        return real_os_open(path, flags, *args, **kwargs)  # type: ignore[arg-type]

    def open_(file: object, mode: str = "r", *args: object, **kwargs: object) -> object:
        if any(c in mode for c in "wax+") and below(file):
            refuse(file)
        return real_open(file, mode, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(os, "open", os_open)
    monkeypatch.setattr(io, "open", open_)
    monkeypatch.setattr(builtins, "open", open_)
    for name in ("mkdir", "unlink", "remove", "rmdir", "chmod", "truncate"):
        monkeypatch.setattr(os, name, guard(getattr(os, name)))
    for name in ("replace", "rename", "symlink", "link"):
        monkeypatch.setattr(os, name, guard(getattr(os, name), paths=2))


def is_file(fd: int) -> bool:
    """A file's descriptor (the fsync of a folder after a rename needs no space)."""
    return stat.S_ISREG(os.fstat(fd).st_mode)


def disk_full_after(monkeypatch: pytest.MonkeyPatch, good: int) -> None:
    """A file's ``fsync`` works ``good`` times, then fails with ``ENOSPC`` (a disk that filled
    up: the data written since the last good one is not on disk)."""
    real = os.fsync
    calls = [0]

    def fsync(fd: int) -> None:
        if is_file(fd):
            calls[0] += 1
            if calls[0] > good:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)


# -- the tests -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_a_read_only_parent_is_one_line_and_nothing_is_created(tmp_path, monkeypatch, name):
    parent = tmp_path / "ro"
    parent.mkdir()
    read_only(monkeypatch, parent)
    result = invoke(name, parent / "out")
    monkeypatch.undo()
    one_line_error(result, str(parent), "Read-only file system")
    assert list(parent.iterdir()) == []


@pytest.mark.parametrize("name", NAMES)
def test_a_read_only_output_folder_keeps_what_it_holds(tmp_path, monkeypatch, name):
    out = tmp_path / "ro" / "out"
    first = invoke(name, out)
    assert first.exit_code == 0, first.output
    before = digest(tmp_path)
    read_only(monkeypatch, tmp_path / "ro")
    result = invoke(name, out)
    monkeypatch.undo()
    one_line_error(result, str(tmp_path / "ro"), "Read-only file system")
    assert digest(tmp_path) == before
    readable(out)


@pytest.mark.parametrize("name", NAMES)
def test_an_output_path_that_is_a_file_is_refused_and_kept(tmp_path, name):
    target = tmp_path / "notes.txt"
    target.write_text("keep me")
    one_line_error(invoke(name, target), str(target), "file")
    assert target.read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def counted_fsyncs(monkeypatch: pytest.MonkeyPatch, run: Callable[[], object]) -> int:
    """How many times ``run()`` fsyncs a file (every file and log append it writes)."""
    real = os.fsync
    calls = [0]

    def fsync(fd: int) -> None:
        calls[0] += is_file(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    try:
        run()
    finally:
        monkeypatch.undo()
    return calls[0]


#: Where the disk fills up: before the first write, half-way, before the last.
WHEN = ["first", "middle", "last"]


def failing_point(when: str, fsyncs: int) -> int:
    return {"first": 0, "middle": fsyncs // 2, "last": fsyncs - 1}[when]


@pytest.mark.parametrize("when", WHEN)
@pytest.mark.parametrize("name", NAMES)
def test_a_full_disk_keeps_the_previous_output_whole(tmp_path, monkeypatch, name, when):
    out = tmp_path / "out"
    first = invoke(name, out)
    assert first.exit_code == 0, first.output

    # the rerun has something to write: files it replaces differ from what it writes, files it
    # adds are missing (train-data replaces its folder; the others add to theirs)
    (out / "atlas.json").unlink(missing_ok=True)
    for path in out.glob("*.jsonl"):
        if path.name not in ("results.jsonl", "crosscheck.jsonl"):  # checkpoints, appended to
            path.write_text(path.read_text() + '{"older": true}\n')
    old = contents(out)
    probe = tmp_path / "probe" / "out"  # the same rerun, to count its writes and see them
    shutil.copytree(out, probe)
    fsyncs = counted_fsyncs(monkeypatch, lambda: invoke(name, probe))
    new = contents(probe)
    disk_full_after(monkeypatch, failing_point(when, fsyncs))
    result = invoke(name, out)
    monkeypatch.undo()
    one_line_error(result, str(out), "No space left on device")
    shutil.rmtree(tmp_path / "probe")
    now = contents(out)
    for group in GROUPS[name]:  # files written together are all old or all new
        names = [n for n in now if n in group or not group]
        assert all(now[n] == old.get(n) for n in names) or all(
            now[n] == new.get(n) for n in names
        ), (group, when)
    assert set(now) <= set(old) | set(new)
    assert leftovers(tmp_path) == []
    readable(out)


#: Per command, the files one step writes together (all or none); ``()``: the whole folder.
GROUPS: dict[str, list[tuple[str, ...]]] = {
    "train-data": [()],
    "generate": [("problems.jsonl", "solutions.json", "manifest.json"), ("plan.json",)],
    "export": [()],
}
GROUPS["atlas run"] = [*GROUPS["generate"], ("atlas.json", "atlas.md")]


def contents(folder: Path) -> dict[str, bytes]:
    """Every file below ``folder`` by its relative name (checkpoint logs and the lock aside:
    appended to, by design, as each problem finishes)."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name not in (".lock", "results.jsonl", "crosscheck.jsonl")
    }


@pytest.mark.parametrize("when", WHEN)
@pytest.mark.parametrize("name", NAMES)
def test_a_disk_full_mid_run_leaves_readable_files_and_a_rerun_completes(
    tmp_path, monkeypatch, name, when
):
    clean = tmp_path / "clean"
    fsyncs = counted_fsyncs(monkeypatch, lambda: invoke(name, clean))
    out = tmp_path / "out"
    disk_full_after(monkeypatch, failing_point(when, fsyncs))
    result = invoke(name, out)
    monkeypatch.undo()
    one_line_error(result, str(out), "No space left on device")
    assert leftovers(tmp_path) == []
    if out.exists():
        readable(out)
    again = invoke(name, out)
    assert again.exit_code == 0, again.output
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in clean.iterdir())
    readable(out)


def modes_bind(folder: Path) -> bool:
    """Whether this process is refused a file in a 0555 folder (root is not, unless it has
    dropped ``CAP_DAC_OVERRIDE``)."""
    folder.chmod(0o555)
    try:
        (folder / "probe").touch()
    except PermissionError:
        return True
    (folder / "probe").unlink()
    folder.chmod(0o755)
    return False


@pytest.mark.parametrize("name", NAMES)
def test_a_folder_without_write_permission_is_one_line(tmp_path, name):
    """The same with real file modes (the simulation above stands in for them under root)."""
    parent = tmp_path / "ro"
    parent.mkdir()
    if not modes_bind(parent):
        pytest.skip("this process writes into read-only folders (root)")
    try:
        one_line_error(invoke(name, parent / "out"), str(parent), "Permission denied")
        assert list(parent.iterdir()) == []
    finally:
        parent.chmod(0o755)
