"""An independent second verifier: every one of the 2^m colorings, copies from networkx.

Shares no code path with :mod:`verify` beyond the data types: copies come from networkx's
subgraph monomorphisms (:class:`networkx.algorithms.isomorphism.GraphMatcher`), colorings are
the integers 0..2^m-1 read as bitmasks (bit i set = edge i red, held in a numpy array), and each
gadget definition is checked literally on the full list of good colorings.  Exponential in m,
so only for small graphs (m ≤ 20 by default).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from ramseygadgets.core.errors import InputError
from ramseygadgets.core.gadgets import Designated, GadgetType
from ramseygadgets.core.graphs import Graph
from ramseygadgets.core.patterns import Pattern

if TYPE_CHECKING:  # numpy and networkx load when a brute force runs, not with the module
    import numpy as np

__all__ = [
    "MAX_BRUTE_FORCE_EDGES",
    "copy_masks",
    "good_coloring_masks",
    "red_degrees",
    "designated_valid",
    "gadget_holds",
    "brute_force_verify",
]


MAX_BRUTE_FORCE_EDGES = 20


@lru_cache(maxsize=4096)
def copy_masks(pattern: Pattern, graph: Graph) -> frozenset[int]:
    """Edge-set bitmasks of all copies of the pattern, via networkx monomorphisms (memoised)."""
    from networkx.algorithms.isomorphism import GraphMatcher

    g = graph.to_networkx()
    masks: set[int] = set()
    for mapping in GraphMatcher(g, pattern.graph.to_networkx()).subgraph_monomorphisms_iter():
        inverse = {p: v for v, p in mapping.items()}
        mask = 0
        for a, b in pattern.graph.edges:
            mask |= 1 << graph.edge_id(inverse[a], inverse[b])
        masks.add(mask)
    return frozenset(masks)


def good_coloring_masks(graph: Graph, F: Pattern, H: Pattern) -> np.ndarray:
    """Bitmasks (bit i set = edge i red) of all (F,H)-good colorings, ascending (int64 array).

    A coloring is good iff no copy of F is all red (``mask & c == c``) and no copy of H is all
    blue (``mask & c == 0``).
    """
    import numpy as np

    if graph.m > MAX_BRUTE_FORCE_EDGES:
        raise InputError(
            f"brute force is limited to {MAX_BRUTE_FORCE_EDGES} edges, graph has {graph.m}"
        )
    masks = np.arange(1 << graph.m, dtype=np.int64)
    good = np.ones(masks.shape, dtype=bool)
    for c in copy_masks(F, graph):
        good &= (masks & c) != c
    for c in copy_masks(H, graph):
        good &= (masks & c) != 0
    return masks[good]


def red_degrees(graph: Graph, good: np.ndarray, v: int) -> np.ndarray:
    """Red degree of vertex v in each coloring of ``good``."""
    import numpy as np

    degree = np.zeros(good.shape, dtype=np.int64)
    for i in graph.incident_edges[v]:
        degree += (good >> i) & 1
    return degree


def designated_valid(graph: Graph, gadget: GadgetType, designated: Designated) -> bool:
    """Designated edges are edges of G and distinct; designated vertices are distinct vertices of G."""
    if len(designated.edges) != len(gadget.edge_names) or len(designated.vertices) != len(
        gadget.vertex_names
    ):
        return False
    if any(u == v or not graph.has_edge(u, v) for u, v in designated.edges):
        return False
    if len(set(designated.edges)) != len(designated.edges):
        return False
    return all(0 <= x < graph.n for x in designated.vertices) and len(
        set(designated.vertices)
    ) == len(designated.vertices)


def gadget_holds(
    graph: Graph, F: Pattern, gadget: GadgetType, designated: Designated, good: np.ndarray
) -> bool:
    """The gadget clauses of the definition, on the given list of all good colorings (non-empty)."""
    import numpy as np

    if gadget in (
        GadgetType.RED_DETERMINER,
        GadgetType.BLUE_DETERMINER,
        GadgetType.POSITIVE_SENDER,
        GadgetType.NEGATIVE_SENDER,
    ):
        red = [((good >> graph.edge_id(u, v)) & 1).astype(bool) for u, v in designated.edges]
        if gadget is GadgetType.RED_DETERMINER:
            return bool(red[0].all())
        if gadget is GadgetType.BLUE_DETERMINER:
            return bool((~red[0]).all())
        both_colors = bool(red[0].any() and (~red[0]).any())
        if gadget is GadgetType.POSITIVE_SENDER:
            return both_colors and bool((red[0] == red[1]).all())
        return both_colors and bool((red[0] != red[1]).all())

    k = F.star_k
    if k is None:
        raise InputError("hardness gadgets need F = K1,k")
    degrees = [red_degrees(graph, good, v) for v in designated.vertices]
    if gadget is GadgetType.CLAUSE:  # enforced = no red edge
        codes = (degrees[0] == 0) * 4 + (degrees[1] == 0) * 2 + (degrees[2] == 0) * 1
        seen = set(np.unique(codes).tolist())
        return 7 not in seen and seen >= set(range(7))
    # variable gadget: enforcer = exactly k-1 red edges
    u1, u2, n1 = (d == k - 1 for d in degrees)
    rule = bool((n1 | (u1 & u2)).all())
    some_both_free = bool((~u1 & ~u2).any())
    some_n_free = bool((~n1).any())
    return rule and some_both_free and some_n_free


def brute_force_verify(
    graph: Graph, F: Pattern, H: Pattern, gadget: GadgetType, designated: Designated
) -> bool:
    """True iff the candidate satisfies every clause of the gadget's definition."""
    if not designated_valid(graph, gadget, designated):
        return False
    good = good_coloring_masks(graph, F, H)
    if good.size == 0:
        return False
    return gadget_holds(graph, F, gadget, designated, good)
