"""A worker's kept lemmas from cube to cube: all of them, against the newest ``MAX_KEPT_LEMMAS``.

    .venv/bin/python bench/finder_reuse.py level --n 13 --cubes 32 --repeat 2
    .venv/bin/python bench/finder_reuse.py sequence --seconds 60 BITS...   # cubes of level 14

Both modes compare :data:`ramseygadgets.search.cubes.MAX_KEPT_LEMMAS` = ``None`` (every lemma
kept and handed to each cube's finder) with the current cap, each run in a fresh process on the
(K3, K4)-red-determiner, alternating which goes first.  (The file's lines before 2026-12-05
measured the design before: one finder kept from cube to cube, the cube as assumptions, replaced
past the cap.)

* ``level``: ``solve_cubes`` decides level n with one worker; wall seconds and the cubes' CPU
  seconds (the level record's ``cube_cpu_seconds``);
* ``sequence``: the given cubes of level 14 (bit strings, layout ``e=0-1``) one after another in
  one process, each for at most ``--seconds``; per cube the outcome, CPU seconds and candidates
  tried (the throughput of the exists solver as lemmas pile up).

One JSON line per run goes to ``--out`` (default ``bench/results/finder-reuse.jsonl``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

LEVEL = """
import json, sys, time
from ramseygadgets.problems.problem import Problem
from ramseygadgets.search import cubes
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.search.parallel import solve_cubes
cap, n, count = json.loads(sys.argv[1])
cubes.MAX_KEPT_LEMMAS = cap
problem = Problem.make("K3", "K4", "red-determiner")
levels = []
start = time.monotonic()
options = SearchOptions(min_vertices=n, max_vertices=n, jobs=1, cubes=count, minimize_edges=False)
result = solve_cubes(problem, options, on_level=levels.append)
print(json.dumps({"wall_seconds": round(time.monotonic() - start, 2), "status": result.status,
                  "cube_cpu_seconds": round(levels[-1].cpu_seconds, 2)}))
"""

SEQUENCE = """
import json, sys, time
from ramseygadgets.problems.problem import Problem
from ramseygadgets.search import cubes
from ramseygadgets.search.cubes import Cube, CubeTask, run_cube
from ramseygadgets.search.spec import layouts
cap, seconds, bits_list = json.loads(sys.argv[1])
cubes.MAX_KEPT_LEMMAS = cap
problem = Problem.make("K3", "K4", "red-determiner")
layout = layouts(problem.gadget, 14)[0]
rows = []
for bits in bits_list:
    task = CubeTask(problem=problem, cube=Cube(14, 0, layout.name, bits), engine="lazy",
                    solver="cadical195", timeout=seconds, share=False)
    start = time.process_time()
    r = run_cube(task)
    rows.append({"bits": bits, "outcome": r["outcome"], "candidates": r["candidates"],
                 "cpu_seconds": round(time.process_time() - start, 2)})
print(json.dumps({"cubes": rows}))
"""


def run_child(code: str, argument: object) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", code, json.dumps(argument)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("mode", choices=["level", "sequence"])
    parser.add_argument("bits", nargs="*", help="sequence: cubes of level 14")
    parser.add_argument("--n", type=int, default=13)
    parser.add_argument("--cubes", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--out", type=Path, default=ROOT / "bench/results/finder-reuse.jsonl")
    args = parser.parse_intermixed_args()
    from ramseygadgets.search.cubes import MAX_KEPT_LEMMAS

    for round_ in range(args.repeat):
        caps = [None, MAX_KEPT_LEMMAS] if round_ % 2 == 0 else [MAX_KEPT_LEMMAS, None]
        for cap in caps:
            if args.mode == "level":
                row = run_child(LEVEL, [cap, args.n, args.cubes])
                row.update(n=args.n, cubes=args.cubes)
            else:
                row = run_child(SEQUENCE, [cap, args.seconds, args.bits])
                row.update(n=14, seconds=args.seconds)
            row.update(mode=args.mode, max_kept_lemmas=cap, round=round_)
            print(json.dumps(row), flush=True)
            with args.out.open("a", encoding="utf-8") as out:
                out.write(json.dumps(row) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
