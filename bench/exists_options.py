"""CaDiCaL's options for the exists solver: its defaults against ``CADICAL_OPTIONS``.

    .venv/bin/python bench/exists_options.py [--options elim=0,stable=0,probe=0] [--repeat 1]

The exists solver of a level-14 cube gets one lemma clause per candidate and is called tens of
thousands of times, each call short; CaDiCaL's defaults are tuned for one long solve
(bounded variable elimination, probing, stable-mode phases).  Each cube is searched alone —
:func:`~ramseygadgets.search.cubes.run_cube`, fresh finders, no shared lemmas — with the
defaults (``default``) and with the options (``options``; default: the shipped
:data:`~ramseygadgets.search.exists.CADICAL_OPTIONS`), in this one process, the order rotating
from cube to cube:

* the three dense cubes of the (K3, K4)-negative-sender's level 14 of ``bench/dense_cubes.py``;
* the eight sparse cubes of the (K3, K4)-red-determiner's level 14 of ``bench/sparse_cubes.py``.

Per cube and variant: outcome, CPU seconds (finder set-up included), candidates; totals per set,
ratios against ``default``, whether every verdict agrees.  One JSON line goes to ``--out``
(default ``bench/results/exists-options.jsonl``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from benchlog import append_run, timed_cube
from dense_cubes import CUBES as DENSE
from sparse_cubes import FIXED as SPARSE

from ramseygadgets.problems.problem import Problem
from ramseygadgets.search import exists
from ramseygadgets.search.cubes import Cube, CubeTask
from ramseygadgets.search.spec import layouts

VARIANTS = ("default", "options")


def cubes() -> list[tuple[str, Problem, Cube]]:
    """(set name, problem, cube) of every bench cube."""
    out = []
    sets = (
        ("dense", Problem.make("K3", "K4", "negative-sender"), DENSE),
        ("sparse", Problem.make("K3", "K4", "red-determiner"), [k.split("|")[1:] for k in SPARSE]),
    )
    for name, problem, keys in sets:
        names = [lay.name for lay in layouts(problem.gadget, 14)]
        for layout, bits in keys:
            out.append((name, problem, Cube(14, names.index(layout), layout, bits)))
    return out


def search(problem: Problem, cube: Cube, options: dict[str, int]) -> dict[str, Any]:
    """One cube alone with the exists solver's CaDiCaL options ``options``."""
    shipped = exists.CADICAL_OPTIONS
    exists.CADICAL_OPTIONS = options
    try:
        return timed_cube(CubeTask(problem=problem, cube=cube, share=False))
    finally:
        exists.CADICAL_OPTIONS = shipped


def parse_options(text: str | None) -> dict[str, int]:
    if text is None:
        return dict(exists.CADICAL_OPTIONS)
    pairs = [item.split("=", 1) for item in text.split(",") if item]
    return {name: int(value) for name, value in pairs}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--options", help="name=value,… (default: CADICAL_OPTIONS)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each cube and variant")
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).parent / "results/exists-options.jsonl"
    )
    args = parser.parse_args(argv)
    configs = {"default": {}, "options": parse_options(args.options)}
    print(f"options: {configs['options']}", flush=True)
    rows = []
    for i, (group, problem, cube) in enumerate(cubes() * args.repeat):
        order = VARIANTS[i % 2 :] + VARIANTS[: i % 2]
        row: dict[str, Any] = {"set": group, "key": cube.key}
        for name in order:
            cell = row[name] = search(problem, cube, configs[name])
            print(
                f"{group} {cube.key} {name}: {cell['outcome']} {cell['cpu_seconds']:.1f} s, "
                f"{cell['candidates']} candidates",
                flush=True,
            )
        rows.append(row)
    totals = {
        group: {
            name: round(sum(r[name]["cpu_seconds"] for r in rows if r["set"] == group), 1)
            for name in VARIANTS
        }
        for group in ("dense", "sparse")
    }
    for group, total in totals.items():
        ratio = total["default"] / total["options"] if total["options"] else float("nan")
        total["speed-up"] = round(ratio, 3)
        print(f"{group}: default {total['default']} s, options {total['options']} s: {ratio:.2f}×")
    agree = all(r["default"]["outcome"] == r["options"]["outcome"] for r in rows)
    print(f"verdicts agree: {agree}")
    figures = {"options": configs["options"], "totals": totals, "agree": agree, "cubes": rows}
    append_run(args.out, "exists_options", figures, args)
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
