"""Colouring specs with c ≥ 2 colours, each forbidding a set of patterns, and the gadget
problems that make sense for them.

A *spec* is a tuple of colour classes; colour ``i`` forbids every pattern of its set.  An edge
coloring of G (each edge exactly one colour) is *good* when no colour class contains a copy of
one of its forbidden patterns in that colour.  The two-colour spec ``(red: {F}, blue: {H})`` is
the paper's (F,H)-goodness.

Gadget kinds (hardness gadgets stay two-colour and go through the core, :mod:`ramseygadgets.verify`):

* ``determiner`` for colour i: an edge e that has colour i in every good coloring;
* ``positive-sender``: distinct edges e, f with the same colour in every good coloring, and e
  takes at least two colours over the good colorings;
* ``negative-sender``: e and f never have the same colour, and e takes at least two colours.

With two colours these are exactly the red-/blue-determiner and the senders of the paper.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ramseygadgets.catalog import Problem
from ramseygadgets.errors import RamseyGadgetsError, UnknownPatternError
from ramseygadgets.gadgets import COLOR_NAMES, GadgetType
from ramseygadgets.patterns import Pattern, canonical_graph6, get_pattern

MAX_COLORS = len(COLOR_NAMES)

KINDS = ("determiner", "positive-sender", "negative-sender")


class SpecError(RamseyGadgetsError, ValueError):
    """A colouring spec or a multi-colour problem is malformed."""


def split_pattern_list(text: str) -> list[str]:
    """Split ``"P3,K1,3, K4"`` into patterns: commas separate items, except the commas of ``Ka,b``
    and ``K1,1,3`` and commas inside brackets (edge lists such as ``[(0,1),(1,2)]``)."""
    items: list[str] = []
    depth, current = 0, ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        if ch == "," and depth == 0:
            items.append(current)
            current = ""
        else:
            current += ch
    items.append(current)
    merged: list[str] = []
    for item in (x.strip() for x in items):
        if merged and re.fullmatch(r"\d+", item) and re.fullmatch(r"(?i)k\d+(,\d+)*", merged[-1]):
            merged[-1] = f"{merged[-1]},{item}"
        elif item:
            merged.append(item)
    return merged


@dataclass(frozen=True)
class ColorClass:
    """One colour: its name and the patterns it must avoid (deduplicated up to isomorphism)."""

    name: str
    forbidden: tuple[Pattern, ...]

    @cached_property
    def key(self) -> tuple[str, ...]:
        """Canonical graph6 of every forbidden pattern, sorted: equal keys = same constraint."""
        return tuple(sorted(canonical_graph6(p.graph) for p in self.forbidden))

    @property
    def label(self) -> str:
        return ", ".join(p.name for p in self.forbidden)


def _dedupe(patterns: Iterable[Pattern]) -> tuple[Pattern, ...]:
    seen: dict[str, Pattern] = {}
    for p in patterns:
        seen.setdefault(canonical_graph6(p.graph), p)
    return tuple(
        sorted(seen.values(), key=lambda p: (p.graph.n, p.graph.m, canonical_graph6(p.graph)))
    )


@dataclass(frozen=True)
class ColoringSpec:
    """c ≥ 2 colours; colour i forbids ``colors[i].forbidden``."""

    colors: tuple[ColorClass, ...]

    def __post_init__(self) -> None:
        if not 2 <= len(self.colors) <= MAX_COLORS:
            raise SpecError(
                f"a colouring spec needs 2 to {MAX_COLORS} colours, got {len(self.colors)}"
            )
        for color in self.colors:
            if not color.forbidden:
                raise SpecError(
                    f"colour {color.name} forbids no pattern; every colour needs at least one"
                )

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def of(cls, *pattern_sets: Sequence[str | Pattern] | str | Pattern) -> ColoringSpec:
        """``ColoringSpec.of("P3", ["K3", "C4"], "K4")``: one argument per colour."""
        colors = []
        for i, group in enumerate(pattern_sets):
            items = [group] if isinstance(group, (str, Pattern)) else list(group)
            patterns = [p if isinstance(p, Pattern) else get_pattern(p) for p in items]
            colors.append(
                ColorClass(COLOR_NAMES[i] if i < MAX_COLORS else f"colour{i}", _dedupe(patterns))
            )
        return cls(tuple(colors))

    @classmethod
    def parse(cls, text: str) -> ColoringSpec:
        """``"P3 | K3,C4 | K4"``: colours separated by ``|`` or ``;``, patterns by commas."""
        groups = [g.strip() for g in re.split(r"[|;]", text)]
        if len(groups) < 2 or not all(groups):
            raise SpecError(
                f"cannot read colouring spec {text!r}: give the colours' forbidden patterns separated "
                f"by '|', e.g. 'P3 | K3,C4 | K4'"
            )
        try:
            return cls.of(*[split_pattern_list(g) for g in groups])
        except UnknownPatternError as exc:
            raise SpecError(f"colouring spec {text!r}: {exc}") from None

    @classmethod
    def pair(cls, F: str | Pattern, H: str | Pattern) -> ColoringSpec:
        """The paper's two-colour spec: red avoids F, blue avoids H."""
        return cls.of([F], [H])

    # -- properties ---------------------------------------------------------------------------
    @property
    def c(self) -> int:
        return len(self.colors)

    @property
    def is_pair(self) -> bool:
        """Two colours with one forbidden pattern each: the paper's (F,H)-goodness."""
        return self.c == 2 and all(len(col.forbidden) == 1 for col in self.colors)

    @property
    def F(self) -> Pattern:
        return self.colors[0].forbidden[0]

    @property
    def H(self) -> Pattern:
        return self.colors[1].forbidden[0]

    @cached_property
    def slug(self) -> str:
        """URL-safe: colours joined by ``__``, patterns of one colour by ``-`` (``p3__k3-c4__k4``).
        For a pair it is ``{F}_{H}`` as in catalog ids."""
        if self.is_pair:
            return f"{self.F.slug}_{self.H.slug}"
        return "__".join("-".join(p.slug for p in col.forbidden) for col in self.colors)

    @property
    def is_simple(self) -> bool:
        """One forbidden pattern per colour: the spec of a :class:`~ramseygadgets.catalog.Problem`."""
        return all(len(col.forbidden) == 1 for col in self.colors)

    @property
    def title(self) -> str:
        """``(P3, P3, K3)`` with one pattern per colour, else ``(red: {P3}; blue: {K3, C4}; …)``."""
        if self.is_simple:
            return "(" + ", ".join(col.forbidden[0].name for col in self.colors) + ")"
        return "(" + "; ".join(f"{col.name}: {{{col.label}}}" for col in self.colors) + ")"

    def twins(self, color: int) -> list[int]:
        """Other colours with exactly the same forbidden set (exchanging them maps good colorings
        to good colorings, so no edge can be forced into either)."""
        return [
            j
            for j, col in enumerate(self.colors)
            if j != color and col.key == self.colors[color].key
        ]

    @cached_property
    def key(self) -> tuple[tuple[str, ...], ...]:
        """Canonical form up to renaming the colours (for deduplicating specs)."""
        return tuple(sorted(col.key for col in self.colors))

    def to_json(self) -> list[list[str]]:
        return [[p.spec for p in col.forbidden] for col in self.colors]

    @classmethod
    def from_json(cls, data: Any) -> ColoringSpec:
        if not isinstance(data, list) or not all(isinstance(g, list) and g for g in data):
            raise SpecError(
                f"a colouring spec is a list of pattern lists, one per colour, got {data!r}"
            )
        try:
            return cls.of(*[[str(x) for x in g] for g in data])
        except UnknownPatternError as exc:
            raise SpecError(str(exc)) from None


