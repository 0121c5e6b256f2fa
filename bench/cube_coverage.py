"""What a cube log proves, layout by layout: the coverage re-derived, never read from the log.

    .venv/bin/python bench/cube_coverage.py --F K3 --H K4 --gadget negative-sender \\
        bench/results/cubes/k3_k4_negative_sender-13.jsonl

For every level n of the problem in the log and every engine that decided cubes there: per
layout, the cubes decided none, the share of the layout's prefix assignments they hold
(Σ 2^−depth, a lower bound) and whether they and the prefixes unit propagation refutes cover
the layout (:func:`ramseygadgets.search.cubes.covered`, the check behind ``solve
--assume-none-below``).  A covered layout holds no solution on n vertices; the level is none
when every layout is covered by one engine's cubes.  A logged solution is verified
(:func:`ramseygadgets.verifier.verify`) before it is reported.  Exit code 0.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ramseygadgets.catalog import Problem
from ramseygadgets.search.cubelog import read_log
from ramseygadgets.search.cubeproof import layout_covered, logged_candidate, none_cubes
from ramseygadgets.search.spec import layouts
from ramseygadgets.verifier import verify


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("log", type=Path, help="a cube log (cubes.jsonl) or its directory")
    parser.add_argument("--F", required=True)
    parser.add_argument("--H", required=True)
    parser.add_argument("--gadget", required=True)
    args = parser.parse_args()
    problem = Problem.make(args.F, args.H, args.gadget)
    path = args.log / "cubes.jsonl" if args.log.is_dir() else args.log
    records = [r for r in read_log(path) if r.get("problem_id") == problem.id]
    for r in records:
        if r.get("kind") == "cube" and r["outcome"] == "found" and r.get("edges"):
            ok = verify(problem, logged_candidate(problem, r)).correct
            print(f"n = {r['n']}: a logged solution ({len(r['edges'])} edges), verify: {ok}")
    for (n, engine), decided in sorted(none_cubes(records).items()):
        every = True
        for i, lay in enumerate(layouts(problem.gadget, n)):
            bits = decided.get(lay.name, set())
            share = sum(2.0 ** -len(b) for b in bits)
            ok = layout_covered(problem, n, engine, i, decided)
            every &= ok
            verdict = "covered: no solution in this layout" if ok else "not covered"
            print(
                f"n = {n}, {engine}, '{lay.name}': {len(bits)} cubes, {share * 100:.3g}%; {verdict}"
            )
        if every:
            print(f"n = {n}, {engine}: none on {n} vertices (every layout covered)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
