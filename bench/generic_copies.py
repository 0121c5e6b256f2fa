"""Benchmark: the generic copy enumerator on the atlas's solutions.

For every solved atlas entry, every forbidden pattern without a dedicated enumerator (W4, K5,
gem, the generated ones, …) has its copies listed in the entry's graph by
:func:`ramseygadgets.colorings.copies.find_copies`, best of ``--rounds``.  Prints the total
seconds, the number of copies (equal in every checkout: the same copies are listed) and the
slowest item, and appends them to ``bench/results/generic_copies.jsonl`` with the commit that
ran, so that two checkouts run back to back compare as a ratio.

Usage: ``.venv/bin/python bench/generic_copies.py [--rounds 3]``
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from benchlog import append_run

from ramseygadgets.atlas import load_atlas
from ramseygadgets.colorings.copies import find_copies
from ramseygadgets.core.graphs import Graph
from ramseygadgets.core.patterns import Pattern

#: Patterns with a dedicated enumerator (``copies._SPECIALISED``) or a star.
DEDICATED = frozenset({"k3", "p4", "tk3", "c4", "k4e", "k4"})


def items() -> list[tuple[str, Pattern, Graph]]:
    found = []
    for entry in load_atlas().entries.values():
        if entry.solution is None:
            continue
        graph = entry.candidate().graph
        for pattern in (entry.problem.F, entry.problem.H):
            if pattern.star_k is None and pattern.slug not in DEDICATED:
                found.append((f"{pattern.name} in {entry.title}", pattern, graph))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path("bench/results/generic_copies.jsonl"))
    args = parser.parse_args()
    work = items()
    best = [float("inf")] * len(work)
    copies = 0
    for _ in range(args.rounds):
        copies = 0
        for i, (_, pattern, graph) in enumerate(work):
            fresh = Graph(graph.n, graph.edges)  # nothing derived cached from the last round
            start = time.perf_counter()
            copies += len(find_copies(pattern, fresh))
            best[i] = min(best[i], time.perf_counter() - start)
    slowest = max(range(len(work)), key=best.__getitem__)
    figures = {
        "items": len(work),
        "copies": copies,
        "total_s": round(sum(best), 3),
        "slowest": work[slowest][0],
        "slowest_s": round(best[slowest], 3),
    }
    print(
        f"{figures['items']} pattern-graph pairs, {copies:,} copies: {figures['total_s']} s "
        f"(best of {args.rounds}); slowest {figures['slowest_s']} s ({figures['slowest']})"
    )
    append_run(args.out, "generic_copies", figures, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