@dataclass(frozen=True)
class MultiProblem:
    """A determiner (for one colour) or a sender for a colouring spec: the spec form of a problem
    (a forbidden *set* per colour), used by ``generate``, the census and :func:`solve_multi`.
    With one pattern per colour it is a :class:`~ramseygadgets.catalog.Problem`, the one model
    of prompts, parser, judge and harness (:meth:`of_problem` / :meth:`to_problem`, same id and
    title)."""

    spec: ColoringSpec
    kind: str
    color: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise SpecError(
                f"unknown multi-colour gadget kind {self.kind!r}; expected one of {', '.join(KINDS)}"
            )
        if (self.kind == "determiner") != (self.color is not None):
            raise SpecError("a determiner names its colour; senders do not")
        if self.color is not None and not 0 <= self.color < self.spec.c:
            raise SpecError(f"colour {self.color} is not one of the spec's {self.spec.c} colours")

    @classmethod
    def make(cls, spec: ColoringSpec | str, gadget: str) -> MultiProblem:
        """``gadget``: ``positive-sender``, ``negative-sender`` or ``<colour>-determiner``."""
        spec = spec if isinstance(spec, ColoringSpec) else ColoringSpec.parse(spec)
        key = gadget.strip().lower().replace("_", "-")
        if key in ("positive-sender", "negative-sender"):
            return cls(spec, key)
        if key.endswith("-determiner"):
            name = key.removesuffix("-determiner")
            names = [col.name for col in spec.colors]
            if name in names:
                return cls(spec, "determiner", names.index(name))
        choices = [f"{col.name}-determiner" for col in spec.colors] + [
            "positive-sender",
            "negative-sender",
        ]
        raise SpecError(
            f"unknown gadget {gadget!r} for this spec; expected one of {', '.join(choices)}"
        )

    @classmethod
    def of_problem(cls, problem: Problem) -> MultiProblem:
        """The colouring-spec form of a problem (any number of colours; not for hardness gadgets)."""
        spec = ColoringSpec.of(*problem.patterns)
        if problem.gadget.is_hardness:
            raise SpecError(f"{problem.gadget.value} stays two-colour: use the core verifier")
        color = problem.determined_color
        return (
            cls(spec, "determiner", color) if color is not None else cls(spec, problem.gadget.value)
        )

    @property
    def gadget(self) -> str:
        """``red-determiner`` / ``green-determiner`` / ``positive-sender`` / ``negative-sender``."""
        if self.kind == "determiner":
            assert self.color is not None
            return f"{self.spec.colors[self.color].name}-determiner"
        return self.kind

    @property
    def gadget_type(self) -> GadgetType:
        """The core gadget type with the same designated items (its name only fits two colours)."""
        if self.kind == "determiner":
            return GadgetType.RED_DETERMINER if self.color == 0 else GadgetType.BLUE_DETERMINER
        return GadgetType(self.kind)

    @property
    def edge_names(self) -> tuple[str, ...]:
        return ("e",) if self.kind == "determiner" else ("e", "f")

    @property
    def id(self) -> str:
        return f"{self.spec.slug}_{self.gadget.replace('-', '_')}"

    @property
    def tier(self) -> str:
        return "easy" if self.kind == "determiner" else "hard"

    @property
    def title(self) -> str:
        return f"{self.spec.title}-{self.gadget}"

    def to_problem(self) -> Problem | None:
        """The :class:`Problem` when every colour forbids one pattern, else ``None``."""
        if not self.spec.is_simple:
            return None
        return Problem.of_colors([col.forbidden[0] for col in self.spec.colors], self.gadget)

    def is_possible_by_symmetry(self) -> bool:
        """False for a determiner of a colour that has a twin (same forbidden set)."""
        return self.kind != "determiner" or not self.spec.twins(self.color or 0)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "colors": self.spec.to_json(),
            "color_names": [c.name for c in self.spec.colors],
            "gadget": self.gadget,
            "tier": self.tier,
            "title": self.title,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MultiProblem:
        if "colors" not in data or "gadget" not in data:
            raise SpecError('a multi-colour problem record needs "colors" and "gadget"')
        return cls.make(ColoringSpec.from_json(data["colors"]), str(data["gadget"]))
