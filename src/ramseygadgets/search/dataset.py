"""The dataset's shipped minimal solutions: build ``data/solutions.json`` with the finder.

Each record: ``problem_id``, ``n``, ``m``, ``edges``, the designated items (``e``/``f`` or
``vertices``), ``method``, ``seconds``, ``proof`` (no solution on n − 1 vertices: UNSAT),
``min_edges`` and ``edges_proof`` (no solution on n vertices with m − 1 edges: UNSAT), and,
where the exhaustive enumeration was run, ``cross_check``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path
from typing import Any

from ramseygadgets.infra.files import atomic_write
from ramseygadgets.problems.catalog import all_problems, get_problem
from ramseygadgets.search.oracle import LARGE_LEVEL, LARGE_LEVEL_SOLVER, ORACLE_SOLVER
from ramseygadgets.search.solve import SearchResult

__all__ = [
    "SOLUTIONS_PATH",
    "METHOD",
    "search_method",
    "solution_record",
    "write_solutions",
]

SOLUTIONS_PATH = Path(__file__).resolve().parent.parent / "data" / "solutions.json"

_METHOD = "cegar-sat (ramseygadgets.search, PySAT {})"
METHOD = _METHOD.format(ORACLE_SOLVER)


def search_method(n: int | None) -> str:
    """The method of a search whose largest level searched is ``n``: :data:`METHOD`, naming the
    exists part's backend from :data:`.oracle.LARGE_LEVEL` vertices on too (``auto`` picks it)."""
    if n is None or n < LARGE_LEVEL:
        return METHOD
    return _METHOD.format(
        f"{ORACLE_SOLVER}; exists part {LARGE_LEVEL_SOLVER} from {LARGE_LEVEL} vertices"
    )


def solution_record(result: SearchResult, cross_check: str | None = None) -> dict[str, Any]:
    """The JSON record of a proven-minimal search result."""
    if (
        result.candidate is None
        or result.n is None
        or result.m is None
        or not result.edges_minimal
        or result.lower_bound != result.n
    ):
        raise ValueError(
            f"{result.problem_id}: only proven-minimal results can be shipped ({result.describe()})"
        )
    n, m = result.n, result.m
    record: dict[str, Any] = {
        "problem_id": result.problem_id,
        "n": n,
        "m": m,
        **result.candidate.to_json(result.problem.gadget),
        "method": search_method(n),
        "seconds": round(result.seconds, 3),
        "proof": f"no solution on {n - 1} vertices (UNSAT)",
        "min_edges": m,
        "edges_proof": f"no solution on {n} vertices with {m - 1} edges (UNSAT)",
        "graph6": result.candidate.graph.to_graph6(),
    }
    if cross_check:
        record["cross_check"] = cross_check
    return record


def write_solutions(
    records: Iterable[dict[str, Any]],
    path: Path = SOLUTIONS_PATH,
    command: str = "bench/solve_all.py --write-solutions",
) -> Path:
    """Write records in catalog order (atomically: a temporary file, then a rename).

    ``command``: how the file was produced, recorded in its header.
    """
    order = {p.id: i for i, p in enumerate(all_problems())}
    rows = sorted(records, key=lambda r: order.get(get_problem(r["problem_id"]).id, len(order)))
    try:
        version = metadata.version("ramseygadgets")
    except metadata.PackageNotFoundError:  # pragma: no cover
        version = "unknown"
    data = {
        "description": "One minimal solution per RamseyGadgets problem: fewest vertices, then fewest edges. "
        "Found and proven minimal by the CEGAR SAT search (ramseygadgets.search).",
        "minimal": "fewest vertices n (no solution on n-1 vertices), then fewest edges m among solutions on n vertices",
        "generator": f"ramseygadgets {version}: {command}",
        "solutions": rows,
    }
    head = json.dumps({k: v for k, v in data.items() if k != "solutions"}, indent=1)[:-2]
    body = ",\n".join("  " + json.dumps(r, separators=(", ", ": ")) for r in rows)
    return atomic_write(path, f'{head},\n "solutions": [\n{body}\n ]\n}}\n')
