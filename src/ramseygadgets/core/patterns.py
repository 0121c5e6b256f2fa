"""Forbidden patterns F and H: named graphs, families, and any small connected graph.

Names.  Every connected graph on at most 5 vertices has one name from the table
``data/small_graphs.toml`` (:func:`small_graphs`; sources: ISGCI's list of small graphs, the
paper's spelling for its eight patterns): ``K3``, ``P4``, ``K1,3`` (claw), ``TK3`` (paw),
``C4``, ``K4-e`` (diamond), ``K4``, ``bull``, ``house``, ``kite``, ``dart``, ``gem``,
``butterfly``, ``W4``, ``K2,3``, ``K5-e``, …  Larger graphs are named by family where one fits:
``Pk`` (path on k vertices), ``Ck``, ``Kk``, ``Ka,b`` (stars ``K1,k``), ``Kk-e``, ``Wk`` (the
cycle Ck plus a hub), ``Petersen``; any other graph gets ``n{n}m{m}-{hash}`` (its vertex and
edge counts and a hash of its canonical graph6).  Every graph has exactly one name, whatever
its labelling or spelling (:func:`name_graph`).

Spellings.  Names are case-insensitive and ignore spaces, ``_``, brackets and the kind of dash,
so ``TK3 = paw``, ``K4-e = K4e = K4−e = diamond``, ``co-(P2∪P3) = co-P2UP3``.  Stars and
complete bipartite graphs are written with a comma, ``K1,3`` (or ``K1_3``, ``K1 3``); a compact
form that also reads as a complete graph (``K12``: K1,2 or K12? ``K13``, ``K23``, …) is refused
with both spellings, the complete graph being ``K_12``.  Any other pattern can be given as an
edge list (``0-1,1-2,2-0``) or a graph6 string; it is then named as above.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache
from importlib import resources
from itertools import combinations
from typing import Any

from ramseygadgets.core.errors import GraphFormatError, UnknownPatternError
from ramseygadgets.core.graphs import Graph, parse_graph

__all__ = [
    "MAX_PATTERN_VERTICES",
    "TABLE_MAX_VERTICES",
    "PAPER_NAMES",
    "HASH_DIGITS",
    "NamedGraph",
    "small_graphs",
    "table_entry",
    "Pattern",
    "generated_name",
    "name_graph",
    "get_pattern",
    "canonical_graph6",
    "PAPER_PATTERNS",
]


#: Largest pattern the copy enumerators accept (vertices).
MAX_PATTERN_VERTICES = 12

#: Names of the graphs with at most this many vertices come from the table.
TABLE_MAX_VERTICES = 5

#: The paper's eight patterns, in the order used by the catalog.
PAPER_NAMES = ("P3", "K3", "K1,3", "P4", "TK3", "C4", "K4-e", "K4")

#: Length of the hash in generated names (``n7m9-`` + this many hex digits).
HASH_DIGITS = 10

_GENERATED_NAME = re.compile(r"n(\d+)m(\d+)-[0-9a-f]+", re.IGNORECASE)
_COMPLETE = re.compile(r"\s*K_\{?(\d+)\}?\s*", re.IGNORECASE)


# ---------------------------------------------------------------------------------------------
# The names table
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class NamedGraph:
    """One row of the names table: a connected graph on at most 5 vertices and its name."""

    name: str
    slug: str
    graph: Graph
    aliases: tuple[str, ...]
    about: str
    source: str


def _named_graph(row: dict[str, Any]) -> NamedGraph:
    return NamedGraph(
        name=row["name"],
        slug=row["slug"],
        graph=Graph(row["n"], tuple((u, v) for u, v in row["edges"])),
        aliases=tuple(row["aliases"]),
        about=row["about"],
        source=row["source"],
    )


@lru_cache(maxsize=1)
def small_graphs() -> tuple[NamedGraph, ...]:
    """The names table: every connected graph on at most 5 vertices, once, with its name."""
    text = resources.files("ramseygadgets.data").joinpath("small_graphs.toml").read_text("utf-8")
    return tuple(_named_graph(row) for row in tomllib.loads(text)["graph"])


@lru_cache(maxsize=1)
def _table_by_spelling() -> dict[str, NamedGraph]:
    return {_normalize(s): row for row in small_graphs() for s in (row.name, *row.aliases)}


@lru_cache(maxsize=1)
def _table_by_shape() -> dict[str, NamedGraph]:
    return {canonical_graph6(row.graph): row for row in small_graphs()}


def table_entry(graph: Graph) -> NamedGraph | None:
    """The table row of a graph isomorphic to ``graph`` (None above 5 vertices or if disconnected)."""
    if graph.n > TABLE_MAX_VERTICES:
        return None
    return _table_by_shape().get(canonical_graph6(graph))


@dataclass(frozen=True)
class Pattern:
    """A connected forbidden graph with a display name and a URL-safe slug."""

    name: str
    slug: str
    graph: Graph

    @cached_property
    def star_k(self) -> int | None:
        """``k`` when the pattern is the star ``K1,k`` (``P3 = K1,2``), else ``None``."""
        g = self.graph
        if g.m == g.n - 1 and g.n >= 3 and max(g.degree(v) for v in range(g.n)) == g.m:
            return g.m
        return None

    @property
    def is_star(self) -> bool:
        return self.star_k is not None

    @property
    def about(self) -> str:
        """One sentence describing a table graph (``""`` for larger graphs)."""
        row = table_entry(self.graph)
        return row.about if row is not None else ""

    @property
    def spec(self) -> str:
        """A spelling that :func:`get_pattern` reads back to this pattern: the name, or the
        canonical graph6 for graphs with a generated name (``n7m9-…``), which is not readable,
        and ``K_12`` for the complete graph K12 (``K12`` alone is ambiguous)."""
        if _GENERATED_NAME.fullmatch(self.name):
            return canonical_graph6(self.graph)
        if _ambiguity(self.name) is not None:  # the complete graph K12
            return "K_" + self.name[1:]
        return self.name

    def __str__(self) -> str:
        return self.name


# ---------------------------------------------------------------------------------------------
# Families
# ---------------------------------------------------------------------------------------------
def _path(k: int) -> Graph:
    return Graph(k, tuple((i, i + 1) for i in range(k - 1)))


def _cycle(k: int) -> Graph:
    return Graph(k, tuple((i, i + 1) for i in range(k - 1)) + ((0, k - 1),))


def _complete_minus_edge(k: int) -> Graph:
    return Graph(k, tuple(e for e in combinations(range(k), 2) if e != (k - 2, k - 1)))


def _from_networkx(g: Any) -> Graph:
    return Graph(g.number_of_nodes(), tuple(g.edges()))


def _complete_bipartite(a: int, b: int) -> Graph:
    import networkx as nx

    return _from_networkx(nx.complete_bipartite_graph(a, b))


def _wheel(k: int) -> Graph:
    """W_k: the cycle C_k plus a hub joined to all of its vertices (k + 1 vertices)."""
    import networkx as nx

    return _from_networkx(nx.wheel_graph(k + 1))


def _petersen() -> Graph:
    import networkx as nx

    return _from_networkx(nx.petersen_graph())


_FAMILY = re.compile(r"(P|C|K|W)(\d+)(?:,(\d+)|(E))?")


def _family_order(kind: str, numbers: list[str]) -> int:
    """Vertices of a family member, computed before building it (absurd numbers: 10**9)."""
    if any(len(x) > 3 for x in numbers):
        return 10**9
    return sum(int(x) for x in numbers) + (kind == "W")


def _family(key: str) -> tuple[str, str, Graph] | None:
    """Patterns by family name: Pk, Ck, Kk, Ka,b, Kk-e, Wk, Petersen (refused before building
    when too large); ``None`` when ``key`` is no family member."""
    if key == "PETERSEN":
        return ("Petersen", "petersen", _petersen())
    m = _FAMILY.fullmatch(key)
    if m is None:
        return None
    kind, first, second, minus_edge = m.groups()
    if _family_order(kind, [first] + ([second] if second else [])) > MAX_PATTERN_VERTICES:
        raise UnknownPatternError(
            f"pattern {key} is too large: at most {MAX_PATTERN_VERTICES} vertices are supported"
        )
    k = int(first)
    if second is not None:
        if kind != "K":
            return None
        a, b = sorted((k, int(second)))
        return (f"K{a},{b}", f"k{a}{b}", _complete_bipartite(a, b)) if a >= 1 else None
    if minus_edge:
        return (f"K{k}-e", f"k{k}e", _complete_minus_edge(k)) if kind == "K" and k >= 3 else None
    builders = {"P": _path, "C": _cycle, "K": Graph.complete, "W": _wheel}
    return (f"{kind}{k}", f"{kind.lower()}{k}", builders[kind](k)) if k >= 3 else None


@cache
def _family_members(n: int) -> tuple[tuple[str, str, Graph], ...]:
    """Every family member on n vertices (n > 5), to name a graph by isomorphism."""
    keys = [f"P{n}", f"C{n}", f"K{n}", f"K{n}E", f"W{n - 1}", *(["PETERSEN"] if n == 10 else [])]
    keys += [f"K{a},{n - a}" for a in range(1, n // 2 + 1)]
    return tuple(m for m in (_family(key) for key in keys) if m is not None)


def generated_name(graph: Graph) -> str:
    """``n{n}m{m}-{hash}``: the name of a graph outside the table and the families."""
    digest = hashlib.sha256(canonical_graph6(graph).encode()).hexdigest()[:HASH_DIGITS]
    return f"n{graph.n}m{graph.m}-{digest}"


def name_graph(graph: Graph) -> Pattern:
    """The one pattern of ``graph`` (any labelling): the table's name and labelling (≤ 5
    vertices), else the family's, else the generated name ``n{n}m{m}-{hash}`` with the canonical
    (nauty) labelling."""
    row = table_entry(graph)
    if row is not None:
        return Pattern(row.name, row.slug, row.graph)
    if graph.n > TABLE_MAX_VERTICES:
        canonical = canonical_graph6(graph)
        for name, slug, member in _family_members(graph.n):
            if member.m == graph.m and canonical_graph6(member) == canonical:
                return Pattern(name, slug, member)
    name = generated_name(graph)
    return Pattern(name, name.lower(), parse_graph(canonical_graph6(graph)))


# ---------------------------------------------------------------------------------------------
# Reading a pattern
# ---------------------------------------------------------------------------------------------
def _normalize(name: str) -> str:
    key = name.strip().upper().replace("∪", "U")
    key = re.sub(r"^K(\d+)[_\s]+(\d+)$", r"K\1,\2", key)  # K1_3 / K1 3 -> K1,3
    key = re.sub(r"[\s_()]", "", key)
    key = re.sub(r"[-−–—]", "-", key)
    return key.replace("-E", "E")


def _ambiguity(spec: str) -> str | None:
    """Why a compact ``Kab`` (``K12``, ``K13``, ``K23``) has two readings, or None.

    ``K1,2`` and ``K12`` are different graphs; the compact form is refused whenever it also
    reads as a complete bipartite graph ``Ka,b`` with at least two edges."""
    m = re.fullmatch(r"\s*[Kk](\d)(\d+)\s*", spec)
    if m is None or m.group(2).startswith("0"):
        return None
    a, b = int(m.group(1)), int(m.group(2))
    if a * b < 2:
        return None
    star = f"the star with {b} leaves" if a == 1 else "the complete bipartite graph"
    n = int(m.group(1) + m.group(2))
    size = "" if n <= MAX_PATTERN_VERTICES else ", too large here"
    return (
        f"pattern {spec.strip()!r} is ambiguous: write K{a},{b} for {star}, or K_{n} for the "
        f"complete graph on {n} vertices{size}"
    )


def _unknown(spec: str, reason: str) -> UnknownPatternError:
    return UnknownPatternError(
        f"unknown pattern {spec!r}: not a known name (P3, K3, K1,3, P4, TK3/paw, C4, K4-e, K4, "
        f"bull, house, kite, dart, gem, butterfly, W4, K2,3, … or a family Pk, Ck, Kk, K1,k, "
        f"Ka,b, Kk-e, Wk, Petersen) and not a readable edge list or graph6 string ({reason})"
    )


def _read_graph(spec: str) -> Graph:
    """The graph a pattern spelling stands for (table name, family, edge list or graph6)."""
    key = _normalize(spec)
    row = _table_by_spelling().get(key)
    if row is not None:
        return row.graph
    if complete := _COMPLETE.fullmatch(spec):  # K_12, K_{12}: the complete graph, unambiguous
        key = "K" + complete.group(1)
    elif (message := _ambiguity(spec)) is not None:
        raise UnknownPatternError(message)
    found = _family(key)
    if found is not None:
        return found[2]
    if complete:
        raise UnknownPatternError(f"pattern {spec.strip()}: a complete graph K_k needs k ≥ 3")
    if _GENERATED_NAME.fullmatch(spec.strip()):
        raise UnknownPatternError(
            f"{spec.strip()} is a generated name (vertices, edges, hash), which cannot be read "
            f"back: give the graph as an edge list or graph6 string"
        )
    try:
        return parse_graph(spec, max_vertices=MAX_PATTERN_VERTICES)
    except GraphFormatError as exc:
        raise _unknown(spec, str(exc)) from None


@lru_cache(maxsize=512)
def get_pattern(spec: str) -> Pattern:
    """Resolve a name, family name, edge list or graph6 string to a connected :class:`Pattern`
    carrying the graph's one name (:func:`name_graph`)."""
    if not isinstance(spec, str) or not spec.strip():
        raise UnknownPatternError("empty pattern name")
    graph = _read_graph(spec)
    if graph.m < 2 or not graph.is_connected():
        raise UnknownPatternError(
            f"pattern {spec.strip()} must be connected with at least 3 vertices (got {graph.n} "
            f"vertices, {graph.m} edge{'s' if graph.m != 1 else ''})"
        )
    return name_graph(graph)


@lru_cache(maxsize=1024)
def canonical_graph6(graph: Graph) -> str:
    """graph6 of the canonical relabelling (nauty): equal strings iff the graphs are isomorphic."""
    import pynauty

    g = pynauty.Graph(
        graph.n, adjacency_dict={v: list(nbrs) for v, nbrs in enumerate(graph.neighbors)}
    )
    position = {old: new for new, old in enumerate(pynauty.canon_label(g))}
    return Graph(graph.n, tuple((position[u], position[v]) for u, v in graph.edges)).to_graph6()


#: The paper's eight patterns as (name, slug, graph), in catalog order (rows of the table).
PAPER_PATTERNS: tuple[tuple[str, str, Graph], ...] = tuple(
    (row.name, row.slug, row.graph)
    for name in PAPER_NAMES
    for row in small_graphs()
    if row.name == name
)
