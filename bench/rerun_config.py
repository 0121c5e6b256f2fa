"""What a re-run of logged cubes costs with the reductions of ``search/degrees.py`` off.

    .venv/bin/python bench/rerun_config.py LOG --problem negative-sender [--count 5] [--seed 0]

A re-run that is to confirm a cube log independently of the degree, edge and through rules
(:mod:`ramseygadgets.search.degrees`) searches the same cubes with ``degree_bound=False``.  This
draws ``--count`` of the log's "none" cubes whose logged CPU time lies in ``--min``..``--max``
seconds (``random.Random(--seed)``), searches each alone by
:func:`~ramseygadgets.search.cubes.run_cube` (a fresh finder, no shared lemmas, no split) with the
rules on and off, the order rotating from cube to cube, and prints per cube outcome, CPU seconds
and candidates, the totals and the ratio off / on.  A run past ``--timeout`` counts as the
timeout (the ratio is then a lower bound).  One JSON line goes to ``--out`` (default
``bench/results/rerun-config.jsonl``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

from benchlog import append_run, timed_cube

from ramseygadgets.problems.problem import Problem
from ramseygadgets.search.cubes import Cube, CubeTask
from ramseygadgets.search.spec import layouts

ROOT = Path(__file__).resolve().parents[1]


def draw(log: Path, count: int, low: float, high: float, seed: int) -> list[dict[str, Any]]:
    """``count`` none-cube records of ``log`` with logged CPU seconds in [low, high], seeded."""
    records = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    pool = [
        r
        for r in records
        if r.get("kind") == "cube"
        and r.get("outcome") == "none"
        and low <= r.get("cpu_seconds", 0.0) <= high
    ]
    pool.sort(key=lambda r: r["key"])
    return random.Random(seed).sample(pool, min(count, len(pool)))


def run(
    problem: Problem, record: dict[str, Any], degree_bound: bool, timeout: float
) -> dict[str, Any]:
    """Search one logged cube alone, with the degree rules on or off."""
    n = record["n"]
    names = [lay.name for lay in layouts(problem.gadget, n)]
    cube = Cube(n, names.index(record["layout"]), record["layout"], record["bits"])
    task = CubeTask(
        problem=problem,
        cube=cube,
        timeout=timeout,
        share=False,
        degree_bound=degree_bound,
        max_edges=record.get("max_edges"),
    )
    return timed_cube(task)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log", type=Path, help="a cube log (cubes.jsonl)")
    parser.add_argument("--problem", required=True, help="the (K3, K4) gadget of the log")
    parser.add_argument("--count", type=int, default=5)
    parser.add_argument("--min", type=float, default=2.0, help="least logged CPU s of a cube")
    parser.add_argument("--max", type=float, default=60.0, help="most logged CPU s of a cube")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per cube")
    parser.add_argument("--out", type=Path, default=ROOT / "bench/results/rerun-config.jsonl")
    args = parser.parse_args(argv)
    problem = Problem.make("K3", "K4", args.problem)
    rows = []
    for i, record in enumerate(draw(args.log, args.count, args.min, args.max, args.seed)):
        row: dict[str, Any] = {"key": record["key"], "logged_cpu_seconds": record["cpu_seconds"]}
        for on in (True, False) if i % 2 == 0 else (False, True):
            row["on" if on else "off"] = run(problem, record, on, args.timeout)
        rows.append(row)
        print(
            f"{record['key']} (logged {record['cpu_seconds']:.1f} s): "
            + ", ".join(
                f"{k}: {row[k]['outcome']} {row[k]['cpu_seconds']:.1f} s "
                f"({row[k]['candidates']} candidates)"
                for k in ("on", "off")
            ),
            flush=True,
        )
    totals = {k: round(sum(r[k]["cpu_seconds"] for r in rows), 2) for k in ("on", "off")}
    ratio = round(totals["off"] / totals["on"], 2) if totals["on"] else None
    agree = all(r["on"]["outcome"] == r["off"]["outcome"] == "none" for r in rows)
    print(f"total CPU s: {totals}; off / on: {ratio}; every verdict none: {agree}")
    append_run(
        args.out,
        "rerun_config",
        {"cubes": rows, "cpu_seconds": totals, "off_over_on": ratio, "verdicts_none": agree},
        args,
    )
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
