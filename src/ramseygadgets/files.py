"""Output directories that fail with one clear sentence."""

from __future__ import annotations

from pathlib import Path

from ramseygadgets.errors import RamseyGadgetsError


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
