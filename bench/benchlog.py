"""One JSON line per bench run, appended to the bench's results file (``bench/results/*.jsonl``).

The scripts of this folder run as ``.venv/bin/python bench/NAME.py``, so this module is on their
path; each line holds the bench's name, when and with which Python it ran, its figures and its
command-line arguments.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import time
from pathlib import Path
from typing import Any


def append_run(out: Path, bench: str, figures: dict[str, Any], args: argparse.Namespace) -> None:
    """Append ``{"bench", "date", "python", "revision", **figures, "args"}`` to ``out`` as one
    line (``revision``: the commit of the ``ramseygadgets`` that ran, so that runs of two
    checkouts compared back to back can be told apart)."""
    line = {
        "bench": bench,
        "date": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "python": platform.python_version(),
        "revision": _revision(),
        **figures,
        "args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")


def timed_cube(task: Any) -> dict[str, Any]:
    """Run one cube (a ``CubeTask``) with fresh finders; its outcome, CPU seconds, candidates."""
    from ramseygadgets.search.cubes import clear_finders, run_cube

    clear_finders()
    start = time.process_time()
    try:
        result = run_cube(task)
    finally:
        clear_finders()
    return {
        "outcome": result["outcome"],
        "cpu_seconds": round(time.process_time() - start, 3),
        "candidates": result["candidates"],
    }


def _revision() -> str | None:
    """The commit (short hash, "+" when the work tree differs) of the imported package's
    checkout; ``None`` outside a git checkout."""
    import ramseygadgets

    where = Path(ramseygadgets.__file__).parent
    try:
        head = subprocess.run(
            ["git", "-C", str(where), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(where), "status", "--porcelain", "--", "."],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("+" if dirty else "")
