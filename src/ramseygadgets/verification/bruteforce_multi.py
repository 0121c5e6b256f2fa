"""An independent c^m brute-force verifier for multi-colour gadgets.

Copies come from networkx monomorphisms (:func:`ramseygadgets.verification.bruteforce.copy_masks`), never
from :mod:`ramseygadgets.colorings.copies`; colourings are all c^m vectors of colour indices (a numpy
array, row r = the base-c digits of r), and each definition is checked literally on the list of
all good colourings.  Exponential: for small graphs only (c^m ≤ 2^22).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ramseygadgets.colorings.spec import ColoringSpec
from ramseygadgets.core.errors import InputError
from ramseygadgets.core.gadgets import Designated
from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.problem import Problem
from ramseygadgets.verification.bruteforce import copy_masks

if TYPE_CHECKING:  # numpy and networkx load when a brute force runs, not with the module
    import numpy as np

__all__ = [
    "MAX_BRUTE_FORCE_COLORINGS",
    "all_colorings",
    "good_colorings",
    "brute_force_verify_multi",
]

MAX_BRUTE_FORCE_COLORINGS = 1 << 22


def all_colorings(c: int, m: int) -> np.ndarray:
    """Every colouring of m edges with c colours: shape (c^m, m), entry [r, i] = colour of edge i."""
    import numpy as np

    if c**m > MAX_BRUTE_FORCE_COLORINGS:
        raise InputError(
            f"brute force is limited to {MAX_BRUTE_FORCE_COLORINGS} colourings, {c}^{m} is more"
        )
    rows = np.arange(c**m, dtype=np.int64)
    digits = np.empty((c**m, m), dtype=np.int8)
    for i in range(m):
        digits[:, i] = rows % c
        rows //= c
    return digits


def good_colorings(graph: Graph, spec: ColoringSpec) -> np.ndarray:
    """The rows of :func:`all_colorings` with no forbidden copy in its own colour."""
    import numpy as np

    table = all_colorings(spec.c, graph.m)
    good = np.ones(len(table), dtype=bool)
    for k, color in enumerate(spec.colors):
        in_k = table == k
        for pattern in color.forbidden:
            for mask in copy_masks(pattern, graph):
                edges = [i for i in range(graph.m) if mask >> i & 1]
                good &= ~in_k[:, edges].all(axis=1)
    return table[good]


def brute_force_verify_multi(problem: Problem, graph: Graph, designated: Designated) -> bool:
    """True iff the candidate satisfies every clause of the multi-colour gadget definition."""
    edges = designated.edges
    if len(edges) != len(problem.edge_names) or len(set(edges)) != len(edges):
        return False
    if any(not graph.has_edge(u, v) or u == v for u, v in edges):
        return False
    good = good_colorings(graph, problem.spec)
    if len(good) == 0:
        return False
    e = good[:, graph.edge_id(*edges[0])]
    if problem.kind == "determiner":
        return bool((e == problem.color).all())
    f = good[:, graph.edge_id(*edges[1])]
    relation = (e == f).all() if problem.kind == "positive-sender" else (e != f).all()
    return bool(relation) and len(set(e.tolist())) >= 2
