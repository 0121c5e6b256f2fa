"""Which question the lazy engine asks a candidate first: its witnesses, or its bad conditions.

    .venv/bin/python bench/question_order.py [--policies witnesses,bad,adaptive]

Issue 48 (fifteenth session): on a dense level-14 cube of the (K3, K4)-negative-sender every
candidate has both witnesses, so the two witness queries the engine asked first were two thirds
of the oracle's calls and taught nothing; where candidates miss witnesses ((K3, K4−e)), the
arrowing lemma a missing one gives is worth asking for.  Policies
(:meth:`~ramseygadgets.search.cegar.LayoutFinder._witnesses_first`):

* ``witnesses``: witnesses first for every candidate (the engine before this bench);
* ``bad``: the bad conditions first for every candidate;
* ``adaptive``: the engine now — witnesses first over a warm-up, on a sample after it, and
  always while enough of the candidates so asked missed one.

Items: logged "none" cubes of level 14 (:data:`CUBES`, each alone with fresh finders, as
``bench/lemma_extensions.py``) and whole levels (:data:`LEVELS`, ``find_solution`` at one
vertex count), each searched by every policy in this one process, the order rotating.  CPU
seconds, candidates and arrowing lemmas per item and policy; totals and ratios against
``witnesses``; whether the verdicts agree.  One JSON line goes to ``--out``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchlog import append_run, timed_cube

from ramseygadgets.problems.problem import Problem
from ramseygadgets.search import cegar, find_solution
from ramseygadgets.search.cubes import Cube, CubeTask
from ramseygadgets.search.options import SearchOptions
from ramseygadgets.search.spec import layouts

ROOT = Path(__file__).resolve().parent.parent

#: (F, H, gadget, bits) of cubes of layout 0 logged "none" at level 14 (CPU s logged).
CUBES = (
    ("K3", "K4", "negative-sender", "11111111111111111111111111101"),  # dense, 53.5 s
    ("K3", "K4", "red-determiner", "1111111101101111"),
    ("K3", "K4", "red-determiner", "111111111111111011100"),
    ("K3", "K4", "red-determiner", "11111111111110111000"),
)
#: (F, H, gadget, n) decided whole: the first two with many arrowing lemmas.
LEVELS = (
    ("K3", "K4-e", "red-determiner", 10),
    ("K3", "K4-e", "negative-sender", 9),
    ("K3", "K4", "negative-sender", 12),
    ("K3", "K4", "positive-sender", 11),
    ("K3", "K4", "blue-determiner", 12),
)
POLICIES: dict[str, Callable[[cegar.LayoutFinder], bool] | None] = {
    "witnesses": lambda finder: True,
    "bad": lambda finder: False,
    "adaptive": None,  # the engine's own rule
}


@contextmanager
def policy(name: str) -> Iterator[None]:
    """Run the engine with the question order ``name`` (:data:`POLICIES`)."""
    rule = POLICIES[name]
    kept = cegar.LayoutFinder._witnesses_first
    if rule is not None:
        cegar.LayoutFinder._witnesses_first = rule  # type: ignore[method-assign]
    try:
        yield
    finally:
        cegar.LayoutFinder._witnesses_first = kept  # type: ignore[method-assign]


def run_cube(item: tuple[str, str, str, str]) -> dict[str, Any]:
    f, h, gadget, bits = item
    problem = Problem.make(f, h, gadget)
    layout = layouts(problem.gadget, 14)[0]
    cube = Cube(14, 0, layout.name, bits)
    return timed_cube(CubeTask(problem=problem, cube=cube, share=False))


def run_level(item: tuple[str, str, str, int], timeout: float) -> dict[str, Any]:
    f, h, gadget, n = item
    start = time.process_time()
    options = SearchOptions(timeout=timeout, engine="lazy", minimize_edges=False)
    level = find_solution(Problem.make(f, h, gadget), n, options).levels[-1]
    return {
        "outcome": level.outcome,
        "cpu_seconds": round(time.process_time() - start, 3),
        "candidates": level.candidates,
        "arrowing": level.arrowing,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policies", default=",".join(POLICIES))
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per level")
    parser.add_argument("--out", type=Path, default=ROOT / "bench/results/question-order.jsonl")
    args = parser.parse_args(argv)
    names = args.policies.split(",")
    unknown = set(names) - set(POLICIES)
    if unknown:
        raise SystemExit(f"unknown policies {sorted(unknown)}; choose from {', '.join(POLICIES)}")
    items: list[tuple[str, Callable[[], dict[str, Any]]]] = [
        (f"{f},{h} {g} cube {bits}", lambda it=(f, h, g, bits): run_cube(it))
        for f, h, g, bits in CUBES
    ]
    items += [
        (f"{f},{h} {g} n={n}", lambda it=(f, h, g, n): run_level(it, args.timeout))
        for f, h, g, n in LEVELS
    ]
    rows = []
    for i, (key, search) in enumerate(items):
        row: dict[str, Any] = {"item": key}
        for name in names[i % len(names) :] + names[: i % len(names)]:
            with policy(name):
                row[name] = search()
        rows.append(row)
        cells = ", ".join(
            f"{name} {row[name]['outcome']} {row[name]['cpu_seconds']:.1f} s "
            f"({row[name]['candidates']} candidates)"
            for name in names
        )
        print(f"{key}: {cells}", flush=True)
    totals = {name: round(sum(r[name]["cpu_seconds"] for r in rows), 2) for name in names}
    base = totals[names[0]]
    ratios = {name: round(base / t, 2) if t else None for name, t in totals.items()}
    agree = all(len({r[name]["outcome"] for name in names}) == 1 for r in rows)
    print(f"total CPU s: {totals}; against {names[0]}: {ratios}; verdicts agree: {agree}")
    append_run(
        args.out,
        "question_order",
        {"items": rows, "cpu_seconds": totals, "ratio_against_first": ratios, "agree": agree},
        args,
    )
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
