"""The 70 problems of the RamseyGadgets dataset, generated from the pair list and gadget list.

Pairs: F ∈ {P3, K1,3}, H ∈ {P3, K3, K1,3, P4, TK3, C4, K4-e, K4}, F ≠ H, with (P3, K1,3)
counted once (13 pairs).  Every pair gets the four determiner/sender problems; the clause and
variable gadgets are asked only where (F,H)-goodness is NP-hard, i.e. all pairs except
(P3,K3), (P3,K1,3), (P3,P4), (P3,TK3).  13·4 + 9·2 = 70.

Problem ids are ``{F}_{H}_{gadget}`` with lower-case pattern slugs (``p3 k13 k3 p4 tk3 c4 k4e
k4``) and the gadget with underscores, e.g. ``k13_k4_red_determiner`` for the
(K1,3, K4)-red-determiner.  Ids are stable, readable and URL-safe.

Problems with three or more colours (:meth:`Problem.of_colors`) are the same model: their ids
join the colours' slugs with ``__`` (``p3__p3__k3_green_determiner``), their titles list the
colours' patterns (``(P3, P3, K3)-green-determiner``); :func:`get_problem` reads both forms.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ramseygadgets.errors import RamseyGadgetsError, UnknownProblemError
from ramseygadgets.gadgets import COLOR_NAMES, GadgetType
from ramseygadgets.patterns import PAPER_PATTERNS, Pattern, get_pattern

#: F patterns of the paper (stars) and H patterns, in catalog order.
PAPER_F = ("P3", "K1,3")
PAPER_H = tuple(name for name, _, _ in PAPER_PATTERNS)

#: Pairs whose goodness problem is polynomial-time: no clause/variable gadgets can exist (unless P = NP).
POLYNOMIAL_PAIRS = frozenset({("P3", "K3"), ("P3", "K1,3"), ("P3", "P4"), ("P3", "TK3")})


@dataclass(frozen=True)
class Problem:
    """One construction problem: find a good graph that is a gadget of the given type.

    Colours: red avoids F, blue avoids H and, with c ≥ 3 colours, colour i ≥ 2 (green, yellow,
    …, :data:`~ramseygadgets.gadgets.COLOR_NAMES`) avoids ``more[i - 2]``.  An edge coloring
    (each edge exactly one colour) is *good* when no colour contains a copy of its pattern in
    that colour; two colours are the paper's (F,H)-goodness.  ``gadget`` is the gadget's form
    (its designated items and tier); a determiner of colour i ≥ 2 has the determiner form
    ``RED_DETERMINER`` with ``color = i``, its name is :attr:`gadget_name`
    (``green-determiner``).  Hardness gadgets exist for two colours only.

    >>> Problem.of_colors(["P3", "P3", "K3"], "green-determiner").id
    'p3__p3__k3_green_determiner'
    """

    F: Pattern
    H: Pattern
    gadget: GadgetType
    more: tuple[Pattern, ...] = ()
    color: int | None = None

    def __post_init__(self) -> None:
        if self.c > len(COLOR_NAMES):
            raise ValueError(f"at most {len(COLOR_NAMES)} colours are supported, got {self.c}")
        if self.more and self.gadget.is_hardness:
            raise ValueError(
                f"{self.gadget.value} is defined for two colours only; got {self.c} colours"
            )
        if self.color is not None and (
            self.gadget is not GadgetType.RED_DETERMINER or not 2 <= self.color < self.c
        ):
            raise ValueError(
                f"color = {self.color} names a determiner of a colour beyond blue: it needs the "
                f"determiner form and 2 ≤ color < {self.c}"
            )

    # -- colours ----------------------------------------------------------------------------
    @property
    def patterns(self) -> tuple[Pattern, ...]:
        """The forbidden pattern of each colour, in colour order (F, H, …)."""
        return (self.F, self.H, *self.more)

    @property
    def c(self) -> int:
        """The number of colours."""
        return 2 + len(self.more)

    @property
    def color_names(self) -> tuple[str, ...]:
        return COLOR_NAMES[: self.c]

    @property
    def determined_color(self) -> int | None:
        """The colour index a determiner forces (``None`` for other gadgets)."""
        if self.color is not None:
            return self.color
        return {GadgetType.RED_DETERMINER: 0, GadgetType.BLUE_DETERMINER: 1}.get(self.gadget)

    @property
    def gadget_name(self) -> str:
        """``red-determiner``, ``green-determiner``, ``positive-sender``, …"""
        if self.color is not None:
            return f"{COLOR_NAMES[self.color]}-determiner"
        return self.gadget.value

    # -- names ------------------------------------------------------------------------------
    @property
    def id(self) -> str:
        if not self.more:
            return f"{self.F.slug}_{self.H.slug}_{self.gadget.slug}"
        colors = "__".join(p.slug for p in self.patterns)
        return f"{colors}_{self.gadget_name.replace('-', '_')}"

    @property
    def tier(self) -> str:
        return self.gadget.tier

    @property
    def pair(self) -> tuple[str, str]:
        return (self.F.name, self.H.name)

    @property
    def colors_label(self) -> str:
        """``(F, H)``, or ``(P3, P3, K3)`` with more colours: the forbidden pattern per colour."""
        return "(" + ", ".join(p.name for p in self.patterns) + ")"

    @property
    def title(self) -> str:
        """E.g. ``(K1,3, K4)-red-determiner``, ``(P3, P3, K3)-green-determiner``."""
        return f"{self.colors_label}-{self.gadget_name}"

    # -- construction -----------------------------------------------------------------------
    @classmethod
    def make(cls, F: str | Pattern, H: str | Pattern, gadget: str | GadgetType) -> Problem:
        """A two-colour problem outside the catalog (any connected F and H)."""
        f = F if isinstance(F, Pattern) else get_pattern(F)
        h = H if isinstance(H, Pattern) else get_pattern(H)
        g = gadget if isinstance(gadget, GadgetType) else GadgetType.parse(gadget)
        if g.is_hardness and f.star_k is None:
            raise ValueError(f"{g.value} is defined only for F = K1,k (a star); got F = {f.name}")
        return cls(f, h, g)

    @classmethod
    def of_colors(cls, colors: str | Sequence[str | Pattern], gadget: str | GadgetType) -> Problem:
        """A problem with c ≥ 2 colours: ``colors`` is one forbidden pattern per colour (a list,
        or text such as ``"P3 | P3 | K3"``); ``gadget`` is a gadget type or ``<colour>-determiner``
        (``green-determiner``).  Two colours give exactly :meth:`make`'s problem."""
        patterns = [p if isinstance(p, Pattern) else get_pattern(p) for p in _color_items(colors)]
        if not 2 <= len(patterns) <= len(COLOR_NAMES):
            raise ValueError(
                f"a problem needs 2 to {len(COLOR_NAMES)} colours (one forbidden pattern each), "
                f"got {len(patterns)}"
            )
        F, H, *more = patterns
        if not more:
            return cls.make(F, H, gadget)
        name = gadget.value if isinstance(gadget, GadgetType) else gadget.strip().lower()
        name = name.replace("_", "-").replace(" ", "-")
        names = COLOR_NAMES[: len(patterns)]
        if name.endswith("-determiner") and name.removesuffix("-determiner") in names[2:]:
            color = names.index(name.removesuffix("-determiner"))
            return cls(F, H, GadgetType.RED_DETERMINER, tuple(more), color)
        choices = (
            f"{', '.join(f'{c}-determiner' for c in names)}, positive-sender or negative-sender"
        )
        try:
            g = gadget if isinstance(gadget, GadgetType) else GadgetType.parse(gadget)
        except ValueError:
            raise ValueError(
                f"unknown gadget {gadget!r} for {len(patterns)} colours; expected {choices}"
            ) from None
        if g.is_hardness:
            raise ValueError(
                f"{g.value} is defined for two colours only; a {len(patterns)}-colour problem "
                f"asks for a {choices}"
            )
        return cls(F, H, g, tuple(more))

    @classmethod
    def from_json(cls, record: Mapping[str, Any]) -> Problem:
        """The problem of a record: ``{"colors": [...], "gadget": ...}`` (any number of colours)
        or ``{"F": ..., "H": ..., "gadget": ...}``; the inverse of :meth:`to_json`."""
        if "gadget" not in record:
            raise ValueError('a problem record needs "gadget"')
        if record.get("colors") is not None:
            return cls.of_colors(_record_colors(record["colors"]), str(record["gadget"]))
        if "F" in record and "H" in record:
            return cls.make(str(record["F"]), str(record["H"]), str(record["gadget"]))
        raise ValueError('a problem record needs "colors" (or "F" and "H") and "gadget"')

    def to_json(self) -> dict[str, Any]:
        """Two colours: ``id, F, H, gadget, tier, title``; more: ``colors`` instead of F and H."""
        colors: dict[str, Any] = (
            {"colors": [p.spec for p in self.patterns]}
            if self.more
            else {"F": self.F.spec, "H": self.H.spec}
        )
        return {
            "id": self.id,
            **colors,
            "gadget": self.gadget_name,
            "tier": self.tier,
            "title": self.title,
        }


