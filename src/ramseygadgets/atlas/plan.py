"""Which problems the atlas holds: its two sections, the colour-swap identification, the facts
that need no search, and the one function that names graphs in tables.

Colour swap.  Exchanging red and blue maps the (F,H)-good colorings of G one-to-one onto its
(H,F)-good colorings.  Hence an (F,H)-red-determiner is exactly an (H,F)-blue-determiner (and
vice versa), and a positive / negative (F,H)-sender is exactly a positive / negative
(H,F)-sender ("same colour" and "opposite colours" survive the exchange, and so do "some good
coloring has e red" and "some has e blue").  Clause and variable gadgets are defined through red
degrees for F = K1,k and have no counterpart for (H, F).  So each unordered pair {F, H} is
computed once, in the orientation met first (stars first), and every problem records its twin.

F = H.  Then the exchange maps good colorings to good colorings, so if some edge e were red in
every good coloring, it would also be blue in every good coloring; since a solution is good
(it has at least one good coloring), no edge can be either: determiners do not exist.  These
are recorded as proven facts (status ``impossible``), not searched.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ramseygadgets.core.gadgets import GadgetType
from ramseygadgets.core.patterns import Pattern, canonical_graph6, name_graph
from ramseygadgets.problems.catalog import Problem
from ramseygadgets.problemsets import ProblemSetError, plan_problem_set

__all__ = [
    "PAPER_GRAPHS",
    "STARS",
    "SELF_PAIR_REASON",
    "Section",
    "SECTIONS",
    "AtlasTask",
    "Impossible",
    "AtlasPlan",
    "graph_label",
    "color_swap",
    "parse_sections",
    "plan_atlas",
]


#: The paper's eight graphs, stars first (so (K1,3, K3) keeps the catalog's orientation).
PAPER_GRAPHS = ("P3", "K1,3", "K3", "P4", "TK3", "C4", "K4-e", "K4")
STARS = ("K1,2", "K1,3", "K1,4")

SELF_PAIR_REASON = (
    "F = H: exchanging the colours maps good colorings to good colorings, so an edge red in "
    "every good coloring would also be blue in every one; a solution has a good coloring, so "
    "no determiner exists"
)


@dataclass(frozen=True)
class Section:
    """One part of the atlas: F and H lists (``connected:k`` allowed) and the gadget types."""

    name: str
    title: str
    F: tuple[str, ...]
    H: tuple[str, ...]
    gadgets: str


SECTIONS: dict[str, Section] = {
    "paper": Section(
        "paper",
        "every pair {F, H} of the paper's eight graphs, determiners and senders",
        PAPER_GRAPHS,
        PAPER_GRAPHS,
        "determiners,senders",
    ),
    "stars": Section(
        "stars",
        "stars K1,2, K1,3, K1,4 against every connected 5-vertex graph, all six types",
        STARS,
        ("connected:5",),
        "all",
    ),
}


@dataclass(frozen=True)
class AtlasTask:
    """A problem of the atlas and its section."""

    section: str
    problem: Problem

    @property
    def id(self) -> str:
        return self.problem.id


@dataclass(frozen=True)
class Impossible:
    """A problem of the atlas decided without search (``reason`` is the proof)."""

    section: str
    problem: Problem
    reason: str

    @property
    def id(self) -> str:
        return self.problem.id


@dataclass
class AtlasPlan:
    """The atlas' problems in order (to search, or proven impossible by the rules), and the
    problems not asked (with the reason)."""

    items: list[AtlasTask | Impossible] = field(default_factory=list)
    not_asked: list[dict[str, str]] = field(default_factory=list)

    @property
    def problems(self) -> list[AtlasTask]:
        return [p for p in self.items if isinstance(p, AtlasTask)]

    @property
    def impossible(self) -> list[Impossible]:
        return [p for p in self.items if isinstance(p, Impossible)]

    @property
    def ids(self) -> list[str]:
        return [p.id for p in self.items]


def graph_label(pattern: Pattern) -> str:
    """The name tables show for a pattern, however it was spelled: its name in the names table
    (:func:`ramseygadgets.core.patterns.name_graph`; every graph on ≤ 5 vertices has one), else its
    family's, else the generated ``n{n}m{m}-{hash}``."""
    return name_graph(pattern.graph).name


def color_swap(problem: Problem) -> str | None:
    """The title of the same problem with the colours exchanged (``None``: no counterpart)."""
    twin = {
        GadgetType.RED_DETERMINER: GadgetType.BLUE_DETERMINER,
        GadgetType.BLUE_DETERMINER: GadgetType.RED_DETERMINER,
        GadgetType.POSITIVE_SENDER: GadgetType.POSITIVE_SENDER,
        GadgetType.NEGATIVE_SENDER: GadgetType.NEGATIVE_SENDER,
    }.get(problem.gadget)
    if twin is None:
        return None
    return f"({graph_label(problem.H)}, {graph_label(problem.F)})-{twin.value}"


def parse_sections(names: list[str] | None) -> list[Section]:
    """``paper``, ``stars`` or ``all`` (default: all), in the atlas' order."""
    wanted = {n.strip().lower() for item in names or ["all"] for n in item.split(",") if n.strip()}
    unknown = wanted - set(SECTIONS) - {"all"}
    if unknown:
        raise ProblemSetError(
            f"unknown atlas section {sorted(unknown)[0]!r}; use {', '.join(SECTIONS)} or all"
        )
    return [s for name, s in SECTIONS.items() if "all" in wanted or name in wanted]


def plan_atlas(sections: list[Section]) -> AtlasPlan:
    """Every problem of the sections, deduplicated up to colour swap by :func:`plan_problem_set`;
    for F ≅ H the two determiners as proven-impossible facts."""
    plan = AtlasPlan()
    for section in sections:
        part = plan_problem_set(section.F, section.H, gadgets=section.gadgets)
        for p in part.problems:
            if p.gadget is GadgetType.POSITIVE_SENDER and _isomorphic(p.F, p.H):
                plan.items += [
                    Impossible(section.name, Problem.make(p.F, p.H, g), SELF_PAIR_REASON)
                    for g in (GadgetType.RED_DETERMINER, GadgetType.BLUE_DETERMINER)
                ]
            plan.items.append(AtlasTask(section.name, p))
        plan.not_asked += [
            {"section": section.name, **s}
            for s in part.skipped
            if "colours exchanged" not in s["reason"] and not s["reason"].startswith("F ≅ H")
        ]
    return plan


def _isomorphic(a: Pattern, b: Pattern) -> bool:
    return canonical_graph6(a.graph) == canonical_graph6(b.graph)
