"""The 70 problems of the RamseyGadgets dataset, generated from the pair list and gadget list.

Pairs: F ∈ {P3, K1,3}, H ∈ {P3, K3, K1,3, P4, TK3, C4, K4-e, K4}, F ≠ H, with (P3, K1,3)
counted once (13 pairs).  Every pair gets the four determiner/sender problems; the clause and
variable gadgets are asked only where (F,H)-goodness is NP-hard, i.e. all pairs except
(P3,K3), (P3,K1,3), (P3,P4), (P3,TK3).  13·4 + 9·2 = 70.

Problem ids are ``{F}_{H}_{gadget}`` with lower-case pattern slugs (``p3 k13 k3 p4 tk3 c4 k4e
k4``) and the gadget with underscores, e.g. ``k13_k4_red_determiner`` for the
(K1,3, K4)-red-determiner.  Ids are stable, readable and URL-safe.

Problems with three or more colours (:meth:`Problem.of_colors`, :mod:`ramseygadgets.problems.problem`)
are the same model: their ids join the colours' slugs with ``__`` (``p3__p3__k3_green_determiner``),
their titles list the colours' patterns (``(P3, P3, K3)-green-determiner``); :func:`get_problem`
reads both forms.
"""

from __future__ import annotations

import difflib
import re
from functools import lru_cache

from ramseygadgets.colorings.spec import split_pattern_list
from ramseygadgets.core.errors import RamseyGadgetsError, UnknownProblemError
from ramseygadgets.core.gadgets import GadgetType
from ramseygadgets.core.patterns import PAPER_PATTERNS, Pattern, get_pattern
from ramseygadgets.problems.problem import Problem

__all__ = [
    "PAPER_F",
    "PAPER_H",
    "POLYNOMIAL_PAIRS",
    "Problem",
    "all_problems",
    "find_problem",
    "get_problem",
    "in_catalog",
    "paper_pairs",
    "parse_colored_problem",
    "split_problem_ids",
]

#: F patterns of the paper (stars) and H patterns, in catalog order.
PAPER_F = ("P3", "K1,3")
PAPER_H = tuple(name for name, _, _ in PAPER_PATTERNS)

#: Pairs whose goodness problem is polynomial-time: no clause/variable gadgets can exist (unless P = NP).
POLYNOMIAL_PAIRS = frozenset({("P3", "K3"), ("P3", "K1,3"), ("P3", "P4"), ("P3", "TK3")})


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
            problems.append(Problem.make(get_pattern(f), get_pattern(h), gadget))
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
