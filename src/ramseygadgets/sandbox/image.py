"""The read-only runtime a sandboxed program sees, at neutral paths.

The interpreter appears as ``/usr/local/bin/pythonX.Y`` with its standard library at
``/usr/local/lib/pythonX.Y`` (every ``*-packages`` and the ``test`` package left out), the
allowed libraries (:data:`ALLOWED_MODULES`) in :data:`LIBRARY_DIR`, shared libraries from
the system's library folders at their own paths and any other (such as a ``libpython`` of a
pyenv build) beside the C library.  The files come from a *runtime image*: a folder of hard
links (copies across file systems) made once per runtime under ``/var/cache/ramseygadgets``
(root) or ``~/.cache/ramseygadgets``, named by a hash of the files, and as root mounted as a
file system of its own (:mod:`ramseygadgets.sandbox.mount`).  Binding from the mounted image
instead of the host's folders keeps every host path (a home folder, the project, the
interpreter's installation, the image's own folder) out of ``/proc/self/mountinfo``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import secrets
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

from ramseygadgets.sandbox.limits import SandboxUnavailableError
from ramseygadgets.sandbox.mount import mounted_image

__all__ = ["ALLOWED_MODULES", "LIBRARY_DIR", "PREFIX", "Runtime", "runtime", "image_root"]

#: Top-level modules importable inside besides the standard library (python-sat's extension
#: modules and its one dependency included).
ALLOWED_MODULES = ("networkx", "pysat", "pycard", "pysolvers", "six")
#: Where the allowed libraries are bound (the only entry of ``PYTHONPATH``).
LIBRARY_DIR = "/sandbox/lib"
#: Where the interpreter and its standard library appear.
PREFIX = "/usr/local"
#: Library folders bound at their own paths (they name no user, project or home).
_SYSTEM_LIBRARIES = ("/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/")
#: Top-level entries of the standard library left out of the image.
_LEFT_OUT = ("test",)
_COMPLETE = ".complete"


@dataclass(frozen=True)
class Runtime:
    """The interpreter's path inside and the read-only binds (host path, sandbox path):
    ``binds`` from the image (``mounted``: from its own file system, mounted again by
    :meth:`current` if it was unmounted since, else from its folder ``image``).
    The tests' switches show what ``mountinfo`` would name otherwise: ``unmounted`` binds
    from the image's folder, ``direct`` from the host's own folders."""

    python: str
    binds: tuple[tuple[str, str], ...]
    unmounted: tuple[tuple[str, str], ...] = ()
    direct: tuple[tuple[str, str], ...] = ()
    mounted: bool = False
    image: Path | None = None

    def binds_without(self, off: frozenset[str]) -> tuple[tuple[str, str], ...]:
        """The binds with the tests' switches ``off``: ``neutral_paths`` off, the host's own
        folders; ``runtime_mount`` off, the image's folder."""
        if "neutral_paths" in off:
            return self.direct
        return self.unmounted if "runtime_mount" in off else self.binds

    def current(self) -> Runtime:
        """This runtime, its image mounted again where another runtime unmounted it."""
        if not self.mounted or self.image is None:
            return self
        point = self.image.with_name(self.image.name + ".mnt")
        if os.path.ismount(point) or mounted_image(self.image) == point:
            return self
        return replace(self, binds=self.unmounted, mounted=False)


def _allowed_sources() -> list[tuple[str, str]]:
    """The allowed modules' folders or files and their place under :data:`LIBRARY_DIR`."""
    found = []
    for name in ALLOWED_MODULES:
        spec = importlib.util.find_spec(name)
        if spec is None:
            continue
        locations = list(spec.submodule_search_locations or [])
        source = locations[0] if locations else spec.origin
        if source and os.path.exists(source):
            found.append((source, f"{LIBRARY_DIR}/{os.path.basename(source)}"))
    return found


def _shared_libraries(files: list[str]) -> list[str]:
    """Every shared library ``ldd`` names for ``files`` (absolute paths, the loader included)."""
    ldd = shutil.which("ldd")
    if ldd is None:
        raise SandboxUnavailableError(
            "the sandbox needs ldd (Debian's libc-bin) to find the interpreter's libraries"
        )
    env = {"PATH": "/usr/bin:/bin", "LANG": "C"}
    done = subprocess.run([ldd, *files], capture_output=True, text=True, check=False, env=env)
    libraries = set()
    for line in done.stdout.splitlines():
        words = line.split()
        path = words[2] if len(words) > 2 and words[1] == "=>" else (words[0] if words else "")
        if path.startswith("/") and os.path.exists(path):
            libraries.add(os.path.normpath(path))
    return sorted(libraries)


