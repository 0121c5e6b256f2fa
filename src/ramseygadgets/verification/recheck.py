"""A second, independent verification of a solution, for results that are published as facts
(a new best known construction, a solution claimed below a proof).

The brute force over all c^m colourings (:func:`~ramseygadgets.verification.bruteforce.brute_force_verify`
for pairs, :func:`~ramseygadgets.verification.bruteforce_multi.brute_force_verify_multi` otherwise)
when c^m ≤ 2^22; above that, for a determiner or sender, the other SAT encoding of the
colourings (``verify(..., encoding="colors")``, one variable per edge and colour, against the
pair encoding the verifier uses by default).  What remains (a large three-colour or hardness
gadget) is reported as not rechecked, never as agreeing.
"""

from __future__ import annotations

from dataclasses import dataclass

from ramseygadgets.core.gadgets import Candidate
from ramseygadgets.problems.problem import Problem
from ramseygadgets.verification.bruteforce import brute_force_verify
from ramseygadgets.verification.bruteforce_multi import brute_force_verify_multi
from ramseygadgets.verification.verifier import verify

__all__ = ["BRUTE_FORCE_COLORINGS", "Recheck", "recheck"]

#: The most colourings (c^m) the brute force enumerates.
BRUTE_FORCE_COLORINGS = 2**22


@dataclass(frozen=True)
class Recheck:
    """``method``: ``brute-force``, ``second-encoding`` or ``none``; ``agrees``: whether it says
    the candidate solves the problem (``None`` when no second method applies)."""

    method: str
    agrees: bool | None

    def to_json(self) -> dict[str, object]:
        return {"method": self.method, "agrees": self.agrees}


def recheck(problem: Problem, candidate: Candidate) -> Recheck:
    """Decide ``candidate`` again by a method independent of :func:`~ramseygadgets.verify.verify`."""
    graph, designated = candidate.graph, candidate.designated
    if problem.c**graph.m <= BRUTE_FORCE_COLORINGS:
        if problem.is_pair:
            holds = brute_force_verify(graph, problem.F, problem.H, problem.gadget, designated)
        elif problem.kind.is_hardness:
            return Recheck("none", None)
        else:
            holds = brute_force_verify_multi(problem, graph, designated)
        return Recheck("brute-force", holds)
    if problem.is_pair and not problem.kind.is_hardness:
        return Recheck("second-encoding", verify(problem, candidate, encoding="colors").correct)
    return Recheck("none", None)
