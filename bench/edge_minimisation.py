"""Edge minimisation at a found level: one process against capped cube rounds.

    .venv/bin/python bench/edge_minimisation.py [--problems ID:N ...] [--jobs 2] [--cubes 16]
                                                [--timeout 600]

For each problem and its level N (a level with a solution), the fewest edges on N vertices are
proven twice in this run: by one process (:func:`ramseygadgets.search.find_solution` with
``minimize_edges``: the finder lowers its edge bound until UNSAT), and by cube-and-conquer
(:func:`ramseygadgets.search.parallel.solve_cubes` on ``--jobs`` workers: the level, then the
level again with at most m − 1 edges until a round is none).  Per variant: wall seconds, CPU
seconds (this process for the first; the cubes' own CPU plus this process's for the second),
the edges found and whether they were proven fewest.  Both must agree on m.  One JSON line goes
to ``--out`` (default ``bench/results/edge-minimisation.jsonl``).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path
from typing import Any

from ramseygadgets.problems.catalog import Problem, get_problem
from ramseygadgets.search import SearchOptions, find_solution
from ramseygadgets.search.parallel import solve_cubes

ROOT = Path(__file__).resolve().parents[1]
#: Levels with a solution whose edge minimisation takes seconds to minutes in one process.
#: A problem is a catalog id or F/H/gadget.
DEFAULT = ["K3/K4-e/red-determiner:11", "P3/K6/red-determiner:11", "K3/K4/positive-sender:12"]


def problem_of(text: str) -> Problem:
    """A catalog id, or F/H/gadget for a pair outside the catalog."""
    return Problem.make(*text.split("/")) if "/" in text else get_problem(text)


def one_process(problem: Problem, n: int, timeout: float) -> dict[str, Any]:
    wall, cpu = time.monotonic(), time.process_time()
    result = find_solution(problem, n, SearchOptions(minimize_edges=True, timeout=timeout))
    return {
        "m": result.m,
        "edges_minimal": result.edges_minimal,
        "wall_seconds": round(time.monotonic() - wall, 2),
        "cpu_seconds": round(time.process_time() - cpu, 2),
    }


def by_cubes(problem: Problem, n: int, jobs: int, cubes: int, timeout: float) -> dict[str, Any]:
    cube_cpu: list[float] = []
    options = SearchOptions(min_vertices=n, max_vertices=n, jobs=jobs, cubes=cubes, timeout=timeout)
    wall, cpu = time.monotonic(), time.process_time()
    result = solve_cubes(problem, options, on_cube=lambda r: cube_cpu.append(r["cpu_seconds"]))
    driver = time.process_time() - cpu
    return {
        "m": result.m,
        "edges_minimal": result.edges_minimal,
        "wall_seconds": round(time.monotonic() - wall, 2),
        "cpu_seconds": round(sum(cube_cpu) + (driver if jobs > 1 else 0.0), 2),
        "cubes_run": len(cube_cpu),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", nargs="+", default=DEFAULT, metavar="ID:N")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--cubes", type=int, default=16)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--out", type=Path, default=ROOT / "bench/results/edge-minimisation.jsonl")
    args = parser.parse_args(argv)
    rows = []
    for spec in args.problems:
        text, _, level = spec.partition(":")
        problem, n = problem_of(text), int(level)
        row = {
            "problem": problem.id,
            "n": n,
            "one_process": one_process(problem, n, args.timeout),
            "cubes": by_cubes(problem, n, args.jobs, args.cubes, args.timeout),
        }
        rows.append(row)
        a, b = row["one_process"], row["cubes"]
        print(
            f"{problem.id} n={n}: one process m={a['m']} ({a['edges_minimal']}) "
            f"{a['wall_seconds']} s wall, {a['cpu_seconds']} s CPU; cubes m={b['m']} "
            f"({b['edges_minimal']}) {b['wall_seconds']} s wall, {b['cpu_seconds']} s CPU, "
            f"{b['cubes_run']} cubes",
            flush=True,
        )
    agree = all(
        r["one_process"]["m"] == r["cubes"]["m"]
        for r in rows
        if r["one_process"]["edges_minimal"] and r["cubes"]["edges_minimal"]
    )
    line = {
        "bench": "edge_minimisation",
        "date": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "python": platform.python_version(),
        "jobs": args.jobs,
        "cubes": args.cubes,
        "rows": rows,
        "edges_agree": agree,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")
    print(f"edge counts agree: {agree}")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
