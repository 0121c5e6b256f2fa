"""``random``: an honest baseline that answers a random graph of a plausible size.

Per sample (seeded by the run's seed and the sample key, so a rerun gives the same answers):
``n`` uniform in the dataset's range of minimal sizes (4..10 for the 70 problems), edge
density ``p`` uniform in [0.2, 0.8], each pair an edge with probability ``p``; designated
edges drawn from the graph's edges, designated vertices from its vertices.  The answer is
written in the documented answer format, so parsing and verification run as for a model.
"""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

from ramseygadgets.answers import format_answer
from ramseygadgets.core.gadgets import Candidate, Designated
from ramseygadgets.core.graphs import Graph
from ramseygadgets.harness.types import ChatRequest, Completion

__all__ = [
    "random_candidate",
    "RandomBackend",
]


def random_candidate(rng: random.Random, gadget: Any, low: int, high: int) -> Candidate:
    n = rng.randint(low, high)
    n = max(n, len(gadget.vertex_names), 2 * len(gadget.edge_names), 3)
    density = rng.uniform(0.2, 0.8)
    pairs = list(combinations(range(n), 2))
    edges = [pair for pair in pairs if rng.random() < density]
    needed = len(gadget.edge_names)
    while len(edges) < needed:
        extra = rng.choice([p for p in pairs if p not in edges])
        edges.append(extra)
    designated_edges = tuple(rng.sample(sorted(edges), needed))
    vertices = tuple(rng.sample(range(n), len(gadget.vertex_names)))
    return Candidate(Graph(n, tuple(edges)), Designated(designated_edges, vertices))


class RandomBackend:
    name = "random"

    def __init__(self, problem_set: Any, seed: int | None = None):
        self.low, self.high = problem_set.size_range()
        self.seed = 0 if seed is None else seed

    def describe(self) -> dict[str, Any]:
        return {"kind": "random", "sizes": [self.low, self.high], "density": [0.2, 0.8]}

    async def start(self) -> None:
        return None

    async def close(self) -> None:
        return None

    async def complete(self, request: ChatRequest) -> Completion:
        rng = random.Random(f"{self.seed}/{request.key.label()}/{request.round_no}")
        candidate = random_candidate(rng, request.problem.kind, self.low, self.high)
        return Completion(
            content=format_answer(candidate, request.problem.kind), finish_reason="stop"
        )
