"""All copies of a pattern in a graph.

A *copy* of F in G is a (not necessarily induced) subgraph of G isomorphic to F, identified by
its edge set.  Copies are returned as sorted tuples of edge indices of G, each edge set once.

Counts in ``K_n`` (used by the tests): ``P3: n·C(n-1,2)``, ``K1,k: n·C(n-1,k)``, ``K3: C(n,3)``,
``P4, TK3: 12·C(n,4)``, ``C4: 3·C(n,4)``, ``K4-e: 6·C(n,4)``, ``K4: C(n,4)``.

Named patterns use dedicated enumerators that visit every copy exactly once from a canonical
anchor (the centre of a star, the smallest vertex of a triangle / K4 / C4, the middle edge of a
P4, the spine of a K4−e, the triangle of a paw), reading edge labels from an n×n matrix.  Every
other pattern goes through a generic backtracking search for edge-set-distinct embeddings.

``find_copies(pattern, graph, labels=...)`` returns each copy as the tuple of its edges'
*labels* instead of indices (in no particular order): with ``labels[i] = ±(i + 1)`` the copies
are directly the SAT clauses of :mod:`ramseygadgets.colorings.red_blue`, with no second pass.
:func:`count_copies` counts copies of the named patterns in O(m·Δ) without listing them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from itertools import combinations
from math import comb
from typing import Any

import pynauty

from ramseygadgets.core.errors import GraphTooLargeError
from ramseygadgets.core.graphs import Graph, label_matrix
from ramseygadgets.core.patterns import Pattern

__all__ = [
    "Copy",
    "Matrix",
    "star_copies",
    "triangle_copies",
    "path4_copies",
    "paw_copies",
    "cycle4_copies",
    "diamond_copies",
    "k4_copies",
    "generic_copies",
    "symmetry_conditions",
    "find_copies",
    "count_copies",
    "MAX_BITMASK_VERTICES",
    "count_all_copies",
]


Copy = tuple[int, ...]
Matrix = Sequence[Any]  # L[u][v]: list rows, or dict rows for huge graphs


def _bits(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _label_matrix(graph: Graph, labels: Sequence[int] | None) -> Matrix:
    """``L[u][v]`` = label of edge {u, v} (its index when ``labels`` is None)."""
    return graph.index_matrix if labels is None else label_matrix(graph, labels)


# ---------------------------------------------------------------------------------------------
# Specialised enumerators: (graph, L) -> list of label tuples, every copy once.
# ---------------------------------------------------------------------------------------------
def _stars(graph: Graph, L: Matrix, k: int) -> list[Copy]:
    """``K1,k``: a centre and k of its edges (the centre is unique for k ≥ 2)."""
    out: list[Copy] = []
    for v, nbrs in enumerate(graph.neighbors):
        if len(nbrs) >= k:
            row = L[v]
            out.extend(combinations([row[w] for w in nbrs], k))
    return out


def _triangles(graph: Graph, L: Matrix) -> list[Copy]:
    """``K3`` u < v < w."""
    adj, up = graph.adjacency, graph.up_neighbors
    out: list[Copy] = []
    for u in range(graph.n):
        Lu, au = L[u], adj[u]
        for v in up[u]:
            Lv, uv = L[v], Lu[v]
            for w in up[v]:
                if au >> w & 1:
                    out.append((uv, Lu[w], Lv[w]))
    return out


def _paws(graph: Graph, L: Matrix) -> list[Copy]:
    """``TK3``: a triangle u < v < w plus one pendant edge from one of its vertices outwards."""
    adj, up, nbrs = graph.adjacency, graph.up_neighbors, graph.neighbors
    out: list[Copy] = []
    for u in range(graph.n):
        Lu, au = L[u], adj[u]
        for v in up[u]:
            Lv, uv = L[v], Lu[v]
            for w in up[v]:
                if au >> w & 1:
                    Lw, uw, vw = L[w], Lu[w], Lv[w]
                    for x, Lx in ((u, Lu), (v, Lv), (w, Lw)):
                        for y in nbrs[x]:
                            if y != u and y != v and y != w:
                                out.append((uv, uw, vw, Lx[y]))
    return out


def _paths4(graph: Graph, L: Matrix) -> list[Copy]:
    """``P4`` a-b-c-d enumerated from its middle edge {b, c}, b < c."""
    nbrs, up = graph.neighbors, graph.up_neighbors
    out: list[Copy] = []
    for b in range(graph.n):
        Lb = L[b]
        for c in up[b]:
            Lc, bc = L[c], Lb[c]
            right = [(d, Lc[d]) for d in nbrs[c] if d != b]
            if not right:
                continue
            for a in nbrs[b]:
                if a != c:
                    ab = Lb[a]
                    for d, cd in right:
                        if a != d:
                            out.append((ab, bc, cd))
    return out


def _cycles4(graph: Graph, L: Matrix) -> list[Copy]:
    """``C4`` a-b-c-d with a the smallest vertex, c opposite to a, {b, d} unordered."""
    nbrs, up = graph.neighbors, graph.up_neighbors
    out: list[Copy] = []
    for a in range(graph.n):
        ups = up[a]
        if len(ups) < 2:
            continue
        middles: dict[int, list[int]] = {}
        for b in ups:
            for c in nbrs[b]:
                if c > a:
                    middles.setdefault(c, []).append(b)
        La = L[a]
        for c, bs in middles.items():
            if len(bs) > 1:
                Lc = L[c]
                for i, b in enumerate(bs):
                    ab, bc = La[b], Lc[b]
                    for d in bs[i + 1 :]:
                        out.append((ab, bc, Lc[d], La[d]))
    return out


def _diamonds(graph: Graph, L: Matrix) -> list[Copy]:
    """``K4-e``: two triangles on a shared spine edge {u, v}, u < v (the spine is unique)."""
    adj, nbrs, up = graph.adjacency, graph.neighbors, graph.up_neighbors
    out: list[Copy] = []
    for u in range(graph.n):
        Lu = L[u]
        for v in up[u]:
            av = adj[v]
            common = [x for x in nbrs[u] if av >> x & 1]
            if len(common) > 1:
                Lv, uv = L[v], Lu[v]
                for i, x in enumerate(common):
                    ux, vx = Lu[x], Lv[x]
                    for y in common[i + 1 :]:
                        out.append((uv, ux, vx, Lu[y], Lv[y]))
    return out


def _cliques4(graph: Graph, L: Matrix) -> list[Copy]:
    """``K4`` u < v < w < x."""
    adj, up = graph.adjacency, graph.up_neighbors
    out: list[Copy] = []
    for u in range(graph.n):
        Lu, au = L[u], adj[u]
        for v in up[u]:
            common = [w for w in up[v] if au >> w & 1]
            if len(common) > 1:
                Lv, uv = L[v], Lu[v]
                for i, w in enumerate(common):
                    Lw, aw = L[w], adj[w]
                    uw, vw = Lu[w], Lv[w]
                    for x in common[i + 1 :]:
                        if aw >> x & 1:
                            out.append((uv, uw, Lu[x], vw, Lv[x], Lw[x]))
    return out


_SPECIALISED: dict[str, Callable[[Graph, Matrix], list[Copy]]] = {
    "k3": _triangles,
    "p4": _paths4,
    "tk3": _paws,
    "c4": _cycles4,
    "k4e": _diamonds,
    "k4": _cliques4,
}

#: Enumerators whose tuples come out sorted when the labels are the edge indices.
_SORTED_OUTPUT = frozenset({"k3", "k4"})


# Public per-pattern enumerators (edge-index tuples, sorted), kept for direct use.
def star_copies(graph: Graph, k: int) -> list[Copy]:
    return _stars(graph, graph.index_matrix, k)


def triangle_copies(graph: Graph) -> list[Copy]:
    return _triangles(graph, graph.index_matrix)


def path4_copies(graph: Graph) -> list[Copy]:
    return [tuple(sorted(c)) for c in _paths4(graph, graph.index_matrix)]


def paw_copies(graph: Graph) -> list[Copy]:
    return [tuple(sorted(c)) for c in _paws(graph, graph.index_matrix)]


def cycle4_copies(graph: Graph) -> list[Copy]:
    return [tuple(sorted(c)) for c in _cycles4(graph, graph.index_matrix)]


def diamond_copies(graph: Graph) -> list[Copy]:
    return [tuple(sorted(c)) for c in _diamonds(graph, graph.index_matrix)]


def k4_copies(graph: Graph) -> list[Copy]:
    return _cliques4(graph, graph.index_matrix)


def generic_copies(graph: Graph, pattern_graph: Graph, limit: int | None = None) -> list[Copy]:
    """Backtracking over injective maps V(F) → V(G) that keep edges; each edge set once.

    Only one map of each class φ∘Aut(F) is visited (:func:`symmetry_conditions`), so a copy is
    reached once instead of |Aut(F)| times (120 times for K5).  Stops early once more than
    ``limit`` distinct copies are found (returning them).
    """
    fn = pattern_graph.n
    order = _visiting_order(pattern_graph)
    position = {v: i for i, v in enumerate(order)}
    back = [
        [position[u] for u in pattern_graph.neighbors[v] if position[u] < i]
        for i, v in enumerate(order)
    ]
    above: list[list[int]] = [[] for _ in order]  # φ(order[i]) > φ(order[j]) for j in above[i]
    below: list[list[int]] = [[] for _ in order]  # φ(order[i]) < φ(order[j]) for j in below[i]
    for v, w in symmetry_conditions(pattern_graph):  # φ(v) < φ(w): checked at the later one
        i, j = position[v], position[w]
        if i < j:
            above[j].append(i)
        else:
            below[i].append(j)
    pattern_edges = [(position[u], position[v]) for u, v in pattern_graph.edges]
    adj, M, n = graph.adjacency, graph.index_matrix, graph.n
    full = (1 << n) - 1
    found: set[Copy] = set()
    image = [0] * fn

    class _Enough(Exception):
        pass

    def extend(i: int, used: int) -> None:
        if i == fn:
            found.add(tuple(sorted(M[image[a]][image[b]] for a, b in pattern_edges)))
            if limit is not None and len(found) > limit:
                raise _Enough
            return
        candidates = full & ~used
        for j in back[i]:
            candidates &= adj[image[j]]
        for j in above[i]:
            candidates &= ~((2 << image[j]) - 1)
        for j in below[i]:
            candidates &= (1 << image[j]) - 1
        for w in _bits(candidates):
            image[i] = w
            extend(i + 1, used | (1 << w))

    try:
        extend(0, 0)
    except _Enough:
        pass
    return sorted(found)


def _visiting_order(pattern_graph: Graph) -> list[int]:
    """Pattern vertices so that each (after the first) has an earlier neighbour where it can."""
    fn = pattern_graph.n
    order = [0]
    while len(order) < fn:
        for v in range(fn):
            if v not in order and any(u in order for u in pattern_graph.neighbors[v]):
                order.append(v)
                break
        else:  # disconnected pattern: append the rest in order
            order.extend(v for v in range(fn) if v not in order)
    return order


@lru_cache(maxsize=512)
def symmetry_conditions(pattern_graph: Graph) -> tuple[tuple[int, int], ...]:
    """Pairs (v, w) such that, of every class φ∘Aut(F) of maps V(F) → V(G), exactly one map has
    φ(v) < φ(w) for all pairs (Grochow and Kellis, 2007): take a vertex v of a largest orbit of
    the group that fixes the vertices taken so far (nauty's orbits, the taken vertices each a
    colour of its own), ask φ(v) < φ(w) for the rest w of its orbit, take v, and repeat until
    that group is trivial.  Maps of one class have the same edge image, so no copy is lost."""
    fn = pattern_graph.n
    adjacency = {v: list(nbrs) for v, nbrs in enumerate(pattern_graph.neighbors)}
    taken: list[int] = []
    conditions: list[tuple[int, int]] = []
    while True:
        colouring = [{v} for v in taken] + [set(range(fn)) - set(taken)]
        nauty_graph = pynauty.Graph(fn, adjacency_dict=adjacency, vertex_coloring=colouring)
        orbit_of = pynauty.autgrp(nauty_graph)[3]
        orbits: dict[int, list[int]] = {}
        for v in range(fn):
            orbits.setdefault(orbit_of[v], []).append(v)
        largest = max(orbits.values(), key=lambda orbit: (len(orbit), -orbit[0]))
        if len(largest) == 1:
            return tuple(conditions)
        v = largest[0]
        conditions += [(v, w) for w in largest[1:]]
        taken.append(v)


def find_copies(
    pattern: Pattern, graph: Graph, *, labels: Sequence[int] | None = None
) -> list[Copy]:
    """All copies of ``pattern`` in ``graph``, each edge set once.

    Without ``labels``: sorted tuples of edge indices.  With ``labels`` (one value per edge
    index): each copy as the tuple of its edges' labels, in no particular order.
    """
    if graph.m < pattern.graph.m:
        return []
    L = _label_matrix(graph, labels)
    k = pattern.star_k
    if k is not None:
        return _stars(graph, L, k)
    special = _SPECIALISED.get(pattern.slug)
    if special is not None:
        found = special(graph, L)
        if labels is None and pattern.slug not in _SORTED_OUTPUT:
            found = [tuple(sorted(c)) for c in found]
        return found
    found = generic_copies(graph, pattern.graph)
    if labels is not None:
        found = [tuple(labels[i] for i in c) for c in found]
    return found


# ---------------------------------------------------------------------------------------------
# Counting without listing (used to refuse graphs whose CNF would not fit in memory)
# ---------------------------------------------------------------------------------------------
def count_copies(pattern: Pattern, graph: Graph, *, limit: int | None = None) -> int:
    """The number of copies of ``pattern`` in ``graph``.

    Closed forms over degrees d(v), co-degrees c(uv) = |N(u) ∩ N(v)| and triangles t(v) at v:
    ``K1,k: Σ C(d(v),k)``; ``K3: Σ_uv c(uv)/3``; ``K4-e: Σ_uv C(c(uv),2)``;
    ``P4: Σ_uv (d(u)-1)(d(v)-1) - 3·#K3``; ``TK3: Σ_v t(v)·(d(v)-2)``;
    ``C4: Σ_{a<b} C(c(ab),2) / 2``; ``K4: Σ_uv e(N(u) ∩ N(v)) / 6``.  Other patterns are
    enumerated, stopping once the count exceeds ``limit`` (then ``limit + 1`` is returned).
    """
    deg = [len(x) for x in graph.neighbors]
    k = pattern.star_k
    if k is not None:  # degrees only: no bitmasks, so huge sparse graphs stay cheap
        return sum(comb(d, k) for d in deg)
    over = None if limit is None else limit + 1
    slug = pattern.slug
    if slug in _CODEGREE_SLUGS:
        return _codegree_count(slug, graph, deg)
    if slug == "c4":
        return _count_c4(graph, over)
    if slug == "k4":
        return _count_k4(graph, over)
    return len(generic_copies(graph, pattern.graph, limit))


_CODEGREE_SLUGS = frozenset({"k3", "k4e", "p4", "tk3"})


def _codegree_count(slug: str, graph: Graph, deg: list[int]) -> int:
    """The closed forms over co-degrees c(uv) for K3, K4-e, P4 and TK3."""
    adj = graph.adjacency
    codeg = {(u, v): (adj[u] & adj[v]).bit_count() for u, v in graph.edges}
    if slug == "k3":
        return sum(codeg.values()) // 3
    if slug == "k4e":
        return sum(comb(c, 2) for c in codeg.values())
    if slug == "p4":
        triangles = sum(codeg.values()) // 3
        return sum((deg[u] - 1) * (deg[v] - 1) for u, v in graph.edges) - 3 * triangles
    at = [0] * graph.n  # tk3: t(v), each triangle at v seen from both of its edges at v
    for (u, v), c in codeg.items():
        at[u] += c
        at[v] += c
    return sum(t // 2 * (d - 2) for t, d in zip(at, deg))


def _count_c4(graph: Graph, over: int | None) -> int:
    """Copies of C4, from pairs a < b at distance two only; each C4 is counted at both of its
    diagonals.  Stops at ``over`` once the count exceeds ``over - 1``."""
    adj = graph.adjacency
    total = 0
    for a in range(graph.n):
        reach = 0
        for w in graph.neighbors[a]:
            reach |= adj[w]
        for b in _bits(reach >> (a + 1)):
            total += comb((adj[a] & adj[a + 1 + b]).bit_count(), 2)
        if over is not None and total > 2 * (over - 1):
            return over
    return total // 2


def _count_k4(graph: Graph, over: int | None) -> int:
    """Copies of K4, from the edges inside each common neighbourhood N(u) ∩ N(v).  Stops at
    ``over`` once the count exceeds ``over - 1``."""
    adj = graph.adjacency
    total = 0
    for u, v in graph.edges:
        common = adj[u] & adj[v]
        if common & (common - 1):
            total += sum((adj[w] & common).bit_count() for w in _bits(common))
            if over is not None and total > 12 * (over - 1):
                return over
    return total // 12  # each K4 counted at its 6 edges, each inner edge twice


#: Most vertices for which the non-star counters build neighbour bitmasks (about n²/8 bytes).
MAX_BITMASK_VERTICES = 50_000


def count_all_copies(patterns: Sequence[Pattern], graph: Graph, *, limit: int) -> tuple[int, bool]:
    """``(total, exact)``: copies of all ``patterns`` together, each counted up to ``limit``.

    ``exact`` is False when some count stopped past ``limit`` (the total is then a lower bound).
    Refuses a non-star pattern on more than :data:`MAX_BITMASK_VERTICES` vertices.
    """
    total, exact = 0, True
    for pattern in patterns:
        if pattern.star_k is None and graph.n > MAX_BITMASK_VERTICES:
            raise GraphTooLargeError(
                f"graph has {graph.n:,} vertices, more than the {MAX_BITMASK_VERTICES:,} for which copies of "
                f"{pattern.name} can be counted; it is too large to check exactly"
            )
        count = count_copies(pattern, graph, limit=limit)
        total += count
        exact = exact and (pattern.star_k is not None or count <= limit)
    return total, exact
