"""Exact verification of multi-colour determiners and senders (SAT with assumptions).

With ``lit(i, k)`` = "edge i has colour k" (:mod:`.colorings`) and ψ_G the good-colouring CNF:

* G must be good: ψ_G satisfiable.
* determiner for colour k: ψ_G ∧ ¬lit(e, k) unsatisfiable.
* positive sender: ψ_G ∧ lit(e, k) ∧ ¬lit(f, k) unsatisfiable for every colour k (e and f
  always share a colour), and e takes two colours: with a first model where e has colour a,
  ψ_G ∧ ¬lit(e, a) satisfiable.
* negative sender: ψ_G ∧ lit(e, k) ∧ lit(f, k) unsatisfiable for every k, and e takes two colours.

For two colours these are literally the core checks of :mod:`ramseygadgets.verify` (tested on
every shipped solution and on random candidates).
"""

from __future__ import annotations

from ramseygadgets.coloring_spec import ColoringSpec
from ramseygadgets.gadgets import Candidate, Designated
from ramseygadgets.graphs import Graph
from ramseygadgets.multicolor.colorings import MultiColorings
from ramseygadgets.problem import Problem
from ramseygadgets.verdict import Verdict, check_designated, edge_text


def _not_good(spec: ColoringSpec) -> str:
    """Why G is not good, in the words of the two-colour verifier."""
    names = [col.name for col in spec.colors]
    copies = [f"a {col.name} copy of {p.name}" for col in spec.colors for p in col.forbidden]
    either = ", ".join(copies[:-1]) + " or " + copies[-1]
    return f"G is not {spec.title}-good: every {'/'.join(names)} coloring has {either}"


def verify_multi(
    problem: Problem, graph: Graph | Candidate, designated: Designated | None = None
) -> Verdict:
    """Decide whether ``graph`` with its designated edges solves the multi-colour ``problem``."""
    if isinstance(graph, Candidate):
        designated = graph.designated
        graph = graph.graph
    designated = designated or Designated()
    unusable = check_designated(graph, problem.kind, designated, problem.gadget_name)
    if unusable is not None:
        return Verdict(False, unusable, "designated")
    spec = problem.spec
    with MultiColorings(graph, spec) as sat:
        first = sat.solve()
        if first is None:
            return Verdict(False, _not_good(spec), "good")
        e = designated.edges[0]
        ie = graph.edge_id(*e)
        names = [col.name for col in spec.colors]
        if problem.kind == "determiner":
            k = problem.color
            assert k is not None
            witness = first if first.colors[ie] != k else sat.solve([-sat.lit(ie, k)])
            if witness is not None:
                return Verdict(
                    False,
                    f"edge e = {edge_text(e)} is {names[witness.colors[ie]]} in some good coloring, so "
                    f"it is not always {names[k]}",
                    "gadget",
                    witness,
                )
            return Verdict(
                True, f"G is good and edge e = {edge_text(e)} is {names[k]} in every good coloring"
            )
        f = designated.edges[1]
        jf = graph.edge_id(*f)
        positive = problem.kind == "positive-sender"
        for k in range(spec.c):
            assumption = [sat.lit(ie, k), -sat.lit(jf, k) if positive else sat.lit(jf, k)]
            witness = sat.solve(assumption)
            if witness is not None:
                want = "the same colour" if positive else "different colours"
                return Verdict(
                    False,
                    f"a good coloring has e = {edge_text(e)} {names[witness.colors[ie]]} and "
                    f"f = {edge_text(f)} {names[witness.colors[jf]]}, but they must always have {want}",
                    "gadget",
                    witness,
                )
        if sat.solve([-sat.lit(ie, first.colors[ie])]) is None:
            return Verdict(
                False,
                f"edge e = {edge_text(e)} is {names[first.colors[ie]]} in every good coloring, but a "
                f"sender needs e to take at least two colours",
                "gadget",
            )
        relation = "the same colour" if positive else "different colours"
        return Verdict(
            True, f"G is good, e and f always have {relation}, and e takes at least two colours"
        )
