"""Start-up of a process without bytecode to read, against the same files compiled.

    .venv/bin/python bench/bytecode.py [--runs 9] [--out bench/results/bytecode.jsonl]

Where ``PYTHONDONTWRITEBYTECODE`` is set (as on the development machine) no process writes
``.pyc`` files, so whatever the set-up left uncompiled is compiled again by every process (each
CLI call, each search worker, each test that runs the CLI).  Two such gaps, two comparisons:

* *src*: an editable install leaves ``src/`` without bytecode.  ``src/ramseygadgets`` is copied
  twice into a temporary folder, one copy compiled (``compileall``), and each command runs from
  either copy (``PYTHONPATH`` = the copy) with this Python.
* *site-packages*: ``uv pip install`` writes no bytecode unless given ``--compile-bytecode``.  Two
  virtual environments get ``uv pip install -e .`` (from uv's cache), one with the flag; each
  command runs in either, with the compiled copy of the sources on ``PYTHONPATH``.

``scripts/setup.sh`` closes the first (both set-ups), ``scripts/lowest_direct.sh`` both (the
main set-up leaves uv's default: docs/performance.md says why).  Each command runs in both
set-ups of a comparison in turn, ``runs`` times (the child's ``ramseygadgets.__file__`` is checked
to be the copy's).  Prints the median wall and CPU seconds and the ratios without / with
bytecode; ``--out`` appends them.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from benchlog import append_run
from startup import run_once

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = {
    "import ramseygadgets.cli": ["-c", "import ramseygadgets.cli"],
    "ramseygadgets problems": ["-m", "ramseygadgets", "problems"],
}


def copy_sources(into: Path, compiled: bool) -> Path:
    """A copy of ``src/ramseygadgets`` under ``into`` without any ``__pycache__``, compiled if
    ``compiled``; returns the folder to put on ``PYTHONPATH``."""
    shutil.copytree(
        ROOT / "src" / "ramseygadgets",
        into / "ramseygadgets",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    if compiled and not compileall.compile_dir(into / "ramseygadgets", quiet=1):
        raise SystemExit(f"compileall failed on {into}")
    return into


def check_imported_from(python: str, sources: Path) -> None:
    """Refuse a set-up whose child imports ``ramseygadgets`` from anywhere but ``sources``."""
    where = subprocess.run(
        [python, "-c", "import ramseygadgets; print(ramseygadgets.__file__)"],
        capture_output=True,
        text=True,
        env=environment(sources),
        check=True,
    ).stdout.strip()
    if not where.startswith(str(sources)):
        raise SystemExit(f"{python} imported ramseygadgets from {where}, not from {sources}")


def uv_venv(into: Path, compile_bytecode: bool) -> str:
    """A virtual environment at ``into`` with ``uv pip install -e .``; returns its Python."""
    uv = str(Path(sys.executable).parent / "uv")
    subprocess.run([uv, "venv", "-q", "--python", sys.executable, str(into)], check=True)
    python = str(into / "bin" / "python")
    flags = ["--compile-bytecode"] if compile_bytecode else []
    subprocess.run(
        [uv, "pip", "install", "-q", "--python", python, *flags, "-e", str(ROOT)], check=True
    )
    return python


#: A set-up: the Python to run and the folder of ``ramseygadgets`` sources on ``PYTHONPATH``.
SetUp = tuple[str, Path]


def set_ups(tmp: Path) -> dict[str, dict[str, SetUp]]:
    """The two comparisons, each a pair of set-ups: without bytecode, then with it."""
    bare = copy_sources(tmp / "bare", compiled=False)
    compiled = copy_sources(tmp / "compiled", compiled=True)
    return {
        "src": {"without": (sys.executable, bare), "with": (sys.executable, compiled)},
        "site-packages": {
            "without": (uv_venv(tmp / "venv-bare", compile_bytecode=False), compiled),
            "with": (uv_venv(tmp / "venv-compiled", compile_bytecode=True), compiled),
        },
    }


def environment(sources: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(sources), "PYTHONDONTWRITEBYTECODE": "1"}


def measure(runs: int, tmp: Path) -> dict[str, dict[str, dict[str, float]]]:
    comparisons = set_ups(tmp)
    for pair in comparisons.values():
        for python, sources in pair.values():
            check_imported_from(python, sources)
    times: dict[tuple[str, str, str], list[tuple[float, float]]] = {}
    for _ in range(runs):
        for gap, pair in comparisons.items():
            for label, argv in COMMANDS.items():
                for name, (python, sources) in pair.items():  # in turn: the load reaches both
                    run = run_once([python, *argv], environment(sources))
                    times.setdefault((gap, label, name), []).append(run)
    figures: dict[str, dict[str, dict[str, float]]] = {}
    for gap in comparisons:
        for label in COMMANDS:
            row: dict[str, float] = {}
            for name in ("without", "with"):
                row[f"{name}_wall_s"] = statistics.median(w for w, _ in times[gap, label, name])
                row[f"{name}_cpu_s"] = statistics.median(c for _, c in times[gap, label, name])
            row["ratio_wall"] = row["without_wall_s"] / row["with_wall_s"]
            row["ratio_cpu"] = row["without_cpu_s"] / row["with_cpu_s"]
            figures.setdefault(gap, {})[label] = row
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bytecode-bench-") as tmp:
        figures = measure(args.runs, Path(tmp))
    for gap, rows in figures.items():
        for label, row in rows.items():
            print(
                f"{gap}, {label}: without bytecode {row['without_wall_s']:.2f} s wall, "
                f"{row['without_cpu_s']:.2f} s CPU; with {row['with_wall_s']:.2f} s wall, "
                f"{row['with_cpu_s']:.2f} s CPU; {row['ratio_wall']:.2f}x wall, "
                f"{row['ratio_cpu']:.2f}x CPU"
            )
    if args.out is not None:
        append_run(args.out, "bytecode", {"commands": figures}, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
