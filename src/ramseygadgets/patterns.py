"""Forbidden patterns F and H: the named graphs of the paper and any small connected graph.

Names are case-insensitive and ignore ``,``, ``_``, spaces and the kind of dash, so
``K1,3 = K13 = K1_3 = claw``, ``TK3 = paw``, ``K4-e = K4e = K4−e = diamond``.  Families
``Pk`` (path on k vertices), ``Ck``, ``Kk``, ``K1,k`` and ``Kk-e`` are also understood.
Any other pattern can be given as an edge list (``0-1,1-2,2-0``) or a graph6 string.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import combinations

from ramseygadgets.errors import GraphFormatError, UnknownPatternError
from ramseygadgets.graphs import Graph, parse_graph

#: Largest pattern the copy enumerators accept (vertices).
MAX_PATTERN_VERTICES = 12


@dataclass(frozen=True)
class Pattern:
    """A connected forbidden graph with a display name and a URL-safe slug."""

    name: str
    slug: str
    graph: Graph

    @cached_property
    def star_k(self) -> int | None:
        """``k`` when the pattern is the star ``K1,k`` (``P3 = K1,2``), else ``None``."""
        g = self.graph
        if g.m == g.n - 1 and g.n >= 3 and max(g.degree(v) for v in range(g.n)) == g.m:
            return g.m
        return None

    @property
    def is_star(self) -> bool:
        return self.star_k is not None

    def __str__(self) -> str:
        return self.name


def _path(k: int) -> Graph:
    return Graph(k, tuple((i, i + 1) for i in range(k - 1)))


def _cycle(k: int) -> Graph:
    return Graph(k, tuple((i, i + 1) for i in range(k - 1)) + ((0, k - 1),))


def _star(k: int) -> Graph:
    return Graph(k + 1, tuple((0, i) for i in range(1, k + 1)))


def _complete_minus_edge(k: int) -> Graph:
    return Graph(k, tuple(e for e in combinations(range(k), 2) if e != (k - 2, k - 1)))


#: The paper's eight patterns, in the order used by the catalog.
PAPER_PATTERNS: tuple[tuple[str, str, Graph], ...] = (
    ("P3", "p3", _path(3)),
    ("K3", "k3", Graph.complete(3)),
    ("K1,3", "k13", _star(3)),
    ("P4", "p4", _path(4)),
    ("TK3", "tk3", Graph(4, ((0, 1), (0, 2), (1, 2), (2, 3)))),
    ("C4", "c4", _cycle(4)),
    ("K4-e", "k4e", _complete_minus_edge(4)),
    ("K4", "k4", Graph.complete(4)),
)

_ALIASES = {
    "PAW": "TK3",
    "TRIANGLE": "K3",
    "CLAW": "K1,3",
    "DIAMOND": "K4E",
    "SQUARE": "C4",
    "CHERRY": "P3",
}


def _normalize(name: str) -> str:
    key = name.strip().upper()
    key = re.sub(r"^K1[,_\s]+(\d+)$", r"K1,\1", key)  # K1,3 / K1_3 / K1 3 -> K1,3
    key = re.sub(r"^K1([2-9])$", r"K1,\1", key)  # K13 -> K1,3 (a single digit after K1)
    key = re.sub(r"[\s_]", "", key)
    key = re.sub(r"[-−–—]", "-", key)
    key = key.replace("-E", "E")
    return _ALIASES.get(key, key)


def _family(key: str) -> tuple[str, str, Graph] | None:
    """Patterns by family name: Pk, Ck, Kk, K1,k, Kk-e (refused before building when too large)."""
    if m := re.fullmatch(r"(K1,|P|C|K)(\d+)E?", key):
        digits = m.group(2)
        if len(digits) > 3 or int(digits) + (m.group(1) == "K1,") > MAX_PATTERN_VERTICES:
            raise UnknownPatternError(
                f"pattern {key} is too large: at most {MAX_PATTERN_VERTICES} vertices are supported"
            )
    if m := re.fullmatch(r"P(\d+)", key):
        k = int(m.group(1))
        return (f"P{k}", f"p{k}", _path(k)) if k >= 3 else None
    if m := re.fullmatch(r"C(\d+)", key):
        k = int(m.group(1))
        return (f"C{k}", f"c{k}", _cycle(k)) if k >= 3 else None
    if m := re.fullmatch(r"K1,(\d+)", key):
        k = int(m.group(1))
        return (f"K1,{k}", f"k1{k}", _star(k)) if k >= 2 else None
    if m := re.fullmatch(r"K(\d+)E", key):
        k = int(m.group(1))
        return (f"K{k}-e", f"k{k}e", _complete_minus_edge(k)) if k >= 3 else None
    if m := re.fullmatch(r"K(\d+)", key):
        k = int(m.group(1))
        return (f"K{k}", f"k{k}", Graph.complete(k)) if k >= 3 else None
    return None


@lru_cache(maxsize=512)
def get_pattern(spec: str) -> Pattern:
    """Resolve a pattern name, edge list or graph6 string to a connected :class:`Pattern`."""
    if not isinstance(spec, str) or not spec.strip():
        raise UnknownPatternError("empty pattern name")
    key = _normalize(spec)
    for name, slug, graph in PAPER_PATTERNS:
        if _normalize(name) == key:
            return Pattern(name, slug, graph)
    found = _family(key)
    if found is None:
        try:
            graph = parse_graph(spec, max_vertices=MAX_PATTERN_VERTICES)
        except GraphFormatError as exc:
            raise UnknownPatternError(
                f"unknown pattern {spec!r}: not a known name (P3, K1,3, K3, P4, TK3/paw, C4, K4-e, K4, "
                f"Pk, Ck, Kk, K1,k, Kk-e) and not a readable edge list or graph6 string ({exc})"
            ) from None
        found = (spec.strip(), "", graph)
    name, slug, graph = found
    if graph.m < 2 or not graph.is_connected():
        raise UnknownPatternError(
            f"pattern {name} must be connected with at least 3 vertices (got {graph.n} "
            f"vertices, {graph.m} edge{'s' if graph.m != 1 else ''})"
        )
    canonical = canonical_graph6(graph)
    for paper_name, paper_slug, paper_graph in PAPER_PATTERNS:  # e.g. C3 = K3, K1,2 = P3
        if (
            paper_graph.m == graph.m
            and paper_graph.n == graph.n
            and canonical_graph6(paper_graph) == canonical
        ):
            return Pattern(paper_name, paper_slug, paper_graph)
    return Pattern(name, slug or "g" + canonical.encode().hex(), graph)


@lru_cache(maxsize=1024)
def canonical_graph6(graph: Graph) -> str:
    """graph6 of the canonical relabelling (nauty): equal strings iff the graphs are isomorphic."""
    import pynauty

    g = pynauty.Graph(
        graph.n, adjacency_dict={v: list(nbrs) for v, nbrs in enumerate(graph.neighbors)}
    )
    position = {old: new for new, old in enumerate(pynauty.canon_label(g))}
    return Graph(graph.n, tuple((position[u], position[v]) for u, v in graph.edges)).to_graph6()
