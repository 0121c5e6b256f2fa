"""The problem model: one class for every construction problem the project can pose.

A :class:`Problem` is a colouring spec (c ≥ 2 colours; colour i forbids the patterns of its
set, :mod:`ramseygadgets.colorings.spec`), a gadget kind and, for a determiner, the colour it
forces.  With the good colourings of G (no colour class holds one of its forbidden patterns in
that colour) the gadget conditions are, for any c:

* determiner of colour k: an edge e with colour k in every good colouring;
* positive sender: distinct edges e, f of the same colour in every good colouring, and e takes
  at least two colours over the good colourings;
* negative sender: e and f never share a colour, and e takes at least two colours;
* clause and variable gadgets (c = 2, F = K1,k only): the paper's enforcement conditions
  (:mod:`ramseygadgets.verification.verifier`).

Two colours with one pattern each are the paper's (F,H) problems (``F`` and ``H`` are their
aliases); ``red-determiner``/``blue-determiner`` are the determiners of colours 0 and 1.

>>> Problem.of_colors(["P3", "P3", "K3"], "green-determiner").id
'p3__p3__k3_green_determiner'
>>> Problem.make("K1,3", "K4", "red-determiner").id
'k13_k4_red_determiner'
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ramseygadgets.colorings.spec import MAX_COLORS, ColoringSpec, SpecError
from ramseygadgets.core.gadgets import COLOR_NAMES, GadgetKind, GadgetType
from ramseygadgets.core.patterns import Pattern

__all__ = ["PROBLEM_SCHEMA_VERSION", "Problem", "parse_gadget"]

#: Version of the problem record (:meth:`Problem.to_json`): 2 adds ``colors`` to every record.
PROBLEM_SCHEMA_VERSION = 2

#: A colour's forbidden pattern(s): one pattern, or several.
ColorPatterns = str | Pattern | Sequence[str | Pattern]


@dataclass(frozen=True)
class Problem:
    """One construction problem: find a good graph that is a gadget of ``kind`` (module docs)."""

    spec: ColoringSpec
    kind: GadgetKind
    color: int | None = None

    def __post_init__(self) -> None:
        if (self.kind is GadgetKind.DETERMINER) != (self.color is not None):
            raise SpecError("a determiner names the colour it forces; other gadgets do not")
        if self.color is not None and not 0 <= self.color < self.c:
            raise SpecError(f"colour {self.color} is not one of the spec's {self.c} colours")
        if self.kind.is_hardness:
            if not self.spec.is_pair:
                raise SpecError(
                    f"{self.kind.value} is defined for two colours only (one forbidden pattern "
                    f"each); got {self.spec.title}"
                )
            if self.F.star_k is None:
                raise SpecError(
                    f"{self.kind.value} is defined only for F = K1,k (a star); got F = {self.F.name}"
                )

    # -- construction ---------------------------------------------------------------------------
    @classmethod
    def make(cls, F: str | Pattern, H: str | Pattern, gadget: str | GadgetType) -> Problem:
        """A two-colour problem: red avoids F, blue avoids H (any connected F and H)."""
        return cls.of_colors([F, H], gadget)

    @classmethod
    def of_colors(
        cls, colors: str | ColoringSpec | Sequence[ColorPatterns], gadget: str | GadgetType
    ) -> Problem:
        """A problem with c ≥ 2 colours: ``colors`` gives each colour's forbidden pattern(s) (a
        list, a :class:`ColoringSpec`, or text such as ``"P3 | P3 | K3"``); ``gadget`` is a
        gadget type or ``<colour>-determiner`` (``green-determiner``)."""
        spec = _spec_of(colors)
        kind, color = parse_gadget(gadget, spec.c)
        return cls(spec, kind, color)

    @classmethod
    def from_json(cls, record: Mapping[str, Any]) -> Problem:
        """The problem of a record or dataset row: ``{"colors": [...], "gadget": ...}`` or, for
        two colours, ``{"F": ..., "H": ..., "gadget": ...}``; the inverse of :meth:`to_json`
        and :meth:`fields` (cached: rewards read one row per completion)."""
        if "gadget" not in record:
            raise SpecError('a problem record needs "gadget"')
        colors = record.get("colors")
        if colors is not None:
            return _problem_of(_frozen_colors(colors), str(record["gadget"]))
        if record.get("F") is not None and record.get("H") is not None:
            return _problem_of((str(record["F"]), str(record["H"])), str(record["gadget"]))
        raise SpecError('a problem record needs "colors" (or "F" and "H") and "gadget"')

    def fields(self) -> dict[str, Any]:
        """The columns every record and dataset row carries: ``colors`` (each colour's forbidden
        pattern, or list of patterns), ``F`` and ``H`` (the pair's patterns; ``None`` unless
        :attr:`is_pair`) and ``gadget`` (:attr:`gadget_name`)."""
        colors: list[Any] = [
            col.forbidden[0].spec if len(col.forbidden) == 1 else [p.spec for p in col.forbidden]
            for col in self.spec.colors
        ]
        pair = self.is_pair
        return {
            "colors": colors,
            "F": self.F.spec if pair else None,
            "H": self.H.spec if pair else None,
            "gadget": self.gadget_name,
        }

    def to_json(self) -> dict[str, Any]:
        """``id, colors, gadget, tier, title``, with the aliases ``F``, ``H`` for pairs."""
        fields = {k: v for k, v in self.fields().items() if v is not None}
        return {"id": self.id, **fields, "tier": self.tier, "title": self.title}

    # -- colours --------------------------------------------------------------------------------
    @property
    def c(self) -> int:
        """The number of colours."""
        return self.spec.c

    @property
    def is_pair(self) -> bool:
        """Two colours with one forbidden pattern each: the paper's (F,H) problems."""
        return self.spec.is_pair

    @property
    def color_names(self) -> tuple[str, ...]:
        return tuple(col.name for col in self.spec.colors)

    @property
    def patterns(self) -> tuple[Pattern, ...]:
        """The forbidden pattern of each colour (specs with one pattern per colour)."""
        if not self.spec.is_simple:
            raise SpecError(f"{self.spec.title} forbids several patterns in one colour")
        return tuple(col.forbidden[0] for col in self.spec.colors)

    @property
    def F(self) -> Pattern:
        """The pattern red avoids (its only one)."""
        return self.patterns[0]

    @property
    def H(self) -> Pattern:
        """The pattern blue avoids (its only one)."""
        return self.patterns[1]

    @property
    def pair(self) -> tuple[str, str]:
        return (self.F.name, self.H.name)

    @property
    def determined_color(self) -> int | None:
        """The colour a determiner forces (``None`` for other gadgets)."""
        return self.color

    # -- names ----------------------------------------------------------------------------------
    @property
    def gadget_name(self) -> str:
        """``red-determiner``, ``green-determiner``, ``positive-sender``, ``clause-gadget``, …"""
        if self.color is not None:
            return f"{self.color_names[self.color]}-determiner"
        return self.kind.value

    @property
    def gadget(self) -> GadgetType:
        """The paper's name of the gadget; a determiner of a colour beyond blue has none."""
        if self.color is not None and self.color >= 2:
            raise SpecError(
                f"a {self.gadget_name} has no two-colour gadget type; use .kind and .gadget_name"
            )
        return GadgetType(self.gadget_name)

    @property
    def id(self) -> str:
        """``k13_k4_red_determiner``, ``p3__p3__k3_green_determiner``, ``p3__k3-c4__k4_…``."""
        return f"{self.spec.slug}_{self.gadget_name.replace('-', '_')}"

    @property
    def tier(self) -> str:
        return self.kind.tier

    @property
    def colors_label(self) -> str:
        """``(F, H)``, ``(P3, P3, K3)``, or ``(red: {P3}; blue: {K3, C4}; …)`` with pattern sets."""
        return self.spec.title

    @property
    def title(self) -> str:
        """E.g. ``(K1,3, K4)-red-determiner``, ``(P3, P3, K3)-green-determiner``."""
        return f"{self.colors_label}-{self.gadget_name}"

    @property
    def edge_names(self) -> tuple[str, ...]:
        return self.kind.edge_names

    def is_possible_by_symmetry(self) -> bool:
        """False for a determiner of a colour that has a twin (same forbidden set): swapping the
        two colours maps good colourings to good colourings, so no edge is forced into either."""
        return self.color is None or not self.spec.twins(self.color)


