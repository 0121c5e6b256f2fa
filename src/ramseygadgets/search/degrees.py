"""Degree bounds: for complete F, H a search may demand a *reduced* solution, and more.

Let F = K_f and H = K_h (f, h ≥ 2) and let the gadget's conditions fix colours of designated
edges only (determiners and senders: the lazy engine's problems).  Three exact rules:

**Vertices.**  Call d *free* when every (F, H)-good colouring c of every graph on d vertices —
edges possibly absent — splits its vertices into R ∪ B with no red K_{f−1} inside R and no
blue K_{h−1} inside B (absent edges are neither colour).  Let D = :func:`isolation_degree`
(every d ≤ D free).  If G is a solution and v a vertex on no designated item with
0 < deg_G(v) ≤ D, then G with the edges at v removed (v isolated) is a solution with fewer
edges.  *Proof.*  Witnesses: a good colouring of G restricts to one of the subgraph, designated
edge colours unchanged.  Bad: a good bad colouring c′ of the subgraph restricts to a good
colouring c of G − v; colour v's edges to R red and to B blue (the split of c on G[N(v)]).  A
new red K_f would be v plus a red K_{f−1} in R, a new blue K_h v plus a blue K_{h−1} in B:
none, so G has a good colouring with the designated colours of c′, a bad one — G is no
solution.  ∎  For (K3, K4), D = 5 (d = 6 is not free).

**Edges.**  If G is a solution and uv an edge that is not designated with fewer than
(f − 2) + (h − 2) common neighbours, G − uv is a solution.  *Proof.*  As above, a good bad
colouring of G − uv extends to uv: red fails only through a red K_{f−2} of common neighbours
joined to u in red, blue only through a blue K_{h−2} of common neighbours joined to u in blue;
the two sets are disjoint (an edge at u has one colour), so both fail only with
(f − 2) + (h − 2) common neighbours.  ∎  For (K3, K4): every edge off e lies in at least 3
triangles.  The rule runs per candidate (:class:`ReducibleEdges`): a candidate with such an
edge uv gets the clause "uv absent, or an edge at u or v that the candidate lacks present"
(otherwise the common neighbours can only shrink).  (Measured and dropped: also asking the
common neighbours for the disjoint K_{f−2} and K_{h−2}, in Python per candidate — several
times slower.)

*Reduced solutions.*  Both rules remove edges, so applying them while one applies ends in a
solution where neither does.  Both conditions are invariant under every vertex permutation
that preserves the layout (designated items map to designated items), so the lex-maximal member
of its orbit is reduced too: the finder may demand reduced graphs together with its symmetry
breaking, its lemmas (each satisfied by *every* solution) and the clique bound, and a level
still has a solution iff the search finds one.  A cube's "none" reads "no lex-maximal reduced
solution here", which is what the union of a level's cubes needs.  A minimum-edge solution is
reduced, so edge minimisation is unaffected.  The edge-rule clauses hold for reduced graphs
only, so they are never shared with other cubes (:mod:`.cubes` shares counterexample and
arrowing lemmas, which hold for every solution).

**Endpoints** (a necessary condition, no reduction): for a determiner (one designated edge e,
a bad condition "e coloured k" alone), let D_k = :func:`endpoint_degree`: every d ≤ D_k is free
with one more vertex z forced to side k.  A solution G whose end w of e = wz has deg(w) ≤ D_k + 1
has a good colouring (its witness); recolour w's edges: e in colour k, N(w) − z split as above
with z on side k — good, and bad, so G is no solution.  So deg(w) ≥ D_k + 2
(:func:`endpoint_floors`).  For the (K3, K4)-red-determiner both ends of e have degree ≥ 5.

**Through a designated edge** (a necessary condition, no reduction): let a witness and a bad
condition differ only in the colour of one designated edge t, the bad one asking colour k with
pattern K_s (s = f for red, h for blue).  Then every solution has t in a K_s
(:func:`through_cliques`).  *Proof.*  The witness colouring c (good) with t recoloured k is good
unless it gains a colour-k K_s through t, and there is none without a K_s through t (the other
colour only loses t); it satisfies the bad condition.  ∎  Determiners: e lies in a K_f for the
blue-determiner (bad: e red) and in a K_h for the red-determiner.  Senders (two witnesses each):
e and f both lie in a K_f and a K_h.  For (K3, K4): the blue-determiner's e in a triangle, the
red-determiner's e and both edges of a sender in a K4 (:func:`clique_through_clauses`).

D and D_k are found by SAT for d = 1, 2, … (:func:`_free`): a clause per split (2^d) "R holds a
red K_{f−1} or B a blue K_{h−1}", with present / red variables per pair; UNSAT means d is free
(checked against brute force in tests/search/test_degrees.py).  Measured on the sparse cubes of
the (K3, K4)-red-determiner's level 14: ``bench/sparse_cubes.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import combinations, product

import numba
import numpy as np
from pysat.card import CardEnc, EncType
from pysat.solvers import Solver

from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.problem import Problem
from ramseygadgets.search.bitsets import adjacency_rows
from ramseygadgets.search.spec import Condition, EdgeColor, GadgetSpec, Layout

Edge = tuple[int, int]

__all__ = [
    "MAX_FREE_DEGREE",
    "isolation_degree",
    "endpoint_degree",
    "endpoint_floors",
    "through_cliques",
    "clique_through_clauses",
    "degree_clauses",
    "floor_clauses",
    "ReducibleEdges",
]

#: Largest d tried (2^d split clauses); a larger free degree is not looked for.
MAX_FREE_DEGREE = 10


def _complete_order(graph: Graph) -> int | None:
    """f when ``graph`` is K_f, else ``None``."""
    return graph.n if graph.m == graph.n * (graph.n - 1) // 2 else None


def isolation_degree(problem: Problem) -> int:
    """The largest D such that every d ≤ D is free (module docstring); 0 when F or H is not
    complete or the problem is not a pair (no bound)."""
    spec = problem.spec
    if not spec.is_pair:
        return 0
    f, h = _complete_order(problem.F.graph), _complete_order(problem.H.graph)
    if f is None or h is None or f < 2 or h < 2:
        return 0
    return _isolation_degree(f, h)


def _bad_colour(layout: Layout, spec: GadgetSpec) -> tuple[Edge, bool] | None:
    """(e, red) when the gadget has one designated edge e, a witness, and a bad condition that
    is e's colour alone (determiners: red for the blue-determiner); ``None`` otherwise."""
    if len(layout.designated.edges) != 1 or layout.designated.vertices or not spec.witnesses:
        return None
    (e,) = layout.designated.edges
    for condition in spec.bad:
        if len(condition) == 1 and isinstance(atom := condition[0], EdgeColor) and atom.edge == e:
            return e, atom.red
    return None


