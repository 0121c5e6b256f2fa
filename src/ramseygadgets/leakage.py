"""The leakage rule: which problems are *equivalent*, and which ones the project publishes (the
paper's 70 and the extended set), so that training data and fresh evaluation problems
(``train-data``, ``eval --fresh``) hold none of them.

Two problems are *equivalent* when one becomes the other by relabelling their patterns
(isomorphism) and/or by renaming the colours.  Exchanging red and blue maps the (F,H)-good
colorings of G one-to-one onto the (H,F)-good colorings of G, so per gadget type:

* (F,H)-red-determiner  ≡ (H,F)-blue-determiner (e red in every good coloring ↔ e blue in
  every good coloring), and vice versa;
* (F,H)-positive-sender ≡ (H,F)-positive-sender and (F,H)-negative-sender ≡ (H,F)-negative-
  sender ("same colour" / "opposite colours", and "some good coloring has e red / e blue", are
  unchanged by the exchange);
* clause and variable gadgets have no colour-exchanged twin among the six types: their
  definitions count *red* edges at vertices for F = K1,k, and the exchanged statement (about
  blue edges, forbidding a red H) is none of the six.  They are equivalent only up to
  isomorphism of F and H.

With c ≥ 3 colours (or a colour with several patterns) any permutation of the colours maps good
colourings to good colourings the same way: a determiner of colour k becomes the determiner of
the colour k is renamed to, senders stay senders.

:func:`problem_key` is the canonical form of this equivalence: for a pair the nauty canonical
graph6 of F and H plus the gadget, minimised over the colour exchange where it applies; with
more colours the colours' canonical pattern sets, sorted, with a determiner's colour first.
Equal keys ⇔ equivalent problems.
"""

from __future__ import annotations

from functools import lru_cache

from ramseygadgets.catalog import Problem, all_problems
from ramseygadgets.extended import extended_problems
from ramseygadgets.gadgets import GadgetType
from ramseygadgets.patterns import canonical_graph6

__all__ = [
    "COLOUR_SWAP",
    "ProblemKey",
    "problem_key",
    "benchmark_keys",
    "extended_keys",
    "published_keys",
    "is_benchmark_equivalent",
    "is_published",
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
    """Canonical form of ``problem`` up to isomorphism of its patterns and renaming the colours."""
    if not problem.is_pair:  # more colours or pattern sets: never one of the 70 (all pairs)
        colors = [",".join(col.key) for col in problem.spec.colors]
        if problem.color is None:  # senders: every renaming of the colours
            return ("colors", "|".join(sorted(colors)), problem.kind.value)
        forced = colors.pop(problem.color)  # the determined colour first, the others sorted
        return ("colors", "|".join([forced, *sorted(colors)]), problem.kind.value)
    f, h = canonical_graph6(problem.F.graph), canonical_graph6(problem.H.graph)
    own = (f, h, problem.gadget.value)
    swapped = COLOUR_SWAP[problem.gadget]
    return own if swapped is None else min(own, (h, f, swapped.value))


@lru_cache(maxsize=1)
def benchmark_keys() -> frozenset[ProblemKey]:
    """The canonical forms of the 70 benchmark problems."""
    return frozenset(problem_key(p) for p in all_problems())


@lru_cache(maxsize=1)
def extended_keys() -> frozenset[ProblemKey]:
    """The canonical forms of the extended set's problems (``--set extended``)."""
    return frozenset(problem_key(entry.problem) for entry in extended_problems())


def published_keys() -> frozenset[ProblemKey]:
    """The canonical forms of every problem the project publishes: the 70 and the extended set."""
    return benchmark_keys() | extended_keys()


def is_benchmark_equivalent(problem: Problem) -> bool:
    """Whether ``problem`` equals a benchmark problem up to isomorphism and colour exchange."""
    return problem_key(problem) in benchmark_keys()


def is_published(problem: Problem) -> bool:
    """Whether ``problem`` equals one of the 70 or an extended problem (see :func:`problem_key`)."""
    return problem_key(problem) in published_keys()
