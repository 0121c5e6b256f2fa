"""An independent second verifier: every one of the 2^m colorings, copies from networkx.

Shares no code path with :mod:`verify` beyond the data types: copies come from networkx's
subgraph monomorphisms (:class:`networkx.algorithms.isomorphism.GraphMatcher`), colorings are
bitmasks over all edges, and each gadget definition is checked literally on the full list of
good colorings.  Exponential in m, so only for small graphs (m ≤ 20 by default).
"""

from __future__ import annotations

from itertools import product

from networkx.algorithms.isomorphism import GraphMatcher

from ramseygadgets.gadgets import Designated, GadgetType
from ramseygadgets.graphs import Graph
from ramseygadgets.patterns import Pattern

MAX_BRUTE_FORCE_EDGES = 20


def copy_masks(pattern: Pattern, graph: Graph) -> set[int]:
    """Edge-set bitmasks of all copies of the pattern, via networkx monomorphisms."""
    g = graph.to_networkx()
    masks: set[int] = set()
    for mapping in GraphMatcher(g, pattern.graph.to_networkx()).subgraph_monomorphisms_iter():
        inverse = {p: v for v, p in mapping.items()}
        mask = 0
        for a, b in pattern.graph.edges:
            mask |= 1 << graph.edge_id(inverse[a], inverse[b])
        masks.add(mask)
    return masks


def good_coloring_masks(graph: Graph, F: Pattern, H: Pattern) -> list[int]:
    """Bitmasks (bit i set = edge i red) of all (F,H)-good colorings."""
    if graph.m > MAX_BRUTE_FORCE_EDGES:
        raise ValueError(f"brute force is limited to {MAX_BRUTE_FORCE_EDGES} edges, graph has {graph.m}")
    fs, hs = list(copy_masks(F, graph)), list(copy_masks(H, graph))
    return [red for red in range(1 << graph.m)
            if not any(red & c == c for c in fs) and not any(red & c == 0 for c in hs)]


def brute_force_verify(graph: Graph, F: Pattern, H: Pattern, gadget: GadgetType, designated: Designated) -> bool:
    """True iff the candidate satisfies every clause of the gadget's definition."""
    if len(designated.edges) != len(gadget.edge_names) or len(designated.vertices) != len(gadget.vertex_names):
        return False
    if any(not graph.has_edge(u, v) for u, v in designated.edges if u != v) or any(u == v for u, v in designated.edges):
        return False
    if len(set(designated.edges)) != len(designated.edges):
        return False
    if any(not 0 <= x < graph.n for x in designated.vertices) or len(set(designated.vertices)) != len(designated.vertices):
        return False
    good = good_coloring_masks(graph, F, H)
    if not good:
        return False
    bits = [1 << graph.edge_id(u, v) for u, v in designated.edges]

    def red(mask: int, b: int) -> bool:
        return bool(mask & b)

    if gadget is GadgetType.RED_DETERMINER:
        return all(red(c, bits[0]) for c in good)
    if gadget is GadgetType.BLUE_DETERMINER:
        return all(not red(c, bits[0]) for c in good)
    if gadget in (GadgetType.POSITIVE_SENDER, GadgetType.NEGATIVE_SENDER):
        both = any(red(c, bits[0]) for c in good) and any(not red(c, bits[0]) for c in good)
        same = all(red(c, bits[0]) == red(c, bits[1]) for c in good)
        opposite = all(red(c, bits[0]) != red(c, bits[1]) for c in good)
        return both and (same if gadget is GadgetType.POSITIVE_SENDER else opposite)

    k = F.star_k
    assert k is not None, "hardness gadgets need F = K1,k"
    incident = [[1 << i for i in graph.incident_edges[v]] for v in designated.vertices]

    def red_degrees(c: int) -> list[int]:
        return [sum(1 for b in inc if c & b) for inc in incident]

    if gadget is GadgetType.CLAUSE:
        seen = {tuple(d == 0 for d in red_degrees(c)) for c in good}
        return (True, True, True) not in seen and all(p in seen for p in product((True, False), repeat=3) if not all(p))
    # variable gadget: enforcer = exactly k-1 red edges
    patterns = [tuple(d == k - 1 for d in red_degrees(c)) for c in good]
    rule = all(nf or (uf1 and uf2) for uf1, uf2, nf in patterns)
    some_both_free = any(not uf1 and not uf2 for uf1, uf2, _ in patterns)
    some_n_free = any(not nf for _, _, nf in patterns)
    return rule and some_both_free and some_n_free
