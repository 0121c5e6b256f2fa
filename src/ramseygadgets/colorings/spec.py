"""Colouring specs: c ≥ 2 colours, each forbidding a set of patterns.

A *spec* is a tuple of colour classes; colour ``i`` forbids every pattern of its set.  An edge
coloring of G (each edge exactly one colour) is *good* when no colour class contains a copy of
one of its forbidden patterns in that colour.  The two-colour spec ``(red: {F}, blue: {H})`` is
the paper's (F,H)-goodness.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ramseygadgets.core.errors import RamseyGadgetsError, UnknownPatternError
from ramseygadgets.core.gadgets import COLOR_NAMES
from ramseygadgets.core.patterns import Pattern, canonical_graph6, get_pattern

__all__ = [
    "MAX_COLORS",
    "ColorClass",
    "ColoringSpec",
    "SpecError",
    "split_pattern_list",
]

MAX_COLORS = len(COLOR_NAMES)


class SpecError(RamseyGadgetsError, ValueError):
    """A colouring spec or a problem is malformed."""


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
        """One forbidden pattern per colour: the spec of a :class:`~ramseygadgets.problems.problem.Problem`."""
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
        """One entry per colour: a pattern (``"P3"``) or a list of patterns (``["K3", "C4"]``)."""
        if not isinstance(data, list) or not all(
            (isinstance(g, list) and g and all(isinstance(x, str) for x in g))
            or (isinstance(g, str) and g.strip())
            for g in data
        ):
            raise SpecError(
                f'"colors" must list one forbidden pattern (or a list of patterns) per colour, '
                f"got {data!r}"
            )
        try:
            return cls.of(*[[g] if isinstance(g, str) else g for g in data])
        except UnknownPatternError as exc:
            raise SpecError(f'"colors" {data!r}: {exc}') from None
