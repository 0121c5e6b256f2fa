"""Same verdict three ways: one process, cube-and-conquer on 2 local workers, and on Ray.

    .venv/bin/python bench/cube_verdicts.py                 # the cases below, all three ways
    .venv/bin/python bench/cube_verdicts.py --cases k3_k4_red:11 --ways single jobs2

Each case decides one vertex count n of a frontier problem (``--min-vertices n
--max-vertices n``): the single-process lazy engine (:func:`ramseygadgets.search.find_solution`),
then :func:`ramseygadgets.search.parallel.solve_cubes` with ``jobs=2`` (forked workers that swap
lemmas while cubes run) and with ``ray="local"`` (a local Ray cluster of 2 CPUs; Ray is
imported only then).  A found level's solution is verified by :func:`ramseygadgets.verification.verifier.verify`
inside the search; here it is checked again by the exhaustive scan's detector, which shares no
code with the finder.  One JSON line per case and way is appended to ``--out`` when it ends, so
a run cut short keeps what it decided; the script exits 1 when two ways disagree.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from frontier import FRONTIER, second_check

from ramseygadgets.problems.catalog import Problem
from ramseygadgets.search import find_solution
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.search.parallel import solve_cubes

#: key:n — two levels with no solution and two found ones (docs/search.md, the frontier).
CASES = ["k3_k4_red:11", "k3_k4_red:12", "k3_k4e_red:11", "k3_k4_pos:12"]
WAYS = ["single", "jobs2", "ray"]


def decide(problem: Problem, n: int, way: str) -> tuple[str, object]:
    """(outcome, candidate) of level n, one of the three ways."""
    if way == "single":
        result = find_solution(problem, n, SearchOptions(engine="lazy", minimize_edges=False))
        return result.levels[-1].outcome, result.candidate
    options = {"jobs": 2} if way == "jobs2" else {"jobs": 2, "ray": "local"}
    result = solve_cubes(
        problem,
        SearchOptions(
            min_vertices=n,
            max_vertices=n,
            engine="lazy",
            minimize_edges=False,
            split_after=1.0,
            **options,
        ),
    )
    return result.levels[-1].outcome, result.candidate


def run_case(case: str, ways: list[str], out: Path) -> bool:
    """Decide one case every way; True when all the ways agree."""
    key, n_text = case.split(":")
    problem, n = Problem.make(*FRONTIER[key]), int(n_text)
    outcomes = set()
    for way in ways:
        wall, cpu = time.monotonic(), time.process_time()
        outcome, candidate = decide(problem, n, way)
        row = {
            "problem": problem.title,
            "n": n,
            "way": way,
            "outcome": outcome,
            "wall_seconds": round(time.monotonic() - wall, 3),
            "cpu_seconds_this_process": round(time.process_time() - cpu, 3),
            "edges": None if candidate is None else len(candidate.graph.edges),
            "exhaustive_detector_agrees": None
            if candidate is None
            else second_check(problem, candidate),
            "load_before": os.getloadavg(),
        }
        if way == "ray":  # since 2026-12-03 a local cluster's workers are not reniced to 15
            row["ray_workers_at_callers_priority"] = True
        with out.open("a") as fh:
            fh.write(json.dumps(row) + "\n")
        print(json.dumps(row), flush=True)
        outcomes.add(outcome)
        if row["exhaustive_detector_agrees"] is False:
            return False
    return len(outcomes) == 1


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--cases", nargs="*", default=CASES, help="key:n, keys as bench/frontier.py"
    )
    parser.add_argument("--ways", nargs="*", default=WAYS, choices=WAYS)
    parser.add_argument("--out", type=Path, default=Path("cube-verdicts.jsonl"))
    args = parser.parse_args()
    for case in args.cases:
        key, _, n = case.partition(":")
        if key not in FRONTIER or not n.isdigit():
            parser.error(f"case {case!r}: expected KEY:N with KEY one of {', '.join(FRONTIER)}")
    agree = [run_case(case, args.ways, args.out) for case in args.cases]
    return 0 if all(agree) else 1


if __name__ == "__main__":
    sys.exit(main())
