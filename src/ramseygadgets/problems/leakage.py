"""The leakage rule: which problems are *equivalent*, and which ones the project publishes (the
paper's 70 and the extended set), so that training data and fresh evaluation problems
(``train-data``, the reasoning-gym dataset, ``eval --fresh``) hold none of them.

Training sources leave out both published sets by default (:func:`excluded_keys`); asked
explicitly (``train-data --include-extended``, ``include_extended=True``), they leave out only
the 70 (:data:`PAPER_SET`) and may hold extended problems: train on those only when you never
evaluate on ``--set extended``.  ``eval --fresh`` always leaves out both.

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

from ramseygadgets.core.gadgets import GadgetType
from ramseygadgets.core.patterns import canonical_graph6
from ramseygadgets.problems.catalog import Problem, all_problems
from ramseygadgets.problems.extended import extended_problems

__all__ = [
    "COLOR_SWAP",
    "EXTENDED_SET",
    "PAPER_SET",
    "ProblemKey",
    "problem_key",
    "benchmark_keys",
    "extended_keys",
    "published_keys",
    "excluded_keys",
    "excluded_sets",
    "exclusion_rule",
    "published_set",
    "is_benchmark_equivalent",
    "is_published",
]

#: The published sets, as manifests and reasons name them: the paper's 70 (``--set paper``)
#: and the extended set (``--set extended``).
PAPER_SET = "paper"
EXTENDED_SET = "extended"


#: What exchanging the colours does to each gadget type of the (F,H) problem, read as an
#: (H,F) problem; ``None``: no gadget type of the (H,F) problem is equivalent.
COLOR_SWAP: dict[GadgetType, GadgetType | None] = {
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
    swapped = COLOR_SWAP[problem.gadget]
    return own if swapped is None else min(own, (h, f, swapped.value))


@lru_cache(maxsize=1)
def benchmark_keys() -> frozenset[ProblemKey]:
    """The canonical forms of the 70 benchmark problems."""
    return frozenset(problem_key(p) for p in all_problems())


@lru_cache(maxsize=1)
def extended_keys() -> frozenset[ProblemKey]:
    """The canonical forms of the extended set's problems (``--set extended``)."""
    return frozenset(problem_key(entry.problem) for entry in extended_problems())


@lru_cache(maxsize=1)
def published_keys() -> frozenset[ProblemKey]:
    """The canonical forms of every problem the project publishes: the 70 and the extended set."""
    return benchmark_keys() | extended_keys()


def is_benchmark_equivalent(problem: Problem) -> bool:
    """Whether ``problem`` equals a benchmark problem up to isomorphism and colour exchange."""
    return problem_key(problem) in benchmark_keys()


def is_published(problem: Problem) -> bool:
    """Whether ``problem`` equals one of the 70 or an extended problem (see :func:`problem_key`)."""
    return problem_key(problem) in published_keys()


def excluded_sets(include_extended: bool = False) -> tuple[str, ...]:
    """The published sets a training source leaves out: the 70 always, the extended set unless
    ``include_extended``."""
    return (PAPER_SET,) if include_extended else (PAPER_SET, EXTENDED_SET)


def excluded_keys(include_extended: bool = False) -> frozenset[ProblemKey]:
    """The canonical forms a training source never holds (:func:`excluded_sets`)."""
    return benchmark_keys() if include_extended else published_keys()


def exclusion_rule(include_extended: bool = False) -> str:
    """One sentence for a manifest: what a training source left out, and by which equivalence."""
    sets = f"one of the {len(benchmark_keys())} benchmark problems (--set paper)"
    if not include_extended:
        sets += f" or one of the {len(extended_problems())} problems of --set extended"
    return (
        f"no problem equivalent to {sets}, up to isomorphism of the patterns and renaming the "
        "colours (an (F,H) red-determiner is an (H,F) blue-determiner)"
    )


def published_set(problem: Problem) -> str | None:
    """The published set ``problem`` is equivalent to a problem of: :data:`PAPER_SET` (one of
    the 70; checked first), :data:`EXTENDED_SET`, or ``None``."""
    key = problem_key(problem)
    if key in benchmark_keys():
        return PAPER_SET
    return EXTENDED_SET if key in extended_keys() else None
