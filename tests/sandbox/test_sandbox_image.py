"""The runtime image the sandbox binds from (neutral paths): hard links named by a hash of
the files, made once, rebuilt when a file changes, site-packages and the test suite left out."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ramseygadgets.sandbox import image as sandbox_image
from ramseygadgets.sandbox import mount as sandbox_mount
from ramseygadgets.sandbox.image import PREFIX, runtime


@pytest.fixture
def images(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "images"
    monkeypatch.setattr(sandbox_image, "image_root", lambda: root)
    return root


def _stdlib(tmp_path: Path) -> Path:
    lib = tmp_path / "host" / "lib" / "python3.99"
    for rel in ("os.py", "json/__init__.py", "site-packages/secret.py", "test/t.py"):
        (lib / rel).parent.mkdir(parents=True, exist_ok=True)
        (lib / rel).write_text(f"# {rel}\n")
    return lib


def test_the_image_is_hard_links_made_once(tmp_path: Path, images: Path) -> None:
    lib = _stdlib(tmp_path)
    entries = list(sandbox_image._files(str(lib), f"{PREFIX}/lib/python3.99", ("test",)))
    dests = {dest for _, dest in entries}
    assert f"{PREFIX}/lib/python3.99/json/__init__.py" in dests
    assert not any("site-packages" in d or "/test/" in d for d in dests)
    (images / ".building-999999999-dead").mkdir(parents=True)  # a killed builder's
    image = sandbox_image._build_image(entries)
    copy = image / PREFIX.lstrip("/") / "lib/python3.99/os.py"
    assert copy.read_text() == "# os.py\n" and copy.stat().st_ino == (lib / "os.py").stat().st_ino
    assert not (images / ".building-999999999-dead").exists()
    assert sandbox_image._build_image(entries) == image  # reused
    os.utime(lib / "os.py", ns=(1, 1))  # a changed file: another image
    assert sandbox_image._build_image(entries) != image


def test_the_binds_name_no_host_folder_inside() -> None:
    rt = runtime()
    assert rt.python.startswith(f"{PREFIX}/bin/python")
    for _, dest in rt.binds:
        assert dest in (f"{PREFIX}", "/sandbox", "/lib", "/lib64", "/usr/lib", "/etc"), dest


_CAN_MOUNT = os.geteuid() == 0 and Path("/dev/loop-control").exists()


@pytest.mark.skipif(not _CAN_MOUNT, reason="mounting the image needs root and a loop device")
def test_the_image_is_mounted_once_as_its_own_file_system(tmp_path: Path, images: Path) -> None:
    """As root the image becomes a read-only ext4 file mounted beside it: its files at their
    image paths, its mount root ``/`` (so a bind's root is the image path alone), reused."""
    lib = _stdlib(tmp_path)
    image = sandbox_image._build_image(list(sandbox_image._files(str(lib), f"{PREFIX}/lib/x")))
    point = sandbox_mount.mounted_image(image)
    assert point is not None and os.path.ismount(point)
    try:
        assert (point / PREFIX.lstrip("/") / "lib/x/os.py").read_text() == "# os.py\n"
        with pytest.raises(OSError):
            (point / "new").write_text("")
        [line] = [
            m for m in Path("/proc/self/mountinfo").read_text().splitlines() if f" {point} " in m
        ]
        assert line.split()[3] == "/" and " - ext4 /dev/loop" in line
        made = image.with_name(image.name + ".ext4").stat().st_mtime_ns
        assert sandbox_mount.mounted_image(image) == point  # mounted already: reused
        assert image.with_name(image.name + ".ext4").stat().st_mtime_ns == made
    finally:
        sandbox_mount.unmount(point)
    assert not os.path.ismount(point)


@pytest.mark.skipif(not _CAN_MOUNT, reason="mounting the image needs root and a loop device")
def test_old_images_are_unmounted_and_mounted_again_when_used(tmp_path: Path, images: Path) -> None:
    """At most MOUNTED_AT_MOST images hold a loop device; the least recently mounted gives
    way, and its runtime mounts it again before its next program (never an empty bind)."""
    made = []
    for index in range(sandbox_mount.MOUNTED_AT_MOST + 1):
        lib = _stdlib(tmp_path / str(index))
        made.append(sandbox_image._build_image(list(sandbox_image._files(str(lib), "/x"))))
        point = sandbox_mount.mounted_image(made[-1])
        assert point is not None
        os.utime(made[-1].with_name(made[-1].name + ".ext4"), ns=(10**9 * index,) * 2)
    points = [image.with_name(image.name + ".mnt") for image in made]
    try:
        assert [os.path.ismount(p) for p in points] == [False] + [True] * (len(points) - 1)
        first = sandbox_image.Runtime("/x", (), mounted=True, image=made[0])
        assert first.current() is first and os.path.ismount(points[0])
    finally:
        for point in points:
            sandbox_mount.unmount(point)


def test_no_mount_without_root_or_mke2fs(
    tmp_path: Path, images: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not root, or no ``mke2fs``: the image is bound from its folder (``None``), nothing is
    left half made, and the runtime says so (``mounted`` false)."""
    image = sandbox_image._build_image(list(sandbox_image._files(str(_stdlib(tmp_path)), "/x")))
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert sandbox_mount.mounted_image(image) is None
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(sandbox_mount.shutil, "which", lambda *_, **__: None)
    if Path("/dev/loop-control").exists():
        assert sandbox_mount.mounted_image(image) is None
    assert not list(images.glob("*.ext4*")) and not list(images.glob(".*.ext4-*"))


@pytest.mark.skipif(not _CAN_MOUNT, reason="mounting the image needs root and a loop device")
def test_a_mount_that_fails_leaves_the_folder_bound(
    tmp_path: Path, images: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``mount`` refused (no free loop device): no mount, the image's folder is what a runtime
    binds, and a runtime whose image cannot be mounted again falls back to its folder's binds."""
    image = sandbox_image._build_image(list(sandbox_image._files(str(_stdlib(tmp_path)), "/x")))
    real_run = sandbox_mount._run
    monkeypatch.setattr(sandbox_mount, "_run", lambda *a: a[0] != "mount" and real_run(*a))
    assert sandbox_mount.mounted_image(image) is None
    assert not os.path.ismount(image.with_name(image.name + ".mnt"))
    folder_binds = (("/host/folder", "/x"),)
    rt = sandbox_image.Runtime("/x", (("/mounted", "/x"),), folder_binds, mounted=True, image=image)
    fallen_back = rt.current()
    assert not fallen_back.mounted and fallen_back.binds == folder_binds
