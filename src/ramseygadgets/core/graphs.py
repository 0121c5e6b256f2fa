"""Simple undirected graphs on vertices ``0..n-1`` and the text formats they are read from.

A :class:`Graph` is immutable: ``n`` vertices and a sorted tuple of edges ``(u, v)`` with
``u < v``.  Edge *indices* (positions in ``edges``) are what the SAT encoding uses as
variables (edge ``i`` is variable ``i + 1``).

Accepted input formats (:func:`parse_graph`):

* edge-list text: ``0 1`` per line, or ``0-1, 1-2``, ``(0,1) (1,2)``; ``#`` starts a comment;
* JSON: ``{"edges": [[0, 1], ...], "n": 5}`` (``n`` optional) or a bare list of pairs;
* graph6 (optionally with the ``>>graph6<<`` header).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import combinations
from typing import Any

from ramseygadgets.core.errors import GraphFormatError, GraphTooLargeError

__all__ = [
    "Edge",
    "DEFAULT_MAX_VERTICES",
    "Graph",
    "DENSE_MATRIX_MAX_VERTICES",
    "label_matrix",
    "load_json",
    "graph_from_mapping",
    "parse_edge_list",
    "graph6_order",
    "parse_graph6",
    "parse_graph",
]


Edge = tuple[int, int]

#: Default vertex limit for graphs read from users and models.
DEFAULT_MAX_VERTICES = 64


@dataclass(frozen=True)
class Graph:
    """A simple undirected graph with vertex set ``{0, ..., n-1}``."""

    n: int
    edges: tuple[Edge, ...] = field(default=())

    def __post_init__(self) -> None:
        n = self.n
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise GraphFormatError(f"vertex count must be a non-negative integer, got {n!r}")
        normalized = tuple(sorted({(u, v) if u < v else (v, u) for u, v in self.edges}))
        for u, v in normalized:
            if u == v or u < 0 or v >= n:
                what = f"a self-loop at {u}" if u == v else f"not within the vertices 0..{n - 1}"
                raise GraphFormatError(f"edge {u}-{v} is {what}")
        if normalized != self.edges:
            object.__setattr__(self, "edges", normalized)

    # -- construction -------------------------------------------------------------------
    @classmethod
    def from_edges(
        cls,
        edges: Iterable[Sequence[Any]],
        n: int | None = None,
        *,
        max_vertices: int | None = DEFAULT_MAX_VERTICES,
        allow_duplicates: bool = False,
    ) -> Graph:
        """Validate labels (non-negative integers, no loops, no duplicates) and build a graph.

        ``n`` defaults to one more than the largest label.
        """
        seen: set[Edge] = set()
        largest = -1
        for position, raw in enumerate(edges):
            u, v = _edge_pair(raw, position)
            if u == v:
                raise GraphFormatError(f"edge {position + 1} is a self-loop at vertex {u}")
            largest = max(largest, u, v)
            if max_vertices is not None and largest >= max_vertices:
                raise GraphTooLargeError(
                    f"graph has a vertex labelled {largest}, more than the limit of "
                    f"{max_vertices} vertices (labels 0..{max_vertices - 1})"
                )
            key = (u, v) if u < v else (v, u)
            if key in seen and not allow_duplicates:
                raise GraphFormatError(f"edge {key[0]}-{key[1]} is listed more than once")
            seen.add(key)
        if n is None:
            n = largest + 1
        else:
            n = _check_label(n, "vertex count n")
            if n <= largest:
                raise GraphFormatError(f"n = {n} but an edge uses vertex {largest}")
            if max_vertices is not None and n > max_vertices:
                raise GraphTooLargeError(
                    f"graph has {n} vertices, more than the limit of {max_vertices}"
                )
        return cls(n, tuple(sorted(seen)))

    @classmethod
    def complete(cls, n: int) -> Graph:
        return cls(n, tuple(combinations(range(n), 2)))

    # -- derived data (cached) ------------------------------------------------------------
    @property
    def m(self) -> int:
        return len(self.edges)

    @cached_property
    def edge_index(self) -> dict[Edge, int]:
        """Map ``(u, v)`` with ``u < v`` to the edge's index."""
        return {e: i for i, e in enumerate(self.edges)}

    @cached_property
    def adjacency(self) -> tuple[int, ...]:
        """Neighbour bitmask of every vertex."""
        adj = [0] * self.n
        for u, v in self.edges:
            adj[u] |= 1 << v
            adj[v] |= 1 << u
        return tuple(adj)

    @cached_property
    def neighbors(self) -> tuple[tuple[int, ...], ...]:
        """Sorted neighbours of every vertex."""
        out: list[list[int]] = [[] for _ in range(self.n)]
        for u, v in self.edges:  # edges are sorted, so each list comes out sorted
            out[u].append(v)
            out[v].append(u)
        return tuple(map(tuple, out))

    @cached_property
    def up_neighbors(self) -> tuple[tuple[int, ...], ...]:
        """Sorted neighbours larger than the vertex itself."""
        return tuple(tuple(w for w in nbrs if w > v) for v, nbrs in enumerate(self.neighbors))

    @cached_property
    def index_matrix(self) -> Sequence[Any]:
        """``M[u][v]`` = index of edge {u, v}, for edges only (check ``has_edge``). Read-only."""
        return label_matrix(self, range(self.m))

    @cached_property
    def incident_edges(self) -> tuple[tuple[int, ...], ...]:
        """Indices of the edges at each vertex."""
        out: list[list[int]] = [[] for _ in range(self.n)]
        for i, (u, v) in enumerate(self.edges):
            out[u].append(i)
            out[v].append(i)
        return tuple(tuple(x) for x in out)

    def degree(self, v: int) -> int:
        return len(self.neighbors[v])

    def has_edge(self, u: int, v: int) -> bool:
        return (min(u, v), max(u, v)) in self.edge_index

    def edge_id(self, u: int, v: int) -> int:
        """Index of edge ``{u, v}``; ``KeyError`` when absent."""
        return self.edge_index[(min(u, v), max(u, v))]

    def is_connected(self) -> bool:
        if self.n == 0:
            return True
        seen, stack = 1, [0]
        while stack:
            frontier = self.adjacency[stack.pop()] & ~seen
            seen |= frontier
            while frontier:
                low = frontier & -frontier
                stack.append(low.bit_length() - 1)
                frontier ^= low
        return seen == (1 << self.n) - 1

    # -- conversion -------------------------------------------------------------------------
    def to_networkx(self):  # -> networkx.Graph
        import networkx as nx

        g = nx.Graph()
        g.add_nodes_from(range(self.n))
        g.add_edges_from(self.edges)
        return g

    def to_graph6(self) -> str:
        """graph6 without header: the vertex count, then the upper triangle's bits column by
        column (pair (i, j), i < j, is bit j(j-1)/2 + i), six to a character, each + 63."""
        n, total = self.n, self.n * (self.n - 1) // 2
        if n <= 62:
            head = [n]
        else:
            shifts = range(12, -1, -6) if n <= 258047 else range(30, -1, -6)
            head = [63] * (1 if n <= 258047 else 2) + [(n >> s) & 63 for s in shifts]
        value = 0
        for u, v in self.edges:
            i, j = min(u, v), max(u, v)
            value |= 1 << (total - 1 - (j * (j - 1) // 2 + i))
        chunks = -(-total // 6)
        value <<= 6 * chunks - total
        data = [(value >> (6 * (chunks - 1 - k))) & 63 for k in range(chunks)]
        return bytes(x + 63 for x in head + data).decode("ascii")

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, "edges": [list(e) for e in self.edges]}

    def __str__(self) -> str:
        return (
            f"Graph(n={self.n}, m={self.m}, edges={', '.join(f'{u}-{v}' for u, v in self.edges)})"
        )


#: Above this many vertices, label matrices use one dict per vertex instead of a full row.
DENSE_MATRIX_MAX_VERTICES = 512


def label_matrix(graph: Graph, labels: Sequence[int]) -> Sequence[Any]:
    """``L[u][v] = labels[i]`` for every edge ``i = {u, v}`` (rows are lists, or dicts for huge n)."""
    n = graph.n
    if n <= DENSE_MATRIX_MAX_VERTICES:
        L: list[Any] = [[0] * n for _ in range(n)]
    else:
        L = [{} for _ in range(n)]
    for (u, v), x in zip(graph.edges, labels):
        L[u][v] = x
        L[v][u] = x
    return L


# ---------------------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------------------
def _check_label(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        elif isinstance(value, str) and value.strip().isdigit():
            value = int(value.strip())
        else:
            raise GraphFormatError(f"{what} must be a non-negative integer, got {value!r}")
    if value < 0:
        raise GraphFormatError(f"{what} must be a non-negative integer, got {value}")
    return value


def _edge_pair(raw: Any, position: int) -> Edge:
    if type(raw) in (tuple, list) and len(raw) == 2:  # the common case: two non-negative ints
        u, v = raw
        if type(u) is int and type(v) is int and u >= 0 and v >= 0:
            return u, v
    if isinstance(raw, (str, bytes)) or not isinstance(raw, Sequence) or len(raw) != 2:
        raise GraphFormatError(f"edge {position + 1} must be a pair of vertices, got {raw!r}")
    return _check_label(raw[0], "a vertex label"), _check_label(raw[1], "a vertex label")


def load_json(text: str) -> Any:
    """``json.loads`` with every failure (syntax, absurd nesting, 5000-digit numbers) as GraphFormatError."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise GraphFormatError(
            f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except RecursionError:
        raise GraphFormatError("malformed JSON: nested too deeply") from None
    except ValueError as exc:  # e.g. integers longer than Python's digit limit
        raise GraphFormatError(f"malformed JSON: {str(exc).split(';')[0]}") from None


def graph_from_mapping(
    data: Mapping[str, Any] | Sequence[Any], *, max_vertices: int | None = DEFAULT_MAX_VERTICES
) -> Graph:
    """Build a graph from decoded JSON: ``{"edges": [...], "n": k}`` or a list of pairs."""
    if isinstance(data, Mapping):
        if "edges" not in data:
            raise GraphFormatError('JSON graph needs an "edges" field (a list of [u, v] pairs)')
        edges, n = data["edges"], data.get("n")
    else:
        edges, n = data, None
    if not isinstance(edges, list):
        raise GraphFormatError(
            f'"edges" must be a list of [u, v] pairs, got {type(edges).__name__}'
        )
    return Graph.from_edges(edges, n, max_vertices=max_vertices)


_EDGE_TOKEN = re.compile(r"([0-9]+)|([-−–—])|([\s,;()\[\]{}]+)|(.)", re.S)


def _edge_list_pairs(text: str) -> Iterator[Edge]:
    """Vertex pairs of an edge list, line by line (so that a bad line stops reading at once)."""
    for line_no, raw_line in enumerate(text.splitlines(), start=1):
        line = raw_line.split("#", 1)[0]
        numbers: list[int] = []
        prev_number = False
        for match in _EDGE_TOKEN.finditer(line):
            number, dash, _sep, other = match.groups()
            if number is not None:
                if len(number) > 9:
                    raise GraphTooLargeError(
                        f"line {line_no}: vertex label {number[:12]}... is far too large"
                    )
                numbers.append(int(number))
                prev_number = True
            elif dash is not None:
                following = line[match.end() : match.end() + 1]
                if not prev_number and following.isdigit():
                    raise GraphFormatError(
                        f"line {line_no}: negative vertex label -{following}... (labels are 0, 1, 2, ...)"
                    )
                prev_number = False
            elif other is not None:
                if other == "." and prev_number:
                    raise GraphFormatError(
                        f"line {line_no}: vertex labels must be integers, found a decimal point"
                    )
                raise GraphFormatError(
                    f"line {line_no}: unexpected character {other!r} in edge list"
                )
            else:
                prev_number = False
        if len(numbers) % 2:
            raise GraphFormatError(
                f"line {line_no}: odd number of vertex labels ({len(numbers)}); each edge needs two"
            )
        yield from zip(numbers[::2], numbers[1::2])


def parse_edge_list(text: str, *, max_vertices: int | None = DEFAULT_MAX_VERTICES) -> Graph:
    """Read ``0 1`` / ``0-1, 1-2`` / ``(0,1)`` edge lists; labels are non-negative integers."""
    graph = Graph.from_edges(_edge_list_pairs(text), max_vertices=max_vertices)
    if graph.m == 0:
        raise GraphFormatError("no edges found in the edge list")
    return graph


_GRAPH6 = re.compile(r"^[\x3f-\x7e]+$")


def graph6_order(data: bytes) -> int:
    """Vertex count announced by a graph6 string's header (read before decoding)."""
    if not data:
        raise GraphFormatError("empty graph6 string")
    if data[0] != 126:
        return data[0] - 63
    if len(data) >= 4 and data[1] != 126:
        return ((data[1] - 63) << 12) | ((data[2] - 63) << 6) | (data[3] - 63)
    if len(data) >= 8:
        value = 0
        for byte in data[2:8]:
            value = (value << 6) | (byte - 63)
        return value
    raise GraphFormatError("truncated graph6 header")


def parse_graph6(text: str, *, max_vertices: int | None = DEFAULT_MAX_VERTICES) -> Graph:
    import networkx as nx

    data = text.strip().removeprefix(">>graph6<<").encode("ascii", "replace")
    if not _GRAPH6.match(data.decode()):
        raise GraphFormatError("not a graph6 string (characters outside '?'..'~')")
    order = graph6_order(data)
    if max_vertices is not None and order > max_vertices:
        raise GraphTooLargeError(
            f"graph6 string describes {order} vertices, more than the limit of {max_vertices}"
        )
    try:
        g = nx.from_graph6_bytes(data)
    except (nx.NetworkXError, ValueError) as exc:
        raise GraphFormatError(f"malformed graph6 string: {exc}") from None
    return Graph.from_edges(list(g.edges()), g.number_of_nodes(), max_vertices=max_vertices)


def parse_graph(text: str | bytes, *, max_vertices: int | None = DEFAULT_MAX_VERTICES) -> Graph:
    """Read a graph in any supported format (JSON, graph6, edge-list text), detected from its shape."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise GraphFormatError("input is not UTF-8 text") from None
    if "\x00" in text:
        raise GraphFormatError("input contains NUL bytes; expected text")
    stripped = text.strip().removeprefix("\ufeff").strip()  # a byte-order mark is not content
    if not stripped:
        raise GraphFormatError("empty input: no graph given")
    if stripped[0] in "{[":
        try:
            data = load_json(stripped)
        except GraphFormatError:
            if stripped[0] == "{":
                raise
            return parse_edge_list(stripped, max_vertices=max_vertices)  # e.g. "[0,1] [1,2]"
        return graph_from_mapping(data, max_vertices=max_vertices)
    if stripped.startswith(">>graph6<<") or (
        "\n" not in stripped and _GRAPH6.match(stripped) and not stripped.isdigit()
    ):
        return parse_graph6(stripped, max_vertices=max_vertices)
    return parse_edge_list(stripped, max_vertices=max_vertices)
