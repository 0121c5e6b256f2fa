"""What a gadget type asks for, as conditions on colorings, and where its designated items go.

Every gadget type has the shape  *∃ G:  (∃ witness colorings)  ∧  (∀ good colorings: not bad)*:

=================  ===========================================  ==================================
gadget             witnesses (each: some good coloring with …)  bad (no good coloring with …)
=================  ===========================================  ==================================
red-determiner     e red                                        e blue
blue-determiner    e blue                                       e red
positive-sender    e, f red;  e, f blue                         e red f blue;  e blue f red
negative-sender    e red f blue;  e blue f red                  e, f red;  e, f blue
clause-gadget      the 7 enforcement patterns except (T,T,T)    i1, i2, i3 all enforced
variable-gadget    u1, u2 non-enforcers;  n1 non-enforcer       u_i and n1 non-enforcers (i = 1, 2)
=================  ===========================================  ==================================

(*enforced*: red degree 0; *non-enforcer* for F = K1,k: red degree ≤ k−2, since a good coloring
has red degrees ≤ k−1.)  The witness lists are equivalent to the definitions given the bad lists
(e.g. a positive sender's "e red" witness must have f red).

Bad conditions only bound red degrees from above, so a bad coloring stays bad when edges are
removed or when new edges at the bounded vertices are blue; the counterexample lemmas rely on it.

Designated items are placed on the first vertices (a *layout*); vertices that the problem cannot
tell apart form *classes*, on which lex-leader constraints break the symmetry.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

from ramseygadgets.core.gadgets import Designated, GadgetForm, GadgetKind, GadgetType
from ramseygadgets.core.graphs import Edge
from ramseygadgets.problems.catalog import Problem

__all__ = [
    "EdgeColor",
    "RedDegree",
    "Atom",
    "Condition",
    "Layout",
    "GadgetSpec",
    "gadget_spec",
    "layouts",
]


@dataclass(frozen=True)
class EdgeColor:
    """Designated edge ``edge`` has colour red (``red=True``) or blue."""

    edge: Edge
    red: bool


@dataclass(frozen=True)
class RedDegree:
    """``at_least ≤ red-degree(vertex) ≤ at_most`` (``None``: unbounded), all edges counted."""

    vertex: int
    at_most: int | None = None
    at_least: int | None = None


Atom = EdgeColor | RedDegree
Condition = tuple[Atom, ...]


@dataclass(frozen=True)
class Layout:
    """Designated items on fixed vertices, plus the vertex permutations that preserve the problem.

    ``classes`` are sets of vertices that may be permuted freely; ``swaps`` are further
    permutations (as vertex maps) that preserve the problem, e.g. exchanging e and f.
    """

    name: str
    designated: Designated
    classes: tuple[tuple[int, ...], ...]
    swaps: tuple[tuple[int, ...], ...] = ()

    @property
    def fixed_vertices(self) -> int:
        """Number of vertices the designated items occupy (0..fixed_vertices-1)."""
        labels = [x for e in self.designated.edges for x in e] + list(self.designated.vertices)
        return max(labels) + 1


@dataclass(frozen=True)
class GadgetSpec:
    """Witness and bad conditions of one problem (see the module docstring)."""

    witnesses: tuple[Condition, ...]
    bad: tuple[Condition, ...]

    def __post_init__(self) -> None:
        for condition in self.bad:
            for atom in condition:
                if isinstance(atom, RedDegree) and atom.at_least not in (None, 0):
                    raise ValueError("bad conditions may only bound red degrees from above")


E, F_ADJ, F_DIS = (0, 1), (1, 2), (2, 3)


def gadget_spec(problem: Problem, designated: Designated) -> GadgetSpec:
    """The conditions for ``problem`` with its designated items at ``designated``."""
    g = problem.gadget
    if g in (GadgetType.RED_DETERMINER, GadgetType.BLUE_DETERMINER):
        e = designated.edges[0]
        red = g is GadgetType.RED_DETERMINER
        return GadgetSpec(((EdgeColor(e, red),),), ((EdgeColor(e, not red),),))
    if g in (GadgetType.POSITIVE_SENDER, GadgetType.NEGATIVE_SENDER):
        e, f = designated.edges
        same = g is GadgetType.POSITIVE_SENDER
        good = tuple((EdgeColor(e, c), EdgeColor(f, c if same else not c)) for c in (True, False))
        bad = tuple((EdgeColor(e, c), EdgeColor(f, not c if same else c)) for c in (True, False))
        return GadgetSpec(good, bad)
    k = problem.F.star_k
    if k is None:
        raise ValueError(f"{g.value} is defined only for F = K1,k; got F = {problem.F.name}")
    if g is GadgetType.CLAUSE:

        def enforcement(v: int, enforced: bool) -> RedDegree:
            return RedDegree(v, at_most=0) if enforced else RedDegree(v, at_least=1)

        vs = designated.vertices
        witnesses = tuple(
            tuple(enforcement(v, p) for v, p in zip(vs, pattern))
            for pattern in product((True, False), repeat=3)
            if not all(pattern)
        )
        return GadgetSpec(witnesses, (tuple(RedDegree(v, at_most=0) for v in vs),))
    u1, u2, n1 = designated.vertices
    non_enforcer = {v: RedDegree(v, at_most=k - 2) for v in (u1, u2, n1)}
    return GadgetSpec(
        ((non_enforcer[u1], non_enforcer[u2]), (non_enforcer[n1],)),
        ((non_enforcer[u1], non_enforcer[n1]), (non_enforcer[u2], non_enforcer[n1])),
    )


def layouts(gadget: GadgetForm, n: int) -> list[Layout]:
    """Every placement of the designated items on ``n`` vertices, up to relabelling.

    Determiners: e = 0-1.  Senders: f shares a vertex with e (f = 1-2) or not (f = 2-3).
    Clause and variable gadgets: the three vertices are 0, 1, 2.
    """
    rest = lambda start: tuple(range(start, n))  # noqa: E731
    kind = gadget.kind if isinstance(gadget, GadgetType) else gadget
    if kind is GadgetKind.DETERMINER:
        if n < 2:
            return []
        return [Layout("e=0-1", Designated((E,)), ((0, 1), rest(2)))]
    if kind in (GadgetKind.POSITIVE_SENDER, GadgetKind.NEGATIVE_SENDER):
        out = []
        if n >= 3:  # exchanging e and f is the transposition (0 2)
            out.append(Layout("f adjacent to e", Designated((E, F_ADJ)), ((0, 2), rest(3))))
        if n >= 4:  # (0 1), (2 3) and the exchange (0 2)(1 3)
            swap = tuple([2, 3, 0, 1] + list(range(4, n)))
            out.append(
                Layout(
                    "f disjoint from e", Designated((E, F_DIS)), ((0, 1), (2, 3), rest(4)), (swap,)
                )
            )
        return out
    if n < 3:
        return []
    if kind is GadgetKind.CLAUSE:
        return [Layout("i1,i2,i3=0,1,2", Designated((), (0, 1, 2)), ((0, 1, 2), rest(3)))]
    return [Layout("u1,u2,n1=0,1,2", Designated((), (0, 1, 2)), ((0, 1), rest(3)))]
