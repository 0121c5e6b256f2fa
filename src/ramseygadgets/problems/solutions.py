"""The dataset's shipped minimal solutions (``data/solutions.json``).

*Minimal* means: fewest vertices, then fewest edges among graphs with that many vertices.
Each record holds the graph, its designated items, ``n``, ``m`` and how it was obtained.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from ramseygadgets.core.errors import UnknownProblemError
from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.problems.catalog import get_problem

__all__ = [
    "SOLUTIONS_FILE",
    "Solution",
    "load_solutions",
    "get_solution",
]


SOLUTIONS_FILE = "solutions.json"


@dataclass(frozen=True)
class Solution:
    """A minimal solution of one catalog problem."""

    problem_id: str
    candidate: Candidate
    method: str
    extra: dict[str, Any]

    @property
    def n(self) -> int:
        return self.candidate.graph.n

    @property
    def m(self) -> int:
        return self.candidate.graph.m

    def to_json(self) -> dict[str, Any]:
        gadget = get_problem(self.problem_id).kind
        return {
            "problem_id": self.problem_id,
            "n": self.n,
            "m": self.m,
            **self.candidate.to_json(gadget),
            "method": self.method,
            **self.extra,
        }


@lru_cache(maxsize=1)
def load_solutions() -> dict[str, Solution]:
    """All shipped solutions by problem id (empty if the data file is absent)."""
    try:
        text = resources.files("ramseygadgets.data").joinpath(SOLUTIONS_FILE).read_text()
    except (FileNotFoundError, ModuleNotFoundError):
        return {}
    out: dict[str, Solution] = {}
    for record in json.loads(text)["solutions"]:
        problem = get_problem(record["problem_id"])
        candidate = Candidate.from_json(record, problem.kind, max_vertices=None)
        known = {"problem_id", "n", "m", "edges", "e", "f", "vertices", "method"}
        extra = {k: v for k, v in record.items() if k not in known}
        out[problem.id] = Solution(problem.id, candidate, record.get("method", ""), extra)
    return out


def get_solution(problem_id: str) -> Solution:
    problem = get_problem(problem_id)
    try:
        return load_solutions()[problem.id]
    except KeyError:
        raise UnknownProblemError(f"no shipped solution for {problem.id}") from None
