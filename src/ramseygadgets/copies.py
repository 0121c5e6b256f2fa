"""All copies of a pattern in a graph.

A *copy* of F in G is a (not necessarily induced) subgraph of G isomorphic to F, identified by
its edge set.  Copies are returned as sorted tuples of edge indices of G, each edge set once.

Counts in ``K_n`` (used by the tests): ``P3: n·C(n-1,2)``, ``K1,k: n·C(n-1,k)``, ``K3: C(n,3)``,
``P4, TK3: 12·C(n,4)``, ``C4: 3·C(n,4)``, ``K4-e: 6·C(n,4)``, ``K4: C(n,4)``.

Named patterns use dedicated enumerators over neighbour bitmasks; every other pattern goes
through a generic backtracking search for edge-set-distinct embeddings.
"""

from __future__ import annotations

from itertools import combinations
from typing import Callable, Iterator

from ramseygadgets.graphs import Graph
from ramseygadgets.patterns import Pattern

Copy = tuple[int, ...]


def _bits(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _above(v: int) -> int:
    """Bitmask of all vertices larger than v (up to a generous bound)."""
    return ~((1 << (v + 1)) - 1)


def star_copies(graph: Graph, k: int) -> list[Copy]:
    """``K1,k``: a centre and k of its edges (the centre is unique for k ≥ 2)."""
    out: list[Copy] = []
    for edges in graph.incident_edges:
        if len(edges) >= k:
            out.extend(tuple(sorted(c)) for c in combinations(edges, k))
    return out


def triangle_copies(graph: Graph) -> list[Copy]:
    adj, eid = graph.adjacency, graph.edge_index
    out: list[Copy] = []
    for (u, v), uv in eid.items():
        for w in _bits(adj[u] & adj[v] & _above(v)):
            out.append((uv, eid[(u, w)], eid[(v, w)]))
    return out


def path4_copies(graph: Graph) -> list[Copy]:
    """``P4`` a-b-c-d enumerated from its middle edge {b, c}."""
    nbrs, eid = graph.neighbors, graph.edge_index
    out: list[Copy] = []
    for (b, c), bc in eid.items():
        left = [(a, eid[(a, b) if a < b else (b, a)]) for a in nbrs[b] if a != c]
        right = [(d, eid[(c, d) if c < d else (d, c)]) for d in nbrs[c] if d != b]
        for a, ab in left:
            for d, cd in right:
                if a != d:
                    out.append(tuple(sorted((ab, bc, cd))))
    return out


def paw_copies(graph: Graph) -> list[Copy]:
    """``TK3``: a triangle plus one pendant edge at one of its vertices."""
    inc, edges = graph.incident_edges, graph.edges
    out: list[Copy] = []
    for tri in triangle_copies(graph):
        verts = {x for i in tri for x in edges[i]}
        for x in verts:
            for e in inc[x]:
                u, v = edges[e]
                if u not in verts or v not in verts:
                    out.append(tuple(sorted((*tri, e))))
    return out


def cycle4_copies(graph: Graph) -> list[Copy]:
    """``C4`` a-b-c-d with a the smallest vertex and c opposite to a."""
    adj, eid, n = graph.adjacency, graph.edge_index, graph.n
    out: list[Copy] = []
    for a in range(n):
        higher = _above(a)
        for c in range(a + 1, n):
            common = sorted(_bits(adj[a] & adj[c] & higher))
            for b, d in combinations(common, 2):
                out.append(tuple(sorted((eid[(a, b)], eid[(a, d)], eid[_key(b, c)], eid[_key(c, d)]))))
    return out


def diamond_copies(graph: Graph) -> list[Copy]:
    """``K4-e``: two triangles on a shared spine edge {u, v}."""
    adj, eid = graph.adjacency, graph.edge_index
    out: list[Copy] = []
    for (u, v), uv in eid.items():
        for x, y in combinations(list(_bits(adj[u] & adj[v])), 2):
            out.append(tuple(sorted((uv, eid[_key(u, x)], eid[_key(v, x)], eid[_key(u, y)], eid[_key(v, y)]))))
    return out


def k4_copies(graph: Graph) -> list[Copy]:
    adj, eid = graph.adjacency, graph.edge_index
    out: list[Copy] = []
    for (u, v), uv in eid.items():
        common = adj[u] & adj[v] & _above(v)
        for w in _bits(common):
            for x in _bits(common & adj[w] & _above(w)):
                out.append((uv, eid[(u, w)], eid[(u, x)], eid[(v, w)], eid[(v, x)], eid[(w, x)]))
    return out


def _key(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def generic_copies(graph: Graph, pattern_graph: Graph) -> list[Copy]:
    """Backtracking over injective maps V(F) → V(G) that keep edges; each edge set once."""
    fn = pattern_graph.n
    # visit pattern vertices so that each (after the first) has an earlier neighbour
    order = [0]
    while len(order) < fn:
        for v in range(fn):
            if v not in order and any(u in order for u in pattern_graph.neighbors[v]):
                order.append(v)
                break
        else:  # disconnected pattern: append the rest in order
            order.extend(v for v in range(fn) if v not in order)
    back = [[order.index(u) for u in pattern_graph.neighbors[v] if order.index(u) < i] for i, v in enumerate(order)]
    pattern_edges = [(order.index(u), order.index(v)) for u, v in pattern_graph.edges]
    adj, eid, n = graph.adjacency, graph.edge_index, graph.n
    full = (1 << n) - 1
    found: set[Copy] = set()
    image = [0] * fn

    def extend(i: int, used: int) -> None:
        if i == fn:
            found.add(tuple(sorted(eid[_key(image[a], image[b])] for a, b in pattern_edges)))
            return
        candidates = full & ~used
        for j in back[i]:
            candidates &= adj[image[j]]
        for w in _bits(candidates):
            image[i] = w
            extend(i + 1, used | (1 << w))

    extend(0, 0)
    return sorted(found)


_SPECIALISED: dict[str, Callable[[Graph], list[Copy]]] = {
    "k3": triangle_copies,
    "p4": path4_copies,
    "tk3": paw_copies,
    "c4": cycle4_copies,
    "k4e": diamond_copies,
    "k4": k4_copies,
}


def find_copies(pattern: Pattern, graph: Graph) -> list[Copy]:
    """All copies of ``pattern`` in ``graph`` as sorted tuples of edge indices, without duplicates."""
    if graph.m < pattern.graph.m:
        return []
    k = pattern.star_k
    if k is not None:
        return star_copies(graph, k)
    special = _SPECIALISED.get(pattern.slug)
    if special is not None:
        return special(graph)
    return generic_copies(graph, pattern.graph)
