"""Exact verification of candidate gadgets: each gadget condition written once, for any number
of colours.

Every check is a SAT question on the good colourings of G, asked with assumptions on one
incremental solver: :class:`~ramseygadgets.colorings.red_blue.GoodColorings` for (F,H) pairs (one
variable r_t per edge, "t is red"), :class:`~ramseygadgets.colorings.multi.MultiColorings`
otherwise; both give the literal lit(t, k), "edge t has colour k".  With ψ_G the good-colouring
CNF:

* G must be good: ψ_G satisfiable.
* determiner of colour k, edge e: ψ_G ∧ ¬lit(e, k) unsatisfiable (red: ψ_G ∧ ¬r_e).
* positive sender e, f: ψ_G ∧ lit(e, k) ∧ ¬lit(f, k) unsatisfiable for every colour k, and e
  takes two colours: with a colouring where e has colour a, ψ_G ∧ ¬lit(e, a) satisfiable
  (negative sender: ψ_G ∧ lit(e, k) ∧ lit(f, k) unsatisfiable for every k).
* clause-gadget (two colours, F = K1,k) i1, i2, i3: a vertex is *enforced* when its red degree
  is 0; the pattern "all three enforced" is unsatisfiable and each of the other 7 patterns
  satisfiable.
* variable-gadget (two colours, F = K1,k) u1, u2, n1: a vertex is an *enforcer* when its red
  degree is k−1.  In a good coloring red degrees are at most k−1 (k red edges at a vertex form
  a red K1,k), so "not an enforcer" is "red degree ≤ k−2".  (a) ψ_G ∧ ¬enf(u_i) ∧ ¬enf(n1)
  unsatisfiable for i = 1, 2; (b) ψ_G ∧ ¬enf(u1) ∧ ¬enf(u2) satisfiable; (c) ψ_G ∧ ¬enf(n1)
  satisfiable.

A :class:`Verdict` says whether the candidate is correct, gives the reason in one sentence, and
carries a witness coloring wherever one exists.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import product
from typing import Any, Protocol

from ramseygadgets.colorings.multi import MultiColoring, MultiColorings
from ramseygadgets.colorings.red_blue import Coloring, GoodColorings
from ramseygadgets.core.errors import InputError
from ramseygadgets.core.gadgets import Candidate, Designated, GadgetKind
from ramseygadgets.core.graphs import Graph
from ramseygadgets.problems.problem import Problem
from ramseygadgets.verification.verdict import Verdict, check_designated, edge_text

__all__ = [
    "VERIFY_SOLVER",
    "Oracle",
    "Verdict",
    "check_designated",
    "colorings_of",
    "good_coloring",
    "verify",
    "verify_clause",
    "verify_determiner",
    "verify_sender",
    "verify_variable",
]


#: The PySAT backend :func:`verify` asks by default.  ``bench/verify_solver.py``: over the
#: atlas's 876 solutions and twins (mostly unsatisfiable questions) Glucose 4 took 18.7 s where
#: MiniSat 2.2 took 36.7 (CaDiCaL 1.5.3 19.1, 1.9.5 19.9); on the catalog's small answers all
#: take about 0.15 ms each.
VERIFY_SOLVER = "glucose4"


class Oracle(Protocol):
    """The good colourings of one graph on an incremental solver (both encodings)."""

    graph: Graph

    def lit(self, edge: int, color: int) -> int: ...

    def solve(self, assumptions: Sequence[int] = ()) -> Any: ...


class _Models:
    """Good colorings found so far, each with a summary (e.g. its enforcement pattern); a question
    already answered by one of them costs no SAT call."""

    def __init__(self, sat: Any, known: Any, summary: Callable[[Any], Any]) -> None:
        self.sat, self.summary = sat, summary
        self.found: list[tuple[Any, Any]] = [] if known is None else [(known, summary(known))]

    def find(self, holds: Callable[[Any], bool], assumptions: list[int]) -> Any:
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
    sat: Oracle, designated: Designated, color: int, names: Sequence[str], known: Any = None
) -> Verdict:
    """Edge e has colour ``color`` in every good colouring."""
    e = designated.edges[0]
    i = sat.graph.edge_id(*e)
    models = _Models(sat, known, lambda c: c.color_index(i))
    witness = models.find(lambda k: k != color, [-sat.lit(i, color)])
    if witness is not None:
        return Verdict(
            False,
            f"edge e = {edge_text(e)} is {names[witness.color_index(i)]} in some good coloring, "
            f"so it is not always {names[color]}",
            "gadget",
            witness,
        )
    return Verdict(
        True, f"G is good and edge e = {edge_text(e)} is {names[color]} in every good coloring"
    )


def verify_sender(
    sat: Oracle, designated: Designated, positive: bool, names: Sequence[str], known: Any = None
) -> Verdict:
    """e takes two colours; e and f always share a colour (positive) or never do (negative)."""
    e, f = designated.edges
    ie, jf = sat.graph.edge_id(*e), sat.graph.edge_id(*f)
    models = _Models(sat, known, lambda c: (c.color_index(ie), c.color_index(jf)))
    first = models.find(lambda s: True, [])
    assert first is not None  # G is good
    a = first.color_index(ie)
    if models.find(lambda s: s[0] != a, [-sat.lit(ie, a)]) is None:
        other = names[1 - a] if len(names) == 2 else f"in a colour other than {names[a]}"
        return Verdict(
            False,
            f"no good coloring has e = {edge_text(e)} {other}, but a sender needs e to take at "
            f"least two colours",
            "gadget",
        )
    relation = (
        "the same colour"
        if positive
        else ("opposite" if len(names) == 2 else "different") + " colours"
    )
    for k in range(len(names)):
        bad = (lambda s: s[0] == k and s[1] != k) if positive else (lambda s: s == (k, k))
        f_lit = -sat.lit(jf, k) if positive else sat.lit(jf, k)
        witness = models.find(bad, [sat.lit(ie, k), f_lit])
        if witness is not None:
            return Verdict(
                False,
                f"a good coloring has e = {edge_text(e)} {names[k]} and f = {edge_text(f)} "
                f"{names[witness.color_index(jf)]}, but they must always have {relation}",
                "gadget",
                witness,
            )
    takes = "both colours" if len(names) == 2 else "at least two colours"
    return Verdict(True, f"G is good, e and f always have {relation}, and e takes {takes}")


def _star_k(sat: GoodColorings) -> int:
    k = sat.F.star_k
    if k is None:
        raise InputError(f"hardness gadgets are defined only for F = K1,k; F = {sat.F.name}")
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


def good_coloring(problem: Problem, graph: Graph) -> Coloring | MultiColoring | None:
    """A good colouring of ``graph`` for the problem's colours (``None`` when it has none)."""
    with colorings_of(problem, graph) as sat:
        return sat.solve()