def endpoint_floors(problem: Problem, layout: Layout, spec: GadgetSpec) -> dict[int, int]:
    """The least degree of each end of the designated edge e in every solution (module
    docstring, *endpoints*): D + 2 with D = :func:`endpoint_degree`, for a determiner; empty
    otherwise."""
    bad = _bad_colour(layout, spec)
    if bad is None:
        return {}
    e, red = bad
    floor = endpoint_degree(problem, red)
    return {u: floor + 2 for u in e} if floor > 0 else {}


def through_cliques(problem: Problem, layout: Layout, spec: GadgetSpec) -> dict[Edge, int]:
    """For each designated edge t: the largest s ≥ 3 such that every solution has t in a K_s
    (module docstring, *through a designated edge*); edges without such a rule are left out."""
    if not problem.spec.is_pair or layout.designated.vertices:
        return {}
    orders = {True: _complete_order(problem.F.graph), False: _complete_order(problem.H.graph)}
    out: dict[Edge, int] = {}
    for witness, bad in product(spec.witnesses, spec.bad):
        flip = _single_flip(witness, bad)
        if flip is None:
            continue
        edge, red = flip
        s = orders[red]
        if s is not None and s >= 3:
            out[edge] = max(out.get(edge, 0), s)
    return out


def _single_flip(witness: Condition, bad: Condition) -> tuple[Edge, bool] | None:
    """(t, red) when the two conditions fix the colours of the same edges and differ only in
    edge t, which ``bad`` wants red (``red``) or blue; ``None`` otherwise."""
    colours = [{a.edge: a.red for a in c if isinstance(a, EdgeColor)} for c in (witness, bad)]
    if any(len(d) != len(c) for d, c in zip(colours, (witness, bad))):
        return None  # a condition on red degrees
    want, have = colours[1], colours[0]
    if want.keys() != have.keys():
        return None
    differ = [t for t in want if want[t] != have[t]]
    return (differ[0], want[differ[0]]) if len(differ) == 1 else None


