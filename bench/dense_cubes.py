"""Dense level-14 cubes of the (K3, K4)-negative-sender: whole, split at run time, lemmas kept.

    .venv/bin/python bench/dense_cubes.py [--split 30] [--variants whole,split,split-inherit]

Issue 48: the open planned cubes of the level-14 log are dense prefixes ("1…10": the first
vertices span a clique of 7–9 vertices), each stopped once at the run's ``--split-after 120``.
Each cube of :data:`CUBES` — dense cubes the level-14 run logged "none" in 50–110 CPU s — is
searched in this one process, fresh finders per variant, the order rotating from cube to cube:

* ``whole``: :func:`~ramseygadgets.search.cubes.run_cube` with no time limit;
* ``split``: as the scheduler ran a cube on one worker before the ninth session: stopped
  after ``--split`` seconds and replaced by its two halves (those propagation does not refute),
  depth first, each half again split after ``--split`` seconds; the process keeps the newest
  :data:`~ramseygadgets.search.cubes.MAX_KEPT_LEMMAS` lemmas from piece to piece;
* ``split-keep-all``: the same with every lemma kept;
* ``split-inherit``: ``split`` with each half given every lemma its split ancestors learned
  (``CubeTask.inherited``, as the scheduler does since the ninth session), kept out of its
  solver until a candidate breaks one (:mod:`ramseygadgets.search.deferred`, tenth session);
* ``split-inherit-clauses``: the same with every inherited lemma a clause from the start (the
  ninth session's way);
* ``minisat``: ``whole`` with MiniSat as the exists solver (CaDiCaL is the default from 13
  vertices);
* ``rules-off``: ``whole`` without the degree, edge, floor and through rules of
  :mod:`ramseygadgets.search.degrees` (what the sparse cubes gained most from).

Per cube and variant: outcome, CPU seconds, candidates, pieces searched; totals and ratios
against ``whole``; whether every verdict agrees.  One JSON line goes to ``--out`` (default
``bench/results/dense-cubes.jsonl``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from benchlog import append_run, timed_cube

from ramseygadgets.problems.problem import Problem
from ramseygadgets.search import cubes as cube_module
from ramseygadgets.search.cubes import Cube, CubeTask, Refuter, clear_finders, run_cube
from ramseygadgets.search.spec import layouts

#: (layout, bits) of dense cubes logged "none" in
#: ``bench/results/cubes/k3_k4_negative_sender-14-partial.jsonl`` (logged CPU s in comments).
CUBES = (
    ("f adjacent to e", "11111111111111111111111111101"),  # 53.5 s
    ("f adjacent to e", "111111111111111111111110"),  # 77.7 s
    ("f adjacent to e", "111111111111111111110"),  # 86.8 s
)
VARIANTS = (
    "whole",
    "split",
    "split-keep-all",
    "split-inherit",
    "split-inherit-clauses",
    "minisat",
    "rules-off",
)


def search(problem: Problem, cube: Cube, variant: str, split: float) -> dict[str, Any]:
    """One cube by one variant (module docstring), in fresh finders."""
    if not variant.startswith("split"):
        solver = "minisat22" if variant == "minisat" else "auto"
        rules = variant != "rules-off"
        task = CubeTask(problem=problem, cube=cube, share=False, solver=solver, degree_bound=rules)
        return {**timed_cube(task), "pieces": 1}
    clear_finders()
    kept, deferred = cube_module.MAX_KEPT_LEMMAS, cube_module.DEFER_INHERITED
    cube_module.DEFER_INHERITED = variant != "split-inherit-clauses"
    if variant == "split-keep-all":
        cube_module.MAX_KEPT_LEMMAS = None
    start = time.process_time()
    try:
        inherit = variant.startswith("split-inherit")
        outcome, candidates, pieces = _split_depth_first(problem, cube, split, inherit)
    finally:
        cube_module.MAX_KEPT_LEMMAS, cube_module.DEFER_INHERITED = kept, deferred
        clear_finders()
    return {
        "outcome": outcome,
        "cpu_seconds": round(time.process_time() - start, 3),
        "candidates": candidates,
        "pieces": pieces,
    }


def _split_depth_first(
    problem: Problem, cube: Cube, split: float, inherit: bool
) -> tuple[str, int, int]:
    """Search ``cube`` with run-time splits, the halves depth first (each inheriting its
    ancestors' lemmas with ``inherit``): (outcome, candidates, pieces)."""
    layout = layouts(problem.gadget, cube.n)[cube.layout]
    refuter = Refuter(problem, cube.n, layout)
    stack: list[tuple[str, list[Any]]] = [(cube.bits, [])]
    candidates = pieces = 0
    try:
        while stack:
            bits, inherited = stack.pop()
            piece = Cube(cube.n, cube.layout, cube.layout_name, bits)
            task = CubeTask(problem=problem, cube=piece, split_after=split, inherited=inherited)
            result = run_cube(task)
            candidates, pieces = candidates + result["candidates"], pieces + 1
            if result["outcome"] == "found":
                return "found", candidates, pieces
            if result["outcome"] == "split":
                lemmas = (inherited + result["learned"]) if inherit else []
                lemmas = lemmas[-cube_module.MAX_INHERITED_LEMMAS :]
                halves = [bits + b for b in "01" if not refuter.refuted(bits + b)]
                stack += [(half, lemmas) for half in halves]  # "1" first: the denser half
        return "none", candidates, pieces
    finally:
        refuter.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", type=float, default=30.0, help="seconds before a split")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument(
        "--inherit-cap",
        type=int,
        default=cube_module.MAX_INHERITED_LEMMAS,
        help="lemmas a half inherits at most (MAX_INHERITED_LEMMAS)",
    )
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).parent / "results/dense-cubes.jsonl"
    )
    args = parser.parse_args(argv)
    variants = tuple(args.variants.split(","))
    unknown = set(variants) - set(VARIANTS)
    if unknown:
        raise SystemExit(f"unknown variants {sorted(unknown)}; choose from {', '.join(VARIANTS)}")
    cube_module.MAX_INHERITED_LEMMAS = args.inherit_cap
    problem = Problem.make("K3", "K4", "negative-sender")
    names = [lay.name for lay in layouts(problem.gadget, 14)]
    rows = []
    for i, (layout, bits) in enumerate(CUBES):
        cube = Cube(14, names.index(layout), layout, bits)
        order = variants[i % len(variants) :] + variants[: i % len(variants)]
        row: dict[str, Any] = {"key": cube.key}
        for name in order:
            row[name] = search(problem, cube, name, args.split)
            cell = row[name]
            print(
                f"{cube.key} {name}: {cell['outcome']} {cell['cpu_seconds']:.1f} s, "
                f"{cell['candidates']} candidates, {cell['pieces']} pieces",
                flush=True,
            )
        rows.append(row)
    totals = {name: round(sum(r[name]["cpu_seconds"] for r in rows), 2) for name in variants}
    agree = all(len({r[name]["outcome"] for name in variants}) == 1 for r in rows)
    base = totals.get("whole")
    ratios = {name: round(base / t, 2) if base and t else None for name, t in totals.items()}
    print("total CPU s: " + ", ".join(f"{name} {t}" for name, t in totals.items()))
    print(f"speed against whole: {ratios}, verdicts agree: {agree}")
    append_run(
        args.out,
        "dense_cubes",
        {"cubes": rows, "cpu_seconds": totals, "speed_against_whole": ratios, "agree": agree},
        args,
    )
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
