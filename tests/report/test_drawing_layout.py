"""Graph drawings (issue 12): no edge passes within a vertex radius of a vertex not on it, and a
disconnected answer is drawn component by component at the same scale, side by side."""

from __future__ import annotations

import math
import random

import pytest

from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.solutions import load_solutions
from ramseygadgets.report.drawing import layout, vertex_radius


def closest_approach(graph: Graph, positions) -> tuple[float, str]:
    """Smallest distance from a vertex to an edge not on it, by plain geometry (independent of
    the module's vectorised check), and which pair it is."""
    best, where = math.inf, ""
    for u, v in graph.edges:
        (ax, ay), (bx, by) = positions[u], positions[v]
        dx, dy = bx - ax, by - ay
        for w in range(graph.n):
            if w in (u, v):
                continue
            px, py = positions[w]
            t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
            gap = math.hypot(px - ax - t * dx, py - ay - t * dy)
            if gap < best:
                best, where = gap, f"edge {u}-{v} passes {gap:.3f} from vertex {w}"
    return best, where


def random_graphs(count: int, seed: int = 7) -> list[Graph]:
    rng = random.Random(seed)
    graphs = []
    for _ in range(count):
        n = rng.randint(4, 12)
        p = rng.uniform(0.15, 0.6)
        edges = tuple((u, v) for u in range(n) for v in range(u + 1, n) if rng.random() < p)
        graphs.append(Graph(n, edges))
    return graphs


@pytest.mark.parametrize(
    "graph",
    [s.candidate.graph for s in load_solutions().values()] + random_graphs(25),
)
def test_no_edge_passes_through_a_vertex(graph):
    positions = layout(graph)
    assert all(0 <= x <= 1 and 0 <= y <= 1 for x, y in positions)
    gap, where = closest_approach(graph, positions)
    assert gap >= vertex_radius(graph.n), where


def test_components_side_by_side_at_normal_scale():
    triangle, path, isolated = [0, 1, 2], [3, 4, 5, 6], [7]
    graph = Graph(8, ((0, 1), (0, 2), (1, 2), (3, 4), (4, 5), (5, 6)))
    positions = layout(graph)

    def box(vertices):
        xs = [positions[v][0] for v in vertices]
        ys = [positions[v][1] for v in vertices]
        return min(xs), min(ys), max(xs), max(ys)

    boxes = [box(c) for c in (triangle, path, isolated)]
    for i, a in enumerate(boxes):  # no two components overlap
        for b in boxes[i + 1 :]:
            assert a[2] < b[0] or b[2] < a[0] or a[3] < b[1] or b[3] < a[1], (a, b)
    for vertices in (triangle, path):  # each drawn at a readable size, not shrunk into a corner
        x0, y0, x1, y1 = box(vertices)
        assert max(x1 - x0, y1 - y0) >= 0.25
    gap, where = closest_approach(graph, positions)
    assert gap >= vertex_radius(graph.n), where