def clique_through_clauses(
    n: int, e: Edge, s: int, var: Callable[[int, int], int], top: int
) -> tuple[list[list[int]], int]:
    """e lies in a K_s: a selector y_C per s-set C ⊇ e (y_C → every edge of C present) and the
    clause "some y_C"; the clauses and the new top variable."""
    rest = [w for w in range(n) if w not in e]
    clauses: list[list[int]] = []
    some: list[int] = []
    for others in combinations(rest, s - 2):
        top += 1
        some.append(top)
        clique = sorted((*e, *others))
        clauses += [[-top, var(a, b)] for a, b in combinations(clique, 2)]
    return [*clauses, some], top


def endpoint_degree(problem: Problem, red: bool) -> int:
    """The largest D such that every d ≤ D is free *with one more vertex z forced to the red
    side* (``red``) *or the blue side* (:func:`endpoint_bound`); 0 when there is no bound."""
    spec = problem.spec
    if not spec.is_pair:
        return 0
    f, h = _complete_order(problem.F.graph), _complete_order(problem.H.graph)
    if f is None or h is None or f < 2 or h < 2:
        return 0
    return _isolation_degree(f, h, red)


@lru_cache(maxsize=64)
def _isolation_degree(f: int, h: int, forced: bool | None = None) -> int:
    free = 0
    for d in range(1, MAX_FREE_DEGREE + 1):
        if not _free(d, f, h, forced):
            break
        free = d
    return free


def _free(d: int, f: int, h: int, forced: bool | None = None) -> bool:
    """Whether every (K_f, K_h)-good colouring of a graph on d vertices (d + 1 with ``forced``:
    vertex d joins R when ``forced`` is True, B when False, whatever the split) splits into R
    (no red K_{f−1}) and B (no blue K_{h−1}): SAT searches a colouring that no split serves."""
    top = 0

    def var() -> int:
        nonlocal top
        top += 1
        return top

    size = d + (forced is not None)
    pairs = list(combinations(range(size), 2))
    present = {p: var() for p in pairs}
    red = {p: var() for p in pairs}
    clauses = [[-red[p], present[p]] for p in pairs]
    clauses += [[-red[p] for p in combinations(c, 2)] for c in combinations(range(size), f)]
    clauses += [
        [-present[p] for p in combinations(c, 2)] + [red[p] for p in combinations(c, 2)]
        for c in combinations(range(size), h)
    ]
    mono: dict[tuple[bool, tuple[int, ...]], int] = {}

    def clique(is_red: bool, c: tuple[int, ...]) -> int:
        """A variable that implies ``c`` is a red (blue) clique."""
        key = (is_red, c)
        if key not in mono:
            v = mono[key] = var()
            for p in combinations(c, 2):
                clauses.append([-v, red[p]] if is_red else [-v, present[p]])
                if not is_red:
                    clauses.append([-v, -red[p]])
        return mono[key]

    for mask in range(1 << d):
        r_side = [v for v in range(d) if mask >> v & 1] + ([d] if forced is True else [])
        b_side = [v for v in range(d) if not mask >> v & 1] + ([d] if forced is False else [])
        clause = [clique(True, c) for c in combinations(r_side, f - 1)]
        clause += [clique(False, c) for c in combinations(b_side, h - 1)]
        clauses.append(clause)
    with Solver(name="minisat22", bootstrap_with=clauses) as solver:
        return not solver.solve()


def degree_clauses(
    n: int,
    vertices: list[int],
    at_least: int,
    var: Callable[[int, int], int],
    top: int,
) -> tuple[list[list[int]], int]:
    """For each of ``vertices``: degree 0 or at least ``at_least`` (``var(u, v)``: the SAT
    variable of edge {u, v}); the clauses and the new top variable.  A selector s_v with
    x_t → s_v for each edge t at v, and s_v → Σ x ≥ at_least (sequential counter)."""
    clauses: list[list[int]] = []
    for v in vertices:
        lits = [var(min(u, v), max(u, v)) for u in range(n) if u != v]
        if at_least <= 1:
            continue
        top += 1
        selector = top
        if at_least > len(lits):
            clauses += [[-x] for x in lits]
            continue
        clauses += [[-x, selector] for x in lits]
        enc = CardEnc.atleast(lits, bound=at_least, top_id=top, encoding=EncType.seqcounter)
        top = max(top, enc.nv)
        clauses += [[-selector, *c] for c in enc.clauses]
    return clauses, top