def _color_items(colors: str | Sequence[str | Pattern]) -> list[str | Pattern]:
    if isinstance(colors, str):
        items: list[str | Pattern] = [g.strip() for g in re.split(r"[|;]", colors)]
        if not all(items):
            raise ValueError(
                f"cannot read colours {colors!r}: give one forbidden pattern per colour "
                f"separated by '|', e.g. 'P3 | P3 | K3'"
            )
        return items
    return list(colors)


def _record_colors(data: Any) -> list[str]:
    """``["P3", "P3", "K3"]``, or the generated sets' ``[["P3"], ["P3"], ["K3"]]``."""
    if not isinstance(data, list):
        raise ValueError(f'"colors" must be a list of patterns, one per colour, got {data!r}')
    out: list[str] = []
    for item in data:
        if isinstance(item, list):
            if len(item) != 1:
                raise ValueError(
                    f"colour {len(out) + 1} forbids {len(item)} patterns; a problem has one "
                    f"forbidden pattern per colour"
                )
            item = item[0]
        if not isinstance(item, str):
            raise ValueError(f'"colors" entries must be pattern names, got {item!r}')
        out.append(item)
    return out


def paper_pairs() -> list[tuple[str, str]]:
    """The 13 (F, H) pairs in catalog order."""
    pairs: list[tuple[str, str]] = []
    for f in PAPER_F:
        for h in PAPER_H:
            if f != h and (h, f) not in pairs:
                pairs.append((f, h))
    return pairs


