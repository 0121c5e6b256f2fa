"""What a cube log proves, layout by layout: the coverage re-derived, never read from the log.

    .venv/bin/python bench/cube_coverage.py --F K3 --H K4 --gadget negative-sender \\
        bench/results/cubes/k3_k4_negative_sender-13.jsonl

For every level n of the problem in the log and every engine that decided cubes there: per
layout, the cubes decided none, the share of the layout's prefix assignments they hold
(Σ 2^−depth, a lower bound) and whether they and the prefixes unit propagation refutes cover
the layout (:func:`ramseygadgets.search.cubes.covered`, the check behind ``solve
--assume-none-below``).  A covered layout holds no solution on n vertices; the level is none
when every layout is covered by one engine's cubes.  A logged solution is verified
(:func:`ramseygadgets.verify.verify`) before it is reported.  Exit code 0.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ramseygadgets.catalog import Problem
from ramseygadgets.gadgets import Candidate
from ramseygadgets.graphs import Graph
from ramseygadgets.search.cubelog import read_log
from ramseygadgets.search.cubes import Refuter, covered
from ramseygadgets.search.spec import layouts
from ramseygadgets.verify import verify


def decided_cubes(path: Path, problem: Problem) -> dict[tuple[int, str], dict[str, set[str]]]:
    """{(n, engine): {layout name: bit strings of the cubes decided none}}; logged solutions are
    verified and printed on the way."""
    out: dict[tuple[int, str], dict[str, set[str]]] = {}
    for record in read_log(path):
        if record.get("kind") != "cube" or record.get("problem_id") != problem.id:
            continue
        if record["outcome"] == "found" and record.get("edges"):
            print_solution(problem, record)
        if record["outcome"] == "none":
            by_layout = out.setdefault((record["n"], record["engine"]), {})
            by_layout.setdefault(record["layout"], set()).add(record["bits"])
    return out


def print_solution(problem: Problem, record: dict) -> None:
    n = record["n"]
    layout = next(lay for lay in layouts(problem.gadget, n) if lay.name == record["layout"])
    graph = Graph(n, tuple((int(u), int(v)) for u, v in record["edges"]))
    ok = verify(problem, Candidate(graph, layout.designated)).correct
    print(f"n = {n}: a logged solution ({len(graph.edges)} edges), verify: {ok}")


def layout_covered(
    problem: Problem, n: int, engine: str, layout_index: int, bits: set[str]
) -> bool:
    lay = layouts(problem.gadget, n)[layout_index]
    refuter = Refuter(problem, n, lay, engine)
    try:
        return covered(refuter, bits)
    finally:
        refuter.close()


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
    for (n, engine), by_layout in sorted(decided_cubes(path, problem).items()):
        every = True
        for i, lay in enumerate(layouts(problem.gadget, n)):
            bits = by_layout.get(lay.name, set())
            share = sum(2.0 ** -len(b) for b in bits)
            ok = layout_covered(problem, n, engine, i, bits)
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