def floor_clauses(
    n: int, floors: dict[int, int], var: Callable[[int, int], int], top: int
) -> tuple[list[list[int]], int]:
    """deg(v) ≥ ``floors[v]`` for each v (sequential counters); the clauses and the new top."""
    clauses: list[list[int]] = []
    for v, floor in sorted(floors.items()):
        lits = [var(min(u, v), max(u, v)) for u in range(n) if u != v]
        if floor > len(lits):
            return [[]], top
        enc = CardEnc.atleast(lits, bound=floor, top_id=top, encoding=EncType.seqcounter)
        top = max(top, enc.nv)
        clauses += enc.clauses
    return clauses, top


class ReducibleEdges:
    """The edge rule, per candidate (module docstring, *edges*): the first edge uv off the
    designated ones with fewer than ``need`` = (f − 2) + (h − 2) common neighbours, as the
    clause "uv absent, or some edge at u or v that the candidate lacks present"."""

    def __init__(
        self,
        n: int,
        sizes: tuple[int, int],
        edges: Sequence[tuple[int, int]],
        x: list[int],
        skip: set[int],
    ) -> None:
        self.n, self.edges, self.x, self.skip = n, list(edges), x, skip
        if self.edges != list(combinations(range(n), 2)):
            raise ValueError(
                "the edge rule reads candidates over K_n's edges in lexicographic order"
            )
        #: (f − 2, h − 2): an edge stays only with at least ``need`` = their sum common
        #: neighbours
        self.sizes, self.need = sizes, sum(sizes)
        self.ids = {e: t for t, e in enumerate(self.edges)}
        #: per vertex u, the neighbours v > u whose edge uv the rule skips (bitmasks)
        self.skip_rows = np.zeros(n, dtype=np.int64)
        for t in skip:
            u, v = self.edges[t]
            self.skip_rows[u] |= 1 << v

    @classmethod
    def make(
        cls, problem: Problem, layout: Layout, kn: Graph, x: list[int]
    ) -> ReducibleEdges | None:
        """The rule for K_n's edge variables ``x``; ``None`` unless F and H are complete."""
        if not problem.spec.is_pair:
            return None
        f, h = _complete_order(problem.F.graph), _complete_order(problem.H.graph)
        if f is None or h is None or f < 2 or h < 2:
            return None
        skip = {kn.edge_id(*e) for e in layout.designated.edges}
        return cls(kn.n, (f - 2, h - 2), kn.edges, x, skip)

    def __call__(self, edge_mask: int) -> list[int] | None:
        adj = adjacency_rows(self.n, edge_mask)
        t = _first_thin_edge(adj, self.need, self.skip_rows)
        if t < 0:
            return None
        u, v = self.edges[t]
        return self._clause(t, u, v, adj.tolist())

    def _clause(self, t: int, u: int, v: int, adj: list[int]) -> list[int]:
        """The clause: uv absent, or some edge at u or v that the candidate lacks present."""
        clause = [-self.x[t]]
        for end, other in ((u, v), (v, u)):
            for w in range(self.n):
                if w != other and w != end and not adj[end] >> w & 1:
                    clause.append(self.x[self.ids[(min(end, w), max(end, w))]])
        return clause


@numba.njit(cache=True)
def _first_thin_edge(adj, need, skip_rows):  # noqa: ANN001, ANN202
    """The index in K_n's lexicographic order of the first edge uv of the graph (``adj``: the
    neighbour bitmasks) off ``skip_rows`` with fewer than ``need`` common neighbours; −1: none."""
    n = adj.shape[0]
    t = 0
    for u in range(n):
        for v in range(u + 1, n):
            if adj[u] >> v & 1 and not skip_rows[u] >> v & 1:
                common = adj[u] & adj[v]
                count = 0
                while common:
                    common &= common - 1
                    count += 1
                if count < need:
                    return t
            t += 1
    return -1
