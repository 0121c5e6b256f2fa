"""The runtime image the sandbox binds from (neutral paths): hard links named by a hash of
the files, made once, rebuilt when a file changes, site-packages and the test suite left out."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ramseygadgets.sandbox import image as sandbox_image
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
        assert dest.startswith((PREFIX, "/sandbox", "/lib", "/usr/lib", "/lib64", "/etc/")), dest