def _files(source: str, dest: str, left_out: tuple[str, ...] = ()) -> Iterator[tuple[str, str]]:
    """(host file, path in the image) for a file or every file and link of a folder."""
    if not os.path.isdir(source):
        yield source, dest
        return
    for folder, dirs, names in os.walk(source):
        rel = os.path.relpath(folder, source)
        if rel == ".":
            dirs[:] = [d for d in dirs if d not in left_out and not d.endswith("-packages")]
        dirs.sort()
        for name in sorted(names) + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            yield os.path.join(folder, name), os.path.normpath(os.path.join(dest, rel, name))


def image_root() -> Path:
    """Where runtime images are kept: a system cache for root, the user's cache otherwise."""
    if os.geteuid() == 0:
        return Path("/var/cache/ramseygadgets/runtime")
    cache_home = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return Path(cache_home) / "ramseygadgets" / "runtime"


def _key(entries: list[tuple[str, str]]) -> str:
    digest = hashlib.sha256()
    for source, dest in entries:
        st = os.lstat(source)
        digest.update(f"{dest}\0{source}\0{st.st_ino}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:20]


def _place(source: str, target: Path) -> None:
    target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
    if os.path.islink(source):
        os.symlink(os.readlink(source), target)
        return
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _build_image(entries: list[tuple[str, str]]) -> Path:
    """The image of ``entries`` (made now unless a complete one is there)."""
    root = image_root()
    image = root / _key(entries)
    if (image / _COMPLETE).exists():
        return image
    root.mkdir(mode=0o755, parents=True, exist_ok=True)
    for stale in root.glob(".building-*"):  # left by a process that was killed
        if not Path(f"/proc/{stale.name.split('-')[1]}").exists():
            shutil.rmtree(stale, ignore_errors=True)
    building = root / f".building-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        for source, dest in entries:
            _place(source, building / dest.lstrip("/"))
        (building / _COMPLETE).touch()
        os.chmod(building, 0o755)
        try:
            building.rename(image)
        except OSError:  # another process made it first
            if not (image / _COMPLETE).exists():
                raise
    finally:
        shutil.rmtree(building, ignore_errors=True)
    return image


def _top_binds(base: Path, entries: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """One bind per top-level folder of the image (``/usr/local``, ``/sandbox``, ``/lib``…;
    two levels under ``/usr``)."""
    tops = set()
    for _, dest in entries:
        parts = Path(dest).parts
        tops.add("/".join(parts[1 : 3 if parts[1] == "usr" else 2]))
    return [(str(base / top), f"/{top}") for top in sorted(tops)]


@cache
def runtime() -> Runtime:
    """The interpreter (``sys.base_prefix``), its standard library, the allowed libraries
    and the shared libraries they load, as binds from a runtime image (found once per
    process; the image is made once per runtime)."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    python = os.path.join(sys.base_prefix, "bin", version)
    if not os.path.exists(python):
        python = os.path.realpath(sys.executable)
    stdlib = sysconfig.get_paths()["stdlib"]
    allowed = _allowed_sources()
    extensions = [str(p) for p in Path(stdlib, "lib-dynload").glob("*.so")]
    for source, _ in allowed:
        tree = Path(source)
        extensions += [str(p) for p in (tree.rglob("*.so") if tree.is_dir() else [tree])]
    libraries = _shared_libraries([python, *[e for e in extensions if e.endswith(".so")]])
    libc = next((lib for lib in libraries if os.path.basename(lib) == "libc.so.6"), None)
    library_dir = os.path.dirname(libc) if libc else "/usr/lib"
    inside = f"{PREFIX}/bin/{version}"
    entries = [(python, inside), *_files(stdlib, f"{PREFIX}/lib/{version}", _LEFT_OUT)]
    for source, dest in allowed:
        entries += _files(source, dest)
    system = [lib for lib in libraries if lib.startswith(_SYSTEM_LIBRARIES)]
    if os.path.exists("/etc/ld.so.cache"):
        system.append("/etc/ld.so.cache")
    entries += [(os.path.realpath(lib), lib) for lib in system]
    for lib in libraries:
        if lib not in system:
            entries.append((lib, f"{library_dir}/{os.path.basename(lib)}"))
    try:
        image = _build_image(entries)
    except OSError as exc:
        raise SandboxUnavailableError(
            f"the sandbox cannot make its runtime image in {image_root()} ({exc.strerror or exc})"
        ) from None
    mount = mounted_image(image)
    binds = _top_binds(mount or image, entries)
    unmounted = _top_binds(image, entries)
    direct = [(python, inside), (stdlib, f"{PREFIX}/lib/{version}"), *allowed]
    direct += [(lib, lib) for lib in system]
    direct += [(s, d) for s, d in entries if s in libraries and s not in system]
    return Runtime(
        inside,
        _ordered(binds),
        _ordered(unmounted),
        _ordered(direct),
        mounted=mount is not None,
        image=image,
    )


def _ordered(binds: list[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """Distinct binds, parents before what is bound inside them."""
    return tuple(sorted(set(binds), key=lambda b: b[1]))
