"""Exact verification of candidate gadgets, one function per gadget type.

Every check is a SAT question on the (F,H)-good colorings of G (see :mod:`colorings`), asked
with assumptions on one incremental solver:

* G must be good: ψ_G satisfiable.
* red-determiner e: ψ_G ∧ ¬r_e unsatisfiable (blue-determiner: ψ_G ∧ r_e).
* positive-sender e, f: ψ_G ∧ r_e and ψ_G ∧ ¬r_e satisfiable; ψ_G ∧ r_e ∧ ¬r_f and
  ψ_G ∧ ¬r_e ∧ r_f unsatisfiable (negative-sender: r_e ∧ r_f and ¬r_e ∧ ¬r_f).
* clause-gadget (F = K1,k) i1, i2, i3: a vertex is *enforced* when its red degree is 0; the
  pattern "all three enforced" is unsatisfiable and each of the other 7 patterns satisfiable.
* variable-gadget (F = K1,k) u1, u2, n1: a vertex is an *enforcer* when its red degree is
  k−1.  In a good coloring red degrees are at most k−1 (k red edges at a vertex form a red
  K1,k), so "not an enforcer" is "red degree ≤ k−2".  (a) ψ_G ∧ ¬enf(u_i) ∧ ¬enf(n1)
  unsatisfiable for i = 1, 2; (b) ψ_G ∧ ¬enf(u1) ∧ ¬enf(u2) satisfiable; (c) ψ_G ∧ ¬enf(n1)
  satisfiable.

A :class:`Verdict` says whether the candidate is correct, gives the reason in one sentence, and
carries a witness coloring wherever one exists.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import product
from typing import Any

from ramseygadgets.colorings import Coloring, GoodColorings
from ramseygadgets.gadgets import Candidate, Designated, GadgetType
from ramseygadgets.graphs import Graph
from ramseygadgets.multicolor.colorings import MultiColoring, MultiColorings
from ramseygadgets.multicolor.verify import verify_multi
from ramseygadgets.problem import Problem
from ramseygadgets.verdict import Verdict, check_designated, edge_text

__all__ = [
    "Verdict",
    "check_designated",
    "good_coloring",
    "verify",
    "verify_clause",
    "verify_determiner",
    "verify_sender",
    "verify_variable",
]


class _Models:
    """Good colorings found so far, each with a summary (e.g. its enforcement pattern); a question
    already answered by one of them costs no SAT call."""

    def __init__(
        self, sat: GoodColorings, known: Coloring | None, summary: Callable[[Coloring], Any]
    ) -> None:
        self.sat, self.summary = sat, summary
        self.found: list[tuple[Coloring, Any]] = [] if known is None else [(known, summary(known))]

    def find(self, holds: Callable[[Any], bool], assumptions: list[int]) -> Coloring | None:
        """A good coloring whose summary satisfies ``holds``; ``assumptions`` must express exactly
        the same condition as literals for the solver."""
        for coloring, summary in self.found:
            if holds(summary):
                return coloring
        found = self.sat.solve(assumptions)
        if found is not None:
            self.found.append((found, self.summary(found)))
        return found


# ---------------------------------------------------------------------------------------------
# One function per gadget type.  Each assumes G is good and the designated items are valid;
# ``known`` is an optional good coloring already found (it can spare a SAT call).
# ---------------------------------------------------------------------------------------------
def verify_determiner(
    sat: GoodColorings, designated: Designated, color: str, known: Coloring | None = None
) -> Verdict:
    e = designated.edges[0]
    i = sat.graph.edge_id(*e)
    want_red = color == "red"
    models = _Models(sat, known, lambda c: c.red[i])
    witness = models.find(lambda red: red != want_red, [-(i + 1)] if want_red else [i + 1])
    if witness is not None:
        other = "blue" if want_red else "red"
        return Verdict(
            False,
            f"edge e = {edge_text(e)} is {other} in some good coloring, so it is not always {color}",
            "gadget",
            witness,
        )
    return Verdict(True, f"G is good and edge e = {edge_text(e)} is {color} in every good coloring")


def verify_sender(
    sat: GoodColorings, designated: Designated, positive: bool, known: Coloring | None = None
) -> Verdict:
    e, f = designated.edges
    ie, jf = sat.graph.edge_id(*e), sat.graph.edge_id(*f)
    le, lf = ie + 1, jf + 1
    models = _Models(sat, known, lambda c: (c.red[ie], c.red[jf]))
    for red, color in ((True, "red"), (False, "blue")):
        if models.find(lambda s: s[0] == red, [le if red else -le]) is None:
            return Verdict(
                False,
                f"no good coloring has e = {edge_text(e)} {color}, but a sender needs good colorings "
                f"with e red and with e blue",
                "gadget",
            )
    for red_e in (True, False):
        red_f = (not red_e) if positive else red_e  # the forbidden colour of f
        witness = models.find(
            lambda s: s == (red_e, red_f), [le if red_e else -le, lf if red_f else -lf]
        )
        if witness is not None:
            ce, cf = ("red" if red_e else "blue"), ("red" if red_f else "blue")
            want = "the same colour" if positive else "opposite colours"
            return Verdict(
                False,
                f"a good coloring has e = {edge_text(e)} {ce} and f = {edge_text(f)} {cf}, "
                f"but they must always have {want}",
                "gadget",
                witness,
            )
    relation = "the same colour" if positive else "opposite colours"
    return Verdict(True, f"G is good, e and f always have {relation}, and e takes both colours")


def _star_k(sat: GoodColorings) -> int:
    k = sat.F.star_k
    if k is None:
        raise ValueError(f"hardness gadgets are defined only for F = K1,k; F = {sat.F.name}")
    return k


def verify_clause(
    sat: GoodColorings, designated: Designated, known: Coloring | None = None
) -> Verdict:
    _star_k(sat)
    vs = designated.vertices
    incident = [[i + 1 for i in sat.graph.incident_edges[v]] for v in vs]
    models = _Models(sat, known, lambda c: tuple(c.red_degree(v) == 0 for v in vs))
    # enforced(v): every incident edge blue (plain assumptions); not enforced: a switched clause
    enforced = [[-lit for lit in lits] for lits in incident]
    witness = models.find(all, [lit for lits in enforced for lit in lits])
    if witness is not None:
        return Verdict(
            False,
            "a good coloring has i1, i2 and i3 all enforced (no red edge at any of them)",
            "gadget",
            witness,
        )
    not_enforced = [sat.red_degree_switch(v, at_least=1) for v in vs]
    for pattern in product((True, False), repeat=3):
        if all(pattern):
            continue
        assumption = [
            lit
            for p, enf, ne in zip(pattern, enforced, not_enforced)
            for lit in (enf if p else [ne])
        ]
        if models.find(lambda seen: seen == pattern, assumption) is None:
            words = ", ".join(
                f"{n} {'enforced' if p else 'not enforced'}"
                for n, p in zip(("i1", "i2", "i3"), pattern)
            )
            return Verdict(
                False,
                f"no good coloring has {words}",
                "gadget",
                details={"missing_pattern": {"i1": pattern[0], "i2": pattern[1], "i3": pattern[2]}},
            )
    return Verdict(
        True,
        "G is good, i1, i2, i3 are never all enforced, and every other enforcement pattern occurs",
    )


def verify_variable(
    sat: GoodColorings, designated: Designated, known: Coloring | None = None
) -> Verdict:
    k = _star_k(sat)
    u1, u2, n1 = designated.vertices
    # summary: (u1 free, u2 free, n1 free), free = not an enforcer = red degree ≤ k-2 in a good coloring
    models = _Models(sat, known, lambda c: tuple(c.red_degree(v) != k - 1 for v in (u1, u2, n1)))
    not_enforcer = {v: sat.red_degree_switch(v, at_most=k - 2) for v in (u1, u2, n1)}
    for index, (name, u) in enumerate((("u1", u1), ("u2", u2))):
        witness = models.find(lambda s: s[index] and s[2], [not_enforcer[u], not_enforcer[n1]])
        if witness is not None:
            return Verdict(
                False,
                f"a good coloring has neither {name} nor n1 as an enforcer (red degree {k - 1})",
                "gadget",
                witness,
            )
    if models.find(lambda s: s[0] and s[1], [not_enforcer[u1], not_enforcer[u2]]) is None:
        return Verdict(
            False,
            f"no good coloring has both u1 and u2 not enforcers (red degree {k - 1})",
            "gadget",
        )
    if models.find(lambda s: s[2], [not_enforcer[n1]]) is None:
        return Verdict(
            False, f"no good coloring has n1 not an enforcer (red degree {k - 1})", "gadget"
        )
    return Verdict(
        True,
        "G is good, n1 is an enforcer whenever u1 or u2 is not, and both optional patterns occur",
    )


_BY_TYPE: dict[GadgetType, Callable[[GoodColorings, Designated, Coloring | None], Verdict]] = {
    GadgetType.RED_DETERMINER: lambda s, d, c: verify_determiner(s, d, "red", c),
    GadgetType.BLUE_DETERMINER: lambda s, d, c: verify_determiner(s, d, "blue", c),
    GadgetType.POSITIVE_SENDER: lambda s, d, c: verify_sender(s, d, True, c),
    GadgetType.NEGATIVE_SENDER: lambda s, d, c: verify_sender(s, d, False, c),
    GadgetType.CLAUSE: verify_clause,
    GadgetType.VARIABLE: verify_variable,
}


def good_coloring(problem: Problem, graph: Graph) -> Coloring | MultiColoring | None:
    """A good colouring of ``graph`` for the problem's colours (``None`` when it has none)."""
    if not problem.is_pair:
        with MultiColorings(graph, problem.spec) as multi:
            return multi.solve()
    with GoodColorings(graph, problem.F, problem.H) as sat:
        return sat.solve()


def verify(
    problem: Problem, graph: Graph | Candidate, designated: Designated | None = None
) -> Verdict:
    """Decide whether ``graph`` with ``designated`` items solves ``problem`` exactly (problems with
    three or more colours: :func:`~ramseygadgets.multicolor.verify.verify_multi`, whose
    counterexamples name every edge's colour)."""
    if isinstance(graph, Candidate):
        designated = graph.designated
        graph = graph.graph
    designated = designated or Designated()
    if not problem.spec.is_pair:  # three or more colours, or pattern sets: the k-colour checks
        return verify_multi(problem, graph, designated)
    problem_with_designated = check_designated(graph, problem.gadget, designated)
    if problem_with_designated is not None:
        return Verdict(False, problem_with_designated, "designated")
    with GoodColorings(graph, problem.F, problem.H) as sat:
        first = sat.solve()
        if first is None:
            return Verdict(
                False,
                f"G is not ({problem.F.name}, {problem.H.name})-good: every red/blue coloring "
                f"has a red {problem.F.name} or a blue {problem.H.name}",
                "good",
            )
        return _BY_TYPE[problem.gadget](sat, designated, first)
