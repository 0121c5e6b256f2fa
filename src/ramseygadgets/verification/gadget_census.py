"""Which multi-colour gadgets a given graph contains, for any choice of designated edges.

Used by the exhaustive census (:mod:`ramseygadgets.scaleout.census`): every graph of a geng
slice is asked, for each problem, whether *some* designated edges make it a solution.

Good colourings are sampled as they are found; a question already answered by a sample costs
no SAT call.  Determiner for colour k: an edge whose colour set (over all good colourings,
:meth:`~.colorings.MultiColorings.edge_colors`) is {k}.  Senders: candidate pairs are edges
whose colours agree (positive) / differ (negative) in every sample so far; a candidate is
tested with one SAT call per colour, and a colouring that refutes it becomes a new sample.
"""

from __future__ import annotations

from collections.abc import Iterable

from ramseygadgets.colorings.multi import MultiColorings
from ramseygadgets.colorings.spec import ColoringSpec
from ramseygadgets.core.gadgets import Designated
from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.problem import Problem

__all__ = [
    "gadgets_in_graph_multi",
]


class _Samples:
    def __init__(self, graph: Graph, spec: ColoringSpec) -> None:
        self.sat = MultiColorings(graph, spec)
        self.rows: list[tuple[int, ...]] = []

    def query(self, assumptions: list[int]) -> bool:
        found = self.sat.solve(assumptions)
        if found is None:
            return False
        self.rows.append(found.colors)
        return True

    def signature(self, edge: int) -> tuple[int, ...]:
        return tuple(row[edge] for row in self.rows)


def _sender_pair(s: _Samples, movable: list[int], positive: bool) -> tuple[int, int] | None:
    c = s.sat.c
    while True:
        pair = None
        sig = {i: s.signature(i) for i in movable}
        for a in movable:
            for b in movable if not positive else [x for x in movable if x > a]:
                if a == b:
                    continue
                if (
                    positive
                    and sig[a] == sig[b]
                    or not positive
                    and all(x != y for x, y in zip(sig[a], sig[b]))
                ):
                    pair = (a, b)
                    break
            if pair:
                break
        if pair is None:
            return None
        a, b = pair
        refuted = False
        for k in range(c):
            la, lb = s.sat.lit(a, k), s.sat.lit(b, k)
            if s.query([la, -lb] if positive else [la, lb]):
                refuted = True
                break
        if not refuted:
            return pair


def gadgets_in_graph_multi(
    graph: Graph, problems: Iterable[Problem]
) -> dict[str, Designated] | None:
    """Problem id → designated edges making ``graph`` a solution (only problems it solves).

    All problems must share one spec.  ``None`` when the graph is not good.
    """
    problems = list(problems)
    if not problems:
        return {}
    spec = problems[0].spec
    samples = _Samples(graph, spec)
    try:
        colors = samples.sat.edge_colors()
        if graph.m and not colors[0]:
            return None  # not good: no colouring at all
        found: dict[str, Designated] = {}
        movable = [i for i, cs in enumerate(colors) if len(cs) >= 2]
        first = samples.sat.solve()
        if first is not None:
            samples.rows.append(first.colors)
        for p in problems:
            if p.kind == "determiner":
                forced = [i for i, cs in enumerate(colors) if cs == {p.color}]
                if forced:
                    found[p.id] = Designated((graph.edges[forced[0]],))
            else:
                pair = _sender_pair(samples, movable, p.kind == "positive-sender")
                if pair is not None:
                    found[p.id] = Designated((graph.edges[pair[0]], graph.edges[pair[1]]))
        return found
    finally:
        samples.sat.close()
