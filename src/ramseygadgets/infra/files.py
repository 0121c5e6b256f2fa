"""Output files and directories that are written whole or not at all, and fail with one sentence.

Every file the project writes goes through :func:`atomic_write` (or :func:`atomic_path` for
writers that want a path, such as matplotlib or pyarrow): the data goes to a fresh temporary
file in the target's directory (``tempfile.mkstemp``: ``O_CREAT | O_EXCL``, a random name, so a
planted symlink is never followed), is flushed and ``fsync``-ed, then renamed over the target
(``os.replace`` is atomic on POSIX) and the directory is ``fsync``-ed. On any failure (disk
full, Ctrl-C, permission) the temporary file is removed and the old target stays whole.
A set of files that belong together (a report, an export) is written with
:func:`staged_directory`: all of them or none replace the old set.

A symlink at the destination is replaced, never followed (``os.replace`` renames over the link
itself), so a link planted at ``out/manifest.json`` cannot make a command write elsewhere.  Files
get the mode a plain ``open`` gives (``0666`` less the umask) and folders the mode of a plain
``mkdir`` (``0777`` less the umask), never ``mkstemp``'s 0600 or ``mkdtemp``'s 0700.

A write that the system refuses (disk full, no permission, a read-only file system) is an
:class:`OutputError`: a :class:`~ramseygadgets.core.errors.RamseyGadgetsError` (the CLI prints it on
one line) that is still an ``OSError`` (``errno``, ``strerror``) and names the destination.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ramseygadgets.core.errors import RamseyGadgetsError

__all__ = [
    "LOCK_FILE",
    "OutputError",
    "check_writable",
    "make_output_dir",
    "make_temp_dir",
    "fsync_dir",
    "fsync_tree",
    "atomic_path",
    "atomic_write",
    "lock_directory",
    "staged_directory",
    "read_capped",
]


#: The lock file of a run directory (eval, generate): one writer at a time.
LOCK_FILE = ".lock"


class OutputError(RamseyGadgetsError, OSError):
    """A file or folder could not be written: ``OutputError(errno, strerror, path)``;
    ``str()`` is ``cannot write PATH: REASON``."""

    def __str__(self) -> str:
        return f"cannot write {self.filename}: {self.strerror}"


def output_error(exc: OSError, path: str | Path) -> OutputError:
    """``exc`` as an :class:`OutputError` naming ``path`` (an ``OutputError`` is kept as it is)."""
    if isinstance(exc, OutputError):
        return exc
    code = exc.errno if exc.errno is not None else errno.EIO
    return OutputError(code, exc.strerror or str(exc) or os.strerror(code), str(path))


def make_output_dir(
    path: str | Path, what: str = "directory", error: type[RamseyGadgetsError] = RamseyGadgetsError
) -> Path:
    """``mkdir -p path``; a file in the way or an OS refusal becomes ``error`` naming the cause."""
    path = Path(path)
    blocker = next((p for p in (path, *path.parents) if p.exists()), None)
    if blocker is not None and not blocker.is_dir():
        who = "it" if blocker == path else str(blocker)
        raise error(f"cannot create {what} {path}: {who} is a file, not a directory")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise error(f"cannot create {what} {path}: {exc.strerror or exc}") from None
    return path


def fsync_dir(directory: Path) -> None:
    """Make a rename or a new file in ``directory`` durable (best effort where unsupported)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a fresh temporary path beside ``path``; on normal exit it is fsynced and renamed
    over ``path``, on any exception it is removed and ``path`` is left as it was."""
    path = Path(path)
    try:
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise output_error(exc, path) from None
    tmp = Path(name)
    try:
        try:
            os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600; the mode a plain open gives
        finally:
            os.close(fd)
        yield tmp
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)  # a symlink at ``path`` is replaced, not followed
    except BaseException as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(exc, OSError):
            raise output_error(exc, path) from None
        raise
    fsync_dir(path.parent)


def make_temp_dir(parent: str | Path, prefix: str) -> Path:
    """A fresh directory in ``parent`` with the mode a plain ``mkdir`` gives (the user's umask;
    ``mkdtemp`` makes 0700): for a folder that is renamed into place when complete."""
    try:
        path = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    except OSError as exc:
        raise output_error(exc, parent) from None
    path.chmod(0o777 & ~_umask())
    return path


def fsync_tree(folder: str | Path) -> None:
    """``fsync`` every file below ``folder`` and the folders themselves: a folder written by
    another library (a Hugging Face dataset) made durable before it is renamed into place."""
    folder = Path(folder)
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            with open(path, "rb+") as fh:
                os.fsync(fh.fileno())
    for path in sorted((p for p in folder.rglob("*") if p.is_dir()), reverse=True):
        fsync_dir(path)
    fsync_dir(folder)


def check_writable(directory: str | Path) -> None:
    """An :class:`OutputError` naming ``directory`` unless a folder can be created in it (a
    read-only folder or file system is refused before any work, not after it)."""
    os.rmdir(make_temp_dir(directory, ".ramseygadgets-check."))


def atomic_write(path: str | Path, data: str | bytes) -> Path:
    """Replace ``path`` by ``data`` (text as UTF-8) atomically: readers see the old file or the
    new one, never a mix; the old file survives a failure."""
    path = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        fh.write(payload)
    return path


def lock_directory(
    directory: Path, what: str, error: type[RamseyGadgetsError] = RamseyGadgetsError
) -> int:
    """Hold an exclusive ``flock`` on ``directory/.lock`` for this process; returns the file
    descriptor (close it to release).  The lock file is opened with ``O_NOFOLLOW`` (a planted
    symlink is refused) and holds the owner's pid, which the refusal names."""
    path = Path(directory) / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError as exc:
        raise error(f"cannot create the lock {path}: {exc.strerror or exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.read(fd, 64).decode(errors="replace").strip() or "another process"
        os.close(fd)
        raise error(
            f"{directory} is in use by another {what} (pid {holder}); wait for it or "
            f"choose another --out"
        ) from None
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
    except OSError as exc:
        path.unlink(missing_ok=True)  # ours: we hold it
        os.close(fd)
        raise error(f"cannot write the lock {path}: {exc.strerror or exc}") from None
    return fd


@contextlib.contextmanager
def staged_directory(target: str | Path) -> Iterator[Path]:
    """Yield a fresh hidden directory inside ``target`` in which to write a set of files (paths
    relative to it as they will be relative to ``target``); on normal exit the files are fsynced
    and renamed into ``target`` together, on any exception the staging directory is removed and
    ``target`` is left as it was.

    Everything that can fail for want of space or permission (writing, fsync, creating
    subdirectories) happens before the first rename, and renames need no space, so a set of files
    such as a report is replaced as a whole or not at all (short of a kill between renames).  An
    ``OSError`` on the way (also one raised by the caller's writes) is an :class:`OutputError`
    naming ``target``.
    """
    target = Path(target)
    stage = make_temp_dir(target, ".staging.")
    try:
        yield stage
        files = sorted(p for p in stage.rglob("*") if p.is_file())
        for path in files:
            with open(path, "rb+") as fh:
                os.fsync(fh.fileno())
        directories = sorted({target / p.parent.relative_to(stage) for p in files})
        for directory in directories:
            _real_directory(directory, target)
        for path in files:
            os.replace(path, target / path.relative_to(stage))  # links replaced, not followed
        for directory in directories:
            fsync_dir(directory)
    except OSError as exc:
        raise output_error(exc, target) from None
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _real_directory(directory: Path, top: Path) -> None:
    """``mkdir -p directory`` below ``top`` where a symlink on the way is replaced by a real
    folder (what it points at is left alone), so no file is written through a link; a file in
    the way is an error."""
    for part in reversed([directory, *directory.parents]):
        if top not in part.parents:
            continue
        if part.is_symlink():
            part.unlink()
        if not part.is_dir():
            part.mkdir()


def read_capped(
    path: str | Path,
    limit: int,
    what: str = "file",
    error: type[RamseyGadgetsError] = RamseyGadgetsError,
) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; anything else (missing, a
    directory or FIFO, too large, unreadable) is ``error`` naming the cause."""
    path = Path(path)
    if not path.is_file():
        problem = "it is a directory" if path.is_dir() else "no such file"
        if path.exists() and not path.is_dir():
            problem = "not a regular file"
        raise error(f"cannot read {what} {path}: {problem}")
    try:
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise error(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise error(f"{what} {path} is larger than {limit // 2**20} MiB; refusing to read it")
    return data


class JSONTooDeepError(ValueError):
    """JSON nested deeper than the parser's recursion limit."""


def parse_json(text: str | bytes) -> Any:
    """``json.loads`` whose only failure is ``ValueError`` (:class:`JSONTooDeepError` for
    absurdly deep nesting, never a ``RecursionError``)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise JSONTooDeepError("JSON nested too deeply") from None