def verify(
    problem: Problem,
    graph: Graph | Candidate,
    designated: Designated | None = None,
    *,
    encoding: str = "auto",
    solver: str = VERIFY_SOLVER,
) -> Verdict:
    """Decide whether ``graph`` with ``designated`` items solves ``problem`` exactly.

    ``encoding``: ``auto`` (one variable per edge for pairs, the c-colour encoding otherwise) or
    ``colors`` (the c-colour encoding for every determiner and sender: cross-checks of the two);
    ``solver``: the PySAT backend that answers every question."""
    if isinstance(graph, Candidate):
        designated = graph.designated
        graph = graph.graph
    designated = designated or Designated()
    unusable = check_designated(graph, problem.kind, designated, problem.gadget_name)
    if unusable is not None:
        return Verdict(False, unusable, "designated")
    with colorings_of(problem, graph, encoding, solver) as sat:
        first = sat.solve()
        if first is None:
            return Verdict(False, _not_good(problem), "good")
        return _decide(problem, sat, designated, first)


def colorings_of(
    problem: Problem, graph: Graph, encoding: str = "auto", solver: str = VERIFY_SOLVER
) -> GoodColorings | MultiColorings:
    """The good colourings of ``graph``: the two-colour encoding for pairs (the hardness
    gadgets' red-degree switches need it), the c-colour one otherwise."""
    if encoding not in ("auto", "colors"):
        raise InputError(f"unknown encoding {encoding!r}; expected auto or colors")
    if problem.is_pair and (encoding == "auto" or problem.kind.is_hardness):
        return GoodColorings(graph, problem.F, problem.H, solver=solver)
    return MultiColorings(graph, problem.spec, solver=solver)


def _not_good(problem: Problem) -> str:
    """Why G has no good colouring, naming every colour's forbidden patterns."""
    copies = [
        f"a {col.name} copy of {p.name}" for col in problem.spec.colors for p in col.forbidden
    ]
    either = ", ".join(copies[:-1]) + " or " + copies[-1]
    names = "/".join(problem.color_names)
    return f"G is not {problem.colors_label}-good: every {names} coloring has {either}"


def _decide(problem: Problem, sat: Any, designated: Designated, first: Any) -> Verdict:
    kind, names = problem.kind, problem.color_names
    if kind is GadgetKind.DETERMINER:
        assert problem.color is not None
        return verify_determiner(sat, designated, problem.color, names, first)
    if kind in (GadgetKind.POSITIVE_SENDER, GadgetKind.NEGATIVE_SENDER):
        return verify_sender(sat, designated, kind is GadgetKind.POSITIVE_SENDER, names, first)
    if kind is GadgetKind.CLAUSE:
        return verify_clause(sat, designated, first)
    return verify_variable(sat, designated, first)
