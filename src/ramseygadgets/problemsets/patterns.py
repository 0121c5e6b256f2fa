"""The request's patterns: names, graph6, edge lists and ``connected:k`` expanded to patterns
(deduplicated up to isomorphism), the size of a request before any enumeration, and the
polynomial pairs (no hardness gadget is asked for them)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ramseygadgets.colorings.spec import MAX_COLORS, split_pattern_list
from ramseygadgets.core.errors import UnknownPatternError
from ramseygadgets.core.gadgets import GadgetType
from ramseygadgets.core.patterns import Pattern, canonical_graph6, get_pattern, name_graph
from ramseygadgets.problems.catalog import POLYNOMIAL_PAIRS
from ramseygadgets.problemsets.base import ProblemSetError
from ramseygadgets.search.exhaustive import iter_graphs

__all__ = [
    "BUILTIN_POLYNOMIAL_PAIRS",
    "CONNECTED_GRAPHS",
    "PLAN_LIMIT",
    "PROGRESS_EVERY",
    "PlanEstimate",
    "Progress",
    "connected_count",
    "connected_graphs",
    "estimate_plan",
    "expand_patterns",
    "load_polynomial_pairs",
    "pair_key",
    "polynomial_reason",
]

#: The paper's polynomial-time pairs: no clause or variable gadgets are asked for them.
BUILTIN_POLYNOMIAL_PAIRS: tuple[tuple[str, str], ...] = tuple(sorted(POLYNOMIAL_PAIRS))
#: Connected graphs on k vertices up to isomorphism, k = 0, 1, …, 10 (OEIS A001349).
CONNECTED_GRAPHS = (1, 1, 1, 2, 6, 21, 112, 853, 11117, 261080, 11716571)
#: Plans estimated above this many problems are refused unless forced (``--force``).
PLAN_LIMIT = 100_000
#: ``on_enumerated(label, done, total)`` is called this often during an enumeration.
PROGRESS_EVERY = 500

Progress = Callable[[str, int, int], None]


def connected_count(item: str) -> int | None:
    """The number of graphs ``connected:k`` stands for (None: ``item`` is one pattern)."""
    key = item.strip()
    if not key.lower().startswith("connected:"):
        return None
    value = key.split(":", 1)[1].strip()
    if not value.isdigit():
        raise ProblemSetError(
            f"{key!r}: write connected:k with k a number of vertices, e.g. connected:5"
        )
    k = int(value)
    if not 3 <= k <= 10:
        raise ProblemSetError(f"connected:{k}: k must be between 3 and 10")
    return CONNECTED_GRAPHS[k]


def connected_graphs(k: int, on_enumerated: Progress | None = None) -> list[Pattern]:
    """Every connected graph on k vertices (3 ≤ k ≤ 10), one per isomorphism class (nauty
    geng -c); ``on_enumerated`` hears of the progress against the known count."""
    total = connected_count(f"connected:{k}") or 0
    out = []
    for graph in iter_graphs(k, k - 1, k * (k - 1) // 2, connected=True):
        out.append(name_graph(graph))
        if on_enumerated is not None and len(out) % PROGRESS_EVERY == 0:
            on_enumerated(f"connected:{k}", len(out), total)
    if on_enumerated is not None:
        on_enumerated(f"connected:{k}", len(out), total)
    return out


def expand_patterns(items: Iterable[str], on_enumerated: Progress | None = None) -> list[Pattern]:
    """Patterns from names / graph6 / edge lists / ``connected:k``, comma lists allowed,
    deduplicated up to isomorphism (first spelling kept)."""
    out: dict[str, Pattern] = {}
    for raw in items:
        for item in split_pattern_list(raw):
            if connected_count(item) is not None:
                k = int(item.split(":", 1)[1])
                patterns = connected_graphs(k, on_enumerated)
            else:
                patterns = [get_pattern(item.strip())]
            for p in patterns:
                out.setdefault(canonical_graph6(p.graph), p)
    return list(out.values())


@dataclass
class PlanEstimate:
    """An upper bound on a request's problems, known before any enumeration: every pattern
    counted (``connected:k`` by the number of connected graphs on k vertices), every pair with
    all six gadget types, every spec with a determiner per colour and two senders."""

    problems: int
    enumerations: list[str]

    def describe(self) -> str:
        where = f" ({'; '.join(self.enumerations)})" if self.enumerations else ""
        return f"up to {self.problems:,} problems{where}"


def estimate_plan(
    F_items: Iterable[str] = (), H_items: Iterable[str] = (), specs: Iterable[str] = ()
) -> PlanEstimate:
    """The :class:`PlanEstimate` of a request (no pattern is built)."""
    enumerations: list[str] = []

    def count(items: Iterable[str]) -> int:
        total = 0
        for raw in items:
            for item in split_pattern_list(raw):
                graphs = connected_count(item)
                if graphs is not None:
                    enumerations.append(f"{item.strip()}: {graphs:,} graphs, OEIS A001349")
                total += 1 if graphs is None else graphs
        return total

    pairs = count(F_items) * count(H_items)
    problems = pairs * len(GadgetType) + len(list(specs)) * (MAX_COLORS + 2)
    return PlanEstimate(problems, enumerations)


def pair_key(a: Pattern, b: Pattern) -> tuple[str, str]:
    """The pair {a, b} up to isomorphism and colour swap (sorted canonical graph6)."""
    x, y = canonical_graph6(a.graph), canonical_graph6(b.graph)
    return (x, y) if x <= y else (y, x)


def _read_pairs_file(source: str) -> list[Any]:
    try:
        text = Path(source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ProblemSetError(f"cannot read the polynomial pairs file {source}: {exc}") from None
    if text.lstrip().startswith("["):
        try:
            pairs = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise ProblemSetError(f"{source}: not valid JSON: {exc}") from None
    else:
        pairs = [line.split("#", 1)[0].split() for line in text.splitlines()]
        pairs = [p for p in pairs if p]
    for number, pair in enumerate(pairs, 1):
        if not isinstance(pair, list) or len(pair) != 2:
            raise ProblemSetError(f"{source}: pair {number} must be two patterns, got {pair!r}")
    return list(pairs)


def load_polynomial_pairs(source: str | None = "builtin") -> set[tuple[str, str]]:
    """Unordered pairs (canonical keys) whose goodness problem is polynomial.

    ``builtin``: the paper's four; ``none``: no pair; otherwise a file with one pair per line,
    two patterns separated by whitespace (``P3 K1,3``; ``#`` comments), or a JSON list of pairs.
    """
    if source == "none":
        return set()
    if source is None or source == "builtin":
        pairs: list[Any] = [list(p) for p in BUILTIN_POLYNOMIAL_PAIRS]
    else:
        pairs = _read_pairs_file(source)
    out = set()
    for a, b in pairs:
        try:
            out.add(pair_key(get_pattern(str(a)), get_pattern(str(b))))
        except UnknownPatternError as exc:
            raise ProblemSetError(f"polynomial pairs: {exc}") from None
    return out


def polynomial_reason(F: Pattern, H: Pattern, polynomial: set[tuple[str, str]]) -> str | None:
    """Why (F, H) has no clause or variable gadget unless P = NP (None: it is treated as
    NP-hard): it is in the list of polynomial pairs, or both are stars."""
    if pair_key(F, H) in polynomial:
        return "in the list of polynomial pairs"
    if F.star_k is not None and H.star_k is not None:
        return "two stars: goodness is a (g,f)-factor problem"
    return None
