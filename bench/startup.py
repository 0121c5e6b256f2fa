"""Start-up time of the command line, against a bare Python start.

    .venv/bin/python bench/startup.py [--runs 15] [--out bench/results/startup.jsonl]

Runs each command ``runs`` times in a fresh process (``python -m ramseygadgets ...``), the
commands taken in turn so that a change in the machine's load reaches all of them alike, with
``python -c pass`` as the baseline of the same run.  Reports per command the median wall time,
the median CPU time (user + system of the process; steadier than wall time on a shared machine)
and both as ratios to the baseline.  Targets on the 2-core dev machine: ``--help``,
``verify --help`` and ``problems`` under 0.3 s, ``verify`` of one answer from a file under 0.6 s.
``--out`` appends one JSON line with the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ramseygadgets.problems.catalog import get_problem
from ramseygadgets.problems.solutions import get_solution

ROOT = Path(__file__).resolve().parents[1]
PROBLEM_ID = "k13_k4_red_determiner"


def commands(answer: Path) -> dict[str, list[str]]:
    """The commands timed, by label; ``answer`` holds a correct answer to :data:`PROBLEM_ID`."""
    cli = [sys.executable, "-m", "ramseygadgets"]
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        "--help": [*cli, "--help"],
        "verify --help": [*cli, "verify", "--help"],
        "problems": [*cli, "problems"],
        "verify (one answer)": [*cli, "verify", PROBLEM_ID, str(answer)],
    }


def run_once(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one run of ``argv`` (in ``env``, default this
    process's environment); refuses a failed run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, env={**(env or os.environ), "COLUMNS": "100"})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr.decode()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def measure(runs: int) -> dict[str, dict[str, float]]:
    """Median wall and CPU seconds per command, the commands taken in turn ``runs`` times."""
    problem = get_problem(PROBLEM_ID)
    solution = get_solution(PROBLEM_ID)
    with tempfile.TemporaryDirectory() as tmp:
        answer = Path(tmp) / "answer.json"
        answer.write_text(json.dumps(solution.candidate.to_json(problem.kind)), encoding="utf-8")
        timed = commands(answer)
        samples: dict[str, list[tuple[float, float]]] = {label: [] for label in timed}
        for argv in timed.values():  # one untimed run each: the bytecode caches are written
            run_once(argv)
        for _ in range(runs):
            for label, argv in timed.items():
                samples[label].append(run_once(argv))
    return {
        label: {
            "wall_s": round(statistics.median(w for w, _ in runs_), 3),
            "cpu_s": round(statistics.median(c for _, c in runs_), 3),
        }
        for label, runs_ in samples.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument(
        "--out", type=Path, help="append one JSON line (e.g. bench/results/startup.jsonl)"
    )
    args = parser.parse_args()
    figures = measure(args.runs)
    base = figures["python -c pass"]
    print(f"{'command':22} {'wall s':>7} {'x pass':>7} {'cpu s':>7} {'x pass':>7}")
    for label, f in figures.items():
        print(
            f"{label:22} {f['wall_s']:7.3f} {f['wall_s'] / base['wall_s']:7.1f} "
            f"{f['cpu_s']:7.3f} {f['cpu_s'] / max(base['cpu_s'], 1e-3):7.1f}"
        )
    if args.out is not None:
        record = {
            "runs": args.runs,
            "cpus": os.cpu_count(),
            "load_1min": round(os.getloadavg()[0], 2),
            "python": platform.python_version(),
            "commands": figures,
        }
        args.out.parent.mkdir(parents=True, exist_ok=True)
        with args.out.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    main()
