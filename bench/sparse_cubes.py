"""The sparse cubes of level 14 of the (K3, K4)-red-determiner, the engine before issue 34 and now.

    .venv/bin/python bench/sparse_cubes.py [--pick [--count 8] [--low 5] [--high 60]] [--timeout 300]

The cubes: :data:`FIXED`, eight sub-cubes of the sparse planned cubes that the level-14 run
decided "none" (their records in ``bench/results/cubes/k3_k4_red_determiner-14.jsonl``), the set
every published figure used; ``--pick`` drew it from an earlier state of the log, before the level
was finished.  ``--pick`` draws a new set: ``--count`` cubes logged "none" in ``--low`` …
``--high`` CPU seconds, spread evenly over that range (sorted by logged time, every k-th).  Each
cube is searched alone — a fresh finder, no shared lemmas (the run that logged them had both, so
logged times differ) — by each :data:`VARIANTS` entry, in this one process, the order rotating
from cube to cube:

* ``before``: the engine when the issue was filed — the cube as assumptions of a
  :class:`~ramseygadgets.search.cegar.LayoutFinder`, no degree bounds, one extension per
  counterexample;
* ``degree-bound``: the same with the degree bounds of :mod:`ramseygadgets.search.degrees`
  (since the sixth session with its through rule);
* ``now``: :func:`ramseygadgets.search.cubes.run_cube` as the scheduler runs it (degree bounds,
  the cube as unit clauses of a fresh finder, the best of three extensions).

Per cube: outcome, CPU seconds (finder set-up included), candidates; totals, the ratios against
``before`` and whether every verdict agrees.  One JSON line goes to ``--out`` (default
``bench/results/sparse-cubes.jsonl``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from benchlog import append_run

from ramseygadgets.problems.problem import Problem
from ramseygadgets.search import cegar
from ramseygadgets.search.cegar import LayoutFinder
from ramseygadgets.search.cubelog import read_log
from ramseygadgets.search.cubes import Cube, CubeTask, clear_finders, run_cube, split_edges
from ramseygadgets.search.oracle import SearchTimeout
from ramseygadgets.search.spec import Layout, layouts

ROOT = Path(__file__).resolve().parents[1]
LOG = ROOT / "bench/results/cubes/k3_k4_red_determiner-14.jsonl"
#: The bench's fixed set of cubes (keys of :data:`LOG`).
FIXED = (
    "14|e=0-1|1111111101101111",
    "14|e=0-1|111111111111101011111011110",
    "14|e=0-1|11111111110111101111101110",
    "14|e=0-1|111111111111111011100",
    "14|e=0-1|11111111111111111111111100",
    "14|e=0-1|11111111110111011101",
    "14|e=0-1|111111100101110",
    "14|e=0-1|11111111111110111000",
)
VARIANTS = ("before", "degree-bound", "now")


def fixed(records: list[dict]) -> list[dict]:
    """The none-records of :data:`FIXED`, in its order."""
    by_key = {r["key"]: r for r in records if r.get("kind") == "cube" and r["outcome"] == "none"}
    missing = [key for key in FIXED if key not in by_key]
    if missing:
        raise SystemExit(f"{LOG}: no none-record of the bench's cubes {', '.join(missing)}")
    return [by_key[key] for key in FIXED]


def pick(records: list[dict], count: int, low: float, high: float) -> list[dict]:
    """``count`` none-cubes of level 14 logged with ``low`` ≤ CPU s ≤ ``high``, evenly spread."""
    rows = [
        r
        for r in records
        if r.get("kind") == "cube"
        and r["outcome"] == "none"
        and r["n"] == 14
        and low <= r["cpu_seconds"] <= high
    ]
    rows.sort(key=lambda r: (r["cpu_seconds"], r["key"]))
    if len(rows) <= count:
        return rows
    step = len(rows) / count
    return [rows[int(i * step + step / 2)] for i in range(count)]


def run(problem: Problem, record: dict, variant: str, timeout: float) -> dict:
    """Search one logged cube alone with the engine ``variant`` (module docstring)."""
    lays = layouts(problem.gadget, record["n"])
    layout = [lay.name for lay in lays].index(record["layout"])
    cube = Cube(record["n"], layout, record["layout"], record["bits"])
    clear_finders()
    start = time.process_time()
    if variant == "now":
        result = run_cube(CubeTask(problem=problem, cube=cube, timeout=timeout, share=False))
        outcome, candidates, pruned = (
            result["outcome"],
            result["candidates"],
            result["pruned_as_not_lex_max"],
        )
    else:
        outcome, candidates, pruned = _assumed(problem, cube, lays[layout], variant, timeout)
    clear_finders()
    return {
        "outcome": outcome,
        "cpu_seconds": round(time.process_time() - start, 3),
        "candidates": candidates,
        "pruned": pruned,
    }


def _assumed(
    problem: Problem, cube: Cube, layout: Layout, variant: str, timeout: float
) -> tuple[str, int, int]:
    """The cube as assumptions of one finder, one extension per counterexample (the engine
    before issue 34, with or without the degree bounds)."""
    fixed = list(zip(split_edges(cube.n, layout), (b == "1" for b in cube.bits)))
    kept, cegar.EXTENSIONS_TRIED = cegar.EXTENSIONS_TRIED, 1
    try:
        with LayoutFinder(
            problem, cube.n, layout, engine="lazy", degree_bound=variant == "degree-bound"
        ) as finder:
            try:
                found = finder.find(deadline=time.monotonic() + timeout, within=fixed)
                outcome = "found" if found is not None else "none"
            except SearchTimeout:
                outcome = "timeout"
            return outcome, finder.stats.candidates, finder.stats.pruned
    finally:
        cegar.EXTENSIONS_TRIED = kept


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pick", action="store_true", help="draw the cubes from the log")
    parser.add_argument("--count", type=int, default=8)
    parser.add_argument("--low", type=float, default=5.0)
    parser.add_argument("--high", type=float, default=60.0)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--out", type=Path, default=ROOT / "bench/results/sparse-cubes.jsonl")
    args = parser.parse_args(argv)
    problem = Problem.make("K3", "K4", "red-determiner")
    records = read_log(LOG)
    chosen = pick(records, args.count, args.low, args.high) if args.pick else fixed(records)
    rows = []
    for i, record in enumerate(chosen):
        order = VARIANTS[i % 3 :] + VARIANTS[: i % 3]
        row = {"key": record["key"], "logged_cpu_seconds": record["cpu_seconds"]}
        for name in order:
            row[name] = run(problem, record, name, args.timeout)
        rows.append(row)
        cells = ", ".join(
            f"{name} {row[name]['outcome']} {row[name]['cpu_seconds']:.1f} s "
            f"({row[name]['candidates']} candidates)"
            for name in VARIANTS
        )
        print(f"{record['key']}: {cells}", flush=True)
    totals = {name: round(sum(r[name]["cpu_seconds"] for r in rows), 2) for name in VARIANTS}
    agree = all(len({r[name]["outcome"] for name in VARIANTS}) == 1 for r in rows)
    ratios = {
        name: round(totals["before"] / totals[name], 2) if totals[name] else None
        for name in VARIANTS[1:]
    }
    print("total CPU s: " + ", ".join(f"{name} {totals[name]}" for name in VARIANTS))
    print(f"against before: {ratios}, verdicts agree: {agree}")
    append_run(
        args.out,
        "sparse_cubes",
        {
            "cubes": rows,
            "cpu_seconds": totals,
            "ratio_against_before": ratios,
            "verdicts_agree": agree,
        },
        args,
    )
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
