"""Counterexample lemmas from the best of k extensions, on logged level-14 cubes of (K3, K4).

    .venv/bin/python bench/lemma_extensions.py [--tries 1,3] [--timeout 300]

The lazy engine extends each bad colouring of a candidate to K_n and adds the lemma "some copy
monochromatic under the extension is present"; :data:`ramseygadgets.search.cegar.EXTENSIONS_TRIED`
extensions are made (the edge order, then seeded shuffles) and the one with the fewest copies is
kept.  Each cube of :data:`CUBES` — "none" cubes of the blue-determiner's ``--max-edges 75`` run
and the eight cubes of ``bench/sparse_cubes.py`` (red-determiner) — is searched alone by
:func:`~ramseygadgets.search.cubes.run_cube` (a fresh finder, no shared lemmas, no split) once
per ``--tries`` value, in this one process, the order rotating from cube to cube.  Per cube:
outcome, CPU seconds, candidates; totals, ratios against the first ``--tries`` value, whether
every verdict agrees.  One JSON line goes to ``--out`` (default
``bench/results/lemma-extensions.jsonl``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from benchlog import append_run, timed_cube

from ramseygadgets.problems.problem import Problem
from ramseygadgets.search import cegar
from ramseygadgets.search.cubes import Cube, CubeTask
from ramseygadgets.search.spec import layouts

ROOT = Path(__file__).resolve().parents[1]
#: (gadget, edge cap, layout name, bits): logged "none" cubes of level 14.
CUBES = (
    ("blue-determiner", 75, "e=0-1", "111111111111111111111110"),
    ("blue-determiner", 75, "e=0-1", "111111111111101011110"),
    ("blue-determiner", 75, "e=0-1", "111111111101111011111011110"),
    ("blue-determiner", 75, "e=0-1", "111111111111101011111010"),
    ("blue-determiner", 75, "e=0-1", "1111110111010"),
    ("red-determiner", None, "e=0-1", "1111111101101111"),
    ("red-determiner", None, "e=0-1", "111111111111101011111011110"),
    ("red-determiner", None, "e=0-1", "11111111110111101111101110"),
    ("red-determiner", None, "e=0-1", "111111111111111011100"),
    ("red-determiner", None, "e=0-1", "11111111111111111111111100"),
    ("red-determiner", None, "e=0-1", "11111111110111011101"),
    ("red-determiner", None, "e=0-1", "111111100101110"),
    ("red-determiner", None, "e=0-1", "11111111111110111000"),
)


def run(item: tuple[str, int | None, str, str], tries: int, timeout: float) -> dict[str, Any]:
    """Search one cube alone with ``tries`` extensions per counterexample."""
    gadget, cap, layout_name, bits = item
    problem = Problem.make("K3", "K4", gadget)
    names = [lay.name for lay in layouts(problem.gadget, 14)]
    cube = Cube(14, names.index(layout_name), layout_name, bits)
    task = CubeTask(problem=problem, cube=cube, timeout=timeout, share=False, max_edges=cap)
    kept = cegar.EXTENSIONS_TRIED
    cegar.EXTENSIONS_TRIED = tries
    try:
        return timed_cube(task)
    finally:
        cegar.EXTENSIONS_TRIED = kept


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tries", default="1,3", help="extensions per counterexample, compared")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per cube")
    parser.add_argument("--out", type=Path, default=ROOT / "bench/results/lemma-extensions.jsonl")
    args = parser.parse_args(argv)
    tries = [int(t) for t in args.tries.split(",")]
    rows = []
    for i, item in enumerate(CUBES):
        order = tries[i % len(tries) :] + tries[: i % len(tries)]
        row: dict[str, Any] = {"problem": item[0], "max_edges": item[1], "bits": item[3]}
        for k in order:
            row[str(k)] = run(item, k, args.timeout)
        rows.append(row)
        cells = ", ".join(
            f"{k}: {row[str(k)]['outcome']} {row[str(k)]['cpu_seconds']:.1f} s "
            f"({row[str(k)]['candidates']} candidates)"
            for k in tries
        )
        print(f"{item[0]} {item[3]}: {cells}", flush=True)
    totals = {str(k): round(sum(r[str(k)]["cpu_seconds"] for r in rows), 2) for k in tries}
    base = totals[str(tries[0])]
    ratios = {k: round(base / v, 2) if v else None for k, v in totals.items()}
    agree = all(len({r[str(k)]["outcome"] for k in tries}) == 1 for r in rows)
    print(f"total CPU s: {totals}; against {tries[0]}: {ratios}; verdicts agree: {agree}")
    append_run(
        args.out,
        "lemma_extensions",
        {
            "cubes": rows,
            "cpu_seconds": totals,
            "ratio_against_first": ratios,
            "verdicts_agree": agree,
        },
        args,
    )
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