FrozenColors = tuple[str | tuple[str, ...], ...]


def _frozen_colors(data: Any) -> FrozenColors:
    """A record's ``colors`` as a hashable key (checked by :meth:`ColoringSpec.from_json`)."""
    if not isinstance(data, (list, tuple)):
        raise SpecError(f'"colors" must list one forbidden pattern per colour, got {data!r}')
    return tuple(tuple(g) if isinstance(g, (list, tuple)) else g for g in data)


@lru_cache(maxsize=4096)
def _problem_of(colors: FrozenColors, gadget: str) -> Problem:
    spec = ColoringSpec.from_json([list(g) if isinstance(g, tuple) else g for g in colors])
    return Problem.of_colors(spec, gadget)


def _spec_of(colors: str | ColoringSpec | Sequence[ColorPatterns]) -> ColoringSpec:
    if isinstance(colors, ColoringSpec):
        return colors
    if isinstance(colors, str):
        return ColoringSpec.parse(colors)
    groups = [[g] if isinstance(g, (str, Pattern)) else list(g) for g in colors]
    if not 2 <= len(groups) <= MAX_COLORS:
        raise SpecError(
            f"a problem needs 2 to {MAX_COLORS} colours (one forbidden pattern each), "
            f"got {len(groups)}"
        )
    return ColoringSpec.of(*groups)


def parse_gadget(gadget: str | GadgetType | GadgetKind, c: int) -> tuple[GadgetKind, int | None]:
    """(kind, colour) of a gadget name for a c-colour problem: ``red-determiner``,
    ``green-determiner``, ``positive-sender``, ``clause-gadget`` (or ``clause``), …"""
    if isinstance(gadget, GadgetType):
        return gadget.kind, gadget.determined_color
    key = re.sub(r"[\s_]+", "-", str(gadget.value if isinstance(gadget, GadgetKind) else gadget))
    key = key.strip("-").lower()
    names = COLOR_NAMES[:c]
    if key.endswith("-determiner") and key.removesuffix("-determiner") in names:
        return GadgetKind.DETERMINER, names.index(key.removesuffix("-determiner"))
    for kind in GadgetKind:
        if kind is not GadgetKind.DETERMINER and key in (
            kind.value,
            kind.value.removesuffix("-gadget"),
        ):
            return kind, None
    choices = [f"{n}-determiner" for n in names] + ["positive-sender", "negative-sender"]
    if c == 2:
        choices += ["clause-gadget", "variable-gadget"]
    raise SpecError(
        f"unknown gadget type {gadget!r} for {c} colours; expected one of {', '.join(choices)}"
    )