@lru_cache(maxsize=1)
def all_problems() -> tuple[Problem, ...]:
    """The 70 problems: per pair the four determiners/senders, then hardness gadgets if NP-hard."""
    problems: list[Problem] = []
    for f, h in paper_pairs():
        for gadget in GadgetType:
            if gadget.is_hardness and (f, h) in POLYNOMIAL_PAIRS:
                continue
            problems.append(Problem(get_pattern(f), get_pattern(h), gadget))
    return tuple(problems)


@lru_cache(maxsize=1)
def _index() -> dict[str, Problem]:
    index: dict[str, Problem] = {}
    for p in all_problems():
        index[p.id] = p
        index[f"{p.F.name}-{p.H.name}-{p.gadget.value}".lower()] = p
        index[p.title.lower()] = p
    return index


def in_catalog(problem: Problem) -> bool:
    """Whether ``problem`` is one of the 70 (same id and the same F, H and gadget)."""
    return _index().get(problem.id) == problem


def find_problem(problem_id: str) -> Problem | None:
    """The catalog problem with this id or title, or ``None`` (a dictionary lookup: use it where
    ids outside the catalog are expected, e.g. in reports)."""
    return _index().get(problem_id.strip().lower())


_COLORED_TITLE = re.compile(r"\s*\((.+)\)\s*-\s*([a-z_-]+)\s*", re.IGNORECASE)
_COLORED_ID = re.compile(r"\s*((?:[a-z0-9-]+__){2,}[a-z0-9-]+)_([a-z_]+)\s*", re.IGNORECASE)


def _pattern_of_slug(slug: str) -> Pattern:
    """The pattern of an id slug (``p3``, ``k13`` = K1,3, ``k4e``, ``bull``, ``k23`` = K2,3)."""
    star = re.fullmatch(r"k(\d)(\d+)", slug, re.IGNORECASE)
    return get_pattern(f"K{star.group(1)},{star.group(2)}" if star else slug)


def parse_colored_problem(text: str) -> Problem | None:
    """A problem with three or more colours from its title ``(P3, P3, K3)-green-determiner`` or
    id ``p3__p3__k3_green_determiner``; ``None`` when ``text`` has neither form or names
    fewer than three colours (unreadable parts raise ``ValueError``)."""
    from ramseygadgets.multicolor.spec import split_pattern_list

    title, ident = _COLORED_TITLE.fullmatch(text), _COLORED_ID.fullmatch(text)
    if title is not None:
        names: list[str | Pattern] = list(split_pattern_list(title.group(1)))
        gadget = title.group(2)
    elif ident is not None:
        names = [_pattern_of_slug(s) for s in ident.group(1).split("__")]
        gadget = ident.group(2)
    else:
        return None
    if len(names) < 3:
        return None
    try:
        return Problem.of_colors(names, gadget)
    except (RamseyGadgetsError, ValueError) as exc:
        raise UnknownProblemError(f"problem {text.strip()!r}: {exc}") from None


def split_problem_ids(text: str) -> list[str]:
    """The problem ids or titles of a comma-separated list; commas inside brackets do not
    separate (``p3_k3_red_determiner,(P3, P3, K3)-green-determiner`` is two problems)."""
    items, depth, current = [], 0, ""
    for ch in text:
        depth += (ch in "([{") - (ch in ")]}")
        if ch == "," and depth <= 0:
            items.append(current)
            current = ""
        else:
            current += ch
    items.append(current)
    return [item.strip() for item in items if item.strip()]


def get_problem(problem_id: str) -> Problem:
    """Look a problem up by id (``k13_k4_red_determiner``) or title (``K1,3-K4-red-determiner``),
    or read a problem with three or more colours (:func:`parse_colored_problem`); an unknown id raises :class:`UnknownProblemError` with the closest ids as suggestions."""
    found = find_problem(problem_id)
    if found is not None:
        return found
    colored = parse_colored_problem(problem_id)
    if colored is not None:
        return colored
    ids = [p.id for p in all_problems()]
    close = difflib.get_close_matches(problem_id.strip().lower(), ids, n=3, cutoff=0.6)
    hint = (
        f"; did you mean {', '.join(close)}?"
        if close
        else "; run 'ramseygadgets problems' for the list"
    )
    raise UnknownProblemError(f"unknown problem id {problem_id!r}{hint}")
