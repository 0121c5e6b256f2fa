"""Whole (K3, K4) levels with and without the through rule (issue 34, sixth session).

    .venv/bin/python bench/through_rule.py [--cubes 16] [--timeout 600] [--sparse-timeout 60]

The through rule (:mod:`ramseygadgets.search.degrees`, *through a designated edge*): a designated
edge whose colour a witness-to-bad flip changes lies in a K_s of the flipped-to colour in every
solution — the blue-determiner's e in a triangle, the red-determiner's e and both edges of a
sender in a K4.  For each level of :data:`LEVELS` (all "none"), every planned cube
(:func:`~ramseygadgets.search.cubes.generate_cubes`) is searched alone — a fresh finder, no
shared lemmas, no split — by :func:`~ramseygadgets.search.cubes.run_cube` with the rule
(``through``) and without it (``before``: :func:`~ramseygadgets.search.exists.through_cliques`
replaced by one that names no edge), in this one process, the order alternating from cube to
cube.  Per level: CPU seconds, candidates, the ratio, whether every verdict agrees.  Then the
sparse level-14 cubes of :data:`SPARSE` (planned cubes the cube runs found hard) the same way,
each variant stopped after ``--sparse-timeout`` seconds.  One JSON line goes to ``--out``
(default ``bench/results/through-rule.jsonl``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from benchlog import append_run

from ramseygadgets.problems.problem import Problem
from ramseygadgets.search import exists
from ramseygadgets.search.cubes import Cube, CubeTask, clear_finders, generate_cubes, run_cube
from ramseygadgets.search.spec import layouts

ROOT = Path(__file__).resolve().parents[1]
#: (gadget, n): levels of (K3, K4) with no solution, each a few CPU minutes at most.
LEVELS = (
    ("negative-sender", 12),
    ("positive-sender", 11),
    ("red-determiner", 12),
    ("blue-determiner", 12),
)
#: (gadget, n, layout index, bits): sparse planned cubes of level 14.
SPARSE = (
    ("blue-determiner", 14, 0, "10"),
    ("negative-sender", 14, 0, "110"),
)
VARIANTS = ("before", "through")
RULE = exists.through_cliques


def run(problem: Problem, cube: Cube, variant: str, timeout: float) -> dict[str, Any]:
    """Search one cube alone with or without the rule."""
    exists.through_cliques = RULE if variant == "through" else (lambda *_: {})
    clear_finders()
    start = time.process_time()
    task = CubeTask(problem=problem, cube=cube, timeout=timeout, share=False)
    try:
        result = run_cube(task)
    finally:
        exists.through_cliques = RULE
        clear_finders()
    return {
        "outcome": result["outcome"],
        "cpu_seconds": time.process_time() - start,
        "candidates": result["candidates"],
    }


def level(gadget: str, n: int, cubes: int, timeout: float) -> dict[str, Any]:
    """Both variants over every planned cube of one level."""
    problem = Problem.make("K3", "K4", gadget)
    plan = generate_cubes(problem, n, cubes)
    names = [lay.name for lay in layouts(problem.gadget, n)]
    totals = {v: {"cpu_seconds": 0.0, "candidates": 0} for v in VARIANTS}
    agree = True
    for i, planned in enumerate(plan.cubes):
        cube = Cube(n, planned.layout, names[planned.layout], planned.bits)
        outcomes = set()
        for variant in VARIANTS[i % 2 :] + VARIANTS[: i % 2]:
            row = run(problem, cube, variant, timeout)
            totals[variant]["cpu_seconds"] += row["cpu_seconds"]
            totals[variant]["candidates"] += row["candidates"]
            outcomes.add(row["outcome"])
        agree = agree and outcomes == {"none"}
    for v in VARIANTS:
        totals[v]["cpu_seconds"] = round(totals[v]["cpu_seconds"], 2)
    ratio = totals["before"]["cpu_seconds"] / max(totals["through"]["cpu_seconds"], 1e-9)
    return {
        "problem": problem.id,
        "n": n,
        "cubes": len(plan.cubes),
        **totals,
        "ratio": round(ratio, 2),
        "verdicts_agree": agree,
    }


def sparse_cube(gadget: str, n: int, layout: int, bits: str, timeout: float) -> dict[str, Any]:
    """Both variants on one sparse cube, each stopped after ``timeout`` seconds."""
    problem = Problem.make("K3", "K4", gadget)
    cube = Cube(n, layout, layouts(problem.gadget, n)[layout].name, bits)
    row: dict[str, Any] = {"problem": problem.id, "key": cube.key}
    for variant in VARIANTS:
        row[variant] = run(problem, cube, variant, timeout)
        row[variant]["cpu_seconds"] = round(row[variant]["cpu_seconds"], 2)
    print(
        f"{problem.id} cube {cube.key}: "
        + ", ".join(
            f"{v} {row[v]['outcome']} in {row[v]['cpu_seconds']:.2f} s "
            f"({row[v]['candidates']} candidates)"
            for v in VARIANTS
        ),
        flush=True,
    )
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cubes", type=int, default=16, help="planned cubes per level")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per cube")
    parser.add_argument("--sparse-timeout", type=float, default=60.0, help="seconds per cube")
    parser.add_argument("--out", type=Path, default=ROOT / "bench/results/through-rule.jsonl")
    args = parser.parse_args(argv)
    rows = []
    for gadget, n in LEVELS:
        row = level(gadget, n, args.cubes, args.timeout)
        rows.append(row)
        print(
            f"{row['problem']} n={n} ({row['cubes']} cubes): before "
            f"{row['before']['cpu_seconds']:.1f} s ({row['before']['candidates']} candidates), "
            f"through {row['through']['cpu_seconds']:.1f} s "
            f"({row['through']['candidates']} candidates): {row['ratio']}×, "
            f"verdicts agree: {row['verdicts_agree']}",
            flush=True,
        )
    agree = all(r["verdicts_agree"] for r in rows)
    sparse = [sparse_cube(*item, args.sparse_timeout) for item in SPARSE]
    append_run(
        args.out,
        "through_rule",
        {
            "levels": rows,
            "sparse": sparse,
            "verdicts_agree": agree,
        },
        args,
    )
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
