"""The 70 problems of the RamseyGadgets dataset, generated from the pair list and gadget list.

Pairs: F ∈ {P3, K1,3}, H ∈ {P3, K3, K1,3, P4, TK3, C4, K4-e, K4}, F ≠ H, with (P3, K1,3)
counted once (13 pairs).  Every pair gets the four determiner/sender problems; the clause and
variable gadgets are asked only where (F,H)-goodness is NP-hard, i.e. all pairs except
(P3,K3), (P3,K1,3), (P3,P4), (P3,TK3).  13·4 + 9·2 = 70.

Problem ids are ``{F}_{H}_{gadget}`` with lower-case pattern slugs (``p3 k13 k3 p4 tk3 c4 k4e
k4``) and the gadget with underscores, e.g. ``k13_k4_red_determiner`` for the
(K1,3, K4)-red-determiner.  Ids are stable, readable and URL-safe.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import lru_cache

from ramseygadgets.errors import UnknownProblemError
from ramseygadgets.gadgets import GadgetType
from ramseygadgets.patterns import PAPER_PATTERNS, Pattern, get_pattern

#: F patterns of the paper (stars) and H patterns, in catalog order.
PAPER_F = ("P3", "K1,3")
PAPER_H = tuple(name for name, _, _ in PAPER_PATTERNS)

#: Pairs whose goodness problem is polynomial-time: no clause/variable gadgets can exist (unless P = NP).
POLYNOMIAL_PAIRS = frozenset({("P3", "K3"), ("P3", "K1,3"), ("P3", "P4"), ("P3", "TK3")})


@dataclass(frozen=True)
class Problem:
    """One construction problem: find an (F,H)-good graph that is a gadget of the given type."""

    F: Pattern
    H: Pattern
    gadget: GadgetType

    @property
    def id(self) -> str:
        return f"{self.F.slug}_{self.H.slug}_{self.gadget.slug}"

    @property
    def tier(self) -> str:
        return self.gadget.tier

    @property
    def pair(self) -> tuple[str, str]:
        return (self.F.name, self.H.name)

    @property
    def title(self) -> str:
        """E.g. ``(K1,3, K4)-red-determiner``."""
        return f"({self.F.name}, {self.H.name})-{self.gadget.value}"

    @classmethod
    def make(cls, F: str | Pattern, H: str | Pattern, gadget: str | GadgetType) -> Problem:
        """A problem outside the catalog (any connected F and H)."""
        f = F if isinstance(F, Pattern) else get_pattern(F)
        h = H if isinstance(H, Pattern) else get_pattern(H)
        g = gadget if isinstance(gadget, GadgetType) else GadgetType.parse(gadget)
        if g.is_hardness and f.star_k is None:
            raise ValueError(f"{g.value} is defined only for F = K1,k (a star); got F = {f.name}")
        return cls(f, h, g)

    def to_json(self) -> dict[str, str]:
        return {
            "id": self.id,
            "F": self.F.spec,
            "H": self.H.spec,
            "gadget": self.gadget.value,
            "tier": self.tier,
            "title": self.title,
        }


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


def get_problem(problem_id: str) -> Problem:
    """Look a problem up by id (``k13_k4_red_determiner``) or title (``K1,3-K4-red-determiner``);
    an unknown id raises :class:`UnknownProblemError` with the closest ids as suggestions."""
    found = find_problem(problem_id)
    if found is not None:
        return found
    ids = [p.id for p in all_problems()]
    close = difflib.get_close_matches(problem_id.strip().lower(), ids, n=3, cutoff=0.6)
    hint = (
        f"; did you mean {', '.join(close)}?"
        if close
        else "; run 'ramseygadgets problems' for the list"
    )
    raise UnknownProblemError(f"unknown problem id {problem_id!r}{hint}")
