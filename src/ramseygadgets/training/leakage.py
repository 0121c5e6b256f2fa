"""The leakage rule: no training problem may equal one of the 70 benchmark problems.

Two problems are *equivalent* when one becomes the other by relabelling F and H (isomorphism)
and/or by exchanging the colours.  Exchanging red and blue maps the (F,H)-good colorings of G
one-to-one onto the (H,F)-good colorings of G, so per gadget type:

* (F,H)-red-determiner  ≡ (H,F)-blue-determiner (e red in every good coloring ↔ e blue in
  every good coloring), and vice versa;
* (F,H)-positive-sender ≡ (H,F)-positive-sender and (F,H)-negative-sender ≡ (H,F)-negative-
  sender ("same colour" / "opposite colours", and "some good coloring has e red / e blue", are
  unchanged by the exchange);
* clause and variable gadgets have no colour-exchanged twin among the six types: their
  definitions count *red* edges at vertices for F = K1,k, and the exchanged statement (about
  blue edges, forbidding a red H) is none of the six.  They are equivalent only up to
  isomorphism of F and H.

:func:`problem_key` is the canonical form of this equivalence: the nauty canonical graph6 of F
and H plus the gadget, minimised over the colour exchange where it applies.  Equal keys ⇔
equivalent problems.
"""

from __future__ import annotations

from functools import lru_cache

from ramseygadgets.catalog import Problem, all_problems
from ramseygadgets.gadgets import GadgetType
from ramseygadgets.patterns import canonical_graph6

__all__ = [
    "COLOUR_SWAP",
    "ProblemKey",
    "problem_key",
    "benchmark_keys",
    "is_benchmark_equivalent",
]


#: What exchanging the colours does to each gadget type of the (F,H) problem, read as an
#: (H,F) problem; ``None``: no gadget type of the (H,F) problem is equivalent.
COLOUR_SWAP: dict[GadgetType, GadgetType | None] = {
    GadgetType.RED_DETERMINER: GadgetType.BLUE_DETERMINER,
    GadgetType.BLUE_DETERMINER: GadgetType.RED_DETERMINER,
    GadgetType.POSITIVE_SENDER: GadgetType.POSITIVE_SENDER,
    GadgetType.NEGATIVE_SENDER: GadgetType.NEGATIVE_SENDER,
    GadgetType.CLAUSE: None,
    GadgetType.VARIABLE: None,
}

ProblemKey = tuple[str, str, str]


def problem_key(problem: Problem) -> ProblemKey:
    """Canonical form of ``problem`` up to isomorphism of F and H and the colour exchange."""
    if not problem.is_pair:  # more colours or pattern sets: never one of the 70 (all pairs)
        colors = "|".join(",".join(col.key) for col in problem.spec.colors)
        return ("colors", colors, problem.gadget_name)
    f, h = canonical_graph6(problem.F.graph), canonical_graph6(problem.H.graph)
    own = (f, h, problem.gadget.value)
    swapped = COLOUR_SWAP[problem.gadget]
    return own if swapped is None else min(own, (h, f, swapped.value))


@lru_cache(maxsize=1)
def benchmark_keys() -> frozenset[ProblemKey]:
    """The canonical forms of the 70 benchmark problems."""
    return frozenset(problem_key(p) for p in all_problems())


def is_benchmark_equivalent(problem: Problem) -> bool:
    """Whether ``problem`` equals a benchmark problem up to isomorphism and colour exchange."""
    return problem_key(problem) in benchmark_keys()
