"""The runtime image as a file system of its own, so that bind roots name no host folder.

``/proc/self/mountinfo`` gives, for every mount, the bound folder's path *inside its file
system*.  Bound from a folder of the host's disk, that path is the host's
(``/var/cache/ramseygadgets/runtime/<hash>/usr/local``); bound from a file system holding
the image alone, it is the image's own (``/usr/local``).  As root, the image folder is
written once into a read-only ext4 file (``mke2fs -d``, Debian's e2fsprogs) beside it and
loop-mounted at ``<hash>.mnt``, where it stays mounted for later programs (at most
:data:`MOUNTED_AT_MOST` images at once: mounting one more unmounts the least recently mounted,
which is mounted again when its runtime runs a program); elsewhere (no root, no loop device)
the folder is bound directly and the run's config says so.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from pathlib import Path

__all__ = ["mounted_image", "unmount"]

#: Images kept mounted at once (each holds a loop device).
MOUNTED_AT_MOST = 3
#: Room beyond the files' own size: block rounding, inodes, directories.
_SLACK = 1.25
_SLACK_BYTES = 16 * 2**20
_ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C"}


def _run(*args: str) -> bool:
    done = subprocess.run(args, capture_output=True, text=True, check=False, env=_ENV)
    return done.returncode == 0


def _size_of(folder: Path) -> int:
    """Bytes the files of ``folder`` hold (each inode once)."""
    seen, total = set(), 0
    for path in folder.rglob("*"):
        st = path.lstat()
        if st.st_ino not in seen:
            seen.add(st.st_ino)
            total += st.st_size
    return total


def _file_system(image: Path) -> Path | None:
    """The ext4 file holding ``image`` (made now, atomically, unless it is there)."""
    target = image.with_name(image.name + ".ext4")
    if target.exists():
        return target
    mke2fs = shutil.which("mke2fs", path=_ENV["PATH"])
    if mke2fs is None:
        return None
    size_kib = int(_size_of(image) * _SLACK + _SLACK_BYTES) // 1024
    building = image.with_name(f".{image.name}.ext4-{os.getpid()}")
    made = _run(
        mke2fs, "-q", "-F", "-t", "ext4", "-O", "^has_journal", "-m", "0",
        "-E", "root_owner=0:0", "-L", "rg-runtime", "-d", str(image), str(building),
        f"{size_kib}k",
    )  # fmt: skip
    if not made:
        building.unlink(missing_ok=True)
        return None
    building.rename(target)
    return target


def mounted_image(image: Path) -> Path | None:
    """Where ``image`` is mounted as a file system of its own (``None`` when it cannot be:
    not root, no ``mke2fs`` or no free loop device)."""
    if os.geteuid() != 0 or not Path("/dev/loop-control").exists():
        return None
    point = image.with_name(image.name + ".mnt")
    with open(image.parent / ".mount.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.ismount(point):
            return point
        file_system = _file_system(image)
        if file_system is None:
            return None
        point.mkdir(mode=0o755, exist_ok=True)
        _release_old(image.parent, keep=MOUNTED_AT_MOST - 1)
        options = "loop,ro,nodev,nosuid"
        if not _run("mount", "-t", "ext4", "-o", options, str(file_system), str(point)):
            return None
        file_system.touch()  # when it was last mounted
    return point


def _release_old(root: Path, keep: int) -> None:
    """Unmount all but the ``keep`` most recently mounted images under ``root``."""
    points = [p for p in root.glob("*.mnt") if os.path.ismount(p)]
    points.sort(key=lambda p: p.with_suffix(".ext4").stat().st_mtime, reverse=True)
    for point in points[keep:]:
        unmount(point)


def unmount(point: Path) -> None:
    """Unmount an image (lazily: programs running from it keep it until they end)."""
    _run("umount", "--lazy", str(point))
